// SPDX-License-Identifier: MIT
/*
 * hb-vmbench: runs in the tests/vm guest, on our kernel or a stock one
 * (which has no phys: it is left out, saying why, as damon is on 6.1). How
 * does the cost of promoting N hot pages from node 1 to node 0 grow with
 * the memory that is mapped and with the number of processes mapping it?
 *
 *   hb-vmbench MIBxPROCS [MIBxPROCS...] N[:REPS] [N[:REPS]...]
 *
 * MIBxPROCS is one configuration: MIB MiB mapped on node 1 in all, split
 * evenly over PROCS processes ("1024x8": 8 processes of 128 MiB). For each
 * configuration (mapped, measured, then unmapped, one after the other) and
 * each N, five backends promote N pages spread round-robin over the
 * processes:
 *
 *   move_pages    move_pages(2) with the pids and addresses known: the
 *                 baseline that needs no reverse map
 *   phys          move_phys_pages (PFNs; the kernel's own reverse map)
 *   damon         DAMOS migrate_hot over paddr regions, one per run of
 *                 contiguous PFNs (the backend of stock kernels >= 6.11),
 *                 without a rate;
 *                 a fresh migrator each round, its kdamond started untimed
 *   pagemap-cold  a fresh pagemap migrator: its first batch builds the
 *                 PFN -> (pid, address) index from /proc, then move_pages
 *   pagemap-warm  the same migrator's second batch, index built
 *
 * move_pages, phys, damon and pagemap-cold take the same N pages, put back on
 * node 1 (untimed) after each; pagemap-warm takes N others, which the cold
 * batch indexed but did not move. So at most 2N pages are on node 0 at a
 * time. Before the first round both sets go to node 0 and back, untimed:
 * the first touch of guest memory costs the host too. With :REPS, all
 * four run REPS times over the same pages and each keeps its fastest time
 * (TCG on a busy host drifts by tens of percent). Each time runs from the
 * call that decides (the migrator's move, or move_pages) until it returns
 * with the pages moved.
 * Beside them, the physical limit: a plain memcpy() of N pages' bytes from
 * node 1 to node 0 in the same guest (a buffer of at most MEMCPY_MAX pages on
 * each node, faulted in untimed, copied over and over until N pages'
 * bytes have been copied; its fastest of the REPS rounds), and each
 * backend's pages/s as a fraction of memcpy's ("of memcpy"): what moving a
 * page costs beyond copying it (the reverse map, unmapping, TLB flushes,
 * the new mapping, the kernel's own bookkeeping).
 * The table gives times, pages/s, each backend against move_pages and memcpy and,
 * over the configurations, time ratios for 4x the mapped memory and 4x
 * the processes, raw and over move_pages' own ratio. Under TCG only the
 * ratios mean anything.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kernel.h"
#include "vm-lib.h"

#define SRC 1
#define DST 0
#define CALL_MAX 1024 /* pages per move_pages(2) call, as pagemap does */
#define CONFIGS_MAX 8
#define SIZES_MAX 8
#define PROCS_MAX 256
#define MEMCPY_MAX 16384 /* pages of each memcpy buffer (64 MiB) */

enum backend { B_MOVE_PAGES, B_PHYS, B_DAMON, B_COLD, B_WARM, _B_MAX };

static const char *const backend_name[_B_MAX] = {
	[B_MOVE_PAGES] = "move_pages", [B_PHYS] = "phys",         [B_DAMON] = "damon",
	[B_COLD] = "pagemap-cold",     [B_WARM] = "pagemap-warm",
};

/*
 * Why a backend's migrator could not open on this kernel, "" when it did:
 * phys needs our series (stock kernels lack it), damon migrate_hot (6.11+).
 * A backend left out says why once and has no figures.
 */
static char unavailable[_B_MAX][HB_ERR_MSG_MAX];

static bool left_out(int b)
{
	return unavailable[b][0] != 0;
}

/*
 * The migrator of kind for backend b in *ret; NULL and 0 when this kernel
 * lacks it: the error is `lacks` (0: any error). Another error fails.
 */
