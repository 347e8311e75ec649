// SPDX-License-Identifier: MIT
/*
 * hb-vmdamon-coldness: runs inside the test guest, as root, on Debian's
 * stock 6.12 (no idle page tracking), and checks DAMON as the coldness
 * source (kernel/damon/damon-monitor.h) against a known access pattern:
 *
 *  - the damon migrator made kdamond 0 (its own, on) and kdamond 1 (left
 *    off); the monitor set up kdamond 1 over node 0's online memory and
 *    turned it on; both run;
 *  - 64 MiB of base pages on node 0: the first half written continuously
 *    by a thread, the second half not touched after the fill. After DAMON
 *    settled (its regions adapt: 6 s, then up to 30 s more for a first
 *    passing check), each of 5 checks a second apart reports at least
 *    60 % of the cold half idle and at most 2 % of the hot half, and the
 *    5 together at least 80 % of the cold half. DAMON samples one page a
 *    region per sample: a page is as cold as its region, and a region
 *    straddling the two halves reads as accessed. With ~100 regions over
 *    node 0's 1 GiB, one such region can hold a quarter of the cold half
 *    (seen: 76.8 % in one check, with three guests sharing two cores);
 *  - demotion with the migrator's regions: the pages the last
 *    check reported idle (at most 2048) moved to node 1 and only there, the
 *    hot half still all on node 0, every byte intact.
 *
 * Node 1 has memory and no CPUs (the CXL stand-in); node 0 is "DRAM".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "damon/damon-monitor.h"
#include "coldness/frames.h"
#include "kernel.h"
#include "vm-lib.h"

#define DRAM 0
#define CXL 1
#define KD "/sys/kernel/mm/damon/admin/kdamonds"
#define NPAGES 16384
#define HOT (NPAGES / 2)
#define CHECKS 5
#define SETTLE_MAX 30
#define MOVE_MAX 2048

static atomic_bool stop;
static volatile uint64_t *buf;
static uint64_t ps;

static void *toucher(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		for (size_t i = 0; i < HOT; i++)
			buf[i * ps / 8 + 1]++;
		usleep(1000);
	}
	return NULL;
}

static long node0_ranges(uint64_t (*range)[2], size_t max)
{
	struct hb_frames *f = NULL;
	struct hb_err err = { 0 };
	long n;

	if (hb_frames_open(NULL, ps, &f, &err) < 0) {
		tap_diag("frames: %s", err.msg);
		return -1;
	}
	n = hb_frames_node_ranges(f, DRAM, max, range, &err);
	if (n < 0)
		tap_diag("frames: %s", err.msg);
	for (long i = 0; i < n; i++) {
		range[i][0] *= ps;
		range[i][1] *= ps;
	}
	hb_frames_free(f);
	return n;
}

static size_t count_idle(const uint8_t *idle, size_t from, size_t to)
{
	size_t k = 0;

	for (size_t i = from; i < to; i++)
		k += idle[i];
	return k;
}

/*
 * One check a second after the last: 1 when it passes, 0 when it does
 * not, -1 when the regions could not be read
 */
static int check(struct hb_damon_monitor *mon, double *t_prev, const uint64_t *pfn, uint8_t *idle,
		 const char *what, int k, size_t *cold_sum)
{
	const struct hb_damon_region *reg;
	struct hb_err err = { 0 };
	size_t cold_idle, hot_idle;
	long nr;
	double t;

	sleep(1);
	nr = hb_damon_monitor_regions(mon, &reg, &err);
	t = vm_now();
	if (nr < 0) {
		tap_diag("regions: %s", err.msg);
		return -1;
	}
	hb_damon_monitor_idle(reg, (size_t)nr, ps, (uint64_t)((t - *t_prev) * 1e6), NPAGES, pfn,
			      idle);
	*t_prev = t;
	cold_idle = count_idle(idle, HOT, NPAGES);
	hot_idle = count_idle(idle, 0, HOT);
	tap_diag("%s %d: %ld regions, cold idle %zu/%d (%.1f %%), hot idle %zu/%d (%.2f %%)", what,
		 k, nr, cold_idle, NPAGES - HOT, 100.0 * cold_idle / (NPAGES - HOT), hot_idle, HOT,
		 100.0 * hot_idle / HOT);
	*cold_sum += cold_idle;
	return cold_idle * 10 >= (NPAGES - HOT) * 6ULL && hot_idle * 50 <= HOT;
}

