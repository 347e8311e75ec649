// SPDX-License-Identifier: MIT
/*
 * The migrator backends behind one interface, with the system calls behind
 * the seam (--wrap): status folding, dryrun, phys (chunking, whole-call
 * errors, never called unproved) and pagemap (reverse map over a /proc
 * tree built here, grouping per process, stale entries, rescans).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/mempolicy.h>

#include "kernel.h"

#define PS 4096ULL

/* ---- seam ---- */

static int phys_calls, phys_flags;
/* a series before the memory-policy check: unknown flag bits are -EINVAL */
static bool phys_old_kernel;
static int phys_refused_flags;
/* the kernel's check: pages at these addresses get -EXDEV without the override */
static uint64_t phys_bound_from = UINT64_MAX;
static long phys_ret;
static unsigned long phys_counts[8];
/* with phys_ret < 0: the pages the kernel moved (and reported) before the error */
static unsigned long phys_done_before_error;

long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags);
long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags)
{
	assert_int_equal(nr, 451);
	if (phys_old_kernel && (flags & ~(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL))) {
		phys_calls++;
		phys_refused_flags++;
		return -EINVAL;
	}
	if (phys_calls < 8)
		phys_counts[phys_calls] = count;
	phys_calls++;
	phys_flags = flags;
	for (unsigned long i = 0; i < count; i++) {
		if (phys_ret < 0 && i >= phys_done_before_error)
			break;
		status[i] = pages[i] % (3 * PS) == 0 ? -EBUSY : nodes[i];
		if (pages[i] >= phys_bound_from && !(flags & HB_MPP_OVERRIDE_MEMPOLICY))
			status[i] = -EXDEV;
	}
	return phys_ret;
}

struct mp_call {
	pid_t pid;
	unsigned long count;
	uint64_t first;
	int flags;
};
static struct mp_call mp_calls[16];
static int mp_ncalls;
static long mp_ret;
/* with mp_ret < 0: the pages move_pages moved (and reported) before the error */
static unsigned long mp_done_before_error;

long __wrap_hb_sys_move_pages(pid_t pid, unsigned long count, void **pages, const int *nodes,
			      int *status, int flags);
long __wrap_hb_sys_move_pages(pid_t pid, unsigned long count, void **pages, const int *nodes,
			      int *status, int flags)
{
	if (mp_ncalls < 16)
		mp_calls[mp_ncalls] =
			(struct mp_call){ pid, count, (uint64_t)(uintptr_t)pages[0], flags };
	mp_ncalls++;
	for (unsigned long i = 0; i < count && (mp_ret >= 0 || i < mp_done_before_error); i++)
		status[i] = nodes[i];
	return mp_ret < 0 ? mp_ret : 0;
}

static const char *data_root(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("HB_TEST_DATA");

	snprintf(buf, sizeof(buf), "%s/mpp-probe/%s", dir ? dir : "tests/data", name);
	return buf;
}

/* ---- status folding ---- */

static void test_status_classes_follow_move_pages_codes(void **state)
{
	assert_int_equal(hb_migrate_classify(0, 0, 1), HB_MIGRATE_MOVED);
	assert_int_equal(hb_migrate_classify(0, 0, 0), HB_MIGRATE_ALREADY);
	assert_int_equal(hb_migrate_classify(0, 0, -1), HB_MIGRATE_MOVED);
	assert_int_equal(hb_migrate_classify(2, 0, 1), HB_MIGRATE_WRONG_NODE);
	assert_int_equal(hb_migrate_classify(-EBUSY, 0, 1), HB_MIGRATE_RETRY);
	assert_int_equal(hb_migrate_classify(-EAGAIN, 0, 1), HB_MIGRATE_RETRY);
	assert_int_equal(hb_migrate_classify(-ENOMEM, 0, 1), HB_MIGRATE_BACKOFF);
	/* the owners' memory policy: a class of its own, not a generic drop */
	assert_int_equal(hb_migrate_classify(-EXDEV, 0, 1), HB_MIGRATE_POLICY);
	assert_string_equal(hb_migrate_class_to_string(HB_MIGRATE_POLICY), "policy");
	for (int e = 1; e < 134; e++) {
		if (e == EBUSY || e == EAGAIN || e == ENOMEM || e == EXDEV)
			continue;
		assert_int_equal(hb_migrate_classify(-e, 0, 1), HB_MIGRATE_DROP);
	}
	assert_int_equal(hb_migrate_classify(-9999, 0, 1), HB_MIGRATE_DROP);
	assert_string_equal(hb_migrate_class_to_string(HB_MIGRATE_BACKOFF), "backoff");
	assert_null(hb_migrate_class_to_string(_HB_MIGRATE_CLASS_MAX));
}

