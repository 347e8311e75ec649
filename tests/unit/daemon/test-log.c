// SPDX-License-Identifier: MIT
/*
 * The journald decision and prefixes: stderr is the journal only when
 * $JOURNAL_STREAM names stderr's own device:inode (sd-daemon(3)); then
 * every line, start-up errors included, carries "<prio>". A line stderr
 * does not take (its reader gone: EPIPE) goes to syslog instead (syslog()
 * is wrapped here, and glibc's fortified __syslog_chk() too).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

static void test_log_journal_stream_must_name_dev_and_ino(void **state)
{
	(void)state;
	assert_true(hb_log_journal_stream_matches("64769:1234", 64769, 1234));
	assert_true(hb_log_journal_stream_matches("0:7", 0, 7));
	assert_false(hb_log_journal_stream_matches("64769:1235", 64769, 1234));
	assert_false(hb_log_journal_stream_matches("64768:1234", 64769, 1234));
	assert_false(hb_log_journal_stream_matches(NULL, 64769, 1234));
	assert_false(hb_log_journal_stream_matches("", 64769, 1234));
	assert_false(hb_log_journal_stream_matches("64769", 64769, 1234));
	assert_false(hb_log_journal_stream_matches("64769:", 64769, 1234));
	assert_false(hb_log_journal_stream_matches(":1234", 64769, 1234));
	assert_false(hb_log_journal_stream_matches("64769:1234x", 64769, 1234));
	assert_false(hb_log_journal_stream_matches("0xfd01:1234", 64769, 1234));
	assert_false(hb_log_journal_stream_matches("64769:-1234", 64769, 1234));
}

/* hb_log_early() with stderr on a scratch file; returns what it wrote */
static char *early_line(const char *journal_stream_of, const char *invocation_id)
{
	char path[] = "/tmp/hb-test-log.XXXXXX", env[64];
	static char out[512];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct stat st;
	FILE *f;
	size_t n;

	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	unsetenv("JOURNAL_STREAM");
	unsetenv("INVOCATION_ID");
	if (journal_stream_of) {
		if (!strcmp(journal_stream_of, "stderr"))
			snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
				 (unsigned long long)st.st_ino);
		else
			snprintf(env, sizeof(env), "%s", journal_stream_of);
		setenv("JOURNAL_STREAM", env, 1);
	}
	if (invocation_id)
		setenv("INVOCATION_ID", invocation_id, 1);
	fflush(stderr);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	hb_log_early(LOG_ERR, "hotbridge run", "%s: %d", "boom", 3);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	f = fdopen(fd, "r");
	assert_non_null(f);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	unlink(path);
	unsetenv("JOURNAL_STREAM");
	unsetenv("INVOCATION_ID");
	return out;
}

static void test_log_early_errors_get_a_priority_prefix_in_the_journal(void **state)
{
	(void)state;
	assert_string_equal(early_line("stderr", "abc"), "<3>hotbridge run: boom: 3\n");
	assert_string_equal(early_line("stderr", NULL), "<3>hotbridge run: boom: 3\n");
}

static void test_log_no_prefix_when_stderr_is_not_the_journal(void **state)
{
	(void)state;
	assert_string_equal(early_line(NULL, NULL), "hotbridge run: boom: 3\n");
	/* a unit with StandardError=file: still has INVOCATION_ID */
	assert_string_equal(early_line(NULL, "abc"), "hotbridge run: boom: 3\n");
	/* inherited from a parent whose stderr was the journal: another file */
	assert_string_equal(early_line("1:2", "abc"), "hotbridge run: boom: 3\n");
}

static void vline(bool journal, int prio, const char *who, const char *fmt, ...) HB_PRINTF(4, 5);
static void vline(bool journal, int prio, const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hb_log_vstderr(journal, prio, who, fmt, ap);
	va_end(ap);
}

static void test_log_daemon_lines_without_who(void **state)
{
	char path[] = "/tmp/hb-test-log.XXXXXX", out[256];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t n;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	vline(true, LOG_INFO, NULL, "cycle %d", 1);
	vline(false, LOG_WARNING, "hotbridge", "cycle %d", 2);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	n = pread(fd, out, sizeof(out) - 1, 0);
	assert_true(n > 0);
	out[n] = '\0';
	close(fd);
	unlink(path);
	assert_string_equal(out, "<6>cycle 1\nhotbridge: cycle 2\n");
}

/* what reached syslog: the last line and its priority, and how many */
static char syslogged[512];
static int syslogged_prio, syslogged_n;

void __wrap_syslog(int prio, const char *fmt, ...) HB_PRINTF(2, 3);
void __wrap_syslog(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(syslogged, sizeof(syslogged), fmt, ap);
	va_end(ap);
	syslogged_prio = prio;
	syslogged_n++;
}

void __wrap___syslog_chk(int prio, int flag, const char *fmt, ...) HB_PRINTF(3, 4);
void __wrap___syslog_chk(int prio, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	vsnprintf(syslogged, sizeof(syslogged), fmt, ap);
	va_end(ap);
	syslogged_prio = prio;
	syslogged_n++;
}

static void test_log_line_to_a_closed_pipe_goes_to_syslog(void **state)
{
	int p[2], saved = dup(STDERR_FILENO);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	(void)state;
	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	close(p[0]); /* the reader is gone */
	sigemptyset(&ign.sa_mask);
	assert_int_equal(sigaction(SIGPIPE, &ign, &old), 0); /* as `run` does */
	fflush(stderr);
	assert_true(dup2(p[1], STDERR_FILENO) >= 0);
	close(p[1]);
	syslogged_n = 0;
	vline(false, LOG_INFO, "hotbridge", "exiting after %d cycles", 3);
	vline(true, LOG_WARNING, NULL, "and %s", "again");
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	assert_int_equal(sigaction(SIGPIPE, &old, NULL), 0);
	assert_int_equal(syslogged_n, 2);
	assert_string_equal(syslogged, "and again");
	assert_int_equal(syslogged_prio, LOG_DAEMON | LOG_WARNING);
	/* a stderr that takes the line: nothing to syslog */
	syslogged_n = 0;
	early_line(NULL, NULL);
	assert_int_equal(syslogged_n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_journal_stream_must_name_dev_and_ino),
		cmocka_unit_test(test_log_early_errors_get_a_priority_prefix_in_the_journal),
		cmocka_unit_test(test_log_no_prefix_when_stderr_is_not_the_journal),
		cmocka_unit_test(test_log_daemon_lines_without_who),
		cmocka_unit_test(test_log_line_to_a_closed_pipe_goes_to_syslog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
