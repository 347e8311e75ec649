// SPDX-License-Identifier: MIT
/*
 * Every promotion rule on synthetic input: target choice (explicit, nearest
 * node with CPUs), not-a-source, threshold, hysteresis, top-K, watermark
 * (debited as the cycle promotes), rate limit (token bucket refills with
 * time), evaluation that charges nothing, held pages naming why
 * (moved, on target, refused), and that nothing is ever sent to a node other than the target.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core.h"

#define PAGE 4096ULL
#define MS 1000000ULL

static struct hb_numa_node nodes[HB_MAX_NODES];
static uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];

/* nodes 0 and 1 have CPUs (DRAM), 2 and 3 are CXL; 3 is nearer node 1 */
static int setup(void **state)
{
	memset(nodes, 0, sizeof(nodes));
	memset(dist, 255, sizeof(dist));
	for (int i = 0; i < 4; i++) {
		nodes[i].present = true;
		nodes[i].has_cpus = i < 2;
		nodes[i].is_source = i >= 2;
		nodes[i].free_bytes = 1ULL << 30;
		dist[i][i] = 10;
	}
	dist[2][0] = dist[0][2] = 20;
	dist[2][1] = dist[1][2] = 30;
	dist[3][0] = dist[0][3] = 30;
	dist[3][1] = dist[1][3] = 20;
	return 0;
}

static struct hb_policy_config cfg(void)
{
	return (struct hb_policy_config){ .threshold = 10, .target_node = -1, .page_size = PAGE };
}

static struct hb_policy *policy(void)
{
	struct hb_policy *p = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_policy_new(1024, &p, &err), 0);
	return p;
}

static void test_policy_target_is_explicit_or_the_nearest_cpu_node(void **state)
{
	struct hb_policy_config c = cfg();

	assert_int_equal(hb_policy_target(&c, nodes, dist, 2), 0);
	assert_int_equal(hb_policy_target(&c, nodes, dist, 3), 1);
	c.target_node = 1;
	assert_int_equal(hb_policy_target(&c, nodes, dist, 2), 1);
	c.target_node = 9; /* not present */
	assert_int_equal(hb_policy_target(&c, nodes, dist, 2), -1);
	c.target_node = -1;
	nodes[0].has_cpus = nodes[1].has_cpus = false;
	assert_int_equal(hb_policy_target(&c, nodes, dist, 2), -1);
}

static void test_policy_each_rule_has_its_reason(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_candidate cand[] = {
		{ 0x1000, 100, 2, -1, 1 }, /* promote -> 0 */
		{ 0x2000, 90, 0, -1, 1 },  /* already on DRAM */
		{ 0x3000, 5, 2, -1, 1 },   /* below threshold */
		{ 0x4000, 80, 3, -1, 1 },  /* promote -> 1 (nearest) */
	};
	struct hb_decision d[4];

	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 4, 0, d), 2);
	assert_int_equal(d[0].reason, HB_REASON_PROMOTE);
	assert_int_equal(d[0].target, 0);
	assert_int_equal(d[1].reason, HB_REASON_NOT_SOURCE);
	assert_int_equal(d[2].reason, HB_REASON_BELOW_THRESHOLD);
	assert_int_equal(d[3].reason, HB_REASON_PROMOTE);
	assert_int_equal(d[3].target, 1);
	assert_string_equal(hb_reason_to_string(d[2].reason), "below_threshold");

	/* hysteresis: promoted pages are held, then released */
	c.hysteresis_ns = 1000 * MS;
	hb_policy_hold(p, &c, 0x1000, 0);
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 1, 999 * MS, d), 0);
	assert_int_equal(d[0].reason, HB_REASON_HYSTERESIS);
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 1, 1000 * MS, d), 1);
	hb_policy_free(p);
}

/* newuser r4 D11: a count-0 record heats its page by 0; no threshold makes that an access */
static void test_policy_heat_zero_never_promotes_even_at_threshold_zero(void **state)
{
	struct hb_policy_config c = cfg();
	struct hb_policy *p = policy();
	struct hb_candidate cand[] = {
		{ 0x1000, 0, 2, -1, 1 },    /* reported with count 0 */
		{ 0x2000, 0.25, 2, -1, 1 }, /* any access at all */
	};
	struct hb_decision d[2];

	(void)state;
	c.threshold = 0;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 2, 0, d), 1);
	assert_string_equal(hb_reason_to_string(d[0].reason), "below_threshold");
	assert_string_equal(hb_reason_to_string(d[1].reason), "promote");
	c.threshold = 8;
	cand[0].heat = 0;
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &cand[0], NULL, 0, &d[0]),
			 HB_REASON_BELOW_THRESHOLD);
	hb_policy_free(p);
}

