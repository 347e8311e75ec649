// SPDX-License-Identifier: MIT
/* The hotness table: page granularity, lazy decay, the budget, collection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core.h"

#define PAGE 4096ULL

static struct hb_heat_table *table(size_t max, double decay)
{
	struct hb_heat_table *t = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_heat_new(max, decay, 12, &t, &err), 0);
	return t;
}

static void test_heat_splits_large_units_and_merges_small_ones(void **state)
{
	struct hb_heat_table *t = table(1024, 1.0);
	int node;

	/* a 16 KiB CHMU unit with 400 accesses: 100 for each of 4 pages */
	assert_int_equal(hb_heat_add(t, 0x100000, 16384, 400, 2), 4);
	for (int i = 0; i < 4; i++)
		assert_true(fabs(hb_heat_get(t, 0x100000 + i * PAGE, &node) - 100) < 1e-3);
	assert_int_equal(node, 2);
	assert_int_equal(hb_heat_get(t, 0x100000 + 4 * PAGE, &node), 0);
	assert_int_equal(node, -1);
	/* two 256-byte units in one page add up */
	hb_heat_add(t, 0x200000, 256, 3, 2);
	hb_heat_add(t, 0x200100, 256, 4, 2);
	assert_true(fabs(hb_heat_get(t, 0x200fff, NULL) - 7) < 1e-6);
	assert_int_equal(hb_heat_len(t), 5);
	hb_heat_free(t);
}

static void test_heat_keeps_the_source_that_last_reported_a_page(void **state)
{
	struct hb_heat_table *t = table(16, 1.0);
	struct hb_candidate c[4];

	hb_heat_add_from(t, 0, PAGE, 10, 1, 3);
	assert_int_equal(hb_heat_source(t, 0x10), 3);
	hb_heat_add_from(t, 0, PAGE, 10, 1, 5); /* the latest reporter */
	assert_int_equal(hb_heat_source(t, 0), 5);
	hb_heat_add(t, PAGE, PAGE, 30, 1); /* no source named */
	assert_int_equal(hb_heat_source(t, PAGE), -1);
	assert_int_equal(hb_heat_source(t, 2 * PAGE), -1); /* not in the table */
	hb_heat_add_from(t, 2 * PAGE, PAGE, 1, 1, 40000);  /* beyond int16: not named */
	assert_int_equal(hb_heat_source(t, 2 * PAGE), -1);
	assert_int_equal(hb_heat_collect(t, 5, c, 4), 2);
	assert_int_equal(c[0].source, -1); /* 30, hottest first */
	assert_int_equal(c[1].source, 5);
	hb_heat_free(t);
}

static void test_heat_decays_per_cycle(void **state)
{
	struct hb_heat_table *t = table(16, 0.5);

	hb_heat_add(t, 0, PAGE, 64, 1);
	hb_heat_tick(t);
	assert_true(fabs(hb_heat_get(t, 0, NULL) - 32) < 1e-4);
	hb_heat_tick(t);
	hb_heat_tick(t);
	assert_true(fabs(hb_heat_get(t, 0, NULL) - 8) < 1e-4);
	/* an update brings the entry up to date first: 8 + 8 */
	hb_heat_add(t, 0, PAGE, 8, 1);
	assert_true(fabs(hb_heat_get(t, 0, NULL) - 16) < 1e-4);
	for (int i = 0; i < 300; i++)
		hb_heat_tick(t);
	assert_true(hb_heat_get(t, 0, NULL) == 0);
	hb_heat_free(t);
}

static void test_heat_budget_evicts_the_coldest(void **state)
{
	struct hb_heat_table *t = table(1000, 0.9);
	size_t hot_kept = 0;

	/* 100 hot pages, then 20000 cold ones through a 1000-entry budget */
	for (int i = 0; i < 100; i++)
		hb_heat_add(t, (uint64_t)i * PAGE, PAGE, 1000, 1);
	for (int i = 0; i < 20000; i++)
		hb_heat_add(t, (1ULL << 30) + (uint64_t)i * PAGE, PAGE, 1, 1);
	assert_int_equal(hb_heat_len(t), 1000);
	assert_int_equal(hb_heat_stats(t)->evictions, 20100 - 1000);
	for (int i = 0; i < 100; i++)
		hot_kept += hb_heat_get(t, (uint64_t)i * PAGE, NULL) > 0;
	print_message("# budget 1000, 20000 cold inserts: %zu of 100 hot pages kept\n", hot_kept);
	assert_true(hot_kept >= 99);
	assert_true(hb_heat_bytes(t) < 1000 * 24 * 4 + 1024);
	hb_heat_free(t);
}

