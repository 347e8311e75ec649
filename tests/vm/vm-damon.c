// SPDX-License-Identifier: MIT
/*
 * hb-vmdamon: runs inside the test guest, as root, on a stock kernel, and
 * checks the damon migrator against the real DAMON.
 *
 *   hb-vmdamon 6.12   another kdamond -> a conflict (kernel/migrate/conflicts.c),
 *                     refused (and left alone), takeover (ours: no conflict);
 *                     a mover SIGKILLed in the middle of a batch, its state
 *                     file's directory removed: the next one stops the
 *                     orphan kdamond (its mark), and no page moves after
 *                     that which it did not commit;
 *                     hot pages moved to node 0, cold pages on the same node
 *                     untouched (same PFN), bytes intact; the target nearly
 *                     full -> nothing beyond its headroom moved, nothing
 *                     anywhere else; the rate within 20 % from the first
 *                     second
 *   hb-vmdamon 7.3    Debian 13's 7.3 boots with damon_stat on, whose kdamond
 *                     is exclusive: damon refused naming it, auto falls back;
 *                     then, as an administrator would, damon_stat off and
 *                     the 6.12 checks
 *   hb-vmdamon 6.1    unavailable with the reason, nothing written (Debian's
 *                     6.1 has no DAMON sysfs at all; a 6.1 with it would be
 *                     refused for want of the scheme's target_nid, its
 *                     writes undone); auto -> pagemap
 *
 * Node 1 has memory and no CPUs (the CXL stand-in); node 0 is "DRAM"; on 6.12
 * a node 2 (no CPUs) where a page that fell back from the target would land.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "damon/damon.h"
#include "kernel.h"
#include "vm-lib.h"

#define SRC 1
#define DST 0
#define KD "/sys/kernel/mm/damon/admin/kdamonds"
#define STATE "/tmp/hb-damon-state"

static struct hb_migrator_config config(uint64_t rate)
{
	return (struct hb_migrator_config){ .damon_state = STATE,
					    .rate_bytes = rate,
					    .source_nodes = 1u << SRC };
}

static int count(const int *st, size_t n, int want)
{
	int k = 0;

	for (size_t i = 0; i < n; i++)
		k += st[i] == want;
	return k;
}

/* ---- another DAMON user ---- */

static int start_other_kdamond(char *pid, size_t size)
{
	int r;

	if ((r = vm_put(KD "/nr_kdamonds", "1")) < 0 ||
	    (r = vm_put(KD "/0/contexts/nr_contexts", "1")) < 0 ||
	    (r = vm_put(KD "/0/contexts/0/operations", "paddr")) < 0 ||
	    (r = vm_put(KD "/0/contexts/0/targets/nr_targets", "1")) < 0 ||
	    (r = vm_put(KD "/0/contexts/0/targets/0/regions/nr_regions", "1")) < 0 ||
	    (r = vm_put(KD "/0/contexts/0/targets/0/regions/0/start", "4096")) < 0 ||
	    (r = vm_put(KD "/0/contexts/0/targets/0/regions/0/end", "8192")) < 0 ||
	    (r = vm_put(KD "/0/state", "on")) < 0)
		return r;
	vm_get(KD "/0/pid", pid, size);
	return 0;
}

