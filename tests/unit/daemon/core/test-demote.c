// SPDX-License-Identifier: MIT
/*
 * Demotion rules on synthetic input: the DRAM goal (watermark + room) and
 * the shortfall it asks for, coldest pages first, the demotion bucket apart
 * from the promotion bucket (paired budgets), hysteresis both ways (no
 * demotion soon after a promotion, no promotion soon after a demotion), the
 * CXL floor, demotion only to the configured CXL node, a tenant over its
 * budget giving back its pages first, and the placed-page
 * table against a reference under random adds and removes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core.h"

#define PAGE 4096ULL
#define MS 1000000ULL
#define SEC 1000000000ULL
#define MAXD 4096

static struct hb_numa_node nodes[HB_MAX_NODES];
static uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
static struct hb_decision out[MAXD];

/* nodes 0, 1: DRAM; 2, 3: CXL. Node 0 is 10 pages short of a 100-page goal. */
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
	nodes[0].free_bytes = 90 * PAGE;
	return 0;
}

static struct hb_demote_config dcfg(void)
{
	return (struct hb_demote_config){ .goal_bytes = 100 * PAGE,
					  .rate_pages = 0,
					  .cxl_floor_bytes = 0,
					  .cxl_node = -1,
					  .cold_cycles = 2,
					  .hysteresis_ns = 10 * SEC,
					  .page_size = PAGE };
}

/* n pages placed on node 0 from node 2 at time 0; page i idle i times */
static struct hb_placed *placed_n(size_t n)
{
	struct hb_placed *p = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_placed_new(1 << 16, PAGE, &p, &err), 0);
	for (size_t i = 0; i < n; i++) {
		size_t cur = 0;
		struct hb_placed_page *e;

		assert_int_equal(hb_placed_add(p, 0x390000000ULL + i * PAGE, 2, 0, 0), 0);
		while ((e = hb_placed_next(p, &cur)))
			if (hb_placed_hpa(p, e) == 0x390000000ULL + i * PAGE)
				e->idle = (uint16_t)i;
	}
	return p;
}

static struct hb_demoter *demoter(void)
{
	struct hb_demoter *dm = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_demoter_new(&dm, &err), 0);
	return dm;
}

static size_t count(size_t n, enum hb_reason r)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += out[i].reason == r;
	return k;
}

static void test_demote_goal_takes_the_shortfall_coldest_first(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	size_t n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);

	/* 10 pages short: exactly 10 demoted, the idlest (39..30), to node 2 */
	assert_int_equal(count(n, HB_REASON_DEMOTE), 10);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(out[i].reason, HB_REASON_DEMOTE);
		assert_int_equal(out[i].src, 0);
		assert_int_equal(out[i].target, 2);
		assert_true(out[i].heat >= 30);
	}
	/* at the goal: nothing */
	nodes[0].free_bytes = 100 * PAGE;
	assert_int_equal(hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD), 0);
	/* not in the node mask: nothing */
	nodes[0].free_bytes = 0;
	assert_int_equal(hb_demote_decide(dm, &c, nodes, p, ~1ULL, 20 * SEC, out, MAXD), 0);
	/* a page idle fewer than cold_cycles checks is never demoted */
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 38);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

static void test_demote_budget_is_its_own_and_refills(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	struct hb_policy *pol = NULL;
	struct hb_policy_config pc = { .threshold = 1,
				       .target_node = -1,
				       .page_size = PAGE,
				       .rate_mbps = 4 * PAGE / 1e6,
				       .burst_mb = 4 * PAGE / 1e6 };
	struct hb_candidate hot[8];
	struct hb_decision pd[8];
	struct hb_err err = { 0 };
	size_t n;

	c.rate_pages = 4;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 4);
	/* the rest of the shortfall: one refusal stands for it */
	assert_int_equal(count(n, HB_REASON_DEMOTE_RATE_LIMIT), 1);
	/* the same instant: the demotion bucket is empty */
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 0);
	/* and promotion's own bucket is untouched: 4 pages' worth promote */
	assert_int_equal(hb_policy_new(64, &pol, &err), 0);
	for (int i = 0; i < 8; i++)
		hot[i] = (struct hb_candidate){ 0x400000000ULL + (uint64_t)i * PAGE, 50, 2, -1, 1 };
	assert_int_equal(hb_policy_decide(pol, &pc, nodes, dist, hot, 8, 20 * SEC, pd), 4);
	/* promotions spend nothing of the demotion bucket: half a second refills 2 */
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC + SEC / 2, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 2);
	hb_policy_free(pol);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

