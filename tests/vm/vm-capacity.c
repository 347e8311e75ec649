// SPDX-License-Identifier: MIT
/*
 * hb-vmcapacity: the workload of vm-capacity-6.12 (tests/vm/hb-vm-capacity),
 * run as root in the guest while `hotbridge run` works:
 *
 *   hb-vmcapacity FEED LEAVE_MB HOT_MB SECONDS LINGER_S RESULT
 *
 *  1. cold: anonymous memory bound to node 0 (mbind), filled page by page
 *     with a per-page pattern until node 0's MemFree is down to LEAVE_MB
 *     (read from /sys/devices/system/node/node0/meminfo); never read again
 *     until the end, so it stays idle;
 *  2. hot: HOT_MB bound to node 1 (the "CXL" node), filled the same way;
 *  3. for at most SECONDS: every round (~200 ms) reads every hot page, asks
 *     move_pages(2) (nodes = NULL) where the hot pages are, and writes the
 *     HPAs (PFN from /proc/self/pagemap x page size) of those still on node
 *     1 as replay lines (`hpa=0x... len=4096 count=N`) into FEED, a FIFO the
 *     daemon reads; stops LINGER_S seconds after every hot page reached node
 *     0 (a demotion that took hot pages would show in those seconds);
 *  4. every page's node (move_pages, nodes = NULL) and bytes (checksum
 *     against the one taken at fill time).
 *
 * Nodes' MemFree is sampled all along (each 4 MiB of the fill, each round).
 * RESULT gets "key value" lines for the script's TAP; progress goes to
 * stdout as "# " lines. Exit 0 when the workload ran (the checks are the
 * script's), 1 when it could not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vm-lib.h"

#define MAX_NODE 3        /* nodes 0..2, and "elsewhere" */
#define FEED_COUNT 16     /* count= of each hot record */
#define ROUND_MS 200

struct area {
	char *base;
	size_t n;             /* pages */
	uint64_t *sum;        /* checksums at fill time */
};

struct samples {
	uint64_t n, min_free[MAX_NODE];
};

static uint64_t node_free_kb(int node)
{
	char path[64], line[128];
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemFree: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void sample(struct samples *s)
{
	for (int k = 0; k < MAX_NODE; k++) {
		uint64_t kb = node_free_kb(k);

		if (!s->n || kb < s->min_free[k])
			s->min_free[k] = kb;
	}
	s->n++;
}

static int area_map(struct area *a, size_t max_pages, int node)
{
	size_t len = max_pages * vm_page_size();

	a->base = vm_map_on_node(len, node, -1, false);
	if (!a->base)
		return -errno;
	if (madvise(a->base, len, MADV_NOHUGEPAGE) < 0)
		return -errno;
	a->sum = calloc(max_pages, sizeof(*a->sum));
	return a->sum ? 0 : -ENOMEM;
}

/* a checksum of a page's words (vm_sum's bytewise one is slow under TCG) */
static uint64_t page_sum(const char *page)
{
	const uint64_t *w = (const uint64_t *)page;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t k = 0; k < vm_page_size() / 8; k++)
		h = (h ^ w[k]) * 0x100000001b3ULL;
	return h;
}

static void area_fill_page(struct area *a, size_t i, uint64_t seed)
{
	char *p = a->base + i * vm_page_size();

	vm_fill(p, 1, seed + i * 0x10001);
	a->sum[i] = page_sum(p);
}

/* node of each page (status[i]: node, or -errno) */
static int area_nodes(const struct area *a, int *status)
{
	void **addr = calloc(a->n, sizeof(*addr));
	int r;

	if (!addr)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++)
		addr[i] = a->base + i * vm_page_size();
	r = vm_nodes_of(0, a->n, addr, status);
	free(addr);
	return r;
}

/* reads every hot page (an access the kernel's young bits see) */
static uint64_t touch(const struct area *a)
{
	uint64_t x = 0;

	for (size_t i = 0; i < a->n; i++)
		x += *(volatile const uint64_t *)(a->base + i * vm_page_size());
	return x;
}

