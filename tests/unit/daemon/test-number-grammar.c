// SPDX-License-Identifier: MIT
/*
 * One number grammar for every input (issue 43, newuser r4 D2): the same
 * strings fed to a command-line option, a configuration file, --set, a
 * control request (explain's dpa), a replay text line (dpa=, count=) and a
 * source parameter get the same verdict and, when one is refused for a
 * leading zero, the command line's message. The binary replay formats carry
 * fixed-width integers only, so they have no number text to test.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/opt.h"
#include "conf/conf.h"
#include "control/control.h"
#include "hb-device.h"
#include "replay/replay.h"

#define LEADING_ZERO "a leading zero (decimal has none, octal is never read, hex starts 0x)"

/*
 * The table: want is the value when the string is a number, or -1 when it
 * is not (every number here is small enough for policy.top_k's range, so a
 * range check never decides a verdict).
 */
static const struct {
	const char *s;
	int64_t want;
} table[] = {
	{ "0x1000", 0x1000 },
	{ "0X1f", 0x1f },
	{ "4096", 4096 },
	{ "0", 0 },
	{ "0x0001", 1 },
	{ "010", -1 },
	{ "00", -1 },
	{ "00020000", -1 },
	{ "0390000000", -1 },
	{ "00.5", -1 },
	{ "0.5", -1 },
	{ "+1", -1 },
	{ "-1", -1 },
	{ " 1", -1 },
	{ "1e3", -1 },
	{ "0x", -1 },
	{ "0xg", -1 },
	{ "12a", -1 },
	{ "", -1 },
	{ "18446744073709551616", -1 },
	{ "99999999999999999999", -1 },
	{ "\xef\xbc\x91", -1 },  /* full-width 1 */
	{ "1\xef\xbc\x90", -1 }, /* 1 and a full-width 0 */
	{ "\xd9\xa1", -1 },      /* Arabic-Indic 1 */
};

/* the grammar's verdict: the value, or -1 */
static int64_t verdict(int r, uint64_t v)
{
	return r < 0 ? -1 : (int64_t)v;
}

static bool has_leading_zero(const char *s)
{
	return s[0] == '0' && s[1] >= '0' && s[1] <= '9';
}

/* an input's verdict against the table's, with its message for a leading zero */
static void check(const char *input, size_t i, int64_t got, const char *msg)
{
	if (got != table[i].want)
		fail_msg("%s: '%s' gave %lld, want %lld (%s)", input, table[i].s, (long long)got,
			 (long long)table[i].want, msg ? msg : "");
	if (got < 0 && has_leading_zero(table[i].s) && (!msg || !strstr(msg, LEADING_ZERO)))
		fail_msg("%s: '%s' refused without the leading-zero reason: '%s'", input,
			 table[i].s, msg ? msg : "(no message)");
}

static void test_number_grammar_the_parser_itself(void **state)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++) {
		uint64_t v = 7;
		int r = hb_parse_u64(table[i].s, &v);

		check("hb_parse_u64", i, verdict(r, v),
		      r < 0 ? hb_parse_u64_why(table[i].s, r) : NULL);
		/* the length-bounded form reads a field inside a longer line the same way */
		{
			char line[64];
			uint64_t w = 7;
			int rn;

			snprintf(line, sizeof(line), "%s trailing", table[i].s);
			rn = hb_parse_u64_n(line, strlen(table[i].s), &w);
			check("hb_parse_u64_n", i, verdict(rn, w),
			      rn < 0 ? hb_parse_u64_why_n(line, strlen(table[i].s), rn) : NULL);
		}
	}
}

/* stderr of fn(arg) into out */
static int capture_stderr(int (*fn)(const char *, uint64_t *), const char *arg, uint64_t *v,
			  char *out, size_t size)
{
	char path[] = "/tmp/hb-test-grammar-XXXXXX";
	int fd = mkstemp(path), saved = dup(2), r;
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	unlink(path);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	r = fn(arg, v);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	n = pread(fd, out, size - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return r;
}

static int cli_option(const char *arg, uint64_t *v)
{
	return hb_opt_u64("hotbridge", "--last", arg, 0, UINT64_MAX, "a number", v);
}

static void test_number_grammar_command_line_option(void **state)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++) {
		char msg[512];
		uint64_t v = 7;
		int r = capture_stderr(cli_option, table[i].s, &v, msg, sizeof(msg));

		check("command-line option", i, verdict(r, v), msg);
	}
}

