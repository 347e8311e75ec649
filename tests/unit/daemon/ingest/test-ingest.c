// SPDX-License-Identifier: MIT
/*
 * Ingestion (daemon/ingest/ingest.c): no page outside a committed region on a
 * source node ever enters the table, a record's cost is bounded by the CXL
 * memory it overlaps, slices and the backlog give the same table as one go,
 * and a record partly applied is counted exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "platform/emulated-host.h"
#include "ingest/ingest.h"

#define PAGE 4096ULL
#define BLOCK (128ULL << 20)
#define REGION 0x390000000ULL
#define REGION_END (REGION + (1ULL << 30))

/*
 * The test host's memory map: the emulated region0 on node 2, except its
 * second block, which is offline (no node), and its third, which is online
 * on node 0 (not a source node). Below the region is DRAM on node 0.
 */
static int node_of(void *ud, uint64_t hpa)
{
	(void)ud;
	if (hpa >= REGION + BLOCK && hpa < REGION + 2 * BLOCK)
		return -1;
	if (hpa >= REGION + 2 * BLOCK && hpa < REGION + 3 * BLOCK)
		return 0;
	if (hpa >= REGION && hpa < REGION_END)
		return 2;
	return hpa < REGION ? 0 : -1;
}

static bool page_allowed(uint64_t hpa)
{
	return hpa >= REGION && hpa < REGION_END && node_of(NULL, hpa) == 2;
}

struct fixture {
	struct hb_topology *topo;
	struct hb_heat_table *heat;
	struct hb_ingest *in;
	int reports;
	char last_report[256];
};

static void report(void *ud, const char *msg)
{
	struct fixture *f = ud;

	f->reports++;
	snprintf(f->last_report, sizeof(f->last_report), "%s", msg);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct hb_err err = { 0 };
	struct hb_ingest_env env = { .node_of = node_of, .report = report, .page_size = PAGE };

	assert_non_null(f);
	assert_int_equal(hb_emulated_topology(&f->topo, &err), 0);
	assert_int_equal(hb_heat_new(1 << 20, 1.0, 12, &f->heat, &err), 0);
	env.heat = f->heat;
	env.report_ud = f;
	assert_int_equal(hb_ingest_new(&env, &f->in, &err), 0);
	assert_int_equal(hb_ingest_set_topology(f->in, f->topo, 1ULL << 2, BLOCK), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	hb_ingest_free(f->in);
	hb_heat_free(f->heat);
	hb_topology_free(f->topo);
	free(f);
	return 0;
}

static struct hb_hot_record hpa_rec(uint64_t hpa, uint64_t len, uint64_t count)
{
	return (struct hb_hot_record){ .space = HB_SPACE_HPA, .addr = hpa, .len = len, .count = count };
}

static struct hb_hot_record dpa_rec(const char *memdev, uint64_t dpa, uint64_t len, uint64_t count)
{
	struct hb_hot_record r = { .space = HB_SPACE_DPA, .addr = dpa, .len = len, .count = count };

	snprintf(r.memdev, sizeof(r.memdev), "%s", memdev);
	return r;
}

/* every page in the table, hottest first */
static size_t table_pages(struct fixture *f, struct hb_candidate **ret)
{
	size_t n = hb_heat_len(f->heat);
	struct hb_candidate *c = calloc(n ? n : 1, sizeof(*c));

	assert_non_null(c);
	n = hb_heat_collect(f->heat, 0, c, n);
	*ret = c;
	return n;
}

static void assert_table_inside_regions(struct fixture *f)
{
	struct hb_candidate *c;
	size_t n = table_pages(f, &c);

	for (size_t i = 0; i < n; i++) {
		if (!page_allowed(c[i].hpa) || c[i].node != 2)
			fail_msg("page %#llx (node %d) is outside every committed region on a "
				 "source node",
				 (unsigned long long)c[i].hpa, c[i].node);
	}
	free(c);
}

/* the reported defect: hpa=0x3cfff0000 len=0x30000 ran 0x20000 past region0 */
static void test_hpa_record_crossing_the_region_end_adds_only_region_pages(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r = hpa_rec(0x3cfff0000, 0x30000, 48);
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);
	int node;

	assert_int_equal(hb_ingest_submit(f->in, &r, 1, 0), 0);
	assert_int_equal(hb_heat_len(f->heat), 16); /* 0x3cfff0000..0x3cfffffff */
	assert_true(hb_heat_get(f->heat, 0x3cffff000, &node) > 0);
	assert_int_equal(node, 2);
	assert_true(hb_heat_get(f->heat, 0x3d0010000, &node) == 0);
	assert_int_equal(node, -1);
	assert_int_equal(st->records, 1);
	assert_int_equal(st->translated, 1);
	assert_int_equal(st->partial, 1);
	assert_int_equal(st->dropped[HB_DROP_UNMAPPED], 1);
	assert_int_equal(st->pages, 16);
	assert_int_equal(st->pages_dropped[HB_DROP_UNMAPPED], 32); /* 0x3d0000000.. */
	assert_table_inside_regions(f);
}

