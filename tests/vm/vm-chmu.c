// SPDX-License-Identifier: MIT
/*
 * hb-vmchmu NODE PAGES HOT PHASE_S BOUND_S DIR: the closed loop's workload,
 * in the guest (tests/e2e/hb-vm-chmu.sh runs it beside `hotbridge run`).
 *
 * It maps PAGES pages bound to NODE (the CXL node), fills each with its
 * tag and records its PFN and checksum. Two disjoint hot sets of HOT pages,
 * A and B, are spread over them; only this program knows which. It writes
 * DIR/ready ("<hpa of A's first page> <hpa of B's first page>") and waits
 * for DIR/go: the daemon has programmed the CHMU by then, which resets its
 * counters, so the accesses of the set-up (the kernel zeroing the pages, the
 * fill) count for nothing.
 *
 * Phase A reads A's pages (8 cache lines each) over and over for PHASE_S
 * seconds; phase B then does the same with B. Every 250 ms it asks the
 * kernel where each page of the busy set is (move_pages(2) without nodes)
 * and prints the coverage when it changes (and once a second while part
 * of the set is still on the CXL node). After DIR/done it waits for
 * DIR/stopped (the daemon has exited) and checks, as TAP:
 *  - A and B: at least 90 % on DRAM within BOUND_S of their phase's start;
 *  - every cold page (in neither set) at the frame it was filled in;
 *  - every page's bytes as filled.
 * Nothing it does writes to the pages after the fill: the CHMU sees reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vm-lib.h"

#define LINES_PER_PAGE 8
#define SAMPLE_S 0.25

struct phase {
	const char *name;
	size_t *idx;  /* the set's pages */
	double to90;  /* seconds from the phase's start; < 0: never */
	size_t final; /* on DRAM at the phase's end */
};

static char *base;
static size_t npages, nhot;
static int cxl_node;
static uint64_t psz;

static void wait_for(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK))
		usleep(20000);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* a /proc/vmstat counter, or 0 */