static void test_heat_collect_returns_the_hottest_first(void **state)
{
	struct hb_heat_table *t = table(4096, 1.0);
	struct hb_candidate c[10];
	size_t n;

	for (int i = 0; i < 3000; i++)
		hb_heat_add(t, (uint64_t)i * PAGE, PAGE, (double)((i * 7919) % 3000), i % 3);
	n = hb_heat_collect(t, 5, c, 10);
	assert_int_equal(n, 10);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(c[i].heat, 2999 - i);
	assert_true(hb_heat_forget(t, c[0].hpa));
	assert_false(hb_heat_forget(t, c[0].hpa));
	n = hb_heat_collect(t, 2998.5, c, 10);
	assert_int_equal(n, 0);
	n = hb_heat_collect(t, 2997.5, c, 10);
	assert_int_equal(n, 1);
	hb_heat_free(t);
}

/*
 * hottest (the heat request's): the whole table's hottest first, pages
 * under the policy's threshold too, decayed, and the hot list the policy
 * collects from left as it was
 */
static void test_heat_hottest_reads_the_whole_table_and_changes_nothing(void **state)
{
	struct hb_heat_table *t = table(4096, 0.5);
	struct hb_candidate c[10], before[20], after[20];
	size_t n;

	for (int i = 0; i < 3000; i++)
		hb_heat_add(t, (uint64_t)i * PAGE, PAGE, (double)((i * 7919) % 3000), i % 3);
	assert_int_equal(hb_heat_collect(t, 2980, before, 20), 20);
	hb_heat_tick(t);
	n = hb_heat_hottest(t, c, 10);
	assert_int_equal(n, 10);
	for (size_t i = 0; i < n; i++) {
		assert_true(fabs(c[i].heat - (2999 - (double)i) * 0.5) < 1e-3);
		assert_int_equal((c[i].hpa / PAGE * 7919) % 3000, 2999 - i);
	}
	/* a page far under any threshold is still among the hottest of a small table */
	hb_heat_free(t);
	t = table(16, 1.0);
	hb_heat_add(t, 5 * PAGE, PAGE, 0.25, 2);
	hb_heat_add(t, 9 * PAGE, PAGE, 3, 2);
	assert_int_equal(hb_heat_collect(t, 1, before, 20), 1);
	assert_int_equal(hb_heat_hottest(t, c, 10), 2);
	assert_int_equal(c[0].hpa, 9 * PAGE);
	assert_int_equal(c[1].hpa, 5 * PAGE);
	assert_int_equal(c[1].node, 2);
	/* the policy's next collect sees what it would have without hottest */
	assert_int_equal(hb_heat_collect(t, 1, after, 20), 1);
	assert_int_equal(after[0].hpa, 9 * PAGE);
	assert_int_equal(hb_heat_hottest(t, c, 0), 0);
	hb_heat_free(t);
}

static void test_heat_refuses_bad_parameters(void **state)
{
	struct hb_heat_table *t = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_heat_new(0, 0.5, 12, &t, &err), -EINVAL);
	assert_int_equal(hb_heat_new(10, 0, 12, &t, &err), -EINVAL);
	assert_int_equal(hb_heat_new(10, 1.5, 12, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "decay 1.5"));
}

static int odd_pages_on_node_5(void *ud, uint64_t hpa)
{
	(void)ud;
	return (hpa / PAGE) % 2 ? 5 : -1;
}

static void test_heat_revalidate_drops_pages_on_no_node_and_renodes_the_rest(void **state)
{
	struct hb_heat_table *t = table(4096, 1.0);
	int node;

	/* 3000 pages in 8192 slots: long probe runs, so removals shift entries */
	for (uint64_t p = 0; p < 3000; p++)
		hb_heat_add(t, p * PAGE, PAGE, 1 + (double)p, 2);
	assert_int_equal(hb_heat_revalidate(t, odd_pages_on_node_5, NULL), 1500);
	assert_int_equal(hb_heat_len(t), 1500);
	for (uint64_t p = 0; p < 3000; p++) {
		double h = hb_heat_get(t, p * PAGE, &node);

		if (p % 2) {
			assert_true(fabs(h - (1 + (double)p)) < 1e-3);
			assert_int_equal(node, 5);
		} else {
			assert_int_equal(node, -1);
		}
	}
	hb_heat_free(t);
	(void)state;
}

