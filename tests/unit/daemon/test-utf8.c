// SPDX-License-Identifier: MIT
/*
 * daemon/util/utf8.c: text echoed into JSON stays valid UTF-8; every byte
 * that is not (and every NUL) shows as \xNN, the rest is untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/util.h"
#include "utf8.h"

static void expect(const char *in, size_t len, const char *want)
{
	char *out = NULL;

	assert_int_equal(hb_utf8_escape(in, len, &out), 0);
	assert_string_equal(out, want);
	assert_true(hb_utf8_valid(out, strlen(out)));
	free(out);
}

static void test_utf8_valid_text_is_kept(void **state)
{
	expect("mem1 0x5123", 11, "mem1 0x5123");
	expect("", 0, "");
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
	       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_true(hb_utf8_valid("\xf4\x8f\xbf\xbf", 4)); /* U+10FFFF */
}

static void test_utf8_invalid_bytes_become_hex_escapes(void **state)
{
	expect("mem\xff", 4, "mem\\xff");
	expect("a\0b", 3, "a\\x00b");
	expect("\xc3", 1, "\\xc3");                            /* truncated */
	expect("\xc0\xaf", 2, "\\xc0\\xaf");                   /* overlong '/' */
	expect("\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf");          /* overlong */
	expect("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");          /* surrogate D800 */
	expect("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	expect("\xe2\x82x", 3, "\\xe2\\x82x");                 /* cut short by ASCII */
	assert_false(hb_utf8_valid("a\0", 2));
	assert_false(hb_utf8_valid("\x80", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_valid_text_is_kept),
		cmocka_unit_test(test_utf8_invalid_bytes_become_hex_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