/* a block offline, a block on a DRAM node: neither enters the table */
static void test_pages_on_no_node_or_a_non_source_node_stay_out(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r = hpa_rec(REGION + BLOCK - 2 * PAGE, BLOCK + 4 * PAGE, 100);
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);

	assert_int_equal(hb_ingest_submit(f->in, &r, 1, 0), 0);
	assert_int_equal(hb_heat_len(f->heat), 2); /* the two before the hole */
	assert_int_equal(st->dropped[HB_DROP_NO_NODE], 1);
	assert_int_equal(st->dropped[HB_DROP_NOT_SOURCE], 1);
	assert_int_equal(st->partial, 1);
	/* counted exactly: 2 pages in, the offline block, 2 pages on node 0 */
	assert_int_equal(st->pages, 2);
	assert_int_equal(st->pages_dropped[HB_DROP_NO_NODE], BLOCK / PAGE);
	assert_int_equal(st->pages_dropped[HB_DROP_NOT_SOURCE], 2);
	assert_table_inside_regions(f);
}

/*
 * Pages moved onto node 2 at time T (a demotion): a record taken before T
 * may name a frame that holds a demoted page now, and is dropped as stale;
 * one taken after T, or submitted after T without a timestamp, counts.
 */
static void test_records_taken_before_pages_moved_onto_their_node_are_stale(void **state)
{
	struct fixture *f = *state;
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);
	uint64_t t = hb_now_ns();
	struct hb_hot_record r[3] = { hpa_rec(REGION, PAGE, 9), hpa_rec(REGION + PAGE, PAGE, 9),
				      hpa_rec(REGION + 2 * PAGE, PAGE, 9) };
	int node;

	r[0].timestamp_ns = t - 1000;
	r[1].timestamp_ns = t + 1000;
	hb_ingest_moved_onto(f->in, 2, t);
	hb_ingest_moved_onto(f->in, 2, t - 5000); /* the latest move counts */
	hb_ingest_moved_onto(f->in, 64, t);       /* no such node: ignored */
	assert_int_equal(hb_ingest_submit(f->in, r, 3, 0), 0);
	assert_true(hb_heat_get(f->heat, REGION, &node) == 0);
	assert_true(hb_heat_get(f->heat, REGION + PAGE, &node) > 0);
	assert_true(hb_heat_get(f->heat, REGION + 2 * PAGE, &node) > 0);
	assert_int_equal(st->dropped[HB_DROP_STALE], 1);
	assert_int_equal(st->pages_dropped[HB_DROP_STALE], 1);
	assert_string_equal(hb_drop_to_string(HB_DROP_STALE), "stale");
	/* moves onto another node leave node 2's records alone */
	hb_ingest_moved_onto(f->in, 0, t + 1000000);
	r[0].timestamp_ns = t + 10;
	assert_int_equal(hb_ingest_submit(f->in, r, 1, 0), 0);
	assert_true(hb_heat_get(f->heat, REGION, &node) > 0);
}

