// SPDX-License-Identifier: MIT
/*
 * hb-vmcrash NODE PAGES HOT PHASE_S BOUND_S DIR KILLS: the workload of the
 * crash scenario, in the guest (tests/e2e/hb-vm-crash.sh kills and restarts
 * `hotbridge run` beside it).
 *
 * It maps PAGES pages bound to NODE (the CXL node), fills them and records
 * each page's frame and checksum, as hb-vmchmu does. Hot set A (HOT pages)
 * is read whole, over and over, while the script kills the daemon; hot set
 * B (HOT others) after the last restart, for PHASE_S seconds (or until 5 s
 * have passed and 1 s since B was 90 % on DRAM, whichever is first). KILLS decoy
 * sets of 8 pages, D1..DKILLS, are heated one at a time on the script's
 * word and then never touched again:
 *  - DIR/heat-N (the script: a daemon is up): the frames of the decoy set
 *    heated last are taken (the snapshot: a daemon that did not read its
 *    heat is up by now), then DN is read with A (whole pages: hot to the
 *    CHMU) and DIR/heating-N written;
 *  - DIR/cool-N (the script is about to kill): DN is left alone from the
 *    next pass on, DIR/cooled-N written;
 *  - DIR/last (the last restart is up): the last decoy set's snapshot, then
 *    phase B; DIR/phase-b written.
 * After phase B it writes DIR/done, waits for DIR/stopped (the daemon has
 * exited) and checks, as TAP:
 *  - B: at least 90 % on DRAM within BOUND_S of its start (the loop's usual
 *    bound, after the last restart);
 *  - no decoy page changed frame after its snapshot: what a daemon read
 *    before its crash (or the device counted before the next one's start)
 *    is not promoted by the daemon after it, nor by a dead one's kdamond;
 *  - every cold page (in no set) at the frame it was filled in;
 *  - every page's bytes as filled.
 * A is reported (its coverage at the last restart), not checked: a daemon
 * killed every few seconds may not live long enough to promote it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vm-lib.h"

#define LINES_PER_PAGE 64
#define DECOY_PAGES 8
#define MAX_KILLS 32
#define SAMPLE_S 0.25

static char *base;
static size_t npages, nhot;
static int cxl_node;
static uint64_t psz;

static bool present(const char *dir, const char *name, unsigned int n)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s%.0u", dir, name, n);
	return access(path, F_OK) == 0;
}

static void put(const char *dir, const char *name, unsigned int n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%.0u", dir, name, n);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

static size_t on_dram(const size_t *idx, size_t n)
{
	void *addrs[4096];
	int status[4096];
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		addrs[i] = base + idx[i] * psz;
	if (vm_nodes_of(0, n, addrs, status) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		d += status[i] >= 0 && status[i] != cxl_node;
	return d;
}

static uint64_t read_page(size_t idx)
{
	const volatile uint64_t *pg = (const volatile uint64_t *)(base + idx * psz);
	uint64_t sum = 0;

	for (unsigned int l = 0; l < LINES_PER_PAGE; l++)
		sum += pg[l * (psz / 8 / LINES_PER_PAGE)];
	return sum;
}

static void snapshot(const size_t *idx, uint64_t *snap)
{
	for (size_t i = 0; i < DECOY_PAGES; i++) {
		int64_t pfn = vm_pfn(getpid(), (uintptr_t)(base + idx[i] * psz));

		snap[i] = pfn < 0 ? 0 : (uint64_t)pfn;
	}
}

int main(int argc, char **argv)
{
	static size_t decoy[MAX_KILLS + 1][DECOY_PAGES];
	static uint64_t snap[MAX_KILLS + 1][DECOY_PAGES];
	static bool snapped[MAX_KILLS + 1];
	size_t *a, *b, *in_set, stride, shown = 0, moved = 0, bad = 0, late = 0, early = 0;
	uint64_t *pfn0, *pfn1, *sum0;
	unsigned int kills, cur = 0, heated = 0;
	bool heating = false;
	double phase_s, bound_s, t0, next, b_to90 = -1;
	volatile uint64_t sink = 0;
	size_t a_last, b_final;
	const char *dir;

	if (argc != 8) {
		fprintf(stderr, "usage: hb-vmcrash NODE PAGES HOT PHASE_S BOUND_S DIR KILLS\n");
		return 2;
	}
	cxl_node = atoi(argv[1]);
	npages = strtoul(argv[2], NULL, 10);
	nhot = strtoul(argv[3], NULL, 10);
	phase_s = atof(argv[4]);
	bound_s = atof(argv[5]);
	dir = argv[6];
	kills = (unsigned int)strtoul(argv[7], NULL, 10);
	psz = vm_page_size();
	if (!nhot || nhot > 4096 || npages < 8 * nhot || kills > MAX_KILLS ||
	    kills * DECOY_PAGES > nhot) {
		fprintf(stderr, "hb-vmcrash: HOT 1..4096, PAGES at least 8 x HOT, KILLS at most "
				"32 and HOT / 8\n");
		return 2;
	}
	base = vm_map_on_node(npages * psz, cxl_node, -1, false);
	in_set = calloc(npages, sizeof(*in_set));
	pfn0 = calloc(npages, sizeof(*pfn0));
	pfn1 = calloc(npages, sizeof(*pfn1));
	sum0 = calloc(npages, sizeof(*sum0));
	a = calloc(nhot, sizeof(*a));
	b = calloc(nhot, sizeof(*b));
	if (!base || !in_set || !pfn0 || !pfn1 || !sum0 || !a || !b) {
		fprintf(stderr, "hb-vmcrash: cannot map %zu pages on node %d: %s\n", npages,
			cxl_node, strerror(errno));
		return 1;
	}
	if (vm_settle("hb-vmcrash", base, npages, 0xc4a5, sum0, pfn0) < 0)
		return 1;
	/* A, B and the decoys interleaved, odd and even pages alike (hb-vmchmu) */
	stride = npages / nhot;
	for (size_t i = 0; i < nhot; i++) {
		a[i] = i * stride + stride / 4 + i % 2;
		b[i] = i * stride + (3 * stride) / 4 + i % 2;
		in_set[a[i]] = 1;
		in_set[b[i]] = 2;
	}
	for (unsigned int k = 1; k <= kills; k++)
		for (size_t m = 0; m < DECOY_PAGES; m++) {
			size_t blk = (k - 1) * DECOY_PAGES + m;

			decoy[k][m] = blk * stride + stride / 2 + m % 2;
			in_set[decoy[k][m]] = 3;
		}
	tap_diag("%zu pages on node %d, hot sets A and B of %zu, %u decoy sets of %d", npages,
		 cxl_node, nhot, kills, DECOY_PAGES);
	{
		char text[64], path[512];
		FILE *f;

		snprintf(text, sizeof(text), "%#llx %#llx\n", (unsigned long long)(pfn0[a[0]] * psz),
			 (unsigned long long)(pfn0[b[0]] * psz));
		snprintf(path, sizeof(path), "%s/ready", dir);
		f = fopen(path, "w");
		if (f) {
			fputs(text, f);
			fclose(f);
		}
	}
	while (!present(dir, "go", 0))
		usleep(20000);

	/* A while the script kills; the decoys on its word */
	t0 = vm_now();
	next = t0;
	for (;;) {
		struct timespec nap = { 0, 2000000 };

		for (size_t i = 0; i < nhot; i++)
			sink += read_page(a[i]);
		for (size_t m = 0; heating && m < DECOY_PAGES; m++)
			sink += read_page(decoy[cur][m]);
		nanosleep(&nap, NULL);
		if (heating && present(dir, "cool-", cur)) {
			heating = false;
			put(dir, "cooled-", cur);
		}
		if (!heating && cur < kills && present(dir, "heat-", cur + 1)) {
			if (cur && !snapped[cur]) {
				snapshot(decoy[cur], snap[cur]);
				snapped[cur] = true;
			}
			cur++;
			heated++;
			heating = true;
			put(dir, "heating-", cur);
		}
		if (present(dir, "last", 0))
			break;
		if (vm_now() >= next) {
			size_t n = on_dram(a, nhot);

			next += 1;
			if (n != shown)
				tap_diag("coverage A t=%5.1f s: %zu/%zu on DRAM", vm_now() - t0, n,
					 nhot);
			shown = n;
		}
	}
	if (cur && !snapped[cur]) {
		snapshot(decoy[cur], snap[cur]);
		snapped[cur] = true;
	}
	a_last = on_dram(a, nhot);
	tap_diag("kill phase: %.1f s, %u decoy sets heated; A %zu/%zu on DRAM at the last restart",
		 vm_now() - t0, heated, a_last, nhot);

	/* B after the last restart: the loop's usual bound */
	put(dir, "phase-b", 0);
	t0 = vm_now();
	next = t0;
	shown = 0;
	while (vm_now() - t0 < phase_s) {
		struct timespec nap = { 0, 2000000 };

		/* the figure is in: no need to spend CI time on the rest */
		if (b_to90 >= 0 && vm_now() - t0 >= 5 && vm_now() - t0 >= b_to90 + 1)
			break;
		for (size_t i = 0; i < nhot; i++)
			sink += read_page(b[i]);
		nanosleep(&nap, NULL);
		if (vm_now() < next)
			continue;
		next += SAMPLE_S;
		b_final = on_dram(b, nhot);
		if (b_to90 < 0 && b_final * 10 >= nhot * 9)
			b_to90 = vm_now() - t0;
		if (b_final != shown)
			tap_diag("coverage B t=%4.1f s: %zu/%zu on DRAM", vm_now() - t0, b_final,
				 nhot);
		shown = b_final;
	}
	b_final = on_dram(b, nhot);
	(void)sink;
	put(dir, "done", 0);
	while (!present(dir, "stopped", 0))
		usleep(20000);

	if (vm_pfn_range(getpid(), (uintptr_t)base, npages, pfn1) < 0) {
		fprintf(stderr, "hb-vmcrash: no PFNs from pagemap at the end\n");
		return 1;
	}
	for (size_t i = 0; i < npages; i++) {
		if (vm_sum(base + i * psz) != sum0[i])
			bad++;
		if (!in_set[i])
			moved += pfn1[i] != pfn0[i];
	}
	for (unsigned int k = 1; k <= cur; k++)
		for (size_t m = 0; m < DECOY_PAGES; m++) {
			size_t p = decoy[k][m];

			early += snap[k][m] != pfn0[p];
			if (pfn1[p] != snap[k][m]) {
				late++;
				tap_diag("decoy D%u page %zu: frame %#llx at the snapshot, %#llx at "
					 "the end",
					 k, m, (unsigned long long)snap[k][m],
					 (unsigned long long)pfn1[p]);
			}
		}
	tap_ok(b_to90 >= 0 && b_to90 <= bound_s,
	       "hot set B, after the last restart: 90 %% on DRAM after %.1f s (bound %.1f s; "
	       "%zu/%zu at the end)",
	       b_to90, bound_s, b_final, nhot);
	tap_ok(late == 0,
	       "no decoy page moved after the next daemon was up: %zu of %u x %d did (%zu "
	       "promoted before their crash by the daemon that read them)",
	       late, cur, DECOY_PAGES, early);
	tap_ok(moved == 0, "every cold page at its frame (%zu moved)", moved);
	tap_ok(bad == 0, "every page's bytes intact (%zu of %zu differ)", bad, npages);
	return tap_done();
}