static int open_migrator(int b, enum hb_migrator_kind kind, const struct hb_migrator_config *cfg,
			 int lacks, struct hb_migrator **ret)
{
	struct hb_err err = { 0 };
	int r = hb_migrator_new(kind, cfg, ret, &err);

	if (r == 0)
		return 0;
	*ret = NULL;
	if (lacks && r != lacks) {
		fprintf(stderr, "hb-vmbench: %s: %s\n", backend_name[b], err.msg);
		return r;
	}
	if (!left_out(b))
		printf("# %s left out: %s\n", backend_name[b], err.msg);
	snprintf(unavailable[b], sizeof(unavailable[b]), "%s", err.msg);
	return 0;
}

struct config {
	uint64_t mib, procs;
};

struct result {
	double t; /* seconds */
	size_t moved;
	double scan;      /* pagemap: full scans, seconds */
	uint64_t indexed; /* pagemap: PFNs the scan indexed */
};

/* One configuration's processes and the PFNs of their pages. */
struct pool {
	size_t procs, pages; /* pages per process */
	struct vm_child *c;
	uint64_t **pfn;
	size_t cursor; /* next unused page index, same in every process */
};

/* A set of N pages: page k belongs to process k % procs, at index idx[k]. */
struct set {
	size_t n;
	size_t *idx;
};

static int parse_config(const char *s, struct config *ret)
{
	char buf[64], *x;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	x = strchr(buf, 'x');
	if (!x)
		return -EINVAL;
	*x = 0;
	if (hb_parse_u64(buf, &ret->mib) < 0 || hb_parse_u64(x + 1, &ret->procs) < 0 ||
	    ret->mib == 0 || ret->procs == 0 || ret->procs > PROCS_MAX)
		return -EINVAL;
	return 0;
}

static int pool_map(struct pool *p, const struct config *cf)
{
	uint64_t total = cf->mib * (1u << 20) / vm_page_size();
	double t0 = vm_now();

	memset(p, 0, sizeof(*p));
	p->procs = cf->procs;
	p->pages = total / cf->procs;
	p->c = calloc(p->procs, sizeof(*p->c));
	p->pfn = calloc(p->procs, sizeof(*p->pfn));
	if (!p->c || !p->pfn)
		return -ENOMEM;
	for (size_t i = 0; i < p->procs; i++) {
		p->pfn[i] = calloc(p->pages, sizeof(uint64_t));
		if (!p->pfn[i] ||
		    vm_child_start(&p->c[i], VM_CHILD_ANON, p->pages, SRC, (uint64_t)i << 40) < 0 ||
		    vm_pfn_range(p->c[i].pid, p->c[i].vaddr[0], p->pages, p->pfn[i]) < 0) {
			fprintf(stderr,
				"hb-vmbench: process %zu could not map %zu pages on node %d\n", i,
				p->pages, SRC);
			return -ENOMEM;
		}
	}
	printf("# %" PRIu64 " MiB on node %d mapped by %zu processes (%zu pages each) in %.1f s\n",
	       cf->mib, SRC, p->procs, p->pages, vm_now() - t0);
	fflush(stdout);
	return 0;
}

static void pool_unmap(struct pool *p)
{
	for (size_t i = 0; i < p->procs; i++) {
		vm_child_stop(&p->c[i]);
		free(p->pfn[i]);
	}
	free(p->c);
	free(p->pfn);
	memset(p, 0, sizeof(*p));
}

/* N pages, round-robin over the processes, never handed out twice */
static int set_take(struct pool *p, size_t n, struct set *s)
{
	s->n = n;
	s->idx = calloc(n, sizeof(*s->idx));
	if (!s->idx)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		if (p->cursor >= p->pages)
			return -ENOSPC;
		s->idx[k] = p->cursor;
		if (k % p->procs == p->procs - 1)
			p->cursor++;
	}
	if (n % p->procs)
		p->cursor++;
	return 0;
}

/*
 * move_pages(2) for the set's pages of every process, CALL_MAX at a time;
 * returns how many report node. Used timed (the baseline) and untimed
 * (putting pages back on SRC).
 */
