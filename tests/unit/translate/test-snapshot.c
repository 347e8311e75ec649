// SPDX-License-Identifier: MIT
/*
 * Snapshots the loader must refuse (tests/data/snapshots/bad, each a real
 * snapshot with one edit): each error names the snapshot and the object,
 * in cxl list's words, and no topology is handed out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "translate.h"

static void expect_refused(const char *file, const char *msg)
{
	const char *dir = getenv("HB_TEST_DATA");
	struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	char path[2048], want[4096];
	int r;

	snprintf(path, sizeof(path), "%s/snapshots/bad/%s", dir ? dir : "tests/data", file);
	snprintf(want, sizeof(want), "snapshot %s: %s", path, msg);
	r = hb_topology_load_json_file(path, NULL, &t, &err);
	if (r >= 0 || strcmp(err.msg, want))
		fail_msg("%s: r=%d\n got  '%s'\n want '%s'", file, r, err.msg, want);
	assert_null(t);
}

static void expect_refused_json(const char *json, const char *needle)
{
	struct hb_topology *t = NULL;
	struct hb_err err = { 0 };

	assert_true(hb_topology_load_json(json, strlen(json), NULL, &t, &err) < 0);
	assert_null(t);
	if (!strstr(err.msg, needle))
		fail_msg("'%s': \"%s\" does not say \"%s\"", json, err.msg, needle);
}

static void test_snapshot_memdev_listed_twice_is_refused(void **state)
{
	(void)state;
	expect_refused("memdev-twice.json", "memdev mem1: listed twice, with serial 0x1 and 0x7");
}

static void test_snapshot_dpa_beyond_capacity_is_refused(void **state)
{
	(void)state;
	expect_refused("dpa-beyond-capacity.json",
		       "memdev mem1: decoder decoder3.0: DPA 0x10000000-0x1fffffff lies beyond "
		       "the device's capacity 0x10000000");
}

static void test_snapshot_unaligned_dpa_resource_is_refused(void **state)
{
	(void)state;
	expect_refused("dpa-unaligned.json",
		       "memdev mem1: decoder decoder3.0: dpa_resource 0x1001 not aligned to 256 MiB");
}

static void test_snapshot_size_with_trailing_garbage_is_refused(void **state)
{
	(void)state;
	expect_refused("size-garbage.json",
		       "region region0: size \"512.00 MiB garbage\" is not a number or size");
}

static void test_snapshot_top_level_scalar_is_not_called_truncated(void **state)
{
	(void)state;
	expect_refused("null.json", "expected a JSON array or object (cxl list output), got null");
	expect_refused("number.json",
		       "expected a JSON array or object (cxl list output), got a number");
}

/*
 * `cxl list` on a host without CXL prints "[\n]": an empty model, as an
 * empty live topology is (the commands warn), so a snapshot saved before
 * any region was created loads. Content without any CXL object does not.
 */
static void test_snapshot_empty_cxl_list_is_an_empty_model(void **state)
{
	static const char *const empty[] = { "[\n]", "[]", "{}", " [ ] \n" };
	struct hb_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		struct hb_topology *t = NULL;
		int r = hb_topology_load_json(empty[i], strlen(empty[i]), NULL, &t, &err);

		if (r < 0)
			fail_msg("'%s' refused: %s", empty[i], err.msg);
		assert_int_equal(hb_topology_nr_memdevs(t), 0);
		assert_int_equal(hb_topology_nr_regions(t), 0);
		hb_topology_free(t);
	}
	expect_refused_json("[1,2]", "holds no memdev, decoder or region");
	expect_refused_json("[{}]", "holds no memdev, decoder or region");
}

/* documents in memory: what -u may print, empties, keys named as written */
static void test_snapshot_sizes_and_empty_documents(void **state)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "", "JSON document is empty (0 bytes)" },
		{ " \n", "JSON document is empty (2 bytes)" },
		{ "[{\"memdev\":", "JSON document is truncated (11 bytes)" },
		{ "true", "expected a JSON array or object (cxl list output), got a boolean" },
		{ "\"x\"", "expected a JSON array or object (cxl list output), got a string" },
		{ "[{\"memdev\":\"mem0\",\"ram_size\":\"256.00 MiB (268.44 MB) x\"}]",
		  "memdev mem0: ram_size \"256.00 MiB (268.44 MB) x\" is not a number or size" },
		{ "[{\"memdev\":\"mem0\",\"ram_size\":\"256.00 MiB (268.44 MB\"}]",
		  "memdev mem0: ram_size \"256.00 MiB (268.44 MB\" is not a number or size" },
		{ "[{\"decoder\":\"decoder2.0\",\"memdev\":\"mem0\",\"dpa_resource\":0,"
		  "\"dpa_size\":4096}]",
		  "memdev mem0: decoder decoder2.0: dpa_size 0x1000 not aligned to 256 MiB" },
		/* the key as the user wrote it, not the loader's scratch name */
		{ "[{\"decoder\":\"decoder0.0\",\"resource\":0,\"size\":268435456,"
		  "\"interleave_ways\":1,\"pmem_capable\":true,\"xor_maps\":[\"0x100\",\"zz\"]}]",
		  "root decoder decoder0.0: xor_maps[1] \"zz\" is not a number or size" },
		{ "[{\"region\":\"region0\",\"resource\":0,\"size\":268435456,\"interleave_ways\":1,"
		  "\"interleave_granularity\":256,\"mappings\":[{\"position\":-1,\"decoder\":\"d\"}]}]",
		  "region region0: position is negative" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hb_topology *t = NULL;
		struct hb_err err = { 0 };
		int r = hb_topology_load_json(bad[i].json, strlen(bad[i].json), NULL, &t, &err);

		if (r >= 0 || strcmp(err.msg, bad[i].msg))
			fail_msg("case %zu: r=%d\n got  '%s'\n want '%s'", i, r, err.msg, bad[i].msg);
		assert_null(t);
	}
}

/* cxl list -u's own format still loads: "256.00 MiB (268.44 MB)", bare "1.00 GiB" */
static void test_snapshot_cxl_list_u_sizes_still_load(void **state)
{
	static const char doc[] = "[{\"memdev\":\"mem0\",\"ram_size\":\"256.00 MiB (268.44 MB)\"},"
				  "{\"memdev\":\"mem1\",\"ram_size\":\"1.00 GiB\"}]";
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };

	(void)state;
	if (hb_topology_load_json(doc, sizeof(doc) - 1, NULL, &t, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(hb_topology_memdev(t, 0)->ram_size, 256ull << 20);
	assert_int_equal(hb_topology_memdev(t, 1)->ram_size, 1ull << 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_memdev_listed_twice_is_refused),
		cmocka_unit_test(test_snapshot_dpa_beyond_capacity_is_refused),
		cmocka_unit_test(test_snapshot_unaligned_dpa_resource_is_refused),
		cmocka_unit_test(test_snapshot_size_with_trailing_garbage_is_refused),
		cmocka_unit_test(test_snapshot_top_level_scalar_is_not_called_truncated),
		cmocka_unit_test(test_snapshot_sizes_and_empty_documents),
		cmocka_unit_test(test_snapshot_empty_cxl_list_is_an_empty_model),
		cmocka_unit_test(test_snapshot_cxl_list_u_sizes_still_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