static void check_other_user(void)
{
	struct hb_migrator_config cfg = config(0);
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	char pid[32], pid2[32], st[16], nr[16];
	struct hb_conflicts cf;
	int r;

	r = start_other_kdamond(pid, sizeof(pid));
	if (r < 0) {
		tap_skip("another kdamond: could not start one by hand (%s)", strerror(-r));
		(void)vm_put(KD "/nr_kdamonds", "0");
		return;
	}
	hb_conflicts_probe(NULL, STATE, &cf);
	tap_ok(cf.found & 1u << HB_CONFLICT_DAMON,
	       "another kdamond (pid %s): conflict %s reported: %s", pid,
	       hb_conflict_to_string(HB_CONFLICT_DAMON), cf.why[HB_CONFLICT_DAMON]);
	r = hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err);
	vm_get(KD "/0/pid", pid2, sizeof(pid2));
	vm_get(KD "/0/state", st, sizeof(st));
	vm_get(KD "/nr_kdamonds", nr, sizeof(nr));
	tap_ok(r == -EBUSY && !m && !strcmp(st, "on") && !strcmp(pid, pid2) && !strcmp(nr, "1"),
	       "another kdamond (pid %s) running: refused (%d: %s), it still runs (state %s, pid %s, nr_kdamonds %s)",
	       pid, r, err.msg, st, pid2, nr);
	m = hb_migrator_free(m);
	cfg.damon_takeover = true;
	r = hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err);
	vm_get(KD "/0/pid", pid2, sizeof(pid2));
	tap_ok(r == 0 && m && strcmp(pid, pid2),
	       "damon_takeover = true: opens, kdamond %s replaced by %s%s%s", pid, pid2,
	       r ? ": " : "", r ? err.msg : "");
	hb_conflicts_probe(NULL, STATE, &cf);
	tap_ok(!(cf.found & 1u << HB_CONFLICT_DAMON), "our own kdamond %s is no conflict%s%s", pid2,
	       cf.found & 1u << HB_CONFLICT_DAMON ? ": " : "", cf.why[HB_CONFLICT_DAMON]);
	hb_migrator_free(m);
	vm_get(KD "/nr_kdamonds", nr, sizeof(nr));
	tap_ok(!strcmp(nr, "0") && access(STATE, F_OK) < 0, "closed: nr_kdamonds %s, state file %s",
	       nr, access(STATE, F_OK) ? "gone" : "left");
	(void)vm_put(KD "/0/state", "off");
	(void)vm_put(KD "/nr_kdamonds", "0");
}

/* ---- a crash in the middle of a batch (review D1, newuser r4 D4) ---- */

#define CRASH_RUN "/run/hotbridge"
#define CRASH_STATE CRASH_RUN "/damon-state"

static int on_node(struct vm_child *c, int *st, int node)
{
	if (vm_nodes_of(c->pid, c->n, (void **)c->vaddr, st) < 0)
		return -1;
	return count(st, c->n, node);
}

/*
 * A mover (a child, as the daemon would be) moves n pages at a slow rate;
 * once some have moved it is SIGKILLed, its kdamond left on with the rest
 * of the batch committed, and the directory of its state file removed (as
 * systemd did at every restart). A new mover then opens: the mark says the
 * kdamond is ours, so it is turned off and replaced, and from then on no
 * page of the batch moves (only the new mover could commit one).
 */