static size_t move_known(struct pool *p, const struct set *s, int node)
{
	void *addrs[CALL_MAX];
	int nodes[CALL_MAX], st[CALL_MAX];
	size_t ok = 0;

	for (size_t proc = 0; proc < p->procs; proc++) {
		size_t len = 0;

		for (size_t k = proc; k < s->n; k += p->procs) {
			addrs[len] = (void *)(uintptr_t)p->c[proc].vaddr[s->idx[k]];
			nodes[len] = node;
			st[len++] = -EBUSY;
			if (len < CALL_MAX && k + p->procs < s->n)
				continue;
			if (hb_sys_move_pages(p->c[proc].pid, len, addrs, nodes, st, MPOL_MF_MOVE) >=
			    0)
				for (size_t j = 0; j < len; j++)
					ok += st[j] == node;
			len = 0;
		}
	}
	return ok;
}

/* The set's pages back on SRC, and the pool's PFNs current again. */
static int put_back(struct pool *p, const struct set *s)
{
	size_t back = move_known(p, s, SRC);

	if (back != s->n) {
		fprintf(stderr, "hb-vmbench: only %zu of %zu pages went back to node %d\n", back,
			s->n, SRC);
		return -EBUSY;
	}
	for (size_t i = 0; i < p->procs; i++)
		if (vm_pfn_range(p->c[i].pid, p->c[i].vaddr[0], p->pages, p->pfn[i]) < 0)
			return -EIO;
	return 0;
}

static size_t timed_migrator(struct hb_migrator *m, struct pool *p, const struct set *s, double *ret_t)
{
	struct hb_err err = { 0 };
	uint64_t *hpa = calloc(s->n, sizeof(*hpa));
	int *nodes = calloc(s->n, sizeof(int)), *st = calloc(s->n, sizeof(int));
	size_t moved = 0;
	double t;
	int r;

	if (!hpa || !nodes || !st) {
		free(hpa);
		free(nodes);
		free(st);
		return 0;
	}
	for (size_t k = 0; k < s->n; k++) {
		hpa[k] = p->pfn[k % p->procs][s->idx[k]] * vm_page_size();
		nodes[k] = DST;
	}
	t = vm_now();
	r = hb_migrator_move(m, s->n, hpa, nodes, st, 0, &err);
	*ret_t = vm_now() - t;
	if (r)
		fprintf(stderr, "hb-vmbench: %s: %s\n", hb_migrator_describe(m), err.msg);
	for (size_t k = 0; r == 0 && k < s->n; k++)
		moved += st[k] == DST;
	free(hpa);
	free(nodes);
	free(st);
	return moved;
}