/* the idle cold pages to node 1 with the migrator; the hot half stays */
static void demote(struct hb_migrator *m, const uint64_t *pfn, const uint8_t *idle,
		   const uint64_t *sum)
{
	static uint64_t hpa[MOVE_MAX];
	static int nodes[MOVE_MAX], status[MOVE_MAX], now[NPAGES];
	static void *addr[NPAGES];
	size_t n = 0, moved = 0, wrong = 0, hot_moved = 0, bad = 0;
	struct hb_err err = { 0 };
	int r;

	for (size_t i = HOT; i < NPAGES && n < MOVE_MAX; i++)
		if (idle[i] && pfn[i]) {
			hpa[n] = pfn[i] * ps;
			nodes[n++] = CXL;
		}
	r = hb_migrator_move(m, n, hpa, nodes, status, 0, &err);
	tap_ok(r == 0, "demotion of %zu idle pages to node %d: %s", n, CXL, r ? err.msg : "ran");
	for (size_t i = 0; i < n; i++)
		moved += status[i] == CXL;
	for (size_t i = 0; i < NPAGES; i++)
		addr[i] = (char *)buf + i * ps;
	if ((errno = -vm_nodes_of(0, NPAGES, addr, now)) != 0) {
		tap_ok(false, "move_pages: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < NPAGES; i++) {
		wrong += now[i] != DRAM && now[i] != CXL;
		if (i < HOT)
			hot_moved += now[i] != DRAM;
		else if (vm_sum((const char *)buf + i * ps) != sum[i])
			bad++;
	}
	{
		size_t on_cxl = 0;

		for (size_t i = HOT; i < NPAGES; i++)
			on_cxl += now[i] == CXL;
		tap_diag("demotion: %zu of %zu reported moved, %zu cold pages on node %d", moved, n,
			 on_cxl, CXL);
		tap_ok(n > 0 && on_cxl >= n * 9 / 10 && on_cxl <= n,
		       "idle pages on node %d: %zu of %zu asked (at least 90 %%)", CXL, on_cxl, n);
	}
	tap_ok(hot_moved == 0, "hot half still on node %d (%zu moved)", DRAM, hot_moved);
	tap_ok(wrong == 0, "nothing on any other node (%zu)", wrong);
	tap_ok(bad == 0, "cold bytes intact (%zu pages differ)", bad);
}

int main(void)
{
	static uint64_t pfn[NPAGES], sum[NPAGES], range[64][2];
	static uint8_t idle[NPAGES];
	struct hb_migrator_config mc = { .damon_state = "/tmp/hb-damon-state",
					 .source_nodes = 1u << DRAM };
	struct hb_migrator *m = NULL;
	struct hb_damon_monitor *mon = NULL;
	struct hb_err err = { 0 };
	pthread_t th;
	char st[16];
	long nr;
	double t_prev;
	size_t cold_sum = 0;
	bool all_ok;

	ps = vm_page_size();
	if (access("/sys/kernel/mm/page_idle/bitmap", F_OK) == 0)
		tap_diag("note: this kernel has idle page tracking too");
	hb_damon_monitor_reserve(&mc);
	if (hb_migrator_new(HB_MIGRATOR_DAMON, &mc, &m, &err) < 0) {
		tap_ok(false, "damon migrator with the monitor's kdamond: %s", err.msg);
		return tap_done();
	}
	vm_get(KD "/nr_kdamonds", st, sizeof(st));
	tap_ok(!strcmp(st, "2"), "nr_kdamonds %s: the migrator's and the monitor's", st);
	nr = node0_ranges(range, 64);
	tap_ok(nr > 0, "node %d: %ld online range(s)", DRAM, nr);
	if (nr <= 0 || hb_damon_monitor_open(NULL, hb_damon_monitor_kdamond(m, NULL), (size_t)nr,
					     (const uint64_t(*)[2])range, &mon, &err) < 0) {
		tap_ok(false, "monitor: %s", nr > 0 ? err.msg : "no range");
		hb_migrator_free(m);
		return tap_done();
	}
	vm_get(KD "/0/state", st, sizeof(st));
	tap_ok(!strcmp(st, "on"), "kdamond 0 (migrator) %s", st);
	vm_get(KD "/1/state", st, sizeof(st));
	tap_ok(!strcmp(st, "on"), "kdamond 1 (monitor) %s", st);

	buf = vm_map_on_node((size_t)NPAGES * ps, DRAM, -1, false);
	if (!buf || madvise((void *)buf, (size_t)NPAGES * ps, MADV_NOHUGEPAGE) < 0) {
		tap_ok(false, "64 MiB on node %d: %s", DRAM, strerror(errno));
		goto out;
	}
	vm_fill((void *)buf, NPAGES, 7);
	for (size_t i = 0; i < NPAGES; i++)
		sum[i] = vm_sum((const char *)buf + i * ps);
	if (vm_pfn_range(getpid(), (uint64_t)(uintptr_t)buf, NPAGES, pfn) < 0) {
		tap_ok(false, "pagemap: %s", strerror(errno));
		goto out;
	}
	pthread_create(&th, NULL, toucher, NULL);
	/*
	 * DAMON's regions start as node 0's ranges and adapt (split, merge)
	 * once an aggregation: give them 6 s, then as long as 30 s more for a
	 * first passing check, as a guest starved of host CPU adapts slower.
	 */
	sleep(6);
	t_prev = vm_now();
	(void)hb_damon_monitor_regions(mon, &(const struct hb_damon_region *){ NULL }, &err);
	for (int s = 0;; s++) {
		size_t ignored = 0;
		int r = check(mon, &t_prev, pfn, idle, "settle", s + 1, &ignored);

		if (r != 0) {
			all_ok = r > 0;
			if (r > 0)
				tap_diag("settled after %d s more", s + 1);
			break;
		}
		if (s + 1 == SETTLE_MAX) {
			tap_diag("not settled in %d s more", SETTLE_MAX);
			all_ok = false;
			break;
		}
	}
	for (int c = 0; c < CHECKS && all_ok; c++)
		all_ok = check(mon, &t_prev, pfn, idle, "check", c + 1, &cold_sum) > 0;
	tap_ok(all_ok, "every check: >= 60 %% of the cold half idle, <= 2 %% of the hot half");
	tap_ok(all_ok && cold_sum * 10 >= (size_t)CHECKS * (NPAGES - HOT) * 8,
	       "over the %d checks, %.1f %% of the cold half idle (at least 80 %%)", CHECKS,
	       100.0 * cold_sum / ((double)CHECKS * (NPAGES - HOT)));
	atomic_store(&stop, true);
	pthread_join(th, NULL);
	demote(m, pfn, idle, sum);
out:
	hb_damon_monitor_free(mon);
	hb_migrator_free(m);
	vm_get(KD "/nr_kdamonds", st, sizeof(st));
	tap_ok(!strcmp(st, "0"), "closed: nr_kdamonds %s", st);
	return tap_done();
}
