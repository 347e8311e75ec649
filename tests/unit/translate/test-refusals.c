// SPDX-License-Identifier: MIT
/*
 * Translation cases the kernel handles since 6.15..7.0 (translate/refuse.c):
 * AMD Zen5 normalized addressing is refused by name, never translated; an
 * extended linear cache is translated as the kernel does (HPA = resource +
 * cache size + offset) and its DRAM half refused; a cache the source does
 * not state is refused. Fixtures: tests/data/cxl-list/zen5-normalized.*,
 * elc.* (see the README there).
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

#define SZ_256M (256ull << 20)
#define SZ_1G (1ull << 30)

static int load(const char *file, struct hb_topology **t, struct hb_err *err)
{
	char path[4096];
	const char *dir = getenv("HB_TEST_DATA");

	snprintf(path, sizeof(path), "%s/cxl-list/%s", dir ? dir : "tests/data", file);
	return hb_topology_load_json_file(path, NULL, t, err);
}

static void test_zen5_fixture_is_refused_by_name(void **state)
{
	static const char *const files[] = { "zen5-normalized.vvv.json",
					     "zen5-normalized.RDMTu.json" };

	for (size_t f = 0; f < 2; f++) {
		_hb_cleanup_topology_ struct hb_topology *t = NULL;
		struct hb_err err = { 0 };
		struct hb_xlat x;
		const struct hb_region *rg;

		if (load(files[f], &t, &err) < 0)
			fail_msg("%s: %s", files[f], err.msg);
		rg = hb_topology_region(t, 0);
		assert_non_null(strstr(rg->refused, "normalized addressing (AMD Zen5 PRM)"));
		for (int m = 0; m < 2; m++) {
			int md = hb_topology_find_memdev(t, m ? "mem1" : "mem0");

			/* decoder passthrough math would say 0x2050000000 + dpa: never */
			assert_int_equal(hb_topology_dpa_to_hpa(t, md, 0x1000, &x, &err),
					 HB_E_REFUSED);
			assert_non_null(strstr(err.msg, "normalized addressing"));
		}
		assert_int_equal(hb_topology_hpa_to_dpa(t, 0x2050001000ull, &x, &err), HB_E_REFUSED);
		assert_non_null(strstr(err.msg, "region0: normalized addressing"));
		/* past the region: the ordinary error */
		assert_int_equal(hb_topology_hpa_to_dpa(t, 0x2050000000ull + 8 * SZ_1G, &x, &err),
				 HB_E_UNMAPPED);
	}
}

/* One region, one target; the endpoint decoder's own HPA range and ways given. */
static int one_way(uint64_t root_base, unsigned root_ways, uint64_t ep_hpa, unsigned ep_ways,
		   uint64_t rg_base, unsigned rg_ways, struct hb_topology **ret, struct hb_err *err)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_memdev m = {
		.name = "mem0", .ram_size = SZ_1G, .serial = UINT64_MAX, .numa_node = -1
	};
	struct hb_root_decoder rd = { .name = "decoder0.0",
				      .hpa_base = root_base,
				      .hpa_size = 16 * SZ_1G,
				      .ways = root_ways,
				      .gran = 4096 };
	struct hb_endpoint_decoder e = { .name = "decoder2.0",
					 .memdev_name = "mem0",
					 .dpa_size = SZ_1G,
					 .mode = HB_MODE_RAM,
					 .region_name = "region0",
					 .ways = ep_ways,
					 .hpa_base = ep_hpa,
					 .hpa_size = SZ_1G };
	struct hb_region rg = { .name = "region0",
				.root_name = "decoder0.0",
				.hpa_base = rg_base,
				.hpa_size = SZ_1G * rg_ways,
				.ways = rg_ways,
				.gran = 4096,
				.committed = true,
				.mode = HB_MODE_RAM };
	int r;

	if (ep_hpa == UINT64_MAX) /* not reported (decoder "start" is root-only) */
		e.hpa_base = e.hpa_size = 0;
	for (unsigned p = 0; p < rg_ways; p++)
		snprintf(rg.target_names[p], HB_NAME_MAX, "decoder%u.0", 2 + p);
	r = hb_topology_new(&t);
	if (r < 0)
		return r;
	if ((r = hb_topology_add_memdev(t, &m, err)) < 0 ||
	    (r = hb_topology_add_root(t, &rd, err)) < 0 ||
	    (r = hb_topology_add_endpoint(t, &e, err)) < 0)
		return r;
	for (unsigned p = 1; p < rg_ways; p++) {
		struct hb_memdev mp = m;
		struct hb_endpoint_decoder ep = e;

		snprintf(mp.name, sizeof(mp.name), "mem%u", p);
		snprintf(ep.name, sizeof(ep.name), "decoder%u.0", 2 + p);
		snprintf(ep.memdev_name, sizeof(ep.memdev_name), "mem%u", p);
		if ((r = hb_topology_add_memdev(t, &mp, err)) < 0 ||
		    (r = hb_topology_add_endpoint(t, &ep, err)) < 0)
			return r;
	}
	if ((r = hb_topology_add_region(t, &rg, err)) < 0 || (r = hb_topology_finalize(t, err)) < 0)
		return r;
	*ret = HB_TAKE_PTR(t);
	return 0;
}

