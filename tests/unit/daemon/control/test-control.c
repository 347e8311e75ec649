// SPDX-License-Identifier: MIT
/*
 * Control requests: every command, history's "last" and optional address,
 * and the malformed, oversized and odd ones.
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
#include <cmocka.h>

#include "control/control.h"

static int parse(const char *s, struct hb_control_req *r, char *why)
{
	return hb_control_parse(s, strlen(s), r, why, 256);
}

static void test_control_parses_every_command(void **state)
{
	static const char *const names[] = { "status", "stats",  "sources", "pause",
					     "resume", "reload", "metrics" };
	struct hb_control_req r;
	char why[256], line[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(line, sizeof(line), "{\"command\": \"%s\"}", names[i]);
		assert_int_equal(parse(line, &r, why), 0);
		assert_string_equal(hb_control_cmd_to_string(r.cmd), names[i]);
	}
	assert_int_equal(parse("{\"command\":\"explain\",\"hpa\":\"0x390001000\"}", &r, why), 0);
	assert_true(r.has_hpa);
	assert_int_equal(r.hpa, 0x390001000);
	assert_int_equal(parse("{\"command\":\"explain\",\"memdev\":\"mem1\",\"dpa\":\"4096\"} ",
			       &r, why),
			 0);
	assert_false(r.has_hpa);
	assert_string_equal(r.memdev, "mem1");
	assert_int_equal(r.dpa, 4096);
}

static void expect_bad(const char *line, int code, const char *needle)
{
	struct hb_control_req r;
	char why[256];
	int rc = parse(line, &r, why);

	if (rc != code || !strstr(why, needle))
		fail_msg("'%s': %d '%s' (want %d '%s')", line, rc, why, code, needle);
}

static void test_control_refuses_malformed_requests(void **state)
{
	char *big = malloc(HB_CONTROL_LINE_MAX + 10);

	expect_bad("", -EINVAL, "empty request");
	expect_bad(" \r", -EINVAL, "empty request");
	expect_bad("{\"command\":", -EINVAL, "not one JSON object: incomplete JSON");
	expect_bad("{\"command\": \"sta", -EINVAL, "incomplete JSON");
	expect_bad("{\"command\" \"status\"}", -EINVAL, "not one JSON object: ");
	expect_bad("[1,2]", -EINVAL, "want {\"command\"");
	expect_bad("{\"cmd\":\"status\"}", -EINVAL, "want {\"command\"");
	expect_bad("{\"command\":7}", -EINVAL, "want {\"command\"");
	expect_bad("{\"command\":\"reboot\"}", -EINVAL, "unknown command \"reboot\"");
	/* F2: json-c keeps the last of two equal keys; the request is refused, naming it */
	expect_bad("{\"command\":\"status\",\"command\":\"pause\"}", -EINVAL,
		   "key \"command\" given twice");
	expect_bad("{\"command\":\"history\",\"last\":1, \"last\" :2}", -EINVAL,
		   "key \"last\" given twice");
	expect_bad("{\"command\":\"status\"} {\"command\":\"stats\"}", -EINVAL, "trailing bytes");
	expect_bad("{\"command\":\"explain\"}", -EINVAL, "explain wants");
	expect_bad("{\"command\":\"explain\",\"hpa\":4096}", -EINVAL,
		   "\"hpa\" must be a number in a string");
	expect_bad("{\"command\":\"explain\",\"hpa\":\"0390000000\"}", -EINVAL,
		   "\"hpa\" is not a number: a leading zero");
	/* a JSON number too: json-c alone reads 010 as 10 */
	expect_bad("{\"command\":\"history\",\"last\":010}", -EINVAL,
		   "'010' is not a number: a leading zero (decimal has none");
	expect_bad("{\"command\":\"history\",\"last\":-00}", -EINVAL,
		   "'00' is not a number: a leading zero");
	{ /* zeros inside strings and after a digit are no leading zero */
		struct hb_control_req r;
		char why[256];

		assert_int_equal(parse("{\"command\":\"history\",\"memdev\":\"m\\\"010\",\"dpa\":\"0x010\","
				       "\"last\":100}",
				       &r, why),
				 0);
		assert_int_equal(r.dpa, 0x10);
		assert_int_equal(r.last, 100);
	}
	expect_bad("{\"command\":\"explain\",\"hpa\":\"0x1\",\"memdev\":\"mem0\",\"dpa\":\"0\"}",
		   -EINVAL, "explain wants");
	expect_bad("{\"command\":\"explain\",\"memdev\":\"mem0\"}", -EINVAL, "explain wants");
	expect_bad("{\"command\":\"explain\",\"memdev\":\"a-memdev-name-far-too-long-to-be-real\",\"dpa\":\"0\"}",
		   -EINVAL, "\"memdev\" must be");
	memset(big, ' ', HB_CONTROL_LINE_MAX + 9);
	big[HB_CONTROL_LINE_MAX + 9] = '\0';
	expect_bad(big, -E2BIG, "longer than 4096");
	/* deep nesting stops at the tokener's depth limit, not the stack */
	memset(big, '[', 3000);
	big[3000] = '\0';
	expect_bad(big, -EINVAL, "not one JSON object");
	free(big);
}