/* All four backends once on the sets a (three of them) and b (warm). */
static int measure_once(struct pool *p, const struct set *a, const struct set *b, struct result *res)
{
	struct hb_migrator_config cfg = { .source_nodes = 1u << SRC,
					  .rescan_ms = 3600000,
					  .damon_state = "/tmp/hb-vmbench-damon-state" };
	struct hb_migrator *phys = NULL, *pm = NULL, *damon = NULL;
	struct hb_pagemap_stats s;
	struct hb_err err = { 0 };
	double t;
	int r;

	t = vm_now();
	res[B_MOVE_PAGES].moved = move_known(p, a, DST);
	res[B_MOVE_PAGES].t = vm_now() - t;
	r = put_back(p, a);
	if (r < 0)
		goto out;

	/* stock kernels have no move_phys_pages (-ENOSYS): phys is left out there */
	r = open_migrator(B_PHYS, HB_MIGRATOR_PHYS, NULL, -ENOSYS, &phys);
	if (r < 0)
		goto out;
	if (phys) {
		res[B_PHYS].moved = timed_migrator(phys, p, a, &res[B_PHYS].t);
		r = put_back(p, a);
		if (r < 0)
			goto out;
	}

	/* 6.1 has no migrate_hot: damon is left out there */
	r = open_migrator(B_DAMON, HB_MIGRATOR_DAMON, &cfg, 0, &damon);
	if (!damon)
		goto pagemap;
	res[B_DAMON].moved = timed_migrator(damon, p, a, &res[B_DAMON].t);
	{
		struct hb_damon_stats ds;

		if (hb_migrator_damon_stats(damon, &ds) == 0)
			printf("# damon: %zu of %zu moved in %.3f s: %" PRIu64 " commits of %" PRIu64
			       " ranges, %" PRIu64 " bytes applied, inferred moved %" PRIu64
			       " / not moved %" PRIu64 " / unknown %" PRIu64 ", %" PRIu64
			       " over the watermark, %" PRIu64 " settle timeouts, settling %.3f s\n",
			       res[B_DAMON].moved, a->n, res[B_DAMON].t, ds.commits, ds.regions,
			       ds.bytes_applied, ds.pages_moved, ds.pages_not_moved,
			       ds.pages_unknown, ds.pages_over_watermark, ds.settle_timeouts,
			       (double)ds.settle_us / 1e6);
	}
	damon = hb_migrator_free(damon);
	r = put_back(p, a);
	if (r < 0)
		goto out;

pagemap:
	r = hb_migrator_new(HB_MIGRATOR_PAGEMAP, &cfg, &pm, &err);
	if (r < 0) {
		fprintf(stderr, "hb-vmbench: pagemap: %s\n", err.msg);
		goto out;
	}
	res[B_COLD].moved = timed_migrator(pm, p, a, &res[B_COLD].t);
	hb_migrator_pagemap_stats(pm, &s);
	res[B_COLD].scan = (double)s.scan_us / 1e6;
	res[B_COLD].indexed = s.scanned_pages;
	res[B_WARM].moved = timed_migrator(pm, p, b, &res[B_WARM].t);
	hb_migrator_pagemap_stats(pm, &s);
	res[B_WARM].scan = (double)s.scan_us / 1e6 - res[B_COLD].scan;
	r = put_back(p, a);
	if (r == 0)
		r = put_back(p, b);
out:
	hb_migrator_free(phys);
	hb_migrator_free(damon);
	hb_migrator_free(pm);
	return r;
}

/*
 * The fastest of reps memcpy() rounds of n pages' bytes from node SRC to
 * node DST (seconds), or a negative errno. The buffers are bound to their
 * nodes and faulted in before the clock starts.
 */
static double memcpy_time(size_t n, unsigned int reps)
{
	size_t ps = vm_page_size(), buf = n < MEMCPY_MAX ? n : MEMCPY_MAX;
	char *src = vm_map_on_node(buf * ps, SRC, -1, false);
	char *dst = vm_map_on_node(buf * ps, DST, -1, false);
	double best = -ENOMEM;

	if (src && dst) {
		memset(src, 0x5a, buf * ps);
		memset(dst, 0, buf * ps);
		for (unsigned int k = 0; k < reps; k++) {
			double t = vm_now();

			for (size_t done = 0; done < n; done += buf) {
				size_t now = n - done < buf ? n - done : buf;

				memcpy(dst, src, now * ps);
			}
			t = vm_now() - t;
			if (best < 0 || t < best)
				best = t;
		}
		if (dst[ps * (buf - 1)] != 0x5a)
			best = -EIO;
	}
	if (src)
		munmap(src, buf * ps);
	if (dst)
		munmap(dst, buf * ps);
	return best;
}

/*
 * All four backends for N pages in one configuration, reps times over the
 * same two sets (put back in between): each backend's fastest time, and
 * the fewest pages it moved in any round.
 */
static int measure(struct pool *p, size_t n, unsigned int reps, struct result *res)
{
	struct set a = { 0 }, b = { 0 };
	int r = -ENOSPC;

	if (set_take(p, n, &a) < 0 || set_take(p, n, &b) < 0) {
		fprintf(stderr, "hb-vmbench: %zu processes x %zu pages are too few for 2 x N=%zu\n",
			p->procs, p->pages, n);
		goto out;
	}
	/*
	 * Untimed: both sets to node 0 and back. Under TCG the first touch of
	 * guest memory also faults on the host, which made the first
	 * configuration's first round about twice as slow as the others.
	 */
	if (move_known(p, &a, DST) != n || move_known(p, &b, DST) != n) {
		fprintf(stderr, "hb-vmbench: warm-up: not every page went to node %d\n", DST);
		r = -EBUSY;
		goto out;
	}
	r = put_back(p, &a);
	if (r == 0)
		r = put_back(p, &b);
	if (r < 0)
		goto out;
	for (unsigned int k = 0; k < reps; k++) {
		struct result once[_B_MAX] = { 0 };

		r = measure_once(p, &a, &b, once);
		if (r < 0)
			goto out;
		for (int i = 0; i < _B_MAX; i++) {
			if (k == 0 || once[i].t < res[i].t) {
				size_t moved = k ? res[i].moved : once[i].moved;

				res[i] = once[i];
				res[i].moved = moved;
			}
			if (once[i].moved < res[i].moved)
				res[i].moved = once[i].moved;
		}
	}
out:
	free(a.idx);
	free(b.idx);
	return r;
}