/*
 * newuser r5 E2, E3: a timestamp from the future (ts=2^64-1, the wall
 * clock's) is bad, one over HB_RECORD_MAX_AGE_NS old (ts=1) stale, neither
 * goes into the latency summaries; a count over HB_RECORD_COUNT_MAX is bad,
 * and a page's heat stops at 1e18, the largest threshold.
 */
static void test_implausible_timestamps_and_counts_are_dropped(void **state)
{
	struct fixture *f = *state;
	struct hb_latency *lat = calloc(1, sizeof(*lat));
	struct hb_ingest_env env = { .node_of = node_of, .page_size = PAGE, .heat = f->heat };
	struct hb_ingest *in = NULL;
	struct hb_err err = { 0 };
	uint64_t t = hb_now_ns();
	struct hb_hot_record r[6] = { hpa_rec(REGION, PAGE, 9),
				      hpa_rec(REGION + PAGE, PAGE, 9),
				      hpa_rec(REGION + 2 * PAGE, PAGE, 9),
				      hpa_rec(REGION + 3 * PAGE, PAGE, HB_RECORD_COUNT_MAX + 1),
				      hpa_rec(REGION + 4 * PAGE, PAGE, HB_RECORD_COUNT_MAX),
				      hpa_rec(REGION + 5 * PAGE, PAGE, 9) };
	int node;

	assert_non_null(lat);
	env.lat = lat;
	assert_int_equal(hb_ingest_new(&env, &in, &err), 0);
	assert_int_equal(hb_ingest_set_topology(in, f->topo, 1ULL << 2, BLOCK), 0);
	r[0].timestamp_ns = UINT64_MAX;
	r[1].timestamp_ns = t + 2 * HB_RECORD_TS_SKEW_NS;
	r[2].timestamp_ns = 1;
	r[5].timestamp_ns = t; /* plausible: taken */
	assert_int_equal(hb_ingest_submit(in, r, 6, 0), 0);
	for (int i = 0; i < 4; i++)
		assert_true(hb_heat_get(f->heat, REGION + (uint64_t)i * PAGE, &node) == 0);
	assert_int_equal(hb_ingest_stats(in)->dropped[HB_DROP_BAD_RECORD], 3);
	assert_int_equal(hb_ingest_stats(in)->dropped[HB_DROP_STALE], 1);
	assert_true(hb_heat_get(f->heat, REGION + 5 * PAGE, &node) > 0);
	/* no latency from a ts that is not the records' clock: none near the uptime */
	assert_int_equal(lat->to_table.count, 6);
	assert_true(lat->to_table.max_ns < HB_RECORD_TS_SKEW_NS);
	/* the largest count taken; more heat than 1e18 never kept */
	assert_true(hb_heat_get(f->heat, REGION + 4 * PAGE, &node) > 0);
	hb_heat_add(f->heat, REGION + 4 * PAGE, PAGE, 5e18, 2);
	hb_heat_add(f->heat, REGION + 4 * PAGE, PAGE, 5e18, 2);
	assert_true(hb_heat_get(f->heat, REGION + 4 * PAGE, &node) <= 1e18);
	hb_ingest_free(in);
	free(lat);
}

/*
 * hpa=0x390000000 len=0x2000000000 (128 GiB named, 1 GiB of CXL memory)
 * stalled the loop 17.5 s: a record may name no more than all committed
 * CXL memory, and what it names outside the regions is skipped, not walked.
 */
static void test_long_record_costs_only_the_cxl_memory_it_overlaps(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r[3] = { hpa_rec(REGION - (1ULL << 30) + (512ULL << 20), 1ULL << 30, 1),
				      hpa_rec(REGION, 0x2000000000, 1), hpa_rec(0, 1ULL << 63, 1) };
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);

	/* 512 MiB below region0, then its first 512 MiB: 4 blocks, 1 offline, 1 DRAM */
	assert_int_equal(hb_ingest_submit(f->in, &r[0], 1, 0), 0);
	assert_int_equal(st->pages, 2 * BLOCK / PAGE);
	assert_int_equal(st->partial, 1);
	assert_table_inside_regions(f);
	/* longer than all CXL memory: bad input, one report for the burst */
	assert_int_equal(hb_ingest_submit(f->in, &r[1], 2, 0), 0);
	assert_int_equal(st->dropped[HB_DROP_BAD_RECORD], 2);
	assert_int_equal(st->pages, 2 * BLOCK / PAGE);
	assert_int_equal(f->reports, 1);
	assert_non_null(strstr(f->last_report, "2 bad record(s)"));
	assert_non_null(strstr(f->last_report, "longer than all committed CXL regions"));
}