/* replay lines for the hot pages on node 1, in writes of at most PIPE_BUF */
static int feed(int fd, const struct area *a, const int *status, uint64_t *pfn, size_t *fed)
{
	char buf[4096], line[96];
	size_t len = 0;
	int r = vm_pfn_range(getpid(), (uintptr_t)a->base, a->n, pfn);

	if (r < 0)
		return r;
	*fed = 0;
	for (size_t i = 0; i < a->n; i++) {
		int k;

		if (status[i] != 1 || !pfn[i])
			continue;
		k = snprintf(line, sizeof(line), "hpa=0x%" PRIx64 " len=%" PRIu64 " count=%d\n",
			     pfn[i] * vm_page_size(), vm_page_size(), FEED_COUNT);
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

/* pages per node (last: anywhere else or not present) and pages whose bytes changed */
static void census(const struct area *a, const int *status, size_t on[MAX_NODE + 1], size_t *bad)
{
	memset(on, 0, sizeof(size_t) * (MAX_NODE + 1));
	*bad = 0;
	for (size_t i = 0; i < a->n; i++) {
		on[status[i] >= 0 && status[i] < MAX_NODE ? status[i] : MAX_NODE]++;
		*bad += page_sum(a->base + i * vm_page_size()) != a->sum[i];
	}
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
	size_t on[MAX_NODE + 1], bad, fed = 0, rounds = 0, fed_total = 0;
	double t0, t_fill, t_all = 0, deadline;
	uint64_t free0_kb, *pfn;
	int *status, fd;
	FILE *res;

	if (argc != 7 || parse_u64(argv[2], &leave_mb) || parse_u64(argv[3], &hot_mb) ||
	    parse_u64(argv[4], &secs) || parse_u64(argv[5], &linger) || !hot_mb) {
		fprintf(stderr, "usage: hb-vmcapacity FEED LEAVE_MB HOT_MB SECONDS LINGER_S RESULT\n");
		return 2;
	}
	res = fopen(argv[6], "we");
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (!res || fd < 0) {
		fprintf(stderr, "hb-vmcapacity: cannot open %s: %m\n", !res ? argv[6] : argv[1]);
		return 1;
	}

	/* cold: fill node 0 down to LEAVE_MB free */
	free0_kb = node_free_kb(0);
	if (free0_kb / 1024 <= leave_mb + 16) {
		fprintf(stderr, "hb-vmcapacity: node 0 has %" PRIu64 " MiB free, not more than "
			"LEAVE_MB %" PRIu64 " + 16\n", free0_kb / 1024, leave_mb);
		return 1;
	}
	t0 = vm_now();
	if (area_map(&cold, free0_kb / 4 - leave_mb * 256, 0) < 0 ||
	    area_map(&hot, hot_mb * 256, 1) < 0) {
		fprintf(stderr, "hb-vmcapacity: cannot map and bind: %m\n");
		return 1;
	}
	for (size_t max = free0_kb / 4 - leave_mb * 256; cold.n < max;) {
		if (cold.n % 1024 == 0) {
			sample(&smp);
			if (node_free_kb(0) / 1024 <= leave_mb)
				break;
		}
		area_fill_page(&cold, cold.n++, 0xC01D);
	}
	for (hot.n = 0; hot.n < hot_mb * 256; hot.n++)
		area_fill_page(&hot, hot.n, 0x407);
	t_fill = vm_now() - t0;
	status = calloc(cold.n > hot.n ? cold.n : hot.n, sizeof(*status));
	pfn = calloc(hot.n, sizeof(*pfn));
	if (!status || !pfn)
		return 1;
	sample(&smp);
	tap_diag("filled %zu cold pages on node 0 and %zu hot on node 1 in %.1f s; MemFree "
		 "node 0 %" PRIu64 " MiB, node 1 %" PRIu64 " MiB", cold.n, hot.n, t_fill,
		 node_free_kb(0) / 1024, node_free_kb(1) / 1024);
	fprintf(res, "cold_pages %zu\nhot_pages %zu\nfree0_after_fill_kb %" PRIu64
		"\nfree1_after_fill_kb %" PRIu64 "\n", cold.n, hot.n, node_free_kb(0), node_free_kb(1));

	/* hot: touch, feed the ones still on node 1, until all moved (+ LINGER_S) */
	deadline = vm_now() + (double)secs;
	while (vm_now() < deadline) {
		size_t on0 = 0;

		touch(&hot);
		if (area_nodes(&hot, status) < 0 || feed(fd, &hot, status, pfn, &fed) < 0) {
			fprintf(stderr, "hb-vmcapacity: round %zu: %m\n", rounds);
			return 1;
		}
		for (size_t i = 0; i < hot.n; i++)
			on0 += status[i] == 0;
		sample(&smp);
		fed_total += fed;
		if (rounds++ % 10 == 0)
			tap_diag("round %zu (%.1f s): %zu hot pages on node 0, fed %zu; MemFree node 0 "
				 "%" PRIu64 " MiB, node 1 %" PRIu64 " MiB", rounds, vm_now() - t0 - t_fill,
				 on0, fed, node_free_kb(0) / 1024, node_free_kb(1) / 1024);
		if (on0 == hot.n && !t_all) {
			t_all = vm_now();
			deadline = t_all + (double)linger;
			tap_diag("all %zu hot pages on node 0 after %.1f s", hot.n, t_all - t0 - t_fill);
		}
		usleep(ROUND_MS * 1000);
	}
	close(fd);
	sample(&smp);
	fprintf(res, "rounds %zu\nfed_records %zu\nhot_all_on_node0_s %.1f\nsamples %" PRIu64 "\n",
		rounds, fed_total, t_all ? t_all - t0 - t_fill : -1.0, smp.n);
	for (int k = 0; k < MAX_NODE; k++)
		fprintf(res, "min_free%d_kb %" PRIu64 "\n", k, smp.min_free[k]);

	/* where every page is, and its bytes */
	if (area_nodes(&hot, status) < 0)
		return 1;
	census(&hot, status, on, &bad);
	fprintf(res, "hot_on0 %zu\nhot_on1 %zu\nhot_on2 %zu\nhot_elsewhere %zu\nhot_bad %zu\n",
		on[0], on[1], on[2], on[3], bad);
	if (area_nodes(&cold, status) < 0)
		return 1;
	census(&cold, status, on, &bad);
	fprintf(res, "cold_on0 %zu\ncold_on1 %zu\ncold_on2 %zu\ncold_elsewhere %zu\ncold_bad %zu\n",
		on[0], on[1], on[2], on[3], bad);
	fprintf(res, "page_size %" PRIu64 "\n", ps);
	return fclose(res) ? 1 : 0;
}