static void print_table(const struct config *cf, size_t ncf, const size_t *sz, size_t nsz,
			struct result (*res)[SIZES_MAX][_B_MAX], double (*memcpy_s)[SIZES_MAX])
{
	printf("\n%-10s %6s  %-13s %9s %10s %8s %9s %10s\n", "mapped", "N", "backend", "time s",
	       "pages/s", "vs mp", "scan s", "of memcpy");
	for (size_t c = 0; c < ncf; c++) {
		for (size_t i = 0; i < nsz; i++) {
			double base = res[c][i][B_MOVE_PAGES].t, mc = memcpy_s[c][i];

			printf("%-10s %6zu  %-13s %9.3f %10.0f %7.2fx %9s %10s\n", "-", sz[i],
			       "memcpy", mc, (double)sz[i] / mc, mc / base, "-", "1.000");

			for (int b = 0; b < _B_MAX; b++) {
				const struct result *r = &res[c][i][b];
				char cfg[32], scan[16] = "-";

				snprintf(cfg, sizeof(cfg), "%" PRIu64 "M/%" PRIu64, cf[c].mib,
					 cf[c].procs);
				if (left_out(b))
					continue;
				if (b == B_COLD || b == B_WARM)
					snprintf(scan, sizeof(scan), "%.3f", r->scan);
				printf("%-10s %6zu  %-13s %9.3f %10.0f %7.2fx %9s %10.3f\n", cfg,
				       sz[i], backend_name[b], r->t, (double)sz[i] / r->t,
				       r->t / base, scan, mc / r->t);
			}
		}
	}
}

/* configuration index with these figures, or -1 */
static int find_config(const struct config *cf, size_t ncf, uint64_t mib, uint64_t procs)
{
	for (size_t c = 0; c < ncf; c++)
		if (cf[c].mib == mib && cf[c].procs == procs)
			return (int)c;
	return -1;
}

/*
 * Growth: for every pair of configurations where one has 4x the memory
 * (same processes) or 4x the processes (same memory), each backend's time
 * ratio; then the same for each backend's time over move_pages' in its
 * configuration, which takes out what the baseline also pays (and the
 * host's drift between the two configurations).
 */
static void print_growth(const struct config *cf, size_t ncf, const size_t *sz, size_t nsz,
			 struct result (*res)[SIZES_MAX][_B_MAX], bool over_mp)
{
	printf("\n%-24s %6s", over_mp ? "(time / move_pages) ratio" : "time ratio", "N");
	for (int b = over_mp ? B_PHYS : 0; b < _B_MAX; b++)
		printf(" %13s", backend_name[b]);
	printf("\n");
	for (int kind = 0; kind < 2; kind++) {
		for (size_t lo = 0; lo < ncf; lo++) {
			int hi = kind == 0 ? find_config(cf, ncf, cf[lo].mib * 4, cf[lo].procs) :
					     find_config(cf, ncf, cf[lo].mib, cf[lo].procs * 4);
			char what[48];

			if (hi < 0)
				continue;
			snprintf(what, sizeof(what),
				 "%" PRIu64 "M/%" PRIu64 " vs %" PRIu64 "M/%" PRIu64, cf[hi].mib,
				 cf[hi].procs, cf[lo].mib, cf[lo].procs);
			for (size_t i = 0; i < nsz; i++) {
				const struct result *h = res[hi][i], *l = res[lo][i];

				printf("%-24s %6zu", what, sz[i]);
				for (int b = over_mp ? B_PHYS : 0; b < _B_MAX; b++) {
					double g = h[b].t / l[b].t;

					if (left_out(b)) {
						printf(" %13s", "-");
						continue;
					}

					if (over_mp)
						g /= h[B_MOVE_PAGES].t / l[B_MOVE_PAGES].t;
					printf(" %12.2fx", g);
				}
				printf("\n");
			}
		}
	}
}