/*
 * Every record ends translated (some page entered the table) or dropped
 * (none did), whatever it hit: records = translated + dropped_records once
 * the backlog is worked off, and a record partly applied is translated.
 */
static void test_records_are_translated_or_dropped_exactly(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r[8] = {
		hpa_rec(REGION, PAGE, 1),                    /* translated */
		dpa_rec("mem0", 0, PAGE, 1),                 /* translated */
		hpa_rec(REGION + BLOCK - PAGE, 2 * PAGE, 1), /* partial: translated */
		dpa_rec("mem9", 0, PAGE, 1),                 /* unknown memdev */
		hpa_rec(0x1000, PAGE, 1),                    /* DRAM: unmapped */
		hpa_rec(REGION + BLOCK, PAGE, 1),            /* offline: no node */
		hpa_rec(REGION + 2 * BLOCK, PAGE, 1),        /* node 0: not a source */
		hpa_rec(REGION, 0, 1),                       /* bad record */
	};
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);

	/* a deadline already past: all but the first go through the backlog */
	assert_int_equal(hb_ingest_submit(f->in, r, 8, 1), 0);
	assert_int_equal(st->records, 8);
	while (hb_ingest_drain(f->in, 0))
		;
	assert_int_equal(st->translated, 3);
	assert_int_equal(st->partial, 1);
	assert_int_equal(st->dropped_records, 5);
	assert_int_equal(st->records, st->translated + st->dropped_records);
	assert_int_equal(st->bad_input, 0); /* the host's, never ingestion's */
}

static void test_bad_records_are_reported_once_per_burst(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r[5] = { hpa_rec(REGION, 0, 1),
				      hpa_rec(UINT64_MAX - 10, 100, 1),
				      hpa_rec(REGION, PAGE, 1),
				      dpa_rec("mem0", 0, 1ULL << 40, 1),
				      { .space = 7, .addr = REGION, .len = PAGE } };
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);

	assert_int_equal(hb_ingest_submit(f->in, r, 5, 0), 0);
	assert_int_equal(st->dropped[HB_DROP_BAD_RECORD], 4);
	assert_int_equal(st->translated, 1);
	assert_int_equal(f->reports, 1);
	assert_non_null(strstr(f->last_report, "4 bad record(s)"));
	assert_non_null(strstr(f->last_report, "zero length"));
}

/* mem0's decoder ends at 512 MiB: a record over its end keeps the part inside */
static void test_dpa_record_crossing_the_decoder_end_keeps_only_decoded_pages(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r = dpa_rec("mem1", (512ULL << 20) - 2 * PAGE, 8 * PAGE, 80);
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);
	int node;

	assert_int_equal(hb_ingest_submit(f->in, &r, 1, 0), 0);
	assert_int_equal(hb_heat_len(f->heat), 2);
	/* mem1 is position 1: its last granule is the region's last page */
	assert_true(hb_heat_get(f->heat, REGION_END - PAGE, &node) > 0);
	assert_int_equal(st->partial, 1);
	assert_int_equal(st->dropped[HB_DROP_UNMAPPED], 1);
	assert_int_equal(st->pages, 2);
	assert_int_equal(st->pages_dropped[HB_DROP_UNMAPPED], 6);
	assert_table_inside_regions(f);
}

/*
 * A record partly applied is counted exactly: for page-aligned records
 * (HPA and DPA, in and around region0, its offline block, its DRAM block,
 * an unknown memdev) the pages that entered the table and those dropped,
 * by reason, add up to the records' length in pages, sliced or not.
 */
