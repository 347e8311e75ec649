// SPDX-License-Identifier: MIT
/*
 * hb-vmcapacity: the workload of vm-capacity-6.12 (tests/vm/hb-vm-capacity),
 * run as root in the guest while `hotbridge run` works:
 *
 *   hb-vmcapacity FEED LEAVE_MB HOT_MB SECONDS LINGER_S RESULT
 *
 *  1. hot: HOT_MB of anonymous memory placed on node 1 (the "CXL" node),
 *     filled page by page with a per-page pattern under the thread's own
 *     MPOL_BIND (set_mempolicy), then bound to every node (vm_allow_all):
 *     our kernel refuses (-EXDEV) to move pages whose mapping is bound
 *     elsewhere, and NUMA balancing leaves bound mappings alone;
 *  2. cold: as much memory placed on node 0 the same way as node 0's MemFree (from
 *     /sys/devices/system/node/node0/meminfo) exceeds LEAVE_MB, filled the
 *     same way; never read again until the end, so it stays idle;
 *  3. for at most SECONDS: a thread reads every hot page every 50 ms; every
 *     round (~200 ms) asks move_pages(2) (nodes = NULL) where the hot pages
 *     are (counting those seen leaving node 0 again), and writes the
 *     HPAs (PFN from /proc/self/pagemap x page size) of those still on node
 *     1 as replay lines (`hpa=0x... len=4096 count=N ts=...`), each page
 *     once a second, at most FEED_MAX a round, into FEED, a FIFO the
 *     daemon reads; one cold page in 16 is watched each round
 *     (vm-capacity.h: seen demoted, seen back); stops LINGER_S seconds
 *     after every hot page reached node 0 (a demotion that took hot pages
 *     would show in those seconds);
 *  4. every page's node (move_pages, nodes = NULL; asked again while any
 *     page is being moved) and bytes (checksum against the one taken at
 *     fill time).
 *
 * Nodes' MemFree is sampled all along (each 4 MiB of the fill, each round),
 * alone and with the free pages in the per-CPU lists (/proc/zoneinfo).
 * RESULT gets "key value" lines for the script's TAP; progress goes to
 * stdout as "# " lines. Exit 0 when the workload ran (the checks are the
 * script's), 1 when it could not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vm-capacity.h"
#include "vm-lib.h"

/*
 * count= of each hot record: one is over policy.threshold (8). Under TCG
 * the daemon's cycles (its census and idle checks) leave it little time to
 * read the feed, and records reach its table seconds late: a page must not
 * need several of them to be promoted. Each record carries its time (ts=,
 * CLOCK_MONOTONIC), so the daemon's latency_us says how late.
 */
#define FEED_COUNT 16
#define ROUND_MS 200
#define TOUCH_MS 50
#define FEED_EVERY_MS 1000
/*
 * Records a round at most, as a device hands over at most its hotlist an
 * epoch (QEMU's CHMU: 1024 entries). All 12 288 hot pages in the first
 * round made one burst that the daemon, sharing the guest's one TCG CPU,
 * took 0.1-0.5 s to ingest, and that burst was the scenario's record p99
 * (tests/README.md, "Demotion's cost, by node size").
 */
#define FEED_MAX 1024

/*
 * A thread reads every hot page (an access the kernel's young bits see)
 * every TOUCH_MS, apart from the rounds: a round waits for the daemon to
 * read the FIFO, which it does between cycles that take seconds under TCG,
 * and a hot page left untouched that long is cold by any measure.
 */
struct toucher {
	const struct area *a;
	atomic_bool stop;
	double max_gap; /* seconds between the starts of two passes, at most */
	uint64_t passes, sum;
};

