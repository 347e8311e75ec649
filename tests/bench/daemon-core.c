// SPDX-License-Identifier: MIT
/*
 * tests/bench/daemon-core: records per second through the hotness table
 * and the policy on one core, with a 1 M-entry table; a cycle (tick,
 * collect the 4096 hottest, decide) every 1 M records. Baseline: the same
 * loop generating the records only. Also prints the table's bytes per
 * entry. Goal: >= 5 M records/s. Then the cycle's collect from a 1 M-entry
 * table with 1, 12288 and 100000 pages hot: from the hot list, against a
 * sweep of the table (a lower threshold each call: heat.c sweeps then),
 * the policy's decision on those, and the gather without the sort.
 * Then demotion's decision over 94 208 and 1 M placed pages, 80 % of them
 * cold, with none or half of those within the hysteresis, for a shortfall
 * of 2048 pages: against a bare walk of the placed table (the floor).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* skewed page choice: 90 % of accesses on 1/16 of 4 M pages */
static uint64_t page(void)
{
	uint64_t r = next();

	return (r % 10 ? (r >> 8) % (1u << 18) : (r >> 8) % (1u << 22)) << 12;
}

/* ms a collect: the hot list's (same threshold each time) and a sweep's (lower each time) */
static int collect_bench(void)
{
	static struct hb_candidate cand[65536];
	static const size_t hot[] = { 1, 12288, 100000 };
	struct hb_err err = { 0 };

	for (size_t k = 0; k < sizeof(hot) / sizeof(hot[0]); k++) {
		struct hb_heat_table *t;
		double t0, listed, swept;
		const int reps = 50;

		if (hb_heat_new(1000000, 0.8, 12, &t, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return -1;
		}
		for (size_t i = 0; i < hot[k]; i++)
			hb_heat_add(t, 0x20000000ULL + i * 4096, 4096, 16, 1);
		hb_heat_collect(t, 8, cand, 65536);
		t0 = now();
		for (int r = 0; r < reps; r++)
			hb_heat_collect(t, 8, cand, 65536);
		listed = (now() - t0) / reps * 1e3;
		t0 = now();
		for (int r = 0; r < reps; r++)
			hb_heat_collect(t, 8 - (r + 1) * 1e-4, cand, 65536);
		swept = (now() - t0) / reps * 1e3;
		printf("collect, 1 M-entry table, %zu pages hot: hot list %.3f ms, sweep %.3f ms "
		       "(%.1fx)\n",
		       hot[k], listed, swept, swept / listed);
		{
			static struct hb_decision dec[65536];
			static struct hb_numa_node nodes[HB_MAX_NODES];
			static uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
			struct hb_policy_config cfg = { .threshold = 4,
							.target_node = -1,
							.page_size = 4096 };
			struct hb_policy *p;
			size_t n = hb_heat_collect(t, 8 - 1, cand, 65536);
			double t1;

			memset(dist, 20, sizeof(dist));
			nodes[0] = (struct hb_numa_node){ .present = true,
							  .has_cpus = true,
							  .free_bytes = 1ULL << 36 };
			nodes[1] = (struct hb_numa_node){ .present = true, .is_source = true };
			hb_policy_new(65536, &p, &err);
			t1 = now();
			for (int r = 0; r < reps; r++)
				hb_policy_decide(p, &cfg, nodes, dist, cand, n, 1, dec);
			printf("  policy decide of those %zu: %.3f ms\n", n,
			       (now() - t1) / reps * 1e3);
			t1 = now();
			for (int r = 0; r < reps; r++)
				hb_heat_gather(t, 8 - 1, cand, 65536);
			printf("  the gather alone (the loop's part; the sort and the decision are "
			       "the batch thread's): %.3f ms\n",
			       (now() - t1) / reps * 1e3);
			hb_policy_free(p);
		}
		hb_heat_free(t);
	}
	return 0;
}

/* ms a demotion decision, and a bare walk of the same placed table */
static int demote_bench(void)
{
	static struct hb_decision out[65536];
	static struct hb_numa_node nodes[HB_MAX_NODES];
	static const size_t sizes[] = { 94208, 1000000 };
	static const int held_pct[] = { 0, 50 };
	const uint64_t now_ns = 100000000000ULL, hyst = 10000000000ULL;
	struct hb_demote_config c = { .goal_bytes = 1ULL << 30,
				      .cxl_node = 1,
				      .cold_cycles = 2,
				      .hysteresis_ns = hyst,
				      .page_size = 4096 };
	struct hb_err err = { 0 };

	nodes[0] = (struct hb_numa_node){ .present = true,
					  .has_cpus = true,
					  .free_bytes = (1ULL << 30) - 2048 * 4096 };
	nodes[1] =
		(struct hb_numa_node){ .present = true, .is_source = true, .free_bytes = 1ULL << 36 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (size_t h = 0; h < sizeof(held_pct) / sizeof(held_pct[0]); h++) {
			struct hb_placed *p;
			struct hb_placed_page *e;
			struct hb_demoter *dm;
			size_t n = 0, cur, walked = 0;
			double t0, decide, walk;
			const int reps = 20;

			if (hb_placed_new(sizes[k], 4096, &p, &err) < 0 ||
			    hb_demoter_new(&dm, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				return -1;
			}
			for (size_t i = 0; i < sizes[k]; i++)
				hb_placed_add(p, 0x100000000ULL + i * 4096, 1, 0, 0);
			cur = 0;
			while ((e = hb_placed_next(p, &cur))) {
				uint64_t r = next();

				e->idle = (uint16_t)(r % 10 < 8 ? 2 + (r >> 8) % 6 : 0);
				if ((int)((r >> 16) % 100) < held_pct[h])
					e->since_ns = now_ns - hyst / 2;
			}
			t0 = now();
			for (int r = 0; r < reps; r++)
				n = hb_demote_decide(dm, &c, nodes, p, ~0ULL, now_ns, out, 65536);
			decide = (now() - t0) / reps * 1e3;
			t0 = now();
			for (int r = 0; r < reps; r++)
				for (cur = 0; (e = hb_placed_next(p, &cur));)
					walked += e->idle;
			walk = (now() - t0) / reps * 1e3;
			printf("demote decide, %zu placed, %d %% of the cold held: %.3f ms, %zu "
			       "decisions; a walk of the table %.3f ms (%.1fx)\n",
			       sizes[k], held_pct[h], decide, n, walk + (walked == 1), decide / walk);
			hb_placed_free(p);
			hb_demoter_free(dm);
		}
	return 0;
}

int main(void)
{
	static struct hb_numa_node nodes[HB_MAX_NODES];
	static uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
	static struct hb_candidate cand[4096];
	static struct hb_decision dec[4096];
	struct hb_policy_config cfg = { .threshold = 4,
					.top_k = 1024,
					.target_node = -1,
					.page_size = 4096,
					.rate_mbps = 1000,
					.hysteresis_ns = 1000000000 };
	struct hb_heat_table *t;
	struct hb_policy *p;
	struct hb_err err = { 0 };
	const uint64_t records = 20000000, cycle = 1000000;
	uint64_t sink = 0, promoted = 0;
	double t0, base, full;

	memset(dist, 20, sizeof(dist));
	nodes[0] =
		(struct hb_numa_node){ .present = true, .has_cpus = true, .free_bytes = 1ULL << 34 };
	nodes[1] = (struct hb_numa_node){ .present = true, .is_source = true };
	if (hb_heat_new(1000000, 0.8, 12, &t, &err) < 0 || hb_policy_new(65536, &p, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	t0 = now();
	for (uint64_t i = 0; i < records; i++)
		sink += page();
	base = now() - t0;

	rng = 88172645463325252ULL;
	t0 = now();
	for (uint64_t i = 0; i < records; i++) {
		hb_heat_add(t, page(), 4096, 1, 1);
		if ((i + 1) % cycle == 0) {
			size_t n = hb_heat_collect(t, cfg.threshold, cand, 4096);
			uint64_t ns = (i / cycle) * 100000000ULL;

			promoted += hb_policy_decide(p, &cfg, nodes, dist, cand, n, ns, dec);
			for (size_t k = 0; k < n; k++)
				if (dec[k].reason == HB_REASON_PROMOTE) {
					hb_heat_forget(t, dec[k].hpa);
					hb_policy_hold(p, &cfg, dec[k].hpa, ns);
				}
			hb_heat_tick(t);
		}
	}
	full = now() - t0;
	printf("table+policy: %llu records in %.3f s = %.2f M records/s (%llu cycles, %llu "
	       "promotions; baseline record generation %.2f M/s, %.1fx faster)\n",
	       (unsigned long long)records, full, records / full / 1e6,
	       (unsigned long long)(records / cycle), (unsigned long long)promoted,
	       records / base / 1e6, full / base);
	printf("table: %zu entries (budget 1000000), %zu bytes = %.1f bytes per budgeted entry, "
	       "%llu evictions\n",
	       hb_heat_len(t), hb_heat_bytes(t), hb_heat_bytes(t) / 1e6,
	       (unsigned long long)hb_heat_stats(t)->evictions);
	hb_heat_free(t);
	hb_policy_free(p);
	return sink == 1 || collect_bench() < 0 || demote_bench() < 0 ? 1 : 0;
}