static void test_every_page_of_a_record_is_counted_once(void **state)
{
	struct fixture *f = *state;
	uint64_t seed = 0x2545f4914f6cdd1dULL, want = 0, got = 0;
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);

	for (int round = 0; round < 100; round++) {
		struct hb_hot_record r[32];

		for (int i = 0; i < 32; i++) {
			uint64_t a, len;

			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			a = (REGION - (256ULL << 20) + seed % (1536ULL << 20)) & ~(PAGE - 1);
			len = PAGE * (1 + (seed >> 40) % ((seed & 1) ? 16384 : 3));
			if (seed & 2)
				r[i] = hpa_rec(a, len, 1 + seed % 1000);
			else
				r[i] = dpa_rec((seed & 4) ? "mem1" :
					       (seed & 8) ? "mem0" :
							    "mem9",
					       a - (REGION - (256ULL << 20)), len, 1 + seed % 1000);
			want += len / PAGE;
		}
		assert_int_equal(hb_ingest_submit(f->in, r, 32, (seed & 16) ? 1 : 0), 0);
	}
	while (hb_ingest_drain(f->in, 0))
		;
	got = st->pages;
	for (int i = 0; i < _HB_DROP_MAX; i++)
		got += st->pages_dropped[i];
	assert_int_equal(st->dropped[HB_DROP_BAD_RECORD], 0);
	assert_true(st->partial > 10);
	assert_true(st->pages_dropped[HB_DROP_UNMAPPED] && st->pages_dropped[HB_DROP_NO_NODE] &&
		    st->pages_dropped[HB_DROP_NOT_SOURCE] &&
		    st->pages_dropped[HB_DROP_UNKNOWN_MEMDEV]);
	print_message("# %llu pages named: %llu in the table, %llu unmapped, %llu on no node, "
		      "%llu not on a source node, %llu of an unknown memdev\n",
		      (unsigned long long)want, (unsigned long long)st->pages,
		      (unsigned long long)st->pages_dropped[HB_DROP_UNMAPPED],
		      (unsigned long long)st->pages_dropped[HB_DROP_NO_NODE],
		      (unsigned long long)st->pages_dropped[HB_DROP_NOT_SOURCE],
		      (unsigned long long)st->pages_dropped[HB_DROP_UNKNOWN_MEMDEV]);
	assert_int_equal(got, want);
}

/* a deadline already past: everything waits in the backlog, in order */
static void test_slices_and_the_backlog_give_the_same_table(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r[3] = { hpa_rec(REGION, 64 << 20, 1 << 20),
				      dpa_rec("mem0", 0, 1 << 20, 9),
				      hpa_rec(REGION_END - (8 << 20), 16 << 20, 1 << 16) };
	const struct hb_ingest_stats *st = hb_ingest_stats(f->in);
	struct hb_heat_table *ref = NULL;
	struct hb_ingest *one = NULL;
	struct hb_err err = { 0 };
	struct hb_ingest_env env = { .node_of = node_of, .page_size = PAGE };
	struct hb_candidate *c;
	size_t n, left;

	assert_int_equal(hb_heat_new(1 << 20, 1.0, 12, &ref, &err), 0);
	env.heat = ref;
	assert_int_equal(hb_ingest_new(&env, &one, &err), 0);
	assert_int_equal(hb_ingest_set_topology(one, f->topo, 1ULL << 2, BLOCK), 0);
	assert_int_equal(hb_ingest_submit(one, r, 3, 0), 0);

	assert_int_equal(hb_ingest_submit(f->in, r, 3, 1), 0); /* 1 ns after boot */
	assert_true(hb_ingest_backlog(f->in) >= 2);
	assert_int_equal(st->records, 3);
	left = hb_ingest_backlog(f->in);
	while ((left = hb_ingest_drain(f->in, 1)) > 0)
		; /* each call makes progress even with no time at all */
	assert_int_equal(st->translated, 3);
	assert_int_equal(st->partial, 1);
	assert_int_equal(st->pages, hb_ingest_stats(one)->pages);
	assert_int_equal(hb_heat_len(f->heat), hb_heat_len(ref));
	n = table_pages(f, &c);
	for (size_t i = 0; i < n; i++) {
		double want = hb_heat_get(ref, c[i].hpa, NULL);

		assert_true(c[i].heat > want - 1e-3 * want && c[i].heat < want + 1e-3 * want);
	}
	free(c);
	hb_ingest_free(one);
	hb_heat_free(ref);
}

