// SPDX-License-Identifier: MIT
/*
 * tests/bench/translate: DPA -> HPA and HPA -> DPA translations per second
 * on one core over a mixed topology (1-, 3-, 6-, 8-, 12- and 16-way
 * regions), against a baseline loop that only generates the queries.
 * Prints figures; never fails on time. Goal: >= 20 M/s.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "translate.h"

static const unsigned ways[] = { 1, 3, 6, 8, 12, 16 };
static const unsigned grans[] = { 4096, 256, 512, 2048, 16384, 8192 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int build(struct hb_topology **ret)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	uint64_t base = 0x1000000000ull;
	unsigned md = 0;
	struct hb_err err = { 0 };

	if (hb_topology_new(&t) < 0)
		return -1;
	for (size_t r = 0; r < sizeof(ways) / sizeof(ways[0]); r++) {
		struct hb_region rg = { .ways = ways[r], .gran = grans[r], .committed = true };
		struct hb_root_decoder root = { .ways = 1, .gran = 256 };
		uint64_t per = 1ull << 30;

		snprintf(root.name, sizeof(root.name), "decoder0.%zu", r);
		root.hpa_base = base;
		root.hpa_size = per * ways[r];
		snprintf(rg.name, sizeof(rg.name), "region%zu", r);
		snprintf(rg.root_name, sizeof(rg.root_name), "%s", root.name);
		rg.hpa_base = base;
		rg.hpa_size = per * ways[r];
		if (hb_topology_add_root(t, &root, &err) < 0)
			return -1;
		for (unsigned p = 0; p < ways[r]; p++, md++) {
			struct hb_memdev m = { .numa_node = -1 };
			struct hb_endpoint_decoder e = { .dpa_size = per, .mode = HB_MODE_RAM };

			snprintf(m.name, sizeof(m.name), "mem%u", md);
			snprintf(e.name, sizeof(e.name), "decoder%u.0", md + 10);
			snprintf(e.memdev_name, sizeof(e.memdev_name), "%s", m.name);
			snprintf(rg.target_names[p], HB_NAME_MAX, "%s", e.name);
			if (hb_topology_add_memdev(t, &m, &err) < 0 ||
			    hb_topology_add_endpoint(t, &e, &err) < 0)
				return -1;
		}
		if (hb_topology_add_region(t, &rg, &err) < 0)
			return -1;
		base += per * 16;
	}
	if (hb_topology_finalize(t, &err) < 0) {
		fprintf(stderr, "bench topology: %s\n", err.msg);
		return -1;
	}
	*ret = HB_TAKE_PTR(t);
	return 0;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 16;
}

int main(void)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	const unsigned long n = 20000000;
	uint64_t s = 1, sink = 0;
	int nmd;
	double t0, base_s, fwd_s, rev_s;

	if (build(&t) < 0)
		return 1;
	nmd = (int)hb_topology_nr_memdevs(t);
	printf("topology: %zu regions (ways 1,3,6,8,12,16; gran 4K,256,512,2K,16K,8K), %d memdevs, 1 GiB each\n",
	       hb_topology_nr_regions(t), nmd);

	t0 = now();
	for (unsigned long i = 0; i < n; i++)
		sink += lcg(&s) % (unsigned)nmd + (lcg(&s) & ((1ull << 30) - 1));
	base_s = now() - t0;

	s = 1;
	t0 = now();
	for (unsigned long i = 0; i < n; i++) {
		struct hb_xlat x;
		int md = (int)(lcg(&s) % (unsigned)nmd);

		if (hb_topology_dpa_to_hpa(t, md, lcg(&s) & ((1ull << 30) - 1), &x, NULL) == 0)
			sink += x.hpa;
	}
	fwd_s = now() - t0;

	s = 1;
	t0 = now();
	for (unsigned long i = 0; i < n; i++) {
		const struct hb_region *rg =
			hb_topology_region(t, lcg(&s) % hb_topology_nr_regions(t));
		struct hb_xlat x;

		if (hb_topology_hpa_to_dpa(t, rg->hpa_base + lcg(&s) % rg->hpa_size, &x, NULL) == 0)
			sink += x.dpa;
	}
	rev_s = now() - t0;

	printf("queries: %lu each way, one core\n", n);
	printf("baseline (query generation only): %.1f M/s\n", n / base_s / 1e6);
	printf("dpa->hpa: %.1f M/s (%.1f ns/op, %.2fx baseline time)\n", n / fwd_s / 1e6,
	       fwd_s / n * 1e9, fwd_s / base_s);
	printf("hpa->dpa: %.1f M/s (%.1f ns/op, %.2fx baseline time)\n", n / rev_s / 1e6,
	       rev_s / n * 1e9, rev_s / base_s);
	printf("goal: >= 20 M/s; checksum %" PRIx64 "\n", sink);
	return 0;
}