/* an empty or cut-short request is named as such, never by json-c's "continue" */
static void test_control_empty_or_incomplete_request_is_named(void **state)
{
	static const char *const lines[] = { "",
					     "\r",
					     "  ",
					     "{",
					     "{\"command\":",
					     "{\"command\":\"st",
					     "[",
					     "{\"command\":\"status\"" };
	struct hb_control_req r;
	char why[256];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(parse(lines[i], &r, why), -EINVAL);
		if (strstr(why, "continue") ||
		    (!strstr(why, "empty request") && !strstr(why, "incomplete JSON")))
			fail_msg("'%s': '%s'", lines[i], why);
	}
}

static void test_control_history_takes_last_and_an_optional_address(void **state)
{
	struct hb_control_req r;
	char why[256];

	assert_int_equal(parse("{\"command\":\"history\"}", &r, why), 0);
	assert_int_equal(r.cmd, HB_CTL_HISTORY);
	assert_false(r.has_address);
	assert_int_equal(r.last, 20);
	assert_int_equal(parse("{\"command\":\"history\",\"last\":200,\"hpa\":\"0x390001000\"}", &r,
			       why),
			 0);
	assert_true(r.has_address && r.has_hpa);
	assert_int_equal(r.last, 200);
	assert_int_equal(r.hpa, 0x390001000);
	assert_int_equal(parse("{\"command\":\"history\",\"memdev\":\"mem1\",\"dpa\":\"0x0\",\"last\":1}",
			       &r, why),
			 0);
	assert_true(r.has_address && !r.has_hpa);
	assert_string_equal(r.memdev, "mem1");
	expect_bad("{\"command\":\"history\",\"last\":0}", -EINVAL,
		   "\"last\" must be a number of entries in 1..200");
	expect_bad("{\"command\":\"history\",\"last\":201}", -EINVAL, "in 1..200");
	expect_bad("{\"command\":\"history\",\"last\":\"5\"}", -EINVAL, "\"last\" must be");
	expect_bad("{\"command\":\"history\",\"last\":2.5}", -EINVAL, "\"last\" must be");
	expect_bad("{\"command\":\"history\",\"dpa\":\"0\"}", -EINVAL,
		   "history wants \"hpa\", or \"memdev\" and \"dpa\"");
	expect_bad("{\"command\":\"history\",\"hpa\":\"x\"}", -EINVAL,
		   "\"hpa\" is not a number (decimal or 0x hex): want a number in a string");
}

/* heat (top, heatmap): "last" as history's, 20 by default */
static void test_control_heat_takes_last(void **state)
{
	struct hb_control_req r;
	char why[256];

	assert_int_equal(parse("{\"command\":\"heat\"}", &r, why), 0);
	assert_int_equal(r.cmd, HB_CTL_HEAT);
	assert_int_equal(r.last, 20);
	assert_int_equal(parse("{\"command\":\"heat\",\"last\":200}", &r, why), 0);
	assert_int_equal(r.last, 200);
	expect_bad("{\"command\":\"heat\",\"last\":0}", -EINVAL, "in 1..200");
	expect_bad("{\"command\":\"heat\",\"last\":201}", -EINVAL, "in 1..200");
	assert_string_equal(hb_control_cmd_to_string(HB_CTL_HEAT), "heat");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_parses_every_command),
		cmocka_unit_test(test_control_refuses_malformed_requests),
		cmocka_unit_test(test_control_empty_or_incomplete_request_is_named),
		cmocka_unit_test(test_control_history_takes_last_and_an_optional_address),
		cmocka_unit_test(test_control_heat_takes_last),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