static void check_crash_restart(void)
{
	struct hb_migrator_config cfg = config(16 * vm_page_size() * 1000 / 300);
	size_t n = 1024;
	uint64_t *pfn = calloc(n, 8), *hpa = calloc(n, 8), ps = vm_page_size();
	int *st = calloc(n, sizeof(int)), *nodes = calloc(n, sizeof(int));
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	char pid0[32] = "", pid1[32] = "", state0[16] = "", nr[16] = "", proc[64];
	int k_kill = -1, k0 = -1, k1 = -1, wst = 0, r;
	struct vm_child c;
	pid_t mover;
	double t0;

	cfg.damon_state = CRASH_STATE;
	cfg.damon_reset_ms = 200;
	r = vm_child_start(&c, VM_CHILD_ANON, n, SRC, 0x4843000000000000ULL);
	if (r < 0) {
		tap_ok(false, "crash: no workload child (%s)", strerror(-r));
		goto out;
	}
	vm_drain_lru();
	if (vm_child_pfns(&c, pfn) < 0) {
		tap_ok(false, "crash: no PFNs of the workload");
		goto out_child;
	}
	for (size_t i = 0; i < n; i++)
		hpa[i] = pfn[i] * ps;
	/* the unit's RuntimeDirectory=, made by systemd at each start */
	if (system("mkdir -p " CRASH_RUN) != 0)
		tap_diag("mkdir -p %s failed", CRASH_RUN);
	mover = fork();
	if (mover == 0) {
		int *s = calloc(n, sizeof(int));

		if (hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err) < 0) {
			fprintf(stderr, "crash: the mover did not open: %s\n", err.msg);
			_exit(3);
		}
		(void)hb_migrator_move(m, n, hpa, nodes, s, 0, &err);
		_exit(0); /* all moved before the kill: the parent says so */
	}
	/* some pages moved, most not yet: kill it in the middle of the batch */
	t0 = vm_now();
	while (vm_now() - t0 < 60) {
		k_kill = on_node(&c, st, DST);
		if (k_kill > 0 || waitpid(mover, &wst, WNOHANG) == mover)
			break;
		usleep(50000);
	}
	(void)kill(mover, SIGKILL);
	(void)waitpid(mover, &wst, 0);
	/* read after the kill: the pid file is busy while a command is served */
	vm_get(KD "/0/pid", pid0, sizeof(pid0));
	k_kill = on_node(&c, st, DST);
	vm_get(KD "/0/state", state0, sizeof(state0));
	tap_ok(WIFSIGNALED(wst) && k_kill > 0 && k_kill < (int)n && !strcmp(state0, "on"),
	       "crash: the mover SIGKILLed with %d/%zu pages moved, its kdamond (pid %s) left %s",
	       k_kill, n, pid0, state0);
	/* removed at the stop (the old unit), made again for the restart */
	if (system("rm -rf " CRASH_RUN " && mkdir " CRASH_RUN) != 0)
		tap_diag("rm -rf %s failed", CRASH_RUN);
	r = hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err);
	k0 = on_node(&c, st, DST);
	vm_get(KD "/0/pid", pid1, sizeof(pid1));
	snprintf(proc, sizeof(proc), "/proc/%s", pid0);
	/* a kdamond's thread is gone once `off` returned; a moment for /proc */
	for (int i = 0; i < 20 && access(proc, F_OK) == 0; i++)
		usleep(50000);
	tap_ok(r == 0 && strcmp(pid0, pid1) && access(proc, F_OK) < 0,
	       "restart without a state file: opens (%s), the orphan kdamond %s stopped (%s), "
	       "ours is %s",
	       r ? err.msg : "ok", pid0, access(proc, F_OK) ? "gone" : "still there", pid1);
	/* ten apply periods (300 ms each, longer under TCG): the orphan's budgets */
	usleep(3000000);
	k1 = on_node(&c, st, DST);
	tap_ok(k_kill > 0 && k0 >= k_kill && k1 == k0 && k0 < (int)n,
	       "after the restart no page moved that the new mover did not commit: %d on node "
	       "%d at the restart, %d three seconds later (of %zu)",
	       k0, DST, k1, n);
	m = hb_migrator_free(m);
	vm_get(KD "/nr_kdamonds", nr, sizeof(nr));
	tap_ok(!strcmp(nr, "0"), "crash: closed, nr_kdamonds %s", nr);
out_child:
	vm_child_stop(&c);
out:
	/* whatever happened: nothing of ours left on */
	(void)vm_put(KD "/0/state", "off");
	(void)vm_put(KD "/nr_kdamonds", "0");
	free(pfn);
	free(hpa);
	free(st);
	free(nodes);
}

/* ---- moving ---- */

struct moved {
	size_t hot_ok, cold_same, intact, elsewhere, on_dst;
	size_t said_moved, said_unknown, said_moved_wrongly; /* statuses */
	size_t hot_refiled;
};

/*
 * A child with n pages on SRC; hot(i) says which to move; moves them (the
 * pages that report -EBUSY are offered once more), then checks every page.
 */