static void *touch_main(void *arg)
{
	struct toucher *t = arg;
	double last = vm_now();

	while (!atomic_load(&t->stop)) {
		double now = vm_now();

		if (t->passes && now - last > t->max_gap)
			t->max_gap = now - last;
		last = now;
		for (size_t i = 0; i < t->a->n; i++)
			t->sum += *(volatile const uint64_t *)(t->a->base + i * vm_page_size());
		t->passes++;
		usleep(TOUCH_MS * 1000);
	}
	return NULL;
}

/*
 * Replay lines, in writes of at most PIPE_BUF, for the hot pages on node 1
 * not fed in the last FEED_EVERY_MS (or fed at another frame). A record
 * outlives its page at that frame: the daemon may read it after the page
 * was promoted and a demoted page took the frame, and promote that one.
 * Feeding each page again only once a second keeps such records few while
 * its heat (count 16, decaying 0.8 a cycle) stays over the threshold.
 * A record's ts= is when its line is made, after the pagemap read (tens of
 * ms under TCG for 12288 pages): the daemon's latency is from there, as a
 * device's record is stamped when the device makes it. At most FEED_MAX
 * lines a round; pages left out go in the next rounds, which begin where
 * this one stopped (*from), so that pages fed again (a promotion that must
 * be retried) never keep the last ones out.
 */