static void test_status_fold_counts_each_page_once(void **state)
{
	int st[] = { 0, 0, -EBUSY, -ENOENT, -EACCES, -ENOMEM, 1, -9999, -EXDEV, -EXDEV };
	int nodes[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	int src[] = { 1, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct hb_migrate_counts c = { 0 };
	uint64_t total = 0;

	hb_migrate_fold(&c, 10, st, nodes, src);
	assert_int_equal(c.by_class[HB_MIGRATE_MOVED], 1);
	assert_int_equal(c.by_class[HB_MIGRATE_ALREADY], 1);
	assert_int_equal(c.by_class[HB_MIGRATE_RETRY], 1);
	assert_int_equal(c.by_class[HB_MIGRATE_DROP], 3);
	assert_int_equal(c.by_class[HB_MIGRATE_BACKOFF], 1);
	assert_int_equal(c.by_class[HB_MIGRATE_WRONG_NODE], 1);
	assert_int_equal(c.by_errno[ENOENT], 1);
	assert_int_equal(c.by_errno[EACCES], 1);
	assert_int_equal(c.by_class[HB_MIGRATE_POLICY], 2);
	assert_int_equal(c.by_errno[EXDEV], 2);
	for (int k = 0; k < _HB_MIGRATE_CLASS_MAX; k++)
		total += c.by_class[k];
	assert_int_equal(total, 10);
}

/* ---- dryrun ---- */

static void test_dryrun_records_requests_and_moves_nothing(void **state)
{
	struct hb_migrator_config cfg = { .dryrun_keep = 3 };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	const struct hb_dryrun_record *rec;
	uint64_t hpa[] = { 1 * PS, 2 * PS, 3 * PS + 1, 4 * PS };
	int nodes[] = { 0, 0, 2, 0 }, st[4];

	phys_calls = mp_ncalls = 0;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_DRYRUN, &cfg, &m, &err), 0);
	assert_int_equal(hb_migrator_move(m, 4, hpa, nodes, st, HB_MIGRATE_MOVE_ALL, &err), 0);
	assert_int_equal(st[0], 0);
	assert_int_equal(st[2], -EINVAL);
	assert_int_equal(hb_migrator_dryrun_records(m, &rec), 3);
	assert_int_equal(rec[0].hpa, 2 * PS); /* the oldest was dropped */
	assert_int_equal(rec[1].node, 2);
	assert_int_equal(rec[2].flags, HB_MIGRATE_MOVE_ALL);
	assert_int_equal(phys_calls + mp_ncalls, 0);
	assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, st, 0x80, &err), -EINVAL);
	hb_migrator_free(m);
}

/* ---- phys ---- */

static void test_phys_chunks_and_passes_move_all(void **state)
{
	struct hb_migrator_config cfg = { .root = data_root("ported") };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	size_t n = 5000;
	uint64_t *hpa = calloc(n, 8);
	int *nodes = calloc(n, sizeof(int)), *st = calloc(n, sizeof(int));

	for (size_t i = 0; i < n; i++)
		hpa[i] = (i + 1) * PS;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), 0);
	assert_non_null(strstr(hb_migrator_describe(m), "number 451"));
	phys_calls = 0;
	phys_ret = 2; /* "pages not migrated": their status says which */
	assert_int_equal(hb_migrator_move(m, n, hpa, nodes, st, HB_MIGRATE_MOVE_ALL, &err), 0);
	assert_int_equal(phys_calls, 2);
	assert_int_equal(phys_counts[0], 4096);
	assert_int_equal(phys_counts[1], n - 4096);
	assert_int_equal(phys_flags, MPOL_MF_MOVE | MPOL_MF_MOVE_ALL);
	assert_int_equal(st[1], 0);
	assert_int_equal(st[2], -EBUSY); /* hpa 3 * PS */

	/* a whole-call failure lands in every status from that chunk on */
	phys_ret = -EPERM;
	assert_int_equal(hb_migrator_move(m, n, hpa, nodes, st, 0, &err), -EPERM);
	assert_int_equal(phys_flags, MPOL_MF_MOVE);
	assert_int_equal(st[0], -EPERM);
	assert_int_equal(st[n - 1], -EPERM);
	assert_non_null(strstr(err.msg, "move_phys_pages"));
	phys_ret = 0;
	hb_migrator_free(m);
	free(hpa);
	free(nodes);
	free(st);
}