static int move_child(struct hb_migrator *m, size_t n, bool (*hot)(size_t i), struct moved *res,
		      int *st_out, double *secs)
{
	struct vm_child c;
	uint64_t *pfn = calloc(n, 8), *hpa = calloc(n, 8), ps = vm_page_size();
	int *st = calloc(n, sizeof(int)), *nodes = calloc(n, sizeof(int));
	size_t *idx = calloc(n, sizeof(size_t)), nh = 0;
	struct hb_err err = { 0 };
	int r;

	memset(res, 0, sizeof(*res));
	r = vm_child_start(&c, VM_CHILD_ANON, n, SRC, 0x4844000000000000ULL + n);
	if (r < 0)
		goto out;
	vm_drain_lru();
	r = vm_child_verify(&c);
	if (r == 0 && (vm_child_pfns(&c, pfn) < 0 || count(c.node_now, n, SRC) != (int)n))
		r = -EAGAIN;
	if (r < 0)
		goto out_stop;
	for (size_t i = 0; i < n; i++) {
		if (!hot(i))
			continue;
		idx[nh] = i;
		hpa[nh] = pfn[i] * ps;
		nodes[nh++] = DST;
	}
	*secs = vm_now();
	r = hb_migrator_move(m, nh, hpa, nodes, st, 0, &err);
	*secs = vm_now() - *secs;
	if (r < 0) {
		tap_diag("move: %s", err.msg);
		goto out_stop;
	}
	if (count(st, nh, -EBUSY)) {
		size_t k = 0;
		uint64_t *h2 = calloc(nh, 8);
		int *s2 = calloc(nh, sizeof(int));
		size_t *w = calloc(nh, sizeof(size_t));

		tap_diag("%d pages -EBUSY (not isolated), offering them once more",
			 count(st, nh, -EBUSY));
		vm_drain_lru();
		for (size_t j = 0; j < nh; j++)
			if (st[j] == -EBUSY) {
				w[k] = j;
				h2[k++] = hpa[j];
			}
		r = hb_migrator_move(m, k, h2, nodes, s2, 0, &err);
		for (size_t j = 0; r == 0 && j < k; j++)
			st[w[j]] = s2[j];
		free(h2);
		free(s2);
		free(w);
	}
	for (size_t j = 0; j < nh; j++)
		st_out[j] = st[j];
	r = vm_child_verify(&c);
	for (size_t i = 0, j = 0; r == 0 && i < n; i++) {
		int64_t now = vm_pfn(c.pid, c.vaddr[i]);
		bool is_hot = j < nh && idx[j] == i;

		res->intact += c.sum_now[i] == c.sum[i];
		res->on_dst += c.node_now[i] == DST;
		if (is_hot) {
			/* on the target, or still where it was */
			if (c.node_now[i] == DST)
				res->hot_ok++;
			else if (c.node_now[i] != SRC)
				res->elsewhere++; /* node 2, or any other */
			else if (!(now > 0 && (uint64_t)now == pfn[i]))
				res->hot_refiled++; /* refiled on SRC (kcompactd) */
			res->said_moved += st[j] == DST;
			res->said_unknown += st[j] == -ENODATA;
			res->said_moved_wrongly += st[j] == DST && c.node_now[i] != DST;
			j++;
		} else {
			res->cold_same += c.node_now[i] == SRC && now > 0 && (uint64_t)now == pfn[i];
		}
	}
	r = (int)nh;
out_stop:
	vm_child_stop(&c);
out:
	free(pfn);
	free(hpa);
	free(st);
	free(nodes);
	free(idx);
	return r;
}

static bool hot_mixed(size_t i)
{
	return i < 64 || i % 4 == 0; /* a contiguous run, then every 4th */
}

static bool hot_all(size_t i)
{
	(void)i;
	return true;
}

static void check_move(void)
{
	struct hb_migrator_config cfg = config(0);
	struct hb_migrator *m = NULL;
	struct hb_damon_stats s;
	struct hb_err err = { 0 };
	struct moved res;
	size_t n = 512;
	int st[512], nh;
	double t;

	if (hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err) < 0) {
		tap_ok(false, "damon opens: %s", err.msg);
		return;
	}
	tap_ok(true, "damon opens: %s", hb_migrator_describe(m));
	nh = move_child(m, n, hot_mixed, &res, st, &t);
	if (nh < 0) {
		tap_ok(false, "hot/cold: no child (%s)", strerror(-nh));
		goto out;
	}
	(void)hb_migrator_damon_stats(m, &s);
	tap_ok(res.hot_ok == (size_t)nh && res.said_moved_wrongly == 0,
	       "hot: %zu/%d pages on node %d; statuses: %zu node %d, %zu -ENODATA, %zu wrongly "
	       "(%.2f s, %llu bytes applied, %llu batches, inferred moved %llu / unknown %llu)",
	       res.hot_ok, nh, DST, res.said_moved, DST, res.said_unknown, res.said_moved_wrongly,
	       t, (unsigned long long)s.bytes_applied, (unsigned long long)s.batches,
	       (unsigned long long)s.pages_moved, (unsigned long long)s.pages_unknown);
	tap_ok(res.cold_same == n - (size_t)nh, "cold: %zu/%zu pages on node %d at the same PFN",
	       res.cold_same, n - (size_t)nh, SRC);
	tap_ok(res.intact == n, "bytes: %zu/%zu pages' checksums unchanged", res.intact, n);
	tap_ok(res.elsewhere == 0,
	       "no hot page anywhere but node %d or %d (%zu; %zu left on node %d at another PFN by compaction)",
	       DST, SRC, res.elsewhere, res.hot_refiled, SRC);
out:
	hb_migrator_free(m);
}