static void test_policy_top_k_and_watermark(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_candidate cand[10];
	struct hb_decision d[10];

	for (int i = 0; i < 10; i++)
		cand[i] = (struct hb_candidate){ (uint64_t)(i + 1) * PAGE, 100 - i, 2, -1, 1 };
	c.top_k = 3;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 10, 0, d), 3);
	assert_int_equal(d[2].reason, HB_REASON_PROMOTE);
	assert_int_equal(d[3].reason, HB_REASON_NOT_TOP_K);

	/* 5 pages of headroom above the watermark: the cycle stops at 5 */
	c.top_k = 0;
	c.watermark_bytes = 64 << 20;
	nodes[0].free_bytes = c.watermark_bytes + 5 * PAGE;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 10, 0, d), 5);
	assert_int_equal(d[4].reason, HB_REASON_PROMOTE);
	assert_int_equal(d[5].reason, HB_REASON_WATERMARK);
	for (int i = 0; i < 10; i++)
		assert_true(d[i].reason != HB_REASON_PROMOTE || d[i].target == 0);
	nodes[0].free_bytes = 0;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 10, 0, d), 0);
	hb_policy_free(p);
}

static void test_policy_rate_limit_is_a_token_bucket_per_node(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_candidate cand[64];
	struct hb_decision d[64];
	size_t n;

	for (int i = 0; i < 64; i++)
		cand[i] = (struct hb_candidate){ (uint64_t)(i + 1) * PAGE, 100, i < 32 ? 2 : 3, -1,
						 1 };
	/* 40.96 kB/s, 10 pages deep: 10 now per node, then 1 page per 100 ms */
	c.rate_mbps = 10 * PAGE / 1e6;
	c.burst_mb = 10 * PAGE / 1e6;
	n = hb_policy_decide(p, &c, nodes, dist, cand, 64, 0, d);
	assert_int_equal(n, 20); /* 10 to node 0, 10 to node 1 */
	assert_int_equal(d[10].reason, HB_REASON_RATE_LIMIT);
	n = hb_policy_decide(p, &c, nodes, dist, cand, 64, 100 * MS, d);
	assert_int_equal(n, 2);
	n = hb_policy_decide(p, &c, nodes, dist, cand, 64, 10000 * MS, d);
	assert_int_equal(n, 20); /* refilled, but never beyond the depth */
	hb_policy_free(p);
}

static void test_policy_hysteresis_table_is_bounded(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_candidate one = { 0, 100, 2, -1, 1 };
	struct hb_decision d;

	c.hysteresis_ns = 10 * MS;
	for (uint64_t i = 0; i < 100000; i++)
		hb_policy_hold(p, &c, i * PAGE, i * MS);
	/* the newest holds survive the purges, the old ones expired */
	one.hpa = 99999 * PAGE;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, &one, 1, 100000 * MS, &d), 0);
	assert_int_equal(d.reason, HB_REASON_HYSTERESIS);
	one.hpa = 5 * PAGE;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, &one, 1, 100000 * MS, &d), 1);
	hb_policy_free(p);
}

/*
 * Expired holds are swept out a few slots an insert, never by a pass over
 * the whole table (a rebuild of it once full held the loop 50-200 ms under
 * TCG while a demotion's holds came in): a table full of live holds drops
 * new ones, and takes them again as the sweep finds expired ones.
 */