/*
 * review W1: a call-level error (a target node gone memoryless: -ENODEV)
 * after the kernel moved the chunk's first pages. Those keep the statuses
 * the kernel wrote; only the pages it never handled get the error.
 */
static void test_phys_call_error_keeps_the_statuses_the_kernel_wrote(void **state)
{
	struct hb_migrator_config cfg = { .root = data_root("ported") };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	size_t n = 5000;
	uint64_t *hpa = calloc(n, 8);
	int *nodes = calloc(n, sizeof(int)), *st = calloc(n, sizeof(int));

	for (size_t i = 0; i < n; i++) {
		hpa[i] = (i + 1) * PS;
		nodes[i] = 1;
		st[i] = 77; /* whatever the caller left there */
	}
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), 0);
	phys_calls = 0;
	phys_ret = -ENODEV;
	phys_done_before_error = 10;
	assert_int_equal(hb_migrator_move(m, n, hpa, nodes, st, 0, &err), -ENODEV);
	assert_int_equal(phys_calls, 1); /* the second chunk is never tried */
	assert_int_equal(st[0], 1);      /* moved to node 1 */
	assert_int_equal(st[2], -EBUSY); /* the kernel's own per-page error */
	assert_int_equal(st[9], 1);
	assert_int_equal(st[10], -ENODEV); /* not handled */
	assert_int_equal(st[4095], -ENODEV);
	assert_int_equal(st[4096], -ENODEV); /* not tried */
	assert_int_equal(st[n - 1], -ENODEV);
	assert_non_null(strstr(err.msg, "No such device"));
	phys_ret = 0;
	phys_done_before_error = 0;
	hb_migrator_free(m);
	free(hpa);
	free(nodes);
	free(st);
}

static void test_phys_is_unavailable_on_a_stock_kernel(void **state)
{
	struct hb_migrator_config cfg = { .root = data_root("stock"), .syscall_nr = 451 };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };

	phys_calls = 0;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), -ENOSYS);
	assert_null(m);
	assert_non_null(strstr(err.msg, "does not carry kernel/patches"));
	assert_int_equal(phys_calls, 0);
	assert_int_equal(hb_migrator_kind_from_string("pagemap"), HB_MIGRATOR_PAGEMAP);
	assert_int_equal(hb_migrator_kind_from_string("phys"), HB_MIGRATOR_PHYS);
	assert_int_equal(hb_migrator_kind_from_string("physical"), -EINVAL);
}

/* ---- pagemap over a /proc tree written here ---- */

static char proc_root[256];

static void write_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc_root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void set_pte(pid_t pid, uint64_t vaddr, uint64_t pfn)
{
	char path[512];
	uint64_t e = pfn ? (1ULL << 63) | pfn : 0;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/%d/pagemap", proc_root, pid);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &e, 8, (off_t)(vaddr / PS * 8)), 8);
	close(fd);
}

static void add_process(pid_t pid, const char *numa_maps, const char *maps)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "%s/proc/%d", proc_root, pid);
	assert_int_equal(mkdir(rel, 0755), 0);
	snprintf(rel, sizeof(rel), "proc/%d/numa_maps", pid);
	write_file(rel, numa_maps);
	snprintf(rel, sizeof(rel), "proc/%d/maps", pid);
	write_file(rel, maps);
}