/* N or N:REPS */
static int parse_size(const char *s, size_t *ret_n, unsigned int *ret_reps)
{
	char buf[64], *colon;
	uint64_t n, reps = 1;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = 0;
		if (hb_parse_u64(colon + 1, &reps) < 0 || reps == 0 || reps > 100)
			return -EINVAL;
	}
	if (hb_parse_u64(buf, &n) < 0 || n == 0 || n > (1u << 24))
		return -EINVAL;
	*ret_n = n;
	*ret_reps = (unsigned int)reps;
	return 0;
}

int main(int argc, char **argv)
{
	static struct result res[CONFIGS_MAX][SIZES_MAX][_B_MAX];
	static double memcpy_s[CONFIGS_MAX][SIZES_MAX];
	struct config cf[CONFIGS_MAX];
	size_t sz[SIZES_MAX], ncf = 0, nsz = 0;
	unsigned int reps[SIZES_MAX];
	int failed = 0;

	for (int a = 1; a < argc; a++) {
		if (strchr(argv[a], 'x')) {
			if (ncf == CONFIGS_MAX || parse_config(argv[a], &cf[ncf]) < 0) {
				fprintf(stderr,
					"hb-vmbench: '%s' is not MIBxPROCS (at most %d of them, "
					"1-%d processes)\n",
					argv[a], CONFIGS_MAX, PROCS_MAX);
				return 2;
			}
			ncf++;
		} else if (nsz == SIZES_MAX || parse_size(argv[a], &sz[nsz], &reps[nsz]) < 0) {
			fprintf(stderr,
				"hb-vmbench: '%s' is not N or N:REPS (at most %d of them, "
				"REPS 1-100)\n",
				argv[a], SIZES_MAX);
			return 2;
		} else {
			nsz++;
		}
	}
	if (!ncf || !nsz) {
		fprintf(stderr,
			"usage: hb-vmbench MIBxPROCS [MIBxPROCS...] N[:REPS] [N[:REPS]...]\n");
		return 2;
	}
	vm_child_light = true;
	for (size_t c = 0; c < ncf; c++) {
		struct pool p;

		if (pool_map(&p, &cf[c]) < 0)
			return 1;
		for (size_t i = 0; i < nsz; i++) {
			if (measure(&p, sz[i], reps[i], res[c][i]) < 0)
				return 1;
			memcpy_s[c][i] = memcpy_time(sz[i], reps[i] < 3 ? 3 : reps[i]);
			if (memcpy_s[c][i] < 0) {
				fprintf(stderr, "hb-vmbench: memcpy of %zu pages: %s\n", sz[i],
					strerror((int)-memcpy_s[c][i]));
				return 1;
			}
			for (int b = 0; b < _B_MAX; b++) {
				if (left_out(b))
					continue;
				if (res[c][i][b].moved != sz[i]) {
					fprintf(stderr, "hb-vmbench: %s moved %zu of %zu pages\n",
						backend_name[b], res[c][i][b].moved, sz[i]);
					failed = 1;
				}
			}
			printf("# %" PRIu64 "M/%" PRIu64 " N=%zu:", cf[c].mib, cf[c].procs, sz[i]);
			for (int b = 0; b < _B_MAX; b++)
				if (!left_out(b))
					printf(" %s %.3f s,", backend_name[b], res[c][i][b].t);
			printf(" pagemap scan %.3f s, %" PRIu64 " PFNs, memcpy %.3f s\n",
			       res[c][i][B_COLD].scan, res[c][i][B_COLD].indexed, memcpy_s[c][i]);
			fflush(stdout);
		}
		pool_unmap(&p);
	}
	print_table(cf, ncf, sz, nsz, res, memcpy_s);
	print_growth(cf, ncf, sz, nsz, res, false);
	print_growth(cf, ncf, sz, nsz, res, true);
	return failed;
}
