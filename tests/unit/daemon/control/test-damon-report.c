// SPDX-License-Identifier: MIT
/* The damon counters as `stats` JSON, Prometheus text and --once lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "control/damon-report.h"

/* every counter a different value: a field reported under another's name shows */
static const struct hb_damon_stats st = {
	.batches = 1,
	.commits = 2,
	.pages_programmed = 3,
	.regions = 2,
	.bytes_applied = 4096 * 5,
	.pages_moved = 6,
	.pages_not_moved = 7,
	.pages_unknown = 8,
	.pages_already = 9,
	.pages_over_watermark = 10,
	.settle_timeouts = 11,
	.settle_us = 1200000,
};

static int64_t get(json_object *o, const char *group, const char *key)
{
	json_object *g = o, *v;

	if (group)
		assert_true(json_object_object_get_ex(o, group, &g));
	assert_true(json_object_object_get_ex(g, key, &v));
	return json_object_get_int64(v);
}

static void test_damon_report_json_keeps_measured_and_inferred_apart(void **state)
{
	json_object *o = hb_damon_stats_json(&st), *v;

	(void)state;
	assert_int_equal(get(o, NULL, "batches"), 1);
	assert_int_equal(get(o, NULL, "commits"), 2);
	assert_int_equal(get(o, NULL, "pages_programmed"), 3);
	assert_int_equal(get(o, NULL, "regions"), 2);
	assert_int_equal(get(o, "measured", "bytes_applied"), 4096 * 5);
	assert_int_equal(get(o, "measured", "pages_already"), 9);
	assert_int_equal(get(o, "measured", "pages_over_watermark"), 10);
	assert_int_equal(get(o, "inferred", "pages_moved"), 6);
	assert_int_equal(get(o, "inferred", "pages_not_moved"), 7);
	assert_int_equal(get(o, "inferred", "pages_unknown"), 8);
	assert_int_equal(get(o, NULL, "settle_timeouts"), 11);
	assert_int_equal(get(o, NULL, "settle_us"), 1200000);
	/* nothing inferred among the measured, nor at the top */
	assert_false(json_object_object_get_ex(o, "pages_moved", &v));
	assert_true(json_object_object_get_ex(o, "measured", &v));
	assert_false(json_object_object_get_ex(v, "pages_moved", NULL));
	json_object_put(o);
}

static char *render(void (*fn)(const struct hb_damon_stats *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fn(&st, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_damon_report_metrics_name_the_basis(void **state)
{
	char *t = render(hb_damon_stats_metrics);

	(void)state;
	assert_non_null(strstr(t, "\nhotbridge_damon_batches_total 1\n"));
	assert_non_null(strstr(t, "\nhotbridge_damon_commits_total 2\n"));
	assert_non_null(strstr(t, "\nhotbridge_damon_pages_programmed_total 3\n"));
	assert_non_null(strstr(t, "\nhotbridge_damon_regions_total 2\n"));
	assert_non_null(strstr(t, "\nhotbridge_damon_applied_bytes_total 20480\n"));
	assert_non_null(
		strstr(t, "\nhotbridge_damon_pages_total{outcome=\"moved\",basis=\"inferred\"} 6\n"));
	assert_non_null(strstr(
		t, "\nhotbridge_damon_pages_total{outcome=\"not_moved\",basis=\"inferred\"} 7\n"));
	assert_non_null(
		strstr(t,
		       "\nhotbridge_damon_pages_total{outcome=\"unknown\",basis=\"inferred\"} 8\n"));
	assert_non_null(
		strstr(t,
		       "\nhotbridge_damon_pages_total{outcome=\"already\",basis=\"measured\"} 9\n"));
	assert_non_null(strstr(
		t,
		"\nhotbridge_damon_pages_total{outcome=\"over_watermark\",basis=\"measured\"} 10\n"));
	assert_non_null(strstr(t, "\nhotbridge_damon_settle_timeouts_total 11\n"));
	assert_non_null(strstr(t, "\nhotbridge_damon_settle_seconds_total 1.200000\n"));
	/* one HELP/TYPE per metric family, as Prometheus requires */
	assert_non_null(strstr(t, "# TYPE hotbridge_damon_pages_total counter\n"));
	assert_null(strstr(strstr(t, "# TYPE hotbridge_damon_pages_total") + 1,
			   "# TYPE hotbridge_damon_pages_total"));
	free(t);
}

static void test_damon_report_once_lines_end_in_the_value(void **state)
{
	char *t = render(hb_damon_stats_print);

	(void)state;
	assert_non_null(strstr(t, "damon batches 1\n"));
	assert_non_null(strstr(t, "damon commits 2\n"));
	assert_non_null(strstr(t, "damon measured bytes_applied 20480\n"));
	assert_non_null(strstr(t, "damon measured pages_over_watermark 10\n"));
	assert_non_null(strstr(t, "damon inferred pages_moved 6\n"));
	assert_non_null(strstr(t, "damon inferred pages_unknown 8\n"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damon_report_json_keeps_measured_and_inferred_apart),
		cmocka_unit_test(test_damon_report_metrics_name_the_basis),
		cmocka_unit_test(test_damon_report_once_lines_end_in_the_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