static int pagemap_setup(void **state)
{
	char path[300];

	snprintf(proc_root, sizeof(proc_root), "/tmp/hb-test-pagemap-XXXXXX");
	assert_non_null(mkdtemp(proc_root));
	snprintf(path, sizeof(path), "%s/proc", proc_root);
	assert_int_equal(mkdir(path, 0755), 0);
	/* pid 100: three pages on node 1 (a source node) */
	add_process(100, "10000000 default anon=3 dirty=3 N1=3 kernelpagesize_kB=4\n",
		    "10000000-10003000 rw-p 00000000 00:00 0 \n");
	set_pte(100, 0x10000000, 0x1000);
	set_pte(100, 0x10001000, 0x1001);
	set_pte(100, 0x10002000, 0x1002);
	/* pid 200: memory on node 0 only: not a candidate */
	add_process(200, "20000000 default anon=1 dirty=1 N0=1 kernelpagesize_kB=4\n",
		    "20000000-20001000 rw-p 00000000 00:00 0 \n");
	set_pte(200, 0x20000000, 0x2000);
	/* pid 300: a file mapping on node 1 plus a VMA whose page is not present */
	add_process(300,
		    "30000000 default file=/data/x mapped=1 N1=1 kernelpagesize_kB=4\n"
		    "30100000 default anon=1 N1=1 kernelpagesize_kB=4\n",
		    "30000000-30001000 r--s 00000000 08:01 42 /data/x\n"
		    "30100000-30102000 rw-p 00000000 00:00 0 \n");
	set_pte(300, 0x30000000, 0x3000);
	set_pte(300, 0x30101000, 0);
	/* not processes */
	snprintf(path, sizeof(path), "%s/proc/sys", proc_root);
	assert_int_equal(mkdir(path, 0755), 0);
	return 0;
}

static int pagemap_teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc_root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct hb_migrator *pagemap_open(unsigned int rescan_ms)
{
	struct hb_migrator_config cfg = { .root = proc_root,
					  .source_nodes = 1u << 1,
					  .rescan_ms = rescan_ms };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PAGEMAP, &cfg, &m, &err), 0);
	return m;
}

static void test_pagemap_moves_through_the_owning_processes(void **state)
{
	struct hb_migrator *m = pagemap_open(60000);
	struct hb_pagemap_stats s;
	struct hb_err err = { 0 };
	uint64_t hpa[] = { 0x1001 * PS, 0x3000 * PS,     0x2000 * PS,
			   0x9999 * PS, 0x1000 * PS + 8, 0x1000 * PS };
	int nodes[] = { 0, 0, 0, 0, 0, 0 }, st[6];

	mp_ncalls = 0;
	assert_int_equal(hb_migrator_move(m, 6, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(st[0], 0);
	assert_int_equal(st[1], 0);
	assert_int_equal(st[2], -ENOENT); /* pid 200's page: not on a source node */
	assert_int_equal(st[3], -ENOENT); /* nobody maps it */
	assert_int_equal(st[4], -EINVAL); /* not page-aligned */
	assert_int_equal(st[5], 0);
	/* one move_pages call per process, sorted by pid */
	assert_int_equal(mp_ncalls, 2);
	assert_int_equal(mp_calls[0].pid, 100);
	assert_int_equal(mp_calls[0].count, 2);
	assert_int_equal(mp_calls[1].pid, 300);
	assert_int_equal(mp_calls[1].first, 0x30000000);
	assert_int_equal(mp_calls[0].flags, MPOL_MF_MOVE);

	assert_int_equal(hb_migrator_pagemap_stats(m, &s), 0);
	assert_int_equal(s.full_scans, 1); /* the miss did not rescan: too soon */
	assert_int_equal(s.processes, 2);
	assert_int_equal(s.pages, 1); /* 4 indexed, 3 moved away */

	/* a moved PFN is forgotten; asking again within rescan_ms is no rescan */
	mp_ncalls = 0;
	assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, st, HB_MIGRATE_MOVE_ALL, &err), 0);
	assert_int_equal(st[0], -ENOENT);
	assert_int_equal(mp_ncalls, 0);
	hb_migrator_pagemap_stats(m, &s);
	assert_int_equal(s.full_scans, 1);
	hb_migrator_free(m);
}

static void test_pagemap_rechecks_stale_entries_and_rescans(void **state)
{
	struct hb_migrator *m = pagemap_open(0);
	struct hb_pagemap_stats s;
	struct hb_err err = { 0 };
	uint64_t hpa[2];
	int nodes[2] = { 0, 0 }, st[2];

	/* index it, then the page at 0x10002000 changes PFN behind our back */
	hpa[0] = 0x9999 * PS;
	assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, st, 0, &err), 0);
	set_pte(100, 0x10002000, 0x1500);
	mp_ncalls = 0;
	hpa[0] = 0x1002 * PS; /* stale: must not be moved */
	hpa[1] = 0x1500 * PS; /* new: found by the rescan */
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(st[0], -ENOENT);
	assert_int_equal(st[1], 0);
	assert_int_equal(mp_ncalls, 1);
	assert_int_equal(mp_calls[0].first, 0x10002000);
	hb_migrator_pagemap_stats(m, &s);
	assert_int_equal(s.stale, 1);
	assert_true(s.full_scans >= 3);

	/* the process exits between the lookup and move_pages */
	mp_ret = -ESRCH;
	hpa[0] = 0x1000 * PS;
	assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(st[0], -ENOENT);
	mp_ret = 0;
	set_pte(100, 0x10002000, 0x1002);
	hb_migrator_free(m);
}