/*
 * newuser r4 D8: a record without a timestamp waited in the backlog, and
 * its record_to_table latency was 0, taken from when it entered the table.
 * It is measured from when it was read (submitted).
 */
static void test_an_untimestamped_record_s_latency_counts_its_wait(void **state)
{
	struct fixture *f = *state;
	struct hb_hot_record r[4] = { hpa_rec(REGION, 64 << 20, 8), hpa_rec(REGION, 64 << 20, 8),
				      hpa_rec(REGION, 64 << 20, 8), hpa_rec(REGION, 64 << 20, 8) };
	struct hb_latency *lat = calloc(1, sizeof(*lat));
	struct hb_ingest_env env = { .node_of = node_of, .page_size = PAGE, .heat = f->heat };
	struct hb_ingest *in = NULL;
	struct hb_err err = { 0 };
	uint64_t after;

	assert_non_null(lat);
	env.lat = lat;
	assert_int_equal(hb_ingest_new(&env, &in, &err), 0);
	assert_int_equal(hb_ingest_set_topology(in, f->topo, 1ULL << 2, BLOCK), 0);
	assert_int_equal(hb_ingest_submit(in, r, 4, 1), 0); /* a deadline past: they wait */
	assert_true(hb_ingest_backlog(in) >= 3);
	/* the clock moves on past the submit before the backlog is worked off */
	after = hb_now_ns();
	while (hb_now_ns() == after)
		;
	while (hb_ingest_drain(in, 0) > 0)
		;
	assert_int_equal(lat->to_table.count, 4);
	assert_true(lat->to_table.max_ns > 0);
	hb_ingest_free(in);
	free(lat);
}

/* property: random records around the region never put a page outside it */
static void test_random_records_never_put_a_page_outside_the_regions(void **state)
{
	struct fixture *f = *state;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	const struct hb_ingest_stats *st;

	for (int round = 0; round < 200; round++) {
		struct hb_hot_record r[64];

		for (int i = 0; i < 64; i++) {
			uint64_t a, len;

			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			a = REGION - (256ULL << 20) + seed % (1536ULL << 20);
			len = 1 + (seed >> 40) % ((seed & 1) ? (64ULL << 20) : 3 * PAGE);
			if (seed & 2)
				r[i] = hpa_rec(a, len, 1 + seed % 1000);
			else
				r[i] = dpa_rec((seed & 4) ? "mem1" : "mem0",
					       a - (REGION - (256ULL << 20)), len, 1 + seed % 1000);
		}
		assert_int_equal(hb_ingest_submit(f->in, r, 64, (seed & 8) ? 1 : 0), 0);
		if (round % 10 == 9)
			while (hb_ingest_drain(f->in, 0))
				;
	}
	while (hb_ingest_drain(f->in, 0))
		;
	st = hb_ingest_stats(f->in);
	assert_int_equal(st->records, 200 * 64);
	assert_true(st->translated > 1000);
	assert_true(st->dropped[HB_DROP_UNMAPPED] > 100);
	assert_table_inside_regions(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_hpa_record_crossing_the_region_end_adds_only_region_pages, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_pages_on_no_node_or_a_non_source_node_stay_out,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_record_costs_only_the_cxl_memory_it_overlaps,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_records_are_reported_once_per_burst, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_records_are_translated_or_dropped_exactly,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_records_taken_before_pages_moved_onto_their_node_are_stale, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_dpa_record_crossing_the_decoder_end_keeps_only_decoded_pages, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_every_page_of_a_record_is_counted_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_implausible_timestamps_and_counts_are_dropped,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_an_untimestamped_record_s_latency_counts_its_wait,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_slices_and_the_backlog_give_the_same_table,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_records_never_put_a_page_outside_the_regions,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
