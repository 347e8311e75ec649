// SPDX-License-Identifier: MIT
/*
 * daemon/cmd/opt.c: the rules every command shares. hb_cmd_fail() is the
 * commands' "log and return": one "PROG: MESSAGE" line on stderr, whole
 * however long, errno kept for %m, and the caller's return value back;
 * hb_opt_u64() says why a number option is refused through it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/opt.h"

static int saved_fd = -1;
static FILE *capture;

/* stderr into a scratch file until captured() */
static void capture_stderr(void)
{
	fflush(stderr);
	capture = tmpfile();
	assert_non_null(capture);
	saved_fd = dup(STDERR_FILENO);
	assert_true(saved_fd >= 0);
	assert_true(dup2(fileno(capture), STDERR_FILENO) >= 0);
}

/* what was written since capture_stderr(); the caller frees it */
static char *captured(void)
{
	char *out;
	long n;

	fflush(stderr);
	assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
	close(saved_fd);
	n = ftell(capture);
	assert_true(n >= 0);
	out = calloc(1, (size_t)n + 1);
	assert_non_null(out);
	rewind(capture);
	assert_int_equal(fread(out, 1, (size_t)n, capture), (size_t)n);
	fclose(capture);
	return out;
}

static void test_cmd_fail_says_prog_and_message_and_returns_rc(void **state)
{
	char *out;

	capture_stderr();
	assert_int_equal(hb_cmd_fail(2, "hotbridge demo", "unexpected argument '%s'", "x"), 2);
	assert_int_equal(hb_cmd_fail(-ENAMETOOLONG, "hotbridge run", "%s: path too long", "/s"),
			 -ENAMETOOLONG);
	assert_int_equal(hb_cmd_fail(1, "hotbridge topology", "no format"), 1);
	out = captured();
	assert_string_equal(out, "hotbridge demo: unexpected argument 'x'\n"
				 "hotbridge run: /s: path too long\n"
				 "hotbridge topology: no format\n");
	free(out);
}

static void test_cmd_fail_keeps_errno_for_percent_m_and_the_caller(void **state)
{
	char *out, *want;

	capture_stderr();
	errno = EPIPE;
	assert_int_equal(hb_cmd_fail(1, "hotbridge translate", "write error: %m"), 1);
	assert_int_equal(errno, EPIPE);
	out = captured();
	assert_true(asprintf(&want, "hotbridge translate: write error: %s\n", strerror(EPIPE)) > 0);
	assert_string_equal(out, want);
	free(want);
	free(out);
}

static void test_cmd_fail_writes_a_long_message_whole(void **state)
{
	size_t len = 9000;
	char *path = malloc(len + 1), *out;

	assert_non_null(path);
	memset(path, 'p', len);
	path[len] = '\0';
	capture_stderr();
	assert_int_equal(hb_cmd_fail(-ENAMETOOLONG, "hotbridge run", "%s: path too long", path),
			 -ENAMETOOLONG);
	out = captured();
	assert_int_equal(strlen(out), strlen("hotbridge run: ") + len + strlen(": path too long\n"));
	assert_memory_equal(out + strlen("hotbridge run: "), path, len);
	free(out);
	free(path);
}

static void test_opt_u64_names_why_a_number_is_refused(void **state)
{
	uint64_t v = 7;
	char *out;

	capture_stderr();
	assert_int_equal(hb_opt_u64("hotbridge demo", "--cycles", "12x", 1, 100, "1 to 100", &v),
			 -EINVAL);
	assert_int_equal(hb_opt_u64("hotbridge demo", "--cycles", "101", 1, 100, "1 to 100", &v),
			 -EINVAL);
	assert_int_equal(v, 7);
	assert_int_equal(hb_opt_u64("hotbridge demo", "--cycles", "0x10", 1, 100, "1 to 100", &v), 0);
	assert_int_equal(v, 16);
	out = captured();
	assert_non_null(strstr(out, "hotbridge demo: --cycles '12x' "));
	assert_non_null(
		strstr(out, "; want 1 to 100\nhotbridge demo: --cycles '101': want 1 to 100\n"));
	assert_null(strstr(out, "0x10"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_fail_says_prog_and_message_and_returns_rc),
		cmocka_unit_test(test_cmd_fail_keeps_errno_for_percent_m_and_the_caller),
		cmocka_unit_test(test_cmd_fail_writes_a_long_message_whole),
		cmocka_unit_test(test_opt_u64_names_why_a_number_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
