// SPDX-License-Identifier: MIT
/*
 * A snapshot from the kernel's own mock topology (cxl_test, 6.12): an RCH
 * memdev's region translates to the HPAs the kernel reported for it, both
 * ways; and a region whose target decoder the source does not list is
 * refused alone, naming the decoder, while the other regions translate.
 * Fixtures: tests/data/cxl-list/cxltest-rch.* (see the README there).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "translate.h"

static void data_path(char *buf, size_t size, const char *file)
{
	const char *dir = getenv("HB_TEST_DATA");

	snprintf(buf, size, "%s/cxl-list/%s", dir ? dir : "tests/data", file);
}

static void test_rch_region_agrees_with_the_kernel(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	char path[4096], memdev[32], region[32];
	unsigned long long dpa, hpa;
	unsigned n = 0, mapped = 0;
	FILE *f;

	(void)state;
	data_path(path, sizeof(path), "cxltest-rch.vvv.json");
	if (hb_topology_load_json_file(path, NULL, &t, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	data_path(path, sizeof(path), "cxltest-rch.events");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fscanf(f, "%31s %llx %llx", memdev, &dpa, &hpa) == 3) {
		struct hb_xlat x, back;
		int md = hb_topology_find_memdev(t, memdev);
		int r;

		region[0] = '\0';
		if (fgetc(f) == ' ' && fscanf(f, "%31s", region) != 1)
			region[0] = '\0';
		n++;
		assert_true(md >= 0);
		r = hb_topology_dpa_to_hpa(t, md, dpa, &x, &err);
		if (hpa == UINT64_MAX) {
			/* the kernel maps it to no region: neither may we */
			assert_true(r < 0);
			continue;
		}
		if (r < 0)
			fail_msg("%s %#llx: the kernel says %#llx, we say: %s", memdev, dpa, hpa,
				 err.msg);
		assert_int_equal(x.hpa, hpa);
		assert_string_equal(hb_topology_region(t, x.region)->name, region);
		assert_int_equal(hb_topology_hpa_to_dpa(t, hpa, &back, &err), 0);
		assert_int_equal(back.memdev, md);
		assert_int_equal(back.dpa, dpa);
		mapped++;
	}
	fclose(f);
	assert_int_equal(n, 10);
	assert_int_equal(mapped, 9);
}

/* The fixture without the RCH endpoint's decoders, as a reader that misses
 * them (libcxl 76.1's memdev-to-endpoint lookup) would give it. */
static char *without_rch_decoders(void)
{
	char path[4096];
	json_object *doc, *bus, *eps;
	char *s;

	data_path(path, sizeof(path), "cxltest-rch.vvv.json");
	doc = json_object_from_file(path);
	assert_non_null(doc);
	bus = json_object_array_get_idx(doc, 0);
	assert_true(json_object_object_get_ex(bus, "endpoints:root0", &eps));
	for (size_t i = 0; i < json_object_array_length(eps); i++) {
		json_object *ep = json_object_array_get_idx(eps, i), *name;
		char key[64];

		assert_true(json_object_object_get_ex(ep, "endpoint", &name));
		snprintf(key, sizeof(key), "decoders:%s", json_object_get_string(name));
		json_object_object_del(ep, key);
	}
	s = strdup(json_object_to_json_string(doc));
	json_object_put(doc);
	return s;
}

static void test_unlisted_target_decoder_refuses_only_its_region(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	char *doc = without_rch_decoders();
	struct hb_xlat x;
	int rch, r0;

	(void)state;
	if (hb_topology_load_json(doc, strlen(doc), NULL, &t, &err) < 0)
		fail_msg("one unlisted decoder failed the whole snapshot: %s", err.msg);
	free(doc);
	rch = hb_topology_find_region(t, "region5");
	r0 = hb_topology_find_region(t, "region0");
	assert_true(rch >= 0 && r0 >= 0);
	assert_non_null(strstr(hb_topology_region(t, rch)->refused,
			       "names endpoint decoder decoder12.0, which is not listed"));
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0xf1d0000040ull, &x, &err), HB_E_REFUSED);
	assert_non_null(strstr(err.msg, "decoder12.0"));
	/* the mock BIOS's region0 still translates, there and back */
	assert_string_equal(hb_topology_region(t, r0)->refused, "");
	assert_int_equal(hb_topology_hpa_to_dpa(t, hb_topology_region(t, r0)->hpa_base + 0x1040, &x,
						&err),
			 0);
	assert_int_equal(x.region, r0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rch_region_agrees_with_the_kernel),
		cmocka_unit_test(test_unlisted_target_decoder_refuses_only_its_region),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