/*
 * A 1-way region at a fabric address whose decoder decodes at its DPA (the
 * kernel's own test in cxl_prm_setup_root) is refused; the same decoder at
 * the region's address translates; any other mismatch is an inconsistent
 * topology.
 */
static void test_normalized_one_way_is_detected_from_decoder_hpa(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL, *u = NULL;
	struct hb_err err = { 0 };
	struct hb_xlat x;

	assert_int_equal(one_way(0x1000000000ull, 1, 0, 1, 0x1000000000ull, 1, &t, &err), 0);
	assert_non_null(strstr(hb_topology_region(t, 0)->refused, "normalized addressing"));
	assert_int_equal(hb_topology_dpa_to_hpa(t, 0, 0x1234, &x, &err), HB_E_REFUSED);

	assert_int_equal(one_way(0x1000000000ull, 1, 0x1000000000ull, 1, 0x1000000000ull, 1, &u, &err),
			 0);
	assert_string_equal(hb_topology_region(u, 0)->refused, "");
	assert_int_equal(hb_topology_dpa_to_hpa(u, 0, 0x1234, &x, &err), 0);
	assert_int_equal(x.hpa, 0x1000001234ull);
}

static void test_normalized_interleaved_region_of_one_way_decoders(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_topology *bad = NULL;
	struct hb_err err = { 0 };

	/* 2-way root and region, decoders 1 way at 0: refused, not "ways differ" */
	assert_int_equal(one_way(0x1000000000ull, 2, 0, 1, 0x1000000000ull, 2, &t, &err), 0);
	assert_non_null(strstr(hb_topology_region(t, 0)->refused,
			       "decoder2.0 decodes 1 way at HPA 0x0 = its DPA, region0 2 ways"));
	/* without the decoders' HPA (non-root libcxl) their 1 way still tells */
	hb_topology_free(HB_TAKE_PTR(t));
	assert_int_equal(one_way(0x1000000000ull, 2, UINT64_MAX, 1, 0x1000000000ull, 2, &t, &err), 0);
	assert_non_null(strstr(hb_topology_region(t, 0)->refused, "normalized addressing"));
	/* a decoder elsewhere than its region, not the normalized pattern */
	assert_int_equal(one_way(0x1000000000ull, 1, 0x1040000000ull, 1, 0x1000000000ull, 1, &bad,
				 &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "target decoder2.0 decodes HPA 0x1040000000-"));
	assert_null(bad);
}

/* ELC, kernel steps (region.c cxl_dpa_to_hpa): hpa = offset + resource + cache_size */
static void test_elc_translates_both_ways_as_the_kernel(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	struct hb_xlat x;
	int m0, m1;

	if (load("elc.hb.json", &t, &err) < 0)
		fail_msg("elc.hb.json: %s", err.msg);
	assert_int_equal(hb_topology_region(t, 0)->cache_size, SZ_1G);
	m0 = hb_topology_find_memdev(t, "mem0");
	m1 = hb_topology_find_memdev(t, "mem1");
	/* mem1 pos 1, DPA 0x5123: chunk 5 -> (5*2+1)*0x1000 + 0x123 = 0xb123,
	 * + resource 0x400000000 + cache 0x40000000 */
	assert_int_equal(hb_topology_dpa_to_hpa(t, m1, 0x5123, &x, &err), 0);
	assert_int_equal(x.hpa, 0x44000b123ull);
	/* mem0 pos 0, last byte 0x1fffffff: chunk 0x1ffff -> 0x3fffe000 + 0xfff */
	assert_int_equal(hb_topology_dpa_to_hpa(t, m0, 0x1fffffff, &x, &err), 0);
	assert_int_equal(x.hpa, 0x47fffefffull);
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x44000b123ull, &x, &err), 0);
	assert_int_equal(x.memdev, m1);
	assert_int_equal(x.dpa, 0x5123);
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x440000000ull, &x, &err), 0);
	assert_int_equal(x.memdev, m0);
	assert_int_equal(x.dpa, 0);
	/* the DRAM half: refused, naming the cache and the alias */
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x40000b123ull, &x, &err), HB_E_REFUSED);
	assert_non_null(strstr(err.msg, "extended linear cache of region0"));
	assert_non_null(strstr(err.msg, "aliases HPA 0x44000b123"));
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x43fffffffull, &x, &err), HB_E_REFUSED);
	/* round trip over the CXL half */
	for (uint64_t off = 0; off < SZ_1G; off += 0x3ff01) {
		struct hb_xlat y;

		assert_int_equal(hb_topology_hpa_to_dpa(t, 0x440000000ull + off, &x, &err), 0);
		assert_int_equal(hb_topology_dpa_to_hpa(t, x.memdev, x.dpa, &y, &err), 0);
		assert_int_equal(y.hpa, 0x440000000ull + off);
	}
}

