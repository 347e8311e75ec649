// SPDX-License-Identifier: MIT
/* Record latency: quantiles within a bucket's error, runs merged conservatively. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core.h"

#define MS 1000000ull

static void assert_within(uint64_t got, uint64_t want)
{
	/* a quantile is its bucket's upper bound: at most 1/16 above, never below */
	assert_true(got >= want);
	assert_true(got <= want + want / 16 + 1);
}

static void test_latency_quantiles_of_a_uniform_spread(void **state)
{
	struct hb_latency *l = calloc(1, sizeof(*l));

	/* records made at 1..1000 ms, all decided at 1001 ms: waits 1..1000 ms */
	for (uint64_t t = 1; t <= 1000; t++)
		hb_latency_note(l, t * MS, 10, t * MS);
	hb_latency_decide(l, 1001 * MS);
	assert_int_equal(l->to_decision.count, 10000);
	assert_within(hb_latency_quantile(&l->to_decision, 0.5), 500 * MS);
	assert_within(hb_latency_quantile(&l->to_decision, 0.99), 990 * MS);
	assert_int_equal(hb_latency_quantile(&l->to_decision, 1.0), 1000 * MS);
	assert_int_equal(l->to_decision.max_ns, 1000 * MS);
	/* taken into the table as they were made */
	assert_int_equal(hb_latency_quantile(&l->to_table, 0.99), 0);
	/* nothing pending: a second decision adds nothing */
	hb_latency_decide(l, 2000 * MS);
	assert_int_equal(l->to_decision.count, 10000);
	free(l);
	(void)state;
}

static void test_latency_overflowing_runs_overstate_never_understate(void **state)
{
	struct hb_latency *l = calloc(1, sizeof(*l));
	uint64_t n = 4 * HB_LATENCY_RUNS;

	/* more distinct stamps than runs: pairs merge keeping the older stamp */
	for (uint64_t i = 0; i < n; i++)
		hb_latency_note(l, (i + 1) * MS, 1, (i + 1) * MS);
	assert_true(l->nruns <= HB_LATENCY_RUNS);
	hb_latency_decide(l, (n + 1) * MS);
	assert_int_equal(l->to_decision.count, n);
	/* the true median wait is n/2 ms; merging may only push it up, by < 4 runs */
	assert_true(hb_latency_quantile(&l->to_decision, 0.5) >= n / 2 * MS);
	assert_true(hb_latency_quantile(&l->to_decision, 0.5) <= (n / 2 + 8) * MS * 17 / 16);
	assert_int_equal(l->to_decision.max_ns, n * MS);
	free(l);
	(void)state;
}

static void test_latency_a_stamp_from_the_future_counts_as_zero(void **state)
{
	struct hb_latency *l = calloc(1, sizeof(*l));

	hb_latency_note(l, 5000 * MS, 3, 10 * MS);
	hb_latency_decide(l, 10 * MS);
	assert_int_equal(l->to_decision.count, 3);
	assert_int_equal(hb_latency_quantile(&l->to_decision, 0.99), 0);
	assert_int_equal(hb_latency_quantile(&l->to_table, 0.99), 0);
	/* empty histograms answer 0 */
	assert_int_equal(hb_latency_quantile(&(struct hb_latency_hist){ 0 }, 0.5), 0);
	free(l);
	(void)state;
}

static void test_latency_buckets_cover_every_value(void **state)
{
	struct hb_latency *l = calloc(1, sizeof(*l));
	uint64_t v[] = {
		0, 1, 15, 16, 17, 31, 32, 1000, 123456789, 1ull << 40, UINT64_MAX / 2, UINT64_MAX
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct hb_latency_hist h = { 0 };

		*l = (struct hb_latency){ 0 };
		hb_latency_note(l, 0, 1, v[i]);
		h = l->to_table;
		assert_int_equal(h.count, 1);
		assert_int_equal(hb_latency_quantile(&h, 0.5), v[i]); /* capped at max */
	}
	free(l);
	(void)state;
}

/* newuser r4 D32: a summary's _sum: every value, as many times as it was added */
static void test_latency_sum_counts_each_record(void **state)
{
	struct hb_latency *l = calloc(1, sizeof(*l));

	hb_latency_note(l, 0, 3, 10 * MS);      /* three records 10 ms old */
	hb_latency_note(l, 5 * MS, 1, 10 * MS); /* one 5 ms old */
	hb_latency_decide(l, 20 * MS);
	assert_true(l->to_table.sum_ns == 35.0 * MS);
	assert_true(l->to_decision.sum_ns == 3 * 20.0 * MS + 15.0 * MS);
	hb_latency_hist_add(&l->cycle, 7);
	hb_latency_hist_add(&l->cycle, 8);
	assert_true(l->cycle.sum_ns == 15);
	free(l);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_quantiles_of_a_uniform_spread),
		cmocka_unit_test(test_latency_overflowing_runs_overstate_never_understate),
		cmocka_unit_test(test_latency_a_stamp_from_the_future_counts_as_zero),
		cmocka_unit_test(test_latency_buckets_cover_every_value),
		cmocka_unit_test(test_latency_sum_counts_each_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