static void test_number_grammar_set_override(void **state)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++) {
		struct hb_config c;
		struct hb_err err = { 0 };
		char set[128];
		int r;

		hb_config_defaults(&c);
		snprintf(set, sizeof(set), "policy.top_k=%s", table[i].s);
		r = hb_config_set(&c, set, &err);
		check("--set", i, verdict(r, c.top_k), err.msg);
		hb_config_done(&c);
	}
}

/* a blank at either end of a value is INI's, not a number's: the file never shows it */
static bool ini_expressible(const char *s)
{
	size_t n = strlen(s);

	return n && s[0] != ' ' && s[n - 1] != ' ';
}

static void test_number_grammar_configuration_file(void **state)
{
	char dir[] = "/tmp/hb-test-grammar-XXXXXX", path[128];

	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/hotbridge.conf", dir);
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++) {
		struct hb_config c;
		struct hb_err err = { 0 };
		FILE *f;
		int r;

		if (!ini_expressible(table[i].s))
			continue;
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "[policy]\ntop_k = %s\n", table[i].s);
		fclose(f);
		assert_int_equal(chmod(path, 0644), 0);
		hb_config_defaults(&c);
		r = hb_config_read(&c, path, false, NULL, 0, &err);
		check("configuration file", i, verdict(r, c.top_k), err.msg);
		if (r < 0 && !strstr(err.msg, ":2: "))
			fail_msg("'%s' does not name the line", err.msg);
		hb_config_done(&c);
	}
	unlink(path);
	rmdir(dir);
}

static void test_number_grammar_control_request(void **state)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++) {
		struct hb_control_req req;
		char line[256], why[256] = "";
		int r;

		snprintf(line, sizeof(line),
			 "{\"command\": \"explain\", \"memdev\": \"mem0\", \"dpa\": \"%s\"}",
			 table[i].s);
		r = hb_control_parse(line, strlen(line), &req, why, sizeof(why));
		check("control request (explain's dpa)", i, verdict(r, req.dpa), why);
	}
}

/* fields are blank-separated: a value with a blank in it is not one field */
static void test_number_grammar_replay_text(void **state)
{
	static const char *const fields[] = { "dpa", "count", "ts" };

	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++) {
		for (size_t f = 0; f < HB_ARRAY_SIZE(fields); f++) {
			struct hb_hot_record rec;
			char line[256], why[256] = "", input[32];
			uint64_t got;
			int r;

			if (strchr(table[i].s, ' '))
				continue;
			snprintf(line, sizeof(line), "mem0 %s=%s%s", fields[f], table[i].s,
				 f == 0 ? " len=4096 count=1" : " dpa=0x1000 len=4096 count=1");
			if (f == 1) /* count= given once */
				snprintf(line, sizeof(line), "mem0 dpa=0x1000 len=4096 count=%s",
					 table[i].s);
			r = hb_replay_parse_line(line, strlen(line), &rec, why, sizeof(why));
			got = f == 0 ? rec.addr : f == 1 ? rec.count : rec.timestamp_ns;
			snprintf(input, sizeof(input), "replay text %s=", fields[f]);
			check(input, i, verdict(r, got), why);
		}
	}
}

/* hb-device.h's copy (plugins cannot link util) and built-ins' parameters */
static void test_number_grammar_source_parameter(void **state)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++) {
		uint64_t v = 7;
		int r = hb_dev_param_parse_u64(table[i].s, &v);

		check("source parameter (hb-device.h)", i, verdict(r, v),
		      r < 0 ? hb_parse_u64_why(table[i].s, r) : NULL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_number_grammar_the_parser_itself),
		cmocka_unit_test(test_number_grammar_command_line_option),
		cmocka_unit_test(test_number_grammar_set_override),
		cmocka_unit_test(test_number_grammar_configuration_file),
		cmocka_unit_test(test_number_grammar_control_request),
		cmocka_unit_test(test_number_grammar_replay_text),
		cmocka_unit_test(test_number_grammar_source_parameter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
