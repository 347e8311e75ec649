// SPDX-License-Identifier: MIT
/*
 * Every real `cxl list` fixture under tests/data/cxl-list: the -vvv and the
 * -RDMT -u snapshot of the same tree load, translate every sampled address
 * identically, and HPA -> DPA -> HPA is the identity across each region;
 * distinct (memdev, DPA) never meet at one HPA. A plain `cxl list -R`
 * (no mappings) is refused with a hint.
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

static const char *const fixtures[] = {
	"x1", "x2", "x2-2hb", "x3", "x4", "x6", "x8", "x12", "x16", "mixed",
};

static int load(const char *name, const char *kind, struct hb_topology **t, struct hb_err *err)
{
	char path[4096];
	const char *dir = getenv("HB_TEST_DATA");

	snprintf(path, sizeof(path), "%s/cxl-list/%s.%s.json", dir ? dir : "tests/data", name, kind);
	return hb_topology_load_json_file(path, NULL, t, err);
}

static void test_fixtures_vvv_and_human_agree_and_round_trip(void **state)
{
	unsigned max_ways = 0;

	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		_hb_cleanup_topology_ struct hb_topology *a = NULL, *b = NULL;
		struct hb_err err = { 0 };

		if (load(fixtures[f], "vvv", &a, &err) < 0)
			fail_msg("%s.vvv: %s", fixtures[f], err.msg);
		if (load(fixtures[f], "RDMTu", &b, &err) < 0)
			fail_msg("%s.RDMTu: %s", fixtures[f], err.msg);
		for (size_t i = 0; i < hb_topology_nr_regions(a); i++) {
			const struct hb_region *rg = hb_topology_region(a, i);
			uint64_t step = rg->hpa_size / 4099 | 1;

			if (!rg->committed)
				continue; /* -RDMT without -i may not list it */
			if (hb_topology_find_region(b, rg->name) < 0)
				fail_msg("%s: %s missing from -RDMT -u", fixtures[f], rg->name);
			if (rg->ways > max_ways)
				max_ways = rg->ways;
			for (uint64_t off = 0; off < rg->hpa_size; off += step) {
				struct hb_xlat x, y, z;
				int mb;

				assert_int_equal(hb_topology_hpa_to_dpa(a, rg->hpa_base + off, &x,
									&err),
						 0);
				assert_int_equal(hb_topology_dpa_to_hpa(a, x.memdev, x.dpa, &y, &err),
						 0);
				assert_int_equal(y.hpa, rg->hpa_base + off);
				mb = hb_topology_find_memdev(
					b, hb_topology_memdev(a, (size_t)x.memdev)->name);
				assert_true(mb >= 0);
				assert_int_equal(hb_topology_dpa_to_hpa(b, mb, x.dpa, &z, &err), 0);
				assert_int_equal(z.hpa, y.hpa);
			}
		}
	}
	assert_int_equal(max_ways, 16);
}

static void test_fixtures_plain_region_listing_is_refused(void **state)
{
	struct hb_topology *t = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(load("x2", "R", &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "without -T"));
	assert_null(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_vvv_and_human_agree_and_round_trip),
		cmocka_unit_test(test_fixtures_plain_region_listing_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