static void test_demote_hysteresis_after_promotion(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	const struct hb_placed_page *e = hb_placed_find(p, 0x390000000ULL + 39 * PAGE);
	struct hb_decision d;
	size_t n;

	/*
	 * promoted at 0, hysteresis 10 s: at 9.999 s every cold page is held,
	 * and one decision, the coldest held page's, says so for the node
	 */
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 10 * SEC - 1, out, MAXD);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].reason, HB_REASON_PROMOTED_RECENTLY);
	assert_int_equal(out[0].hpa, 0x390000000ULL + 39 * PAGE);
	assert_int_equal(hb_demote_evaluate(dm, &c, nodes, p, e, NULL, 10 * SEC - 1, &d),
			 HB_REASON_PROMOTED_RECENTLY);
	assert_int_equal(hb_demote_evaluate(dm, &c, nodes, p, e, NULL, 10 * SEC, &d),
			 HB_REASON_DEMOTE);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

/*
 * Pages within the hysteresis are left out of the walk: the next coldest
 * cover the shortfall and nothing is said of them; where they leave a
 * node short, one decision (its coldest held page) says why.
 */
static void test_demote_walk_leaves_out_pages_within_the_hysteresis(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	struct hb_placed_page *e;
	size_t n, cur = 0;

	/* the 10 idlest (30-39) placed at 15 s: held until 25 s */
	while ((e = hb_placed_next(p, &cur)))
		if (e->idle >= 30)
			e->since_ns = 15 * SEC;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(n, 10);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 10);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i].heat >= 20 && out[i].heat < 30);
	/* 30 short: 18 more are cold (2-19), then one for the 10 held, one for the 2 not cold */
	nodes[0].free_bytes = 70 * PAGE;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 28);
	assert_int_equal(count(n, HB_REASON_PROMOTED_RECENTLY), 1);
	assert_int_equal(count(n, HB_REASON_NOT_COLD), 1);
	assert_int_equal(n, 30);
	assert_int_equal(out[28].reason, HB_REASON_PROMOTED_RECENTLY);
	assert_int_equal(out[28].hpa, 0x390000000ULL + 39 * PAGE);
	assert_int_equal(out[29].reason, HB_REASON_NOT_COLD);
	assert_int_equal(out[29].hpa, 0x390000000ULL + 1 * PAGE);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

/*
 * newuser r4 D9: a node short of room whose placed pages are none of them
 * cold (a coldness source that never calls one cold) has one decision,
 * not_cold, for its coldest page; and none once it has room
 */
static void test_demote_short_node_with_nothing_cold_says_not_cold(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	size_t n;

	(void)state;
	c.cold_cycles = 1000;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].reason, HB_REASON_NOT_COLD);
	assert_int_equal(out[0].hpa, 0x390000000ULL + 39 * PAGE);
	nodes[0].free_bytes = 200 * PAGE;
	assert_int_equal(hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD), 0);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

static void test_demote_hysteresis_before_repromotion(void **state)
{
	struct hb_policy *pol = NULL;
	struct hb_placed *p = placed_n(1);
	struct hb_policy_config pc = {
		.threshold = 1, .target_node = -1, .page_size = PAGE, .hysteresis_ns = 10 * SEC
	};
	struct hb_candidate cand = { 0x390000000ULL, 50, 2, -1, 1 };
	struct hb_err err = { 0 };
	struct hb_decision d;

	assert_int_equal(hb_policy_new(64, &pol, &err), 0);
	hb_policy_set_placed(pol, p);
	/* on DRAM by our doing: resident, not promoted again */
	assert_int_equal(hb_policy_evaluate(pol, &pc, nodes, dist, &cand, NULL, 0, &d),
			 HB_REASON_RESIDENT);
	/* demoted at 5 s: held until 15 s, then promoted again */
	assert_true(hb_placed_remove(p, cand.hpa));
	hb_policy_hold_outcome(pol, &pc, cand.hpa, 5 * SEC, HB_HOLD_DEMOTED, 2);
	assert_int_equal(hb_policy_evaluate(pol, &pc, nodes, dist, &cand, NULL, 15 * SEC - 1, &d),
			 HB_REASON_DEMOTED_RECENTLY);
	assert_string_equal(hb_reason_to_string(d.reason), "demoted_recently");
	assert_int_equal(hb_policy_evaluate(pol, &pc, nodes, dist, &cand, NULL, 15 * SEC, &d),
			 HB_REASON_PROMOTE);
	hb_policy_free(pol);
	hb_placed_free(p);
}

