// SPDX-License-Identifier: MIT
/*
 * hb_topology_open(): where a topology comes from. A snapshot with and
 * without a CEDT (the x2-2hb fixtures: the XOR window moves mem0's DPA
 * 0x400 from 0x...800 to 0x...900), and errors naming the file that did
 * not load, with nothing handed out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "translate.h"

static const char *data_path(char *buf, size_t size, const char *rel)
{
	const char *dir = getenv("HB_TEST_DATA");

	snprintf(buf, size, "%s/%s", dir ? dir : "tests/data", rel);
	return buf;
}

static uint64_t hpa_of_mem0_0x400(const struct hb_topology *t)
{
	struct hb_err err = { 0 };
	struct hb_xlat x;

	if (hb_topology_dpa_to_hpa(t, hb_topology_find_memdev(t, "mem0"), 0x400, &x, &err) < 0)
		fail_msg("%s", err.msg);
	return x.hpa;
}

static void test_open_snapshot_with_and_without_cedt(void **state)
{
	static const struct {
		const char *cedt;
		uint64_t hpa;
	} v[] = {
		{ NULL, 0x390000800ull }, /* no CEDT with a snapshot: modulo */
		{ "cedt/x2-2hb-modulo.cedt", 0x390000800ull },
		{ "cedt/x2-2hb-xor.cedt", 0x390000900ull },
	};
	char snap[4096], cedt[4096];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		_hb_cleanup_topology_ struct hb_topology *t = NULL;
		struct hb_topology_source src = {
			.topology = data_path(snap, sizeof(snap), "cxl-list/x2-2hb.vvv.json"),
			.cedt = v[i].cedt ? data_path(cedt, sizeof(cedt), v[i].cedt) : NULL,
		};
		struct hb_err err = { 0 };

		if (hb_topology_open(&src, &t, &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(hpa_of_mem0_0x400(t), v[i].hpa);
		assert_int_equal(hb_topology_root(t, 0)->arith,
				 strstr(v[i].cedt ? v[i].cedt : "", "xor") ? HB_ARITH_XOR :
									     HB_ARITH_MODULO);
	}
}

static void test_open_errors_name_the_file(void **state)
{
	struct hb_topology *t = (struct hb_topology *)&t; /* must stay untouched */
	struct hb_topology *const before = t;
	char snap[4096], cedt[4096];
	struct hb_topology_source src = {
		.topology = data_path(snap, sizeof(snap), "cxl-list/x2-2hb.vvv.json"),
		.cedt = data_path(cedt, sizeof(cedt), "cedt/no-such.cedt"),
	};
	struct hb_err err = { 0 };

	assert_int_equal(hb_topology_open(&src, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cedt/no-such.cedt"));
	assert_ptr_equal(t, before);

	src.cedt = NULL;
	src.topology = data_path(snap, sizeof(snap), "cxl-list/no-such.json");
	hb_err_clear(&err);
	assert_int_equal(hb_topology_open(&src, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cxl-list/no-such.json"));
	assert_ptr_equal(t, before);

	/* a CEDT that does not parse (a snapshot is no CEDT) names it too */
	src.cedt = data_path(cedt, sizeof(cedt), "cxl-list/x2-2hb.vvv.json");
	src.topology = data_path(snap, sizeof(snap), "cxl-list/x2-2hb.vvv.json");
	hb_err_clear(&err);
	assert_true(hb_topology_open(&src, &t, &err) < 0);
	assert_true(err.msg[0] != '\0');
	assert_ptr_equal(t, before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_snapshot_with_and_without_cedt),
		cmocka_unit_test(test_open_errors_name_the_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