/* review W1 in pagemap: move_pages(2)'s whole-call error keeps what it moved before it */
static void test_pagemap_call_error_keeps_the_statuses_the_kernel_wrote(void **state)
{
	struct hb_migrator *m = pagemap_open(60000);
	struct hb_err err = { 0 };
	uint64_t hpa[] = { 0x1000 * PS, 0x1001 * PS, 0x1002 * PS };
	int nodes[] = { 0, 0, 0 }, st[3];
	size_t first = 3;

	mp_ncalls = 0;
	mp_ret = -ENODEV; /* node 0 went memoryless after the first page moved */
	mp_done_before_error = 1;
	assert_int_equal(hb_migrator_move(m, 3, hpa, nodes, st, 0, &err), 0);
	mp_ret = 0;
	mp_done_before_error = 0;
	assert_int_equal(mp_ncalls, 1);
	assert_int_equal(mp_calls[0].count, 3);
	for (size_t i = 0; i < 3; i++)
		if (0x10000000 + (hpa[i] / PS - 0x1000) * PS == mp_calls[0].first)
			first = i;
	assert_true(first < 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(st[i], i == first ? 0 : -ENODEV);
	hb_migrator_free(m);
}

static void test_pagemap_without_pfns_says_it_needs_cap_sys_admin(void **state)
{
	struct hb_migrator *m = pagemap_open(0);
	struct hb_err err = { 0 };
	uint64_t hpa = 0x1000 * PS;
	int node = 0, st;

	/* what an unprivileged reader sees: present bits, PFN 0 */
	set_pte(100, 0x10000000, 0);
	set_pte(100, 0x10001000, 0);
	set_pte(100, 0x10002000, 0);
	set_pte(300, 0x30000000, 0);
	{
		char path[512];
		uint64_t e = 1ULL << 63;
		int fd;

		snprintf(path, sizeof(path), "%s/proc/100/pagemap", proc_root);
		fd = open(path, O_WRONLY);
		assert_int_equal(pwrite(fd, &e, 8, (off_t)(0x10000000 / PS * 8)), 8);
		close(fd);
	}
	assert_int_equal(hb_migrator_move(m, 1, &hpa, &node, &st, 0, &err), -EPERM);
	assert_non_null(strstr(err.msg, "CAP_SYS_ADMIN"));
	hb_migrator_free(m);
}

/* phys and the kernel's memory-policy check (-EXDEV, flag 0x100) */
static void test_phys_counts_policy_refusals_and_passes_the_override(void **state)
{
	struct hb_migrator_config cfg = { .root = data_root("ported") };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	uint64_t hpa[4] = { 1 * PS, 2 * PS, 4 * PS, 5 * PS };
	int nodes[4] = { 0, 0, 0, 0 }, st[4];
	struct hb_migrate_counts c = { 0 };

	phys_calls = 0;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), 0);
	/* open asked the kernel, for no page, whether it takes the flag */
	assert_int_equal(phys_calls, 1);
	assert_int_equal(phys_flags, MPOL_MF_MOVE | HB_MPP_OVERRIDE_MEMPOLICY);
	assert_non_null(strstr(hb_migrator_describe(m), "6.1.192-hb-mpp checks memory policies"));
	phys_bound_from = 4 * PS;
	assert_int_equal(hb_migrator_move(m, 4, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(phys_flags, MPOL_MF_MOVE); /* override off: never the flag */
	assert_int_equal(st[0], 0);
	assert_int_equal(st[2], -EXDEV);
	hb_migrate_fold(&c, 4, st, nodes, NULL);
	assert_int_equal(c.by_class[HB_MIGRATE_POLICY], 2);
	assert_int_equal(c.by_class[HB_MIGRATE_DROP], 0);
	hb_migrator_free(m);

	cfg.override_mempolicy = true;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), 0);
	assert_non_null(strstr(hb_migrator_describe(m), "overridden"));
	assert_int_equal(hb_migrator_move(m, 4, hpa, nodes, st, HB_MIGRATE_MOVE_ALL, &err), 0);
	assert_int_equal(phys_flags, MPOL_MF_MOVE | MPOL_MF_MOVE_ALL | HB_MPP_OVERRIDE_MEMPOLICY);
	assert_int_equal(st[2], 0);
	assert_int_equal(st[3], 0);
	phys_bound_from = UINT64_MAX;
	hb_migrator_free(m);
}