/*
 * Issue 42: pages their owner keeps bound to node 1 (mbind MPOL_BIND,
 * kept). DAMON works on physical ranges and no DAMOS filter knows a memory
 * policy, so the damon backend moves them like any other page: what
 * kernel/docs/migrators.md ("Memory policies") says of it, checked here.
 */
static void check_bound(void)
{
	struct hb_migrator_config cfg = config(0);
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	struct moved res;
	size_t n = 64;
	int st[64], nh;
	double t;

	if (hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err) < 0) {
		tap_ok(false, "bound: damon opens: %s", err.msg);
		return;
	}
	vm_child_keep_policy = true;
	nh = move_child(m, n, hot_all, &res, st, &t);
	vm_child_keep_policy = false;
	tap_ok(nh == (int)n && res.hot_ok == n && res.intact == n && count(st, n, -EXDEV) == 0,
	       "bound: %zu/%d pages their owner keeps bound to node %d (mbind MPOL_BIND) moved to "
	       "node %d all the same: DAMON has no memory-policy filter (damon honours no "
	       "policy; %zu intact, no -EXDEV)",
	       res.hot_ok, nh, SRC, DST, res.intact);
	hb_migrator_free(m);
}

/* the target nearly full: nothing beyond the headroom, nothing elsewhere */
static void check_full(void)
{
	struct hb_migrator_config cfg = config(0);
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	struct hb_damon_stats s;
	struct moved res;
	uint64_t h = 0, h2 = 0, h3 = 0, ps = vm_page_size();
	size_t n = 2048, hog_pages;
	int st[2048], nh;
	double t;
	void *hog;

	if (hb_damon_node_headroom(NULL, DST, &h) < 0 || h < 1024) {
		hog = NULL;
		tap_skip("full target: node %d headroom %llu pages", DST, (unsigned long long)h);
		return;
	}
	/*
	 * fill node 0 until about 1536 pages are left above its watermarks
	 * (the child's start takes several hundred of them on node 0: 512
	 * left none at the batch): the child's pages are mostly contiguous,
	 * so what fits goes as a few multi-page regions that end at the
	 * headroom, where 6.12's fallback to another node would show (node 2
	 * is there to catch it)
	 */
	hog_pages = 0;
	hog = mmap(NULL, 2 * h * ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hog == MAP_FAILED || syscall(SYS_mbind, hog, 2 * h * ps, MPOL_BIND,
					 (unsigned long[]){ 1UL << DST }, 64, 0) < 0) {
		tap_skip("full target: could not map %llu pages on node %d", (unsigned long long)h,
			 DST);
		return;
	}
	for (h2 = h; h2 > 1536 + 64 && hog_pages < 2 * h;) {
		size_t chunk = h2 - 1536 > 4096 ? 4096 : (size_t)(h2 - 1536);

		for (size_t i = 0; i < chunk && hog_pages < 2 * h; i++)
			((volatile char *)hog)[hog_pages++ * ps] = 1;
		if (hb_damon_node_headroom(NULL, DST, &h2) < 0)
			break;
	}
	tap_diag("node %d: headroom %llu pages, after a hog of %zu: %llu", DST,
		 (unsigned long long)h, hog_pages, (unsigned long long)h2);
	if (hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err) < 0) {
		tap_ok(false, "full target: damon opens: %s", err.msg);
		goto out;
	}
	nh = move_child(m, n, hot_all, &res, st, &t);
	(void)hb_migrator_damon_stats(m, &s);
	if (hb_damon_node_headroom(NULL, DST, &h3) < 0)
		h3 = 0;
	/*
	 * The headroom is measured again before each batch, and the kernel
	 * frees memory meanwhile (pages of exited children come back from the
	 * per-CPU lists; page cache is reclaimed once node 0 is under its high
	 * watermark: up to all n pages have been seen to fit). What must hold:
	 * nothing elsewhere, bytes intact, and either pages beyond the headroom
	 * refused with -ENOMEM or, when all fitted, node 0 still above its
	 * watermarks afterwards (headroom left > 0).
	 */
	tap_ok(nh == (int)n && res.elsewhere == 0 && res.said_moved_wrongly == 0 &&
		       res.intact == n && (count(st, n, -ENOMEM) > 0 || h3 > 0),
	       "full target: %zu of %zu pages on node %d (headroom %llu before, %llu after), %d -ENOMEM, "
	       "%zu elsewhere, %zu reported moved but not on node %d, %zu intact",
	       res.on_dst, n, DST, (unsigned long long)h2, (unsigned long long)h3,
	       count(st, n, -ENOMEM), res.elsewhere, res.said_moved_wrongly, DST, res.intact);
	tap_diag("stats: %llu pages programmed in %llu regions, applied %llu bytes, moved %llu, "
		 "not moved %llu, unknown %llu, over watermark %llu",
		 (unsigned long long)s.pages_programmed, (unsigned long long)s.regions,
		 (unsigned long long)s.bytes_applied, (unsigned long long)s.pages_moved,
		 (unsigned long long)s.pages_not_moved, (unsigned long long)s.pages_unknown,
		 (unsigned long long)s.pages_over_watermark);
	hb_migrator_free(m);