/* a page that left the table and came back hot is listed twice: collected once */
static void test_heat_collect_reads_a_page_listed_twice_once(void **state)
{
	struct hb_heat_table *t = table(16, 1.0);
	struct hb_candidate c[4];

	hb_heat_add(t, 0, PAGE, 10, 1);
	hb_heat_add(t, PAGE, PAGE, 20, 1);
	assert_int_equal(hb_heat_collect(t, 5, c, 4), 2); /* both listed */
	assert_true(hb_heat_forget(t, 0));
	hb_heat_add(t, 0, PAGE, 10, 1); /* back, hot: listed again */
	assert_int_equal(hb_heat_collect(t, 5, c, 4), 2);
	assert_int_equal(c[0].hpa, PAGE);
	assert_int_equal(c[1].hpa, 0);
	/* and it stays listed once */
	assert_int_equal(hb_heat_collect(t, 5, c, 4), 2);
	assert_int_equal(hb_heat_stats(t)->relists, 0); /* the list served every collect */
	hb_heat_free(t);
}

/* every page of the universe with heat >= threshold, as collect must order them */
static int ref_order(const void *a, const void *b)
{
	const struct hb_candidate *x = a, *y = b;

	if (x->heat != y->heat)
		return x->heat < y->heat ? 1 : -1;
	return (x->hpa > y->hpa) - (x->hpa < y->hpa);
}

#define UNIVERSE 3000

/*
 * The hot list gives what a sweep of the table gives: random adds,
 * forgets, evictions (a budget below the pages touched), decay, a
 * revalidation and thresholds up and down, each collect checked against
 * every page's heat read one by one.
 */
static void test_heat_collect_from_the_hot_list_matches_every_page(void **state)
{
	static struct hb_candidate got[UNIVERSE], want[UNIVERSE];
	struct hb_heat_table *t = table(1000, 0.8);
	uint64_t rng = 0x243F6A8885A308D3ULL, relists = 0;
	size_t collects = 0;

	for (int step = 0; step < 40000; step++) {
		uint64_t r;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		r = rng;
		if (r % 100 < 70) {
			hb_heat_add(t, (r >> 8) % UNIVERSE * PAGE, PAGE, (double)(r >> 40 & 15), 1);
		} else if (r % 100 < 80) {
			hb_heat_forget(t, (r >> 8) % UNIVERSE * PAGE);
		} else if (r % 100 < 85) {
			hb_heat_tick(t);
		} else if (r % 1000 == 999) {
			hb_heat_revalidate(t, odd_pages_on_node_5, NULL);
		} else if (r % 100 < 90) {
			double thr = (double)(r >> 20 & 31) / 2;
			size_t max = 1 + (r >> 32) % 200, n, m = 0;

			n = hb_heat_collect(t, thr, got, max);
			for (uint64_t pg = 0; pg < UNIVERSE; pg++) {
				int node;
				double h = hb_heat_get(t, pg * PAGE, &node);

				if (node >= 0 && h >= thr)
					want[m++] =
						(struct hb_candidate){ .hpa = pg * PAGE, .heat = h };
			}
			qsort(want, m, sizeof(*want), ref_order);
			if (m > max)
				m = max;
			assert_int_equal(n, m);
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(got[i].hpa, want[i].hpa);
				assert_true(got[i].heat == want[i].heat);
			}
			collects++;
		}
	}
	relists = hb_heat_stats(t)->relists;
	print_message("# %zu collects, %llu swept the table\n", collects,
		      (unsigned long long)relists);
	/* the list served most of them: only a lower threshold (or the first) sweeps */
	assert_true(relists > 0 && relists < collects);
	hb_heat_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heat_revalidate_drops_pages_on_no_node_and_renodes_the_rest),
		cmocka_unit_test(test_heat_collect_from_the_hot_list_matches_every_page),
		cmocka_unit_test(test_heat_collect_reads_a_page_listed_twice_once),
		cmocka_unit_test(test_heat_splits_large_units_and_merges_small_ones),
		cmocka_unit_test(test_heat_decays_per_cycle),
		cmocka_unit_test(test_heat_keeps_the_source_that_last_reported_a_page),
		cmocka_unit_test(test_heat_budget_evicts_the_coldest),
		cmocka_unit_test(test_heat_collect_returns_the_hottest_first),
		cmocka_unit_test(test_heat_refuses_bad_parameters),
		cmocka_unit_test(test_heat_hottest_reads_the_whole_table_and_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