static void test_demote_cxl_floor(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	size_t n;

	/* node 2 has 3 pages above its floor: 3 demoted, the rest of the need refused once */
	c.cxl_floor_bytes = 64 * PAGE;
	nodes[2].free_bytes = 67 * PAGE;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 3);
	assert_int_equal(count(n, HB_REASON_CXL_FLOOR), 1);
	assert_int_equal(n, 4);
	/* another CXL node with room takes them, and only that node */
	c.cxl_node = 3;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 10);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(out[i].target, 3);
	/* a DRAM node or an absent one is never a demotion target */
	c.cxl_node = 1;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_NO_CXL_NODE), n);
	c.cxl_node = 9;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 0);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

static void test_demote_placed_table_matches_a_reference(void **state)
{
	enum { N = 5000 };
	static bool in[N];
	struct hb_placed *p = NULL;
	struct hb_err err = { 0 };
	size_t len = 0, walked = 0, cur = 0;
	unsigned int seed = 7;

	memset(in, 0, sizeof(in));
	assert_int_equal(hb_placed_new(N, PAGE, &p, &err), 0);
	for (int i = 0; i < 200000; i++) {
		size_t k = (size_t)rand_r(&seed) % N;

		if (rand_r(&seed) % 3) {
			assert_int_equal(hb_placed_add(p, k * PAGE, 2, 0, (uint64_t)i), 0);
			len += !in[k];
			in[k] = true;
		} else {
			assert_int_equal(hb_placed_remove(p, k * PAGE), in[k]);
			len -= in[k];
			in[k] = false;
		}
	}
	assert_int_equal(hb_placed_len(p), len);
	for (size_t k = 0; k < N; k++)
		assert_int_equal(hb_placed_find(p, k * PAGE) != NULL, in[k]);
	while (hb_placed_next(p, &cur))
		walked++;
	assert_int_equal(walked, len);
	hb_placed_free(p);
	/* the budget */
	assert_int_equal(hb_placed_new(2, PAGE, &p, &err), 0);
	assert_int_equal(hb_placed_add(p, 0, 2, 0, 0), 0);
	assert_int_equal(hb_placed_add(p, PAGE, 2, 0, 0), 0);
	assert_int_equal(hb_placed_add(p, 2 * PAGE, 2, 0, 0), -ENOSPC);
	hb_placed_free(p);
	assert_int_equal(hb_placed_new(2, 3000, &p, &err), -EINVAL);
}

/*
 * Room made ahead (the census's frames, before the loop runs): adding that
 * many never grows the table, a reservation past the budget stops at it,
 * and what was in the table stays findable across one.
 */
static void test_demote_placed_reserve_makes_room_ahead(void **state)
{
	struct hb_placed *p = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_placed_new(5000, PAGE, &p, &err), 0);
	assert_int_equal(hb_placed_bytes(p), 64 * 24);
	for (size_t k = 0; k < 20; k++)
		assert_int_equal(hb_placed_add(p, k * PAGE, 2, 0, 0), 0);
	assert_int_equal(hb_placed_reserve(p, 1000), 0);
	assert_int_equal(hb_placed_bytes(p), 2048 * 24);
	for (size_t k = 0; k < 20; k++)
		assert_non_null(hb_placed_find(p, k * PAGE));
	for (size_t k = 20; k < 1000; k++)
		assert_int_equal(hb_placed_add(p, k * PAGE, 2, 0, 0), 0);
	assert_int_equal(hb_placed_bytes(p), 2048 * 24); /* not grown */
	assert_int_equal(hb_placed_reserve(p, 10), 0);   /* never shrinks */
	assert_int_equal(hb_placed_bytes(p), 2048 * 24);
	assert_int_equal(hb_placed_reserve(p, (size_t)1 << 40), 0); /* the budget, 5000 */
	assert_int_equal(hb_placed_bytes(p), 16384 * 24);
	assert_int_equal(hb_placed_len(p), 1000);
	for (size_t k = 0; k < 1000; k++)
		assert_non_null(hb_placed_find(p, k * PAGE));
	hb_placed_free(p);
}