static int feed(int fd, const struct area *a, const int *status, uint64_t *pfn, uint64_t *fed_pfn,
		double *fed_at, uint8_t *fed_map, size_t *from, size_t *fed)
{
	char buf[4096], line[128];
	size_t len = 0;
	double now = vm_now();
	int r = vm_pfn_range(getpid(), (uintptr_t)a->base, a->n, pfn);

	if (r < 0)
		return r;
	*fed = 0;
	for (size_t j = 0; j < a->n; j++) {
		size_t i = (*from + j) % a->n;
		int k;

		if (status[i] != 1 || !pfn[i] ||
		    (fed_pfn[i] == pfn[i] && now - fed_at[i] < FEED_EVERY_MS / 1e3))
			continue;
		if (*fed == FEED_MAX) {
			*from = i;
			break;
		}
		fed_pfn[i] = pfn[i];
		fed_at[i] = now;
		if (pfn[i] < FED_MAP_PFNS)
			fed_map[pfn[i] / 8] |= (uint8_t)(1u << pfn[i] % 8);
		k = snprintf(line, sizeof(line),
			     "hpa=0x%" PRIx64 " len=%" PRIu64 " count=%d ts=%" PRIu64 "\n",
			     pfn[i] * vm_page_size(), vm_page_size(), FEED_COUNT,
			     (uint64_t)(vm_now() * 1e9));
		if (len + (size_t)k > sizeof(buf)) {
			if (write(fd, buf, len) != (ssize_t)len)
				return -errno;
			len = 0;
		}
		memcpy(buf + len, line, (size_t)k);
		len += (size_t)k;
		(*fed)++;
	}
	if (len && write(fd, buf, len) != (ssize_t)len)
		return -errno;
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	uint64_t leave_mb, hot_mb, secs, linger, ps = vm_page_size();
	struct area cold = { 0 }, hot = { 0 };
	struct samples smp = { 0 };
	size_t on[MAX_NODE + 1], bad, fed = 0, rounds = 0, fed_total = 0, plan, hot_left = 0;
	size_t feed_from = 0; /* where the next feed round begins */
	struct toucher tch = { 0 };
	struct watch watch = { 0 };
	uint8_t *fed_map;
	pthread_t th;
	double t0, t_fill, t_all = 0, deadline, *fed_at;
	uint64_t free0_kb, *pfn, *fed_pfn;
	int *status, *prev, fd, tries, r;
	FILE *res;

	if (argc != 7 || parse_u64(argv[2], &leave_mb) || parse_u64(argv[3], &hot_mb) ||
	    parse_u64(argv[4], &secs) || parse_u64(argv[5], &linger) || !hot_mb) {
		fprintf(stderr,
			"usage: hb-vmcapacity FEED LEAVE_MB HOT_MB SECONDS LINGER_S RESULT\n");
		return 2;
	}
	res = fopen(argv[6], "we");
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (!res || fd < 0) {
		fprintf(stderr, "hb-vmcapacity: cannot open %s: %m\n", !res ? argv[6] : argv[1]);
		return 1;
	}

	/*
	 * hot first, so that node 1's MemFree already counts it when demotion
	 * (which may start during the cold fill) meets the floor
	 */
	t0 = vm_now();
	if (area_map(&hot, hot_mb * 256) < 0 || vm_task_bind(1) < 0) {
		fprintf(stderr, "hb-vmcapacity: cannot map %" PRIu64 " MiB on node 1: %m\n", hot_mb);
		return 1;
	}
	for (hot.n = 0; hot.n < hot_mb * 256; hot.n++)
		area_fill_page(&hot, hot.n, 0x407);
	vm_task_bind(-1);
	/* bound only to land there: a binding kept would forbid promotion (issue 42) */
	if (vm_allow_all(hot.base, hot.n * vm_page_size()) < 0) {
		fprintf(stderr, "hb-vmcapacity: mbind(every node) of the hot set: %m\n");
		return 1;
	}
	/*
	 * cold: what node 0 has free beyond LEAVE_MB now (not "until MemFree is
	 * LEAVE_MB": demotions during the fill would make that open-ended); stops
	 * early should MemFree fall to LEAVE_MB / 2
	 */
	free0_kb = node_free_kb(0);
	if (free0_kb / 1024 <= leave_mb + 16) {
		fprintf(stderr,
			"hb-vmcapacity: node 0 has %" PRIu64 " MiB free, not more than "
			"LEAVE_MB %" PRIu64 " + 16\n",
			free0_kb / 1024, leave_mb);
		return 1;
	}
	plan = free0_kb / 4 - leave_mb * 256;
	if (area_map(&cold, plan) < 0 || vm_task_bind(0) < 0) {
		fprintf(stderr, "hb-vmcapacity: cannot map %zu pages on node 0: %m\n", plan);
		return 1;
	}
	while (cold.n < plan) {
		if (cold.n % 1024 == 0) {
			/* what is in so far may be demoted: no binding to forbid it */
			(void)vm_allow_all(cold.base, cold.n * vm_page_size());
			sample(&smp);
			if (node_free_kb(0) / 1024 <= leave_mb / 2)
				break;
		}
		area_fill_page(&cold, cold.n++, 0xC01D);
	}
	vm_task_bind(-1);
	(void)vm_allow_all(cold.base, cold.n * vm_page_size());
	t_fill = vm_now() - t0;
	status = calloc(cold.n > hot.n ? cold.n : hot.n, sizeof(*status));
	pfn = calloc(cold.n > hot.n ? cold.n : hot.n, sizeof(*pfn));
	prev = calloc(hot.n, sizeof(*prev));
	fed_pfn = calloc(hot.n, sizeof(*fed_pfn));
	fed_at = calloc(hot.n, sizeof(*fed_at));
	fed_map = calloc(FED_MAP_PFNS / 8, 1);
	if (!status || !pfn || !prev || !fed_pfn || !fed_at || !fed_map ||
	    watch_init(&watch, &cold) < 0)
		return 1;
	flags_diag("cold", &cold, pfn);
	sample(&smp);
	tap_diag("filled %zu cold pages on node 0 and %zu hot on node 1 in %.1f s; MemFree "
		 "node 0 %" PRIu64 " MiB, node 1 %" PRIu64 " MiB",
		 cold.n, hot.n, t_fill, node_free_kb(0) / 1024, node_free_kb(1) / 1024);
	fprintf(res,
		"cold_pages %zu\ncold_planned %zu\nhot_pages %zu\nfree0_before_cold_kb %" PRIu64
		"\nfree0_after_fill_kb %" PRIu64 "\nfree1_after_fill_kb %" PRIu64 "\n",
		cold.n, plan, hot.n, free0_kb, node_free_kb(0), node_free_kb(1));

	/* hot: touched all along; fed while on node 1, until all moved (+ LINGER_S) */
	tch.a = &hot;
	if ((errno = pthread_create(&th, NULL, touch_main, &tch))) {
		fprintf(stderr, "hb-vmcapacity: cannot start the toucher: %m\n");
		return 1;
	}
	deadline = vm_now() + (double)secs;
	while (vm_now() < deadline) {
		size_t on0 = 0;

		if (area_nodes(&hot, status) < 0 ||
		    feed(fd, &hot, status, pfn, fed_pfn, fed_at, fed_map, &feed_from, &fed) < 0 ||
		    watch_round(&watch, &cold, fed_map) < 0) {
			fprintf(stderr, "hb-vmcapacity: round %zu: %m\n", rounds);
			return 1;
		}
		for (size_t i = 0; i < hot.n; i++) {
			on0 += status[i] == 0;
			/* a hot page that went back to node 1: the daemon demoted it */
			hot_left += rounds && prev[i] == 0 && status[i] != 0;
			prev[i] = status[i];
		}
		sample(&smp);
		fed_total += fed;
		if (rounds++ % 10 == 0)
			tap_diag("round %zu (%.1f s): %zu hot pages on node 0, fed %zu; MemFree node 0 "
				 "%" PRIu64 " MiB, node 1 %" PRIu64 " MiB",
				 rounds, vm_now() - t0 - t_fill, on0, fed, node_free_kb(0) / 1024,
				 node_free_kb(1) / 1024);
		if (on0 == hot.n && !t_all) {
			t_all = vm_now();
			deadline = t_all + (double)linger;
			tap_diag("all %zu hot pages on node 0 after %.1f s", hot.n,
				 t_all - t0 - t_fill);
		}
		usleep(ROUND_MS * 1000);
	}
	atomic_store(&tch.stop, true);
	pthread_join(th, NULL);
	close(fd);
	sample(&smp);
	fprintf(res,
		"rounds %zu\nfed_records %zu\nhot_all_on_node0_s %.1f\nsamples %" PRIu64
		"\nhot_demoted_seen %zu\ntouch_passes %" PRIu64 "\ntouch_max_gap_ms %.0f\n"
		"watched %zu\nwatched_demoted %zu\nwatched_back %zu\nwatched_back_fed %zu\n",
		rounds, fed_total, t_all ? t_all - t0 - t_fill : -1.0, smp.n, hot_left, tch.passes,
		tch.max_gap * 1e3, watch.n, watch.demoted, watch.back, watch.back_fed);
	for (int k = 0; k < MAX_NODE; k++)
		fprintf(res, "min_free%d_kb %" PRIu64 "\nmin_free_pcp%d_kb %" PRIu64 "\n", k,
			smp.min_free[k], k, smp.min_free_pcp[k]);

	/* where every page is, and its bytes */
	if ((tries = area_nodes_settled(&hot, status)) < 0)
		return 1;
	census(&hot, status, on, &bad);
	fprintf(res, "hot_on0 %zu\nhot_on1 %zu\nhot_on2 %zu\nhot_elsewhere %zu\nhot_bad %zu\n",
		on[0], on[1], on[2], on[3], bad);
	if ((r = area_nodes_settled(&cold, status)) < 0)
		return 1;
	fprintf(res, "node_queries %d %d\n", tries, r);
	census(&cold, status, on, &bad);
	fprintf(res, "cold_on0 %zu\ncold_on1 %zu\ncold_on2 %zu\ncold_elsewhere %zu\ncold_bad %zu\n",
		on[0], on[1], on[2], on[3], bad);
	fprintf(res, "page_size %" PRIu64 "\n", ps);
	return fclose(res) ? 1 : 0;
}