/* a kernel whose series predates the check: the flag is refused, never sent again */
static void test_phys_on_a_kernel_without_the_check_says_so_and_drops_the_flag(void **state)
{
	struct hb_migrator_config cfg = { .root = data_root("ported"), .override_mempolicy = true };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	uint64_t hpa[2] = { 1 * PS, 2 * PS };
	int nodes[2] = { 0, 0 }, st[2];

	phys_old_kernel = true;
	phys_refused_flags = 0;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), 0);
	assert_int_equal(phys_refused_flags, 1); /* open's probe */
	assert_non_null(strstr(hb_migrator_describe(m), "kernel 6.1.192-hb-mpp has no "
							"memory-policy check (flag 0x100 refused)"));
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(phys_refused_flags, 1);
	assert_int_equal(phys_flags, MPOL_MF_MOVE);
	assert_int_equal(st[0], 0);
	assert_int_equal(st[1], 0);
	hb_migrator_free(m);

	/* override off: the description names the kernel and what it does not check */
	cfg.override_mempolicy = false;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), 0);
	assert_non_null(strstr(hb_migrator_describe(m), "pages move whatever their owners' "
							"mbind/set_mempolicy"));
	hb_migrator_free(m);
	phys_old_kernel = false;
}

/* open's probe could not tell (EPERM): the first move with the flag finds out */
static void test_phys_finds_the_missing_check_at_the_first_move(void **state)
{
	struct hb_migrator_config cfg = { .root = data_root("ported"), .override_mempolicy = true };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	uint64_t hpa[2] = { 1 * PS, 2 * PS };
	int nodes[2] = { 0, 0 }, st[2] = { 7, 7 };

	phys_ret = -EPERM;
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &m, &err), 0);
	phys_ret = 0;
	assert_non_null(strstr(hb_migrator_describe(m), "is not known"));
	phys_old_kernel = true;
	phys_refused_flags = 0;
	phys_calls = 0;
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(phys_refused_flags, 1);
	assert_int_equal(phys_calls, 2); /* with the flag, then without */
	assert_int_equal(st[0], 0);
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(phys_refused_flags, 1); /* remembered */
	phys_old_kernel = false;
	hb_migrator_free(m);
}

/* pid 400: one VMA bound to node 1 (the CXL node), one interleaved over 0-1 */
static void add_bound_process(const char *policy_a, const char *policy_b)
{
	char nm[512], rel[320];

	snprintf(nm, sizeof(nm),
		 "40000000 %s anon=2 dirty=2 N1=2 kernelpagesize_kB=4\n"
		 "40100000 %s anon=1 dirty=1 N1=1 kernelpagesize_kB=4\n",
		 policy_a, policy_b);
	snprintf(rel, sizeof(rel), "%s/proc/400", proc_root);
	if (mkdir(rel, 0755) == 0) {
		write_file("proc/400/maps", "40000000-40002000 rw-p 00000000 00:00 0 \n"
					    "40100000-40101000 rw-p 00000000 00:00 0 \n");
		set_pte(400, 0x40000000, 0x4000);
		set_pte(400, 0x40001000, 0x4001);
		set_pte(400, 0x40100000, 0x4100);
	}
	write_file("proc/400/numa_maps", nm);
}

