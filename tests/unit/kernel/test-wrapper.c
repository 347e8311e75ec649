// SPDX-License-Identifier: MIT
/* The move_phys_pages wrapper enables the call only on a kernel that has it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel.h"

static const char *root(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("HB_TEST_DATA");

	snprintf(buf, sizeof(buf), "%s/kallsyms/%s", dir ? dir : "tests/data", name);
	return buf;
}

static void test_wrapper_enables_only_a_real_text_symbol(void **state)
{
	struct hb_mpp m;
	struct hb_err err = {0};

	assert_int_equal(hb_mpp_probe(root("mpp"), 454, &m, &err), 0);
	assert_true(m.available);
	assert_int_equal(m.nr, 454);

	assert_int_equal(hb_mpp_probe(root("stub"), 454, &m, &err), -ENOSYS);
	assert_false(m.available);
	assert_non_null(strstr(err.msg, "stub"));

	assert_int_equal(hb_mpp_probe(root("stock"), 454, &m, &err), -ENOSYS);
	assert_false(m.available);
	/* on a stock kernel 454 is futex_wake: the wrapper must never call it */
	assert_int_equal(hb_mpp_move(&m, 0, NULL, NULL, NULL, 0), -ENOSYS);
}

static void test_wrapper_needs_a_configured_number(void **state)
{
	struct hb_mpp m;
	struct hb_err err = {0};

	assert_int_equal(hb_mpp_probe(root("mpp"), 0, &m, &err), -EINVAL);
	assert_false(m.available);
	assert_non_null(strstr(err.msg, "no move_phys_pages syscall number"));
	assert_int_equal(hb_mpp_probe(root("absent"), 454, &m, &err), -ENOENT);
	assert_false(m.available);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrapper_enables_only_a_real_text_symbol),
		cmocka_unit_test(test_wrapper_needs_a_configured_number),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
