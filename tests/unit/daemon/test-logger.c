// SPDX-License-Identifier: MIT
/*
 * The daemon's logger: log_level parsed once into a LOG_* threshold, an
 * unknown level refused (and the old one kept), messages below the
 * threshold never written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>

#include "logger.h"

static void test_logger_levels_parse_to_log_priorities(void **state)
{
	assert_int_equal(hb_log_level_from_string("err"), LOG_ERR);
	assert_int_equal(hb_log_level_from_string("warning"), LOG_WARNING);
	assert_int_equal(hb_log_level_from_string("notice"), LOG_NOTICE);
	assert_int_equal(hb_log_level_from_string("info"), LOG_INFO);
	assert_int_equal(hb_log_level_from_string("debug"), LOG_DEBUG);
	assert_int_equal(hb_log_level_from_string("Info"), -EINVAL);
	assert_int_equal(hb_log_level_from_string("warn"), -EINVAL);
	assert_int_equal(hb_log_level_from_string(""), -EINVAL);
	assert_int_equal(hb_log_level_from_string(NULL), -EINVAL);
}

static void test_logger_bad_level_or_target_is_refused(void **state)
{
	struct hb_logger l = { .level = LOG_NOTICE };

	assert_int_equal(hb_logger_init(&l, "loud", "stderr"), -EINVAL);
	assert_int_equal(hb_logger_init(&l, "info", "journal"), -EINVAL);
	assert_int_equal(l.level, LOG_NOTICE);
	assert_int_equal(hb_logger_init(&l, "info", "stderr"), 0);
	assert_int_equal(l.level, LOG_INFO);
	assert_false(l.syslog);
	assert_int_equal(hb_logger_set_level(&l, "verbose"), -EINVAL);
	assert_int_equal(l.level, LOG_INFO);
	assert_int_equal(hb_logger_set_level(&l, "err"), 0);
	assert_int_equal(l.level, LOG_ERR);
}

/* what three messages (info, warning, debug) put on stderr, into buf */
static void capture_stderr(const struct hb_logger *l, char *buf, size_t size)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) == 2);
	hb_logger_log(l, LOG_INFO, "an info %d", 1);
	hb_logger_log(l, LOG_WARNING, "a warning %d", 2);
	hb_logger_log(l, LOG_DEBUG, "a debug %d", 3);
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, size - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

static void test_logger_writes_only_at_or_above_its_level(void **state)
{
	struct hb_logger l;
	char out[512];

	unsetenv("JOURNAL_STREAM");
	assert_int_equal(hb_logger_init(&l, "warning", "stderr"), 0);
	capture_stderr(&l, out, sizeof(out));
	assert_string_equal(out, "hotbridge: a warning 2\n");
	assert_int_equal(hb_logger_set_level(&l, "debug"), 0);
	capture_stderr(&l, out, sizeof(out));
	assert_string_equal(out,
			    "hotbridge: an info 1\nhotbridge: a warning 2\nhotbridge: a debug 3\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_logger_levels_parse_to_log_priorities),
		cmocka_unit_test(test_logger_bad_level_or_target_is_refused),
		cmocka_unit_test(test_logger_writes_only_at_or_above_its_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