static void test_policy_holds_expire_by_a_sweep_not_a_rebuild(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_candidate one = { 0, 100, 2, -1, 1 };
	struct hb_decision d;
	uint64_t expired, dropped;
	size_t held;

	c.hysteresis_ns = 10000 * MS;
	for (uint64_t i = 0; i < 1024; i++) /* full: 1024 held of 2048 slots */
		hb_policy_hold(p, &c, i * PAGE, i * MS);
	for (uint64_t i = 1024; i < 3024; i++) /* all live: not taken */
		hb_policy_hold(p, &c, i * PAGE, 2000 * MS);
	hb_policy_hold_counts(p, &held, &expired, &dropped);
	assert_int_equal(held, 1024);
	assert_int_equal(expired, 0);
	assert_int_equal(dropped, 2000);
	one.hpa = 1500 * PAGE;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, &one, 1, 2000 * MS, &d), 1);
	/* 12 s: all expired; each insert sweeps 8 slots and finds room */
	for (uint64_t i = 5000; i < 5300; i++)
		hb_policy_hold(p, &c, i * PAGE, 12000 * MS);
	hb_policy_hold_counts(p, &held, &expired, &dropped);
	assert_int_equal(dropped, 2000); /* every one of the 300 taken */
	assert_true(expired > 0 && expired <= 1024);
	assert_int_equal(held, 1024 - expired + 300);
	for (uint64_t i = 5000; i < 5300; i++) {
		one.hpa = i * PAGE;
		assert_int_equal(hb_policy_decide(p, &c, nodes, dist, &one, 1, 12000 * MS, &d), 0);
		assert_int_equal(d.reason, HB_REASON_HYSTERESIS);
	}
	/* an expired hold not yet swept holds nothing */
	one.hpa = 1000 * PAGE;
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, &one, 1, 12000 * MS, &d), 1);
	/* 200 more: 4000 slots looked at, less the 1024 removals, went round the table */
	for (uint64_t i = 6000; i < 6200; i++)
		hb_policy_hold(p, &c, i * PAGE, 12000 * MS);
	hb_policy_hold_counts(p, &held, &expired, &dropped);
	assert_int_equal(expired, 1024);
	assert_int_equal(dropped, 2000);
	assert_int_equal(held, 500);
	hb_policy_free(p);
}

/* explain's question: evaluating twice gives one answer and spends nothing */
static void test_policy_evaluate_charges_nothing(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_candidate cand[12];
	struct hb_decision d[12], e1, e2;
	double before;

	for (int i = 0; i < 12; i++)
		cand[i] = (struct hb_candidate){ (uint64_t)(i + 1) * PAGE, 100, 2, -1, 1 };
	/* 10 pages deep, 1 page per 100 ms */
	c.rate_mbps = 10 * PAGE / 1e6;
	c.burst_mb = 10 * PAGE / 1e6;
	before = hb_policy_tokens(p, &c, 0, 0);
	assert_true(before == 10.0 * PAGE);
	for (int i = 0; i < 100; i++)
		assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &cand[0], NULL, 0, &e1),
				 HB_REASON_PROMOTE);
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &cand[0], NULL, 0, &e2),
			 HB_REASON_PROMOTE);
	assert_memory_equal(&e1, &e2, sizeof(e1));
	assert_true(hb_policy_tokens(p, &c, 0, 0) == before);
	/* the bucket is intact: a real cycle still gets its 10 pages */
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, 12, 0, d), 10);
	assert_true(hb_policy_tokens(p, &c, 0, 0) < (double)PAGE);
	/* and an evaluation now sees the empty bucket: the rate limit is evaluated */
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &cand[11], NULL, 0, &e1),
			 HB_REASON_RATE_LIMIT);
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &cand[11], NULL, 100 * MS, &e1),
			 HB_REASON_PROMOTE);
	assert_true(hb_policy_tokens(p, &c, 0, 0) < (double)PAGE);
	hb_policy_free(p);
}

/* held pages say why: moved N ago, on the target already, or refused (errno) */
static void test_policy_held_pages_name_their_outcome(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_candidate a = { 0x1000, 100, 2, -1, 1 }, b = { 0x2000, 100, 2, -1, 1 },
			    r = { 0x3000, 100, 2, -1, 1 };
	struct hb_decision d;

	c.hysteresis_ns = 1000 * MS;
	hb_policy_hold_outcome(p, &c, a.hpa, 5 * MS, HB_HOLD_MOVED, 0);
	hb_policy_hold_outcome(p, &c, b.hpa, 6 * MS, HB_HOLD_ON_TARGET, 0);
	hb_policy_hold_outcome(p, &c, r.hpa, 7 * MS, HB_HOLD_REFUSED, -13);
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &a, NULL, 10 * MS, &d),
			 HB_REASON_HYSTERESIS);
	assert_int_equal(d.held_since_ns, 5 * MS);
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &b, NULL, 10 * MS, &d),
			 HB_REASON_ON_TARGET);
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &r, NULL, 10 * MS, &d),
			 HB_REASON_REFUSED);
	assert_int_equal(d.held_result, -13);
	assert_int_equal(d.held_since_ns, 7 * MS);
	assert_string_equal(hb_reason_to_string(HB_REASON_ON_TARGET), "already_on_target");
	assert_string_equal(hb_reason_to_string(HB_REASON_REFUSED), "refused_by_kernel");
	for (int i = 0; i < _HB_REASON_MAX; i++)
		assert_non_null(hb_reason_to_string(i));
	/* expired: considered again */
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist, &r, NULL, 1007 * MS, &d),
			 HB_REASON_PROMOTE);
	hb_policy_free(p);
}