out:
	munmap(hog, 2 * h * ps);
}

/* ---- the quota, from the first second ---- */

/*
 * The rate is measured as the kernel moves pages, not from DAMON's stats
 * (those change only when a stats update is served, an aggregation or two
 * after the apply, which shifted bursts by 0.55 s either way): every 20 ms
 * the sampler reads /proc/vmstat's pgmigrate_success, which every
 * migrate_pages() success counts at once. One file read: asking
 * move_pages(2) for the node of each of the 2048 pages instead took
 * enough of the guest's one TCG thread to stretch the kdamond's periods.
 * Nothing else migrates in the guest meanwhile but compaction, which the
 * total (compared with the pages moved) would show.
 */
static volatile bool sampling;
static double samp_t[8192];
static uint64_t samp_v[8192];
static size_t nsamp;

static int64_t migrated_pages(void)
{
	char line[128];
	FILE *f = fopen("/proc/vmstat", "r");
	int64_t v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "pgmigrate_success ", 18))
			v = strtoll(line + 18, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static void *sampler(void *arg)
{
	(void)arg;
	while (sampling && nsamp < 8192) {
		int64_t v = migrated_pages();

		if (v < 0)
			break;
		samp_t[nsamp] = vm_now();
		samp_v[nsamp++] = (uint64_t)v * vm_page_size();
		usleep(20000);
	}
	return NULL;
}

static void check_rate(void)
{
	const uint64_t rate = 1 << 20; /* 1 MiB/s: 256 pages a second */
	struct hb_migrator_config cfg = config(rate);
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	struct moved res;
	size_t n = 2048; /* 8 budgets: one slow period weighs less */
	static int st[2048];
	uint64_t base = 0, first = 0, total, before_last = 0, b_before[64];
	double t, t_first = 0, t_last = 0, avg, b_start[64], b_end[64];
	size_t nb = 0;
	pthread_t th;
	int nh;

	if (hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err) < 0) {
		tap_ok(false, "rate: damon opens: %s", err.msg);
		return;
	}
	sampling = true;
	nsamp = 0;
	pthread_create(&th, NULL, sampler, NULL);
	nh = move_child(m, n, hot_all, &res, st, &t);
	sampling = false;
	pthread_join(th, NULL);
	hb_migrator_free(m);
	if (nh < 0 || nsamp < 2) {
		tap_ok(false, "rate: no run (%d, %zu samples)", nh, nsamp);
		return;
	}
	/*
	 * The kernel paces: one budget (rate x period, period 1.1 s) per apply,
	 * in a burst, one apply per period. The trap: everything in the first
	 * window. A burst is the rises less than 0.3 s apart. From the first
	 * rise, what came within one second, and the rate from the first
	 * burst's start to the last's (the bytes before the last burst over
	 * that time), both within 20 % of the rate, either way: never over
	 * (the bound), and reached (no time lost between budgets).
	 */
	base = samp_v[0];
	for (size_t i = 1; i < nsamp; i++) {
		if (samp_v[i] == samp_v[i - 1])
			continue;
		if (!t_first)
			t_first = samp_t[i];
		if (samp_t[i] - t_first <= 1.0)
			first = samp_v[i] - base;
		if (nb == 0 || samp_t[i] - b_end[nb - 1] >= 0.3) {
			if (nb == 64)
				break;
			b_start[nb] = samp_t[i];
			b_before[nb++] = samp_v[i - 1] - base;
		}
		b_end[nb - 1] = samp_t[i];
	}
	total = samp_v[nsamp - 1] - base;
	if (nb > 1) {
		t_last = b_start[nb - 1];
		before_last = b_before[nb - 1];
	}
	avg = t_last > t_first ? (double)before_last / (t_last - t_first) : 0;
	tap_ok(first >= rate - rate / 5 && first <= rate + rate / 5 && avg >= 0.8 * (double)rate &&
		       avg <= 1.2 * (double)rate && res.hot_ok + 8 >= n && res.elsewhere == 0 &&
		       res.intact == n,
	       "rate %llu B/s within 20 %% from the first second (pgmigrate_success, sampled every "
	       "20 ms): %llu bytes in the first second, %.0f B/s (%.0f %%) over %zu bursts "
	       "(%llu bytes; %zu/%zu pages moved, move() took %.2f s)",
	       (unsigned long long)rate, (unsigned long long)first, avg, 100.0 * avg / (double)rate,
	       nb, (unsigned long long)total, res.hot_ok, n, t);
	for (size_t i = 0; i < nb; i++)
		tap_diag("burst at %.2f s (%.2f s long): +%llu bytes", b_start[i] - t_first,
			 b_end[i] - b_start[i],
			 (unsigned long long)((i + 1 < nb ? b_before[i + 1] : total) - b_before[i]));
}