static void test_pagemap_refuses_what_the_owners_numa_maps_policy_forbids(void **state)
{
	struct hb_migrator *m;
	struct hb_pagemap_stats s;
	struct hb_err err = { 0 };
	uint64_t hpa[] = { 0x4000 * PS, 0x4001 * PS, 0x4100 * PS, 0x1000 * PS };
	int nodes[] = { 0, 0, 0, 0 }, st[4];

	add_bound_process("bind:1", "interleave:0-1");
	m = pagemap_open(0);
	assert_non_null(strstr(hb_migrator_describe(m), "-EXDEV"));
	mp_ncalls = 0;
	assert_int_equal(hb_migrator_move(m, 4, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(st[0], -EXDEV); /* bind:1, target 0 */
	assert_int_equal(st[1], -EXDEV);
	assert_int_equal(st[2], 0); /* interleave:0-1 allows node 0 */
	assert_int_equal(st[3], 0); /* pid 100: default */
	/* pid 100's page, and pid 400's interleaved one alone */
	assert_int_equal(mp_ncalls, 2);
	assert_int_equal(mp_calls[1].pid, 400);
	assert_int_equal(mp_calls[1].count, 1);
	assert_int_equal(mp_calls[1].first, 0x40100000);
	assert_int_equal(hb_migrator_pagemap_stats(m, &s), 0);
	assert_int_equal(s.policy_refused, 2);
	assert_int_equal(s.numa_maps_reads, 2);

	/* target node 1, which the binding allows: moved */
	nodes[0] = nodes[1] = 1;
	mp_ncalls = 0;
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(st[0], 1);
	assert_int_equal(st[1], 1);
	assert_int_equal(mp_ncalls, 1);

	/* the policy is read at the move, not from the index: a later mbind counts */
	nodes[0] = nodes[1] = 0;
	set_pte(400, 0x40000000, 0x4000);
	add_bound_process("default", "bind:1");
	mp_ncalls = 0;
	hpa[1] = 0x4100 * PS;
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(st[0], 0);
	assert_int_equal(st[1], -EXDEV);
	hb_migrator_free(m);
}

static void test_pagemap_override_skips_the_numa_maps_check(void **state)
{
	struct hb_migrator_config cfg = { .root = proc_root,
					  .source_nodes = 1u << 1,
					  .override_mempolicy = true };
	struct hb_migrator *m = NULL;
	struct hb_pagemap_stats s;
	struct hb_err err = { 0 };
	uint64_t hpa[] = { 0x4000 * PS, 0x4001 * PS };
	int nodes[] = { 0, 0 }, st[2];

	add_bound_process("bind:1", "bind:1");
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PAGEMAP, &cfg, &m, &err), 0);
	assert_non_null(strstr(hb_migrator_describe(m), "override_mempolicy"));
	mp_ncalls = 0;
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, st, 0, &err), 0);
	assert_int_equal(st[0], 0);
	assert_int_equal(st[1], 0);
	assert_int_equal(mp_ncalls, 1);
	hb_migrator_pagemap_stats(m, &s);
	assert_int_equal(s.policy_refused, 0);
	assert_int_equal(s.numa_maps_reads, 0);
	hb_migrator_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_classes_follow_move_pages_codes),
		cmocka_unit_test(test_status_fold_counts_each_page_once),
		cmocka_unit_test(test_dryrun_records_requests_and_moves_nothing),
		cmocka_unit_test(test_phys_chunks_and_passes_move_all),
		cmocka_unit_test(test_phys_call_error_keeps_the_statuses_the_kernel_wrote),
		cmocka_unit_test(test_phys_is_unavailable_on_a_stock_kernel),
		cmocka_unit_test(test_phys_counts_policy_refusals_and_passes_the_override),
		cmocka_unit_test(test_phys_on_a_kernel_without_the_check_says_so_and_drops_the_flag),
		cmocka_unit_test(test_phys_finds_the_missing_check_at_the_first_move),
		cmocka_unit_test_setup_teardown(test_pagemap_moves_through_the_owning_processes,
						pagemap_setup, pagemap_teardown),
		cmocka_unit_test_setup_teardown(test_pagemap_rechecks_stale_entries_and_rescans,
						pagemap_setup, pagemap_teardown),
		cmocka_unit_test_setup_teardown(test_pagemap_call_error_keeps_the_statuses_the_kernel_wrote,
						pagemap_setup, pagemap_teardown),
		cmocka_unit_test_setup_teardown(test_pagemap_without_pfns_says_it_needs_cap_sys_admin,
						pagemap_setup, pagemap_teardown),
		cmocka_unit_test_setup_teardown(
			test_pagemap_refuses_what_the_owners_numa_maps_policy_forbids,
			pagemap_setup, pagemap_teardown),
		cmocka_unit_test_setup_teardown(test_pagemap_override_skips_the_numa_maps_check,
						pagemap_setup, pagemap_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
