// SPDX-License-Identifier: MIT
/*
 * hb-vmbench: runs in the tests/vm guest on our kernel. How long does it
 * take to promote N pages named by PFN from node 1 to node 0 with phys
 * (move_phys_pages) and with pagemap (reverse map + move_pages), while
 * PROCS processes map MIB MiB each on node 1?
 *
 *   hb-vmbench PROCS MIB N [N...]
 *
 * For each N, three disjoint page sets are spread round-robin over the
 * processes: one for phys, one for a cold pagemap migrator (its first
 * batch builds the reverse-map index), one for the same migrator warm.
 * Under TCG only the ratios mean anything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "vm-lib.h"

#define SRC 1
#define DST 0

struct pool {
	size_t procs, pages;        /* pages per process */
	struct vm_child *c;
	uint64_t **pfn;
	size_t cursor;              /* next unused page index, same in every process */
};

/* N pages, round-robin over the processes, never handed out twice */
static int take(struct pool *p, size_t n, uint64_t *hpa)
{
	uint64_t ps = vm_page_size();

	for (size_t k = 0; k < n; k++) {
		size_t proc = k % p->procs;

		if (p->cursor >= p->pages)
			return -ENOSPC;
		hpa[k] = p->pfn[proc][p->cursor] * ps;
		if (proc == p->procs - 1)
			p->cursor++;
	}
	if (n % p->procs)
		p->cursor++;
	return 0;
}

static double timed_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, int *moved)
{
	struct hb_err err = {0};
	int *nodes = calloc(n, sizeof(int)), *st = calloc(n, sizeof(int));
	double t = vm_now();
	int r;

	for (size_t i = 0; i < n; i++)
		nodes[i] = DST;
	r = hb_migrator_move(m, n, hpa, nodes, st, 0, &err);
	t = vm_now() - t;
	*moved = 0;
	for (size_t i = 0; i < n; i++)
		*moved += r == 0 && st[i] == DST;
	if (r)
		fprintf(stderr, "hb-vmbench: %s\n", err.msg);
	free(nodes);
	free(st);
	return t;
}

int main(int argc, char **argv)
{
	struct pool p = {0};
	struct hb_err err = {0};
	int failed = 0;
	double t0;

	if (argc < 4) {
		fprintf(stderr, "usage: hb-vmbench PROCS MIB N [N...]\n");
		return 2;
	}
	p.procs = strtoul(argv[1], NULL, 10);
	p.pages = strtoul(argv[2], NULL, 10) * (1u << 20) / vm_page_size();
	p.c = calloc(p.procs, sizeof(*p.c));
	p.pfn = calloc(p.procs, sizeof(*p.pfn));
	vm_child_light = true;
	t0 = vm_now();
	for (size_t i = 0; i < p.procs; i++) {
		p.pfn[i] = calloc(p.pages, 8);
		if (vm_child_start(&p.c[i], VM_CHILD_ANON, p.pages, SRC, (uint64_t)i << 40) < 0 ||
		    vm_pfn_range(p.c[i].pid, p.c[i].vaddr[0], p.pages, p.pfn[i]) < 0) {
			fprintf(stderr, "hb-vmbench: process %zu could not map %s MiB on node %d\n", i,
				argv[2], SRC);
			return 1;
		}
	}
	printf("# %zu processes x %s MiB on node %d mapped in %.1f s\n", p.procs, argv[2], SRC,
	       vm_now() - t0);

	for (int a = 3; a < argc; a++) {
		size_t n = strtoul(argv[a], NULL, 10);
		uint64_t *set[3];
		struct hb_migrator *phys = NULL, *pm = NULL;
		struct hb_migrator_config cfg = { .source_nodes = 1u << SRC, .rescan_ms = 3600000 };
		struct hb_pagemap_stats s;
		double tp, tc, tw;
		int mp, mc, mw;

		for (int k = 0; k < 3; k++) {
			set[k] = calloc(n, 8);
			if (take(&p, n, set[k]) < 0) {
				fprintf(stderr, "hb-vmbench: not enough mapped pages for N=%zu\n", n);
				return 1;
			}
		}
		if (hb_migrator_new(HB_MIGRATOR_PHYS, NULL, &phys, &err) < 0 ||
		    hb_migrator_new(HB_MIGRATOR_PAGEMAP, &cfg, &pm, &err) < 0) {
			fprintf(stderr, "hb-vmbench: %s\n", err.msg);
			return 1;
		}
		tp = timed_move(phys, n, set[0], &mp);
		tc = timed_move(pm, n, set[1], &mc);
		tw = timed_move(pm, n, set[2], &mw);
		hb_migrator_pagemap_stats(pm, &s);
		printf("N=%zu: phys %.3f s (%.0f pages/s, %d moved) | pagemap cold %.3f s (%d moved; "
		       "%llu full scan(s) took %.3f s and indexed %llu PFNs of %llu processes) | "
		       "pagemap warm %.3f s (%d moved; %llu move_pages calls in all)\n",
		       n, tp, n / tp, mp, tc, mc, (unsigned long long)s.full_scans, s.scan_us / 1e6,
		       (unsigned long long)s.scanned_pages, (unsigned long long)s.processes, tw, mw,
		       (unsigned long long)s.move_pages_calls);
		printf("N=%zu: ratio pagemap/phys: cold %.1fx, warm %.1fx\n", n, tc / tp, tw / tp);
		failed |= mp != (int)n || mc != (int)n || mw != (int)n;
		hb_migrator_free(phys);
		hb_migrator_free(pm);
		for (int k = 0; k < 3; k++)
			free(set[k]);
	}
	for (size_t i = 0; i < p.procs; i++)
		vm_child_stop(&p.c[i]);
	return failed;
}