/*
 * A tenant over its budget gives back its own cold pages first: pages 0..19
 * count to budget 0, 5 pages over; of node 0's 10-page shortfall, 5 are
 * that tenant's coldest (19..15), the other 5 the coldest of the rest
 * (39..35), not the 10 coldest overall (39..30)
 */
static void test_demote_over_budget_tenant_first(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	uint64_t over[2] = { 5, 0 };
	struct hb_placed_page *e;
	size_t n, cur = 0, mine = 0;

	while ((e = hb_placed_next(p, &cur)))
		e->tenant = e->idle < 20 ? 0 : 1;
	hb_demoter_set_tenant_over(dm, over, 2);
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 10);
	for (size_t i = 0; i < n; i++) {
		if (out[i].heat < 20) {
			assert_true(out[i].heat >= 15);
			mine++;
		} else {
			assert_true(out[i].heat >= 35);
		}
	}
	assert_int_equal(mine, 5);
	/* within budget again: the coldest overall */
	over[0] = 0;
	hb_demoter_set_tenant_over(dm, over, 2);
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i].heat >= 30);
	/*
	 * over by more than the shortfall: all 20 of the tenant's go, the two
	 * not cold yet (idle 0 and 1) too, and they cover the shortfall
	 */
	over[0] = 50;
	hb_demoter_set_tenant_over(dm, over, 2);
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 20);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i].heat < 20);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

/*
 * A tenant over its budget (a reload lowered it) gives back its pages
 * though no node needs room (the issue: "restored by demotion first when
 * a tenant is over its budget"): as many as it is over, coldest first,
 * hot ones too; within the node's bucket, and never a page within the
 * hysteresis. Before, nothing was demoted until a node ran short.
 */
static void test_demote_over_budget_tenant_without_need_for_room(void **state)
{
	struct hb_demote_config c = dcfg();
	struct hb_placed *p = placed_n(40);
	struct hb_demoter *dm = demoter();
	uint64_t over[2] = { 5, 0 };
	struct hb_placed_page *e;
	size_t n, cur = 0;

	(void)state;
	nodes[0].free_bytes = 1ULL << 30; /* room to spare */
	while ((e = hb_placed_next(p, &cur)))
		e->tenant = e->idle < 20 ? 0 : 1;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 0);
	hb_demoter_set_tenant_over(dm, over, 2);
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(n, 5);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 5);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i].heat >= 15 && out[i].heat < 20);
	/* hot pages too: over by all 20 */
	over[0] = 20;
	hb_demoter_set_tenant_over(dm, over, 2);
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 20);
	/* rate limited: the bucket's 3, then one refusal for the rest */
	c.rate_pages = 3;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 20 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 3);
	assert_int_equal(count(n, HB_REASON_DEMOTE_RATE_LIMIT), 1);
	/* within the hysteresis (placed at 0, 10 s): nothing */
	c.rate_pages = 0;
	n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, 5 * SEC, out, MAXD);
	assert_int_equal(count(n, HB_REASON_DEMOTE), 0);
	hb_placed_free(p);
	hb_demoter_free(dm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_demote_goal_takes_the_shortfall_coldest_first, setup),
		cmocka_unit_test_setup(test_demote_over_budget_tenant_first, setup),
		cmocka_unit_test_setup(test_demote_over_budget_tenant_without_need_for_room, setup),
		cmocka_unit_test_setup(test_demote_placed_reserve_makes_room_ahead, setup),
		cmocka_unit_test_setup(test_demote_budget_is_its_own_and_refills, setup),
		cmocka_unit_test_setup(test_demote_hysteresis_after_promotion, setup),
		cmocka_unit_test_setup(test_demote_walk_leaves_out_pages_within_the_hysteresis, setup),
		cmocka_unit_test_setup(test_demote_short_node_with_nothing_cold_says_not_cold, setup),
		cmocka_unit_test_setup(test_demote_hysteresis_before_repromotion, setup),
		cmocka_unit_test_setup(test_demote_cxl_floor, setup),
		cmocka_unit_test_setup(test_demote_placed_table_matches_a_reference, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
