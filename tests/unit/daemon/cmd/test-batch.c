// SPDX-License-Identifier: MIT
/*
 * daemon/cmd/batch.c: `translate --batch` input. The reader returns every
 * line once, in order, whatever it holds (NUL bytes, any length, no final
 * newline); the parser names what is wrong with a line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/batch.h"

static FILE *input(const char *bytes, size_t len)
{
	FILE *f = fmemopen((void *)bytes, len, "r");

	assert_non_null(f);
	return f;
}

static void test_batch_nul_line_does_not_swallow_the_next(void **state)
{
	static const char in[] = "mem1 0x5123\nmem1 0x51\0"
				 "23\nmem1 0x10\n";
	struct hb_batch_line l = { 0 };
	FILE *f = input(in, sizeof(in) - 1);

	assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.len, 11);
	assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.lineno, 2);
	assert_int_equal(l.len, 12);
	assert_memory_equal(l.text,
			    "mem1 0x51\0"
			    "23",
			    12);
	assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.lineno, 3);
	assert_string_equal(l.text, "mem1 0x10");
	assert_int_equal(hb_batch_read_line(f, &l), 0);
	fclose(f);
}

static void test_batch_long_line_is_one_line(void **state)
{
	char in[1200];
	struct hb_batch_line l = { 0 };
	FILE *f;

	memset(in, 'a', sizeof(in));
	in[256] = '\n';                  /* line 1: exactly 256 bytes */
	in[514] = '\n';                  /* line 2: 257 bytes */
	in[1100] = '\n';                 /* line 3: 585 bytes */
	memcpy(in + 1101, "hpa 0x1", 7); /* line 4, no final newline */
	f = input(in, 1108);
	assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.total, 256);
	assert_int_equal(l.len, 256);
	assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.total, 257);
	assert_int_equal(l.len, HB_BATCH_LINE_MAX);
	assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.total, 585);
	assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.lineno, 4);
	assert_string_equal(l.text, "hpa 0x1");
	assert_int_equal(hb_batch_read_line(f, &l), 0);
	fclose(f);
}

static void test_batch_empty_lines_are_lines(void **state)
{
	struct hb_batch_line l = { 0 };
	FILE *f = input("\n\nx\n", 4);

	for (int i = 0; i < 3; i++)
		assert_int_equal(hb_batch_read_line(f, &l), 1);
	assert_int_equal(l.lineno, 3);
	assert_int_equal(hb_batch_read_line(f, &l), 0);
	fclose(f);
}

static void test_batch_read_error_is_reported(void **state)
{
	struct hb_batch_line l = { 0 };
	FILE *f = fopen("/", "r");

	assert_non_null(f);
	assert_int_equal(hb_batch_read_line(f, &l), -EISDIR);
	fclose(f);
}

static int parse(const char *text, size_t len, unsigned long lineno, size_t total,
		 struct hb_batch_query *q, char *why)
{
	struct hb_batch_line l = { .len = len, .total = total ? total : len, .lineno = lineno };

	memcpy(l.text, text, len);
	l.text[len] = '\0';
	why[0] = '\0';
	return hb_batch_parse_line(&l, q, why, 256);
}

static void test_batch_parse_queries(void **state)
{
	struct hb_batch_query q;
	char why[256];

	assert_int_equal(parse("mem1 0x5123", 11, 1, 0, &q, why), HB_BATCH_QUERY);
	assert_false(q.hpa);
	assert_string_equal(q.memdev, "mem1");
	assert_string_equal(q.addr, "0x5123");
	assert_int_equal(parse(" \thpa   0x39000b123\r", 20, 1, 0, &q, why), HB_BATCH_QUERY);
	assert_true(q.hpa);
	assert_string_equal(q.addr, "0x39000b123");
	assert_int_equal(parse("hpax 1", 6, 1, 0, &q, why), HB_BATCH_QUERY);
	assert_false(q.hpa);
	assert_string_equal(q.memdev, "hpax");
	assert_int_equal(parse("  # mem1 0x1", 12, 1, 0, &q, why), HB_BATCH_COMMENT);
}

static void test_batch_parse_names_what_is_wrong(void **state)
{
	struct hb_batch_query q;
	char why[256];

	assert_int_equal(parse("mem1 0x51\0"
			       "23",
			       12, 2, 0, &q, why),
			 -EINVAL);
	assert_string_equal(why, "line 2: NUL byte at column 10");
	assert_int_equal(parse("# x\0", 4, 3, 0, &q, why), -EINVAL); /* NUL first */
	assert_string_equal(why, "line 3: NUL byte at column 4");
	assert_int_equal(parse("", 0, 4, 0, &q, why), -EINVAL);
	assert_string_equal(why, "line 4: empty, expected 'MEMDEV DPA' or 'hpa HPA'");
	assert_int_equal(parse(" \t\r", 3, 5, 0, &q, why), -EINVAL);
	assert_non_null(strstr(why, "line 5: empty"));
	assert_int_equal(parse("hpa", 3, 6, 0, &q, why), -EINVAL);
	assert_string_equal(why, "line 6: 1 word, expected 'MEMDEV DPA' or 'hpa HPA'");
	assert_int_equal(parse("a b c", 5, 7, 0, &q, why), -EINVAL);
	assert_string_equal(why, "line 7: 3 words, expected 'MEMDEV DPA' or 'hpa HPA'");
	assert_int_equal(parse("mem1 0x1", 8, 8, 300, &q, why), -EINVAL);
	assert_string_equal(why, "line 8: 300 bytes, longer than the 256 a query may have");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_nul_line_does_not_swallow_the_next),
		cmocka_unit_test(test_batch_long_line_is_one_line),
		cmocka_unit_test(test_batch_empty_lines_are_lines),
		cmocka_unit_test(test_batch_read_error_is_reported),
		cmocka_unit_test(test_batch_parse_queries),
		cmocka_unit_test(test_batch_parse_names_what_is_wrong),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