static uint64_t vmstat(const char *name)
{
	char line[128];
	uint64_t v = 0;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = strtoull(line + len + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static size_t on_dram(struct phase *p)
{
	void *addrs[4096];
	int status[4096];
	size_t n = 0;

	for (size_t i = 0; i < nhot; i++)
		addrs[i] = base + p->idx[i] * psz;
	if (vm_nodes_of(0, nhot, addrs, status) < 0)
		return 0;
	for (size_t i = 0; i < nhot; i++)
		n += status[i] >= 0 && status[i] != cxl_node;
	return n;
}

static void run_phase(struct phase *p, double secs)
{
	double t0 = vm_now(), next_sample = t0, next_print = t0 + 1;
	volatile uint64_t sink = 0;
	size_t shown = 0;

	p->to90 = -1;
	while (vm_now() - t0 < secs) {
		struct timespec nap = { 0, 2000000 };

		for (size_t i = 0; i < nhot; i++) {
			const volatile uint64_t *pg =
				(const volatile uint64_t *)(base + p->idx[i] * psz);

			for (unsigned int l = 0; l < LINES_PER_PAGE; l++)
				sink += pg[l * (psz / 8 / LINES_PER_PAGE)];
		}
		nanosleep(&nap, NULL);
		if (vm_now() < next_sample)
			continue;
		next_sample += SAMPLE_S;
		p->final = on_dram(p);
		if (p->to90 < 0 && p->final * 10 >= nhot * 9)
			p->to90 = vm_now() - t0;
		/* the table: each change, and once a second while short of the whole set */
		if (p->final != shown || (p->final < nhot && vm_now() >= next_print)) {
			next_print = vm_now() + 1;
			shown = p->final;
			tap_diag("coverage %s t=%4.1f s: %zu/%zu on DRAM", p->name, vm_now() - t0,
				 p->final, nhot);
		}
	}
	p->final = on_dram(p);
	(void)sink;
}

int main(int argc, char **argv)
{
	size_t *in_set, stride;
	uint64_t *pfn0, *pfn1, *sum0;
	struct phase a = { "A", NULL, -1, 0 }, b = { "B", NULL, -1, 0 };
	uint64_t migrated0;
	double phase_s, bound_s;
	const char *dir;
	char text[128];
	size_t moved = 0, bad = 0, away = 0;

	if (argc != 7) {
		fprintf(stderr, "usage: hb-vmchmu NODE PAGES HOT PHASE_S BOUND_S DIR\n");
		return 2;
	}
	cxl_node = atoi(argv[1]);
	npages = strtoul(argv[2], NULL, 10);
	nhot = strtoul(argv[3], NULL, 10);
	phase_s = atof(argv[4]);
	bound_s = atof(argv[5]);
	dir = argv[6];
	psz = vm_page_size();
	if (!nhot || nhot > 4096 || npages < 4 * nhot) {
		fprintf(stderr, "hb-vmchmu: HOT must be 1..4096 and PAGES at least 4 x HOT\n");
		return 2;
	}
	base = vm_map_on_node(npages * psz, cxl_node, -1, false);
	in_set = calloc(npages, sizeof(*in_set));
	pfn0 = calloc(npages, sizeof(*pfn0));
	pfn1 = calloc(npages, sizeof(*pfn1));
	sum0 = calloc(npages, sizeof(*sum0));
	a.idx = calloc(nhot, sizeof(size_t));
	b.idx = calloc(nhot, sizeof(size_t));
	if (!base || !in_set || !pfn0 || !pfn1 || !sum0 || !a.idx || !b.idx) {
		fprintf(stderr, "hb-vmchmu: cannot map %zu pages on node %d: %s\n", npages,
			cxl_node, strerror(errno));
		return 1;
	}
	vm_fill(base, npages, 0xc0ffee);
	/* placed: no policy left to refuse the daemon's moves (-EXDEV) */
	if (vm_allow_all(base, npages * psz) < 0) {
		fprintf(stderr, "hb-vmchmu: mbind to every node: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < npages; i++)
		sum0[i] = vm_sum(base + i * psz);
	vm_drain_lru();
	if (vm_pfn_range(getpid(), (uintptr_t)base, npages, pfn0) < 0) {
		fprintf(stderr, "hb-vmchmu: no PFNs from pagemap (root?)\n");
		return 1;
	}
	/*
	 * A and B spread over the mapping, interleaved with each other and the
	 * cold pages, odd and even pages alike: a fresh node hands out frames
	 * in order, so a 2-way region at 4 KiB granularity puts every other
	 * page on the other device, and a set of even pages only would sit on
	 * one device (the 2-way scenario then saw one CHMU report everything)
	 */
	stride = npages / nhot;
	for (size_t i = 0; i < nhot; i++) {
		a.idx[i] = i * stride + stride / 4 + i % 2;
		b.idx[i] = i * stride + (3 * stride) / 4 + i % 2;
		in_set[a.idx[i]] = 1;
		in_set[b.idx[i]] = 2;
	}
	tap_diag("%zu pages on node %d (PFN %#llx..), hot sets A and B of %zu, %.0f s each", npages,
		 cxl_node, (unsigned long long)pfn0[0], nhot, phase_s);
	snprintf(text, sizeof(text), "%#llx %#llx\n", (unsigned long long)(pfn0[a.idx[0]] * psz),
		 (unsigned long long)(pfn0[b.idx[0]] * psz));
	put(dir, "ready", text);
	wait_for(dir, "go");

	migrated0 = vmstat("pgmigrate_success");
	run_phase(&a, phase_s);
	put(dir, "phase-b", "");
	run_phase(&b, phase_s);
	tap_diag("migrated %llu pages in all (pgmigrate_success) for %zu hot pages: %.2f per hot page",
		 (unsigned long long)(vmstat("pgmigrate_success") - migrated0), 2 * nhot,
		 (double)(vmstat("pgmigrate_success") - migrated0) / (double)(2 * nhot));
	put(dir, "done", "");
	wait_for(dir, "stopped");

	if (vm_pfn_range(getpid(), (uintptr_t)base, npages, pfn1) < 0) {
		fprintf(stderr, "hb-vmchmu: no PFNs from pagemap at the end\n");
		return 1;
	}
	for (size_t i = 0; i < npages; i++) {
		if (vm_sum(base + i * psz) != sum0[i])
			bad++;
		if (in_set[i])
			away += pfn1[i] != pfn0[i];
		else
			moved += pfn1[i] != pfn0[i];
	}
	tap_diag("time to 90 %%: A %.1f s, B %.1f s (bound %.1f s); at the phase ends %zu/%zu and %zu/%zu on DRAM",
		 a.to90, b.to90, bound_s, a.final, nhot, b.final, nhot);
	tap_ok(a.to90 >= 0 && a.to90 <= bound_s,
	       "hot set A: 90 %% on DRAM after %.1f s (bound %.1f s; %zu/%zu at the end)", a.to90,
	       bound_s, a.final, nhot);
	tap_ok(b.to90 >= 0 && b.to90 <= bound_s,
	       "hot set B, after the workload moved: 90 %% on DRAM after %.1f s (bound %.1f s; %zu/%zu at the end)",
	       b.to90, bound_s, b.final, nhot);
	tap_ok(moved == 0, "every one of the %zu cold pages at its frame (%zu moved)",
	       npages - 2 * nhot, moved);
	tap_ok(bad == 0, "every page's bytes intact (%zu of %zu differ); %zu hot pages changed frame",
	       bad, npages, away);
	return tap_done();
}