static int run_612(void)
{
	struct hb_err err = { 0 };
	struct hb_migrator_config cfg = config(0);
	int r = hb_damon_probe(&cfg, &err);

	tap_ok(r == 0, "probe: DAMON usable (%s)", r ? err.msg : "paddr, migrate_hot, no other user");
	if (r < 0)
		return tap_done();
	check_other_user();
	check_crash_restart();
	check_move();
	check_bound();
	check_rate();
	check_full();
	return tap_done();
}

static int run_61(void)
{
	struct hb_migrator_config cfg = config(0);
	struct hb_migrator_choice why;
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	char before[32], after[32];
	int r;

	vm_get(KD "/nr_kdamonds", before, sizeof(before));
	r = hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err);
	vm_get(KD "/nr_kdamonds", after, sizeof(after));
	tap_ok(r < 0 && !m && strstr(err.msg, "damon: ") && !strcmp(before, after) &&
		       access(STATE, F_OK) < 0,
	       "damon unavailable (%d): %s; nr_kdamonds '%s' -> '%s', no state file", r, err.msg,
	       before, after);
	r = hb_migrator_new_auto(&cfg, &m, &why, &err);
	tap_ok(r == 0 && why.kind == HB_MIGRATOR_PAGEMAP && why.why[HB_MIGRATOR_DAMON][0],
	       "auto: %s", m ? hb_migrator_describe(m) : err.msg);
	hb_migrator_free(m);
	return tap_done();
}

#define DAMON_STAT "/sys/module/damon_stat/parameters/enabled"

static int run_73(void)
{
	struct hb_migrator_config cfg = config(0);
	struct hb_migrator_choice why;
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	char on[8];
	int r;

	vm_get(DAMON_STAT, on, sizeof(on));
	if (on[0] != 'Y')
		vm_put(DAMON_STAT, "Y");
	vm_get(DAMON_STAT, on, sizeof(on));
	r = hb_damon_probe(&cfg, &err);
	tap_ok(on[0] == 'Y' && r == -EBUSY && strstr(err.msg, "damon_stat is enabled") &&
		       strstr(err.msg, "write N there"),
	       "damon_stat on (%s): damon refused: %s", on, r ? err.msg : "(accepted)");
	r = hb_migrator_new_auto(&cfg, &m, &why, &err);
	tap_ok(r == 0 && why.kind == HB_MIGRATOR_PAGEMAP &&
		       strstr(why.why[HB_MIGRATOR_DAMON], "damon_stat"),
	       "auto with damon_stat on: %s (damon: %s)", m ? hb_migrator_describe(m) : err.msg,
	       why.why[HB_MIGRATOR_DAMON]);
	hb_migrator_free(m);
	r = vm_put(DAMON_STAT, "N");
	vm_get(DAMON_STAT, on, sizeof(on));
	tap_ok(r == 0 && on[0] == 'N', "damon_stat off by its parameter (%s)", on);
	return run_612();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "6.12"))
		return run_612();
	if (argc == 2 && !strcmp(argv[1], "7.3"))
		return run_73();
	if (argc == 2 && !strcmp(argv[1], "6.1"))
		return run_61();
	fprintf(stderr, "usage: hb-vmdamon 6.12|7.3|6.1\n");
	return 2;
}
