// SPDX-License-Identifier: MIT
/*
 * daemon/util/parse.c: the one number syntax of user input (CLI, batch
 * queries, config keys): decimal or 0x hex, never octal, nothing else.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/util.h"

static void test_parse_u64_decimal_and_hex(void **state)
{
	uint64_t v = 1;

	assert_int_equal(hb_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hb_parse_u64("10", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(hb_parse_u64("0x10", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(hb_parse_u64("0X5123", &v), 0);
	assert_int_equal(v, 0x5123);
	assert_int_equal(hb_parse_u64("0x0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hb_parse_u64("0x010", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(hb_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(hb_parse_u64("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void test_parse_u64_leading_zero_is_refused_not_octal(void **state)
{
	uint64_t v = 7;

	assert_int_equal(hb_parse_u64("010", &v), -EINVAL);
	assert_int_equal(hb_parse_u64("00", &v), -EINVAL);
	assert_int_equal(hb_parse_u64("0777", &v), -EINVAL);
	assert_int_equal(hb_parse_u64("09", &v), -EINVAL);
	assert_int_equal(v, 7); /* untouched on failure */
}

static void test_parse_u64_refuses_junk(void **state)
{
	const char *bad[] = { "",      " 1",  "1 ",  "-1",  "+1",    "0x",   "0x -1", "0x+1",
			      "0x0x5", "0xg", "12a", "1e3", "0b101", "0o17", "\t5" };
	uint64_t v = 7;

	assert_int_equal(hb_parse_u64(NULL, &v), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (hb_parse_u64(bad[i], &v) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
	}
	assert_int_equal(v, 7);
	assert_int_equal(hb_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(hb_parse_u64("0x10000000000000000", &v), -ERANGE);
}

/* explicit bases are for sysfs ("memory010" is not a thing, "0012" may be) */
static void test_parse_u64_base_10_and_16(void **state)
{
	uint64_t v;

	assert_int_equal(hb_parse_u64_base("42", 10, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(hb_parse_u64_base("ff", 16, &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(hb_parse_u64_base("0xff", 16, &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(hb_parse_u64_base("0x", 16, &v), -EINVAL);
	assert_int_equal(hb_parse_u64_base("ff", 10, &v), -EINVAL);
}

/* the reason of each refusal, as the CLI prints it: the real one, not "out of range" */
static void test_parse_u64_why_names_the_real_reason(void **state)
{
	static const struct {
		const char *s, *needle;
	} cases[] = {
		{ "010", "a leading zero" },
		{ "00", "a leading zero" },
		{ "0x", "0x without hex digits" },
		{ "0x-1", "0x without hex digits" },
		{ "-1", "no sign" },
		{ "+1", "no sign" },
		{ " 1", "blank" },
		{ "", "empty" },
		{ "abc", "not a number (decimal or 0x hex)" },
		{ "12abc", "not a number (decimal or 0x hex)" },
		{ "18446744073709551616", "above 2^64 - 1" },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = hb_parse_u64(cases[i].s, &v);
		const char *why = hb_parse_u64_why(cases[i].s, r);

		assert_true(r < 0);
		if (!strstr(why, cases[i].needle))
			fail_msg("'%s': \"%s\" does not say \"%s\"", cases[i].s, why,
				 cases[i].needle);
	}
}

static void test_parse_i64_and_int(void **state)
{
	int64_t v;
	int i;

	assert_int_equal(hb_parse_i64("-1", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(hb_parse_i64("-0x10", &v), 0);
	assert_int_equal(v, -16);
	assert_int_equal(hb_parse_i64("-9223372036854775808", &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(hb_parse_i64("9223372036854775808", &v), -ERANGE);
	assert_int_equal(hb_parse_i64("-9223372036854775809", &v), -ERANGE);
	assert_int_equal(hb_parse_i64("-010", &v), -EINVAL);
	assert_int_equal(hb_parse_i64("--1", &v), -EINVAL);
	assert_int_equal(hb_parse_i64("-", &v), -EINVAL);
	assert_int_equal(hb_parse_int("-2147483648", &i), 0);
	assert_int_equal(i, -2147483647 - 1);
	assert_int_equal(hb_parse_int("2147483648", &i), -ERANGE);
	assert_int_equal(hb_parse_int("010", &i), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64_decimal_and_hex),
		cmocka_unit_test(test_parse_u64_leading_zero_is_refused_not_octal),
		cmocka_unit_test(test_parse_u64_refuses_junk),
		cmocka_unit_test(test_parse_u64_base_10_and_16),
		cmocka_unit_test(test_parse_i64_and_int),
		cmocka_unit_test(test_parse_u64_why_names_the_real_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