/*
 * policy.min_epochs (issue 41's scan): a page a one-pass scan reports once,
 * however hot that once, is held as too_few_epochs cycle after cycle; a
 * page reported in two cycles is promoted; reports within one cycle count
 * once; a heat decayed to nothing starts the count again.
 */
static void test_policy_one_epoch_of_heat_is_not_promoted(void **state)
{
	struct hb_policy *p = policy();
	struct hb_policy_config c = cfg();
	struct hb_heat_table *t = NULL;
	struct hb_err err = { 0 };
	struct hb_candidate cand[4];
	struct hb_decision d[4];
	size_t n;

	c.min_epochs = 2;
	assert_int_equal(hb_heat_new(64, 0.8, 12, &t, &err), 0);
	hb_heat_add(t, 0x1000, PAGE, 64, 2); /* scanned: 64 lines, once */
	hb_heat_add(t, 0x2000, PAGE, 12, 2); /* hot: every cycle */
	hb_heat_add(t, 0x2000, PAGE, 12, 2); /* the same cycle: still one */
	/* three cycles: both still over the threshold (24 x 0.8^2 = 15.4), both held */
	for (int cycle = 0; cycle < 3; cycle++) {
		n = hb_heat_collect(t, c.threshold, cand, 4);
		assert_int_equal(n, 2);
		assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, n, cycle * MS, d), 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(d[i].reason, HB_REASON_FEW_EPOCHS);
			assert_int_equal(d[i].epochs, 1);
		}
		hb_heat_tick(t);
	}
	assert_int_equal(hb_heat_epochs(t, 0x1000), 1);
	hb_heat_add(t, 0x2000, PAGE, 12, 2); /* a second cycle */
	assert_int_equal(hb_heat_epochs(t, 0x2000), 2);
	n = hb_heat_collect(t, c.threshold, cand, 4);
	assert_int_equal(hb_policy_decide(p, &c, nodes, dist, cand, n, 10 * MS, d), 1);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(d[i].reason,
				 d[i].hpa == 0x2000 ? HB_REASON_PROMOTE : HB_REASON_FEW_EPOCHS);
	assert_string_equal(hb_reason_to_string(HB_REASON_FEW_EPOCHS), "too_few_epochs");
	/* min_epochs 1 (or unset): the first report suffices */
	c.min_epochs = 1;
	assert_int_equal(hb_policy_evaluate(p, &c, nodes, dist,
					    &(struct hb_candidate){ 0x3000, 64, 2, -1, 1 }, NULL,
					    10 * MS, &d[0]),
			 HB_REASON_PROMOTE);
	/* 256 cycles later the heat is nothing: the count starts again */
	for (int i = 0; i < 256; i++)
		hb_heat_tick(t);
	assert_int_equal(hb_heat_epochs(t, 0x2000), 0);
	hb_heat_add(t, 0x2000, PAGE, 12, 2);
	assert_int_equal(hb_heat_epochs(t, 0x2000), 1);
	hb_heat_free(t);
	hb_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_policy_target_is_explicit_or_the_nearest_cpu_node, setup),
		cmocka_unit_test_setup(test_policy_each_rule_has_its_reason, setup),
		cmocka_unit_test_setup(test_policy_heat_zero_never_promotes_even_at_threshold_zero,
				       setup),
		cmocka_unit_test_setup(test_policy_top_k_and_watermark, setup),
		cmocka_unit_test_setup(test_policy_rate_limit_is_a_token_bucket_per_node, setup),
		cmocka_unit_test_setup(test_policy_hysteresis_table_is_bounded, setup),
		cmocka_unit_test_setup(test_policy_holds_expire_by_a_sweep_not_a_rebuild, setup),
		cmocka_unit_test_setup(test_policy_evaluate_charges_nothing, setup),
		cmocka_unit_test_setup(test_policy_held_pages_name_their_outcome, setup),
		cmocka_unit_test_setup(test_policy_one_epoch_of_heat_is_not_promoted, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