static void test_elc_round_trips_through_topology_json(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL, *u = NULL;
	struct hb_err err = { 0 };
	json_object *o;
	const char *s;

	assert_int_equal(load("elc.hb.json", &t, &err), 0);
	o = hb_topology_to_json(t);
	s = json_object_to_json_string(o);
	assert_int_equal(hb_topology_load_json(s, strlen(s), NULL, &u, &err), 0);
	json_object_put(o);
	assert_int_equal(hb_topology_region(u, 0)->cache_size, SZ_1G);
}

/* cxl-cli 76.1 on the same tree: no extended_linear_cache_size, refused by name */
static void test_elc_without_its_size_is_refused(void **state)
{
	static const char *const files[] = { "elc.vvv.json", "elc.RDMTu.json" };

	for (size_t f = 0; f < 2; f++) {
		_hb_cleanup_topology_ struct hb_topology *t = NULL;
		struct hb_err err = { 0 };
		struct hb_xlat x;

		if (load(files[f], &t, &err) < 0)
			fail_msg("%s: %s", files[f], err.msg);
		assert_non_null(strstr(hb_topology_region(t, 0)->refused,
				       "extended linear cache of unknown size"));
		assert_int_equal(hb_topology_dpa_to_hpa(t, hb_topology_find_memdev(t, "mem1"),
							0x5123, &x, &err),
				 HB_E_REFUSED);
		assert_int_equal(hb_topology_hpa_to_dpa(t, 0x44000b123ull, &x, &err), HB_E_REFUSED);
	}
}

static const char elc_doc[] =
	"[{\"memdevs\":[{\"memdev\":\"mem0\",\"ram_size\":\"0x40000000\"}]},"
	"{\"root decoders\":[{\"decoder\":\"decoder0.0\",\"resource\":\"0x400000000\","
	"\"size\":\"0x100000000\",\"interleave_ways\":1,\"interleave_arithmetic\":\"%s\","
	"\"xor_maps\":[]}]},"
	"{\"endpoint decoders\":[{\"decoder\":\"decoder2.0\",\"memdev\":\"mem0\","
	"\"dpa_resource\":\"0\",\"dpa_size\":\"0x40000000\",\"mode\":\"ram\",\"region\":\"region0\"}]},"
	"{\"regions\":[{\"region\":\"region0\",\"root_decoder\":\"decoder0.0\","
	"\"resource\":\"0x400000000\",\"size\":\"%s\",\"extended_linear_cache_size\":\"%s\","
	"\"interleave_ways\":1,\"interleave_granularity\":256,"
	"\"mappings\":[{\"position\":0,\"decoder\":\"decoder2.0\"}]}]}]";

static int load_elc(const char *arith, const char *size, const char *cache, struct hb_topology **t,
		    struct hb_err *err)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), elc_doc, arith, size, cache);
	return hb_topology_load_json(buf, strlen(buf), NULL, t, err);
}

static void test_elc_not_one_to_one_or_in_xor_window(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL, *x = NULL;
	struct hb_topology *bad = NULL;
	struct hb_err err = { 0 };
	struct hb_xlat r;

	assert_int_equal(load_elc("modulo", "0x80000000", "0x40000000", &t, &err), 0);
	assert_int_equal(hb_topology_dpa_to_hpa(t, 0, 0x1234, &r, &err), 0);
	assert_int_equal(r.hpa, 0x440001234ull);
	/* a cache of 2 GiB before a 1 GiB CXL part: the kernel supports only 1:1 */
	assert_int_equal(load_elc("modulo", "0xc0000000", "0x80000000", &bad, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "only a 1:1 cache"));
	assert_null(bad);
	/* XOR window: refused (kernel forward and reverse disagree by cache_size) */
	assert_int_equal(load_elc("xor", "0x80000000", "0x40000000", &x, &err), 0);
	assert_non_null(strstr(hb_topology_region(x, 0)->refused,
			       "extended linear cache in an XOR window"));
	assert_int_equal(hb_topology_dpa_to_hpa(x, 0, 0x1234, &r, &err), HB_E_REFUSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zen5_fixture_is_refused_by_name),
		cmocka_unit_test(test_normalized_one_way_is_detected_from_decoder_hpa),
		cmocka_unit_test(test_normalized_interleaved_region_of_one_way_decoders),
		cmocka_unit_test(test_elc_translates_both_ways_as_the_kernel),
		cmocka_unit_test(test_elc_round_trips_through_topology_json),
		cmocka_unit_test(test_elc_without_its_size_is_refused),
		cmocka_unit_test(test_elc_not_one_to_one_or_in_xor_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
