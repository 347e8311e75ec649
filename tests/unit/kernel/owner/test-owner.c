// SPDX-License-Identifier: MIT
/*
 * Page owners (kernel/owner/): /proc/kpagecgroup read for a window of PFNs
 * and its inodes named by the cgroup v2 tree, over a fake tree laid out
 * from tests/data/kpagecgroup/host-v1-sandbox.txt (real PFN -> cgroup
 * pattern; the inodes are the fake tree's own directories').
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake-tree.h"
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define SEC 1000000000ULL
#define FIRST_PFN 0x102400ULL
#define NPFN 256

static char root[64];
static uint64_t ino[NPFN];    /* of PFNs FIRST_PFN.. */
static char owner[NPFN][128]; /* each PFN's cgroup, "" for none */

static uint64_t ino_of(const char *cg)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/sys/fs/cgroup%s", root, cg);
	assert_int_equal(stat(p, &st), 0);
	return st.st_ino;
}

/* sparse: the window at its PFNs' offset, zeros (a hole) before it */
static void write_kpagecgroup(void)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/proc/kpagecgroup", root);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(pwrite(fd, ino, sizeof(ino), (off_t)(FIRST_PFN * 8)), (ssize_t)sizeof(ino));
	close(fd);
}

/* the fixture: its cgroups as directories, kpagecgroup with their inodes */
static int setup(void **state)
{
	char path[512], line[512];
	FILE *f;

	(void)state;
	hb_fake_tree_new(root, sizeof(root), "test-owner");
	hb_fake_put(root, "/proc", NULL);
	hb_fake_put(root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
	memset(ino, 0, sizeof(ino));
	memset(owner, 0, sizeof(owner));
	snprintf(path, sizeof(path), "%s/kpagecgroup/host-v1-sandbox.txt", getenv("HB_TEST_DATA"));
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long pfn, n;
		char cg[256], rel[300];

		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%llx %llu %255s", &pfn, &n, cg), 3);
		assert_true(pfn >= FIRST_PFN && pfn + n <= FIRST_PFN + NPFN);
		if (!strcmp(cg, "-"))
			continue;
		snprintf(rel, sizeof(rel), "/sys/fs/cgroup%s", cg);
		hb_fake_put(root, rel, NULL);
		for (unsigned long long i = pfn; i < pfn + n; i++) {
			ino[i - FIRST_PFN] = ino_of(cg);
			snprintf(owner[i - FIRST_PFN], sizeof(owner[0]), "%s", cg);
		}
	}
	fclose(f);
	write_kpagecgroup();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hb_fake_tree_remove(root);
	return 0;
}

/* every PFN of the fixture's window gets the cgroup the host gave it */
static void test_owner_window_names_each_pfn(void **state)
{
	_hb_cleanup_(hb_kpagecgroup_freep) struct hb_kpagecgroup *k = NULL;
	_hb_cleanup_(hb_cgroup_map_freep) struct hb_cgroup_map *m = NULL;
	uint64_t got[NPFN];
	size_t named = 0;

	(void)state;
	assert_int_equal(hb_kpagecgroup_open(root, &k, NULL), 0);
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, NULL), 0);
	assert_int_equal(hb_kpagecgroup_read(k, FIRST_PFN, NPFN, got, NULL), 0);
	for (size_t i = 0; i < NPFN; i++) {
		const char *p = NULL;

		if (!owner[i][0]) {
			assert_int_equal(got[i], 0);
			continue;
		}
		assert_int_equal(hb_cgroup_map_path(m, got[i], 0, &p), 0);
		assert_string_equal(p, owner[i]);
		named++;
	}
	assert_int_equal(named, 6);
	/* one scan named them all */
	assert_int_equal(hb_cgroup_map_stats(m)->rescans, 1);
}

static bool under_process_api(const char *pattern, const char *path)
{
	return !strncmp(path, pattern, strlen(pattern));
}

/* the map's cgroups counted by a caller's match: the fixture's four containers and their parent */
static void test_owner_map_counts_matching(void **state)
{
	_hb_cleanup_(hb_cgroup_map_freep) struct hb_cgroup_map *m = NULL;

	(void)state;
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, NULL), 0);
	assert_int_equal(hb_cgroup_map_count(m, under_process_api, "/process_api"), 0); /* unread */
	assert_int_equal(hb_cgroup_map_rescan(m, 0, NULL), 0);
	assert_int_equal(hb_cgroup_map_count(m, under_process_api, "/process_api"), 5);
	assert_int_equal(hb_cgroup_map_count(m, under_process_api, "/nothing"), 0);
}

/* the root cgroup is "/" */
static void test_owner_root_is_slash(void **state)
{
	_hb_cleanup_(hb_cgroup_map_freep) struct hb_cgroup_map *m = NULL;
	const char *p = NULL;

	(void)state;
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, NULL), 0);
	assert_int_equal(hb_cgroup_map_path(m, ino_of(""), 0, &p), 0);
	assert_string_equal(p, "/");
}

/* a cgroup made after the scan is found by the rescan a miss makes, once a second has passed */
static void test_owner_miss_rescans_at_most_once_a_second(void **state)
{
	_hb_cleanup_(hb_cgroup_map_freep) struct hb_cgroup_map *m = NULL;
	const char *p = NULL;
	uint64_t late;

	(void)state;
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, NULL), 0);
	assert_int_equal(hb_cgroup_map_rescan(m, 10 * SEC, NULL), 0);
	hb_fake_put(root, "/sys/fs/cgroup/late/job", NULL);
	late = ino_of("/late/job");
	/* too soon after the last scan: a miss, no scan */
	assert_int_equal(hb_cgroup_map_path(m, late, 10 * SEC + SEC / 2, &p), -ENOENT);
	assert_int_equal(hb_cgroup_map_stats(m)->rescans, 1);
	assert_int_equal(hb_cgroup_map_path(m, late, 11 * SEC, &p), 0);
	assert_string_equal(p, "/late/job");
	assert_int_equal(hb_cgroup_map_stats(m)->rescans, 2);
	assert_int_equal(hb_cgroup_map_stats(m)->misses, 2);
}

/* a removed cgroup is gone after the next rescan */
static void test_owner_removed_cgroup_is_not_found(void **state)
{
	_hb_cleanup_(hb_cgroup_map_freep) struct hb_cgroup_map *m = NULL;
	char p[256];
	const char *got = NULL;
	uint64_t gone, other;

	(void)state;
	hb_fake_put(root, "/sys/fs/cgroup/gone", NULL);
	hb_fake_put(root, "/sys/fs/cgroup/other", NULL);
	gone = ino_of("/gone");
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, NULL), 0);
	assert_int_equal(hb_cgroup_map_rescan(m, 0, NULL), 0);
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/gone", root);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(hb_cgroup_map_rescan(m, SEC, NULL), 0);
	assert_int_equal(hb_cgroup_map_path(m, gone, SEC, &got), -ENOENT);
	other = ino_of("/other");
	assert_int_equal(hb_cgroup_map_path(m, other, SEC, &got), 0);
	assert_string_equal(got, "/other");
}

/* the map holds at most max cgroups and counts those it left out */
static void test_owner_map_is_bounded(void **state)
{
	_hb_cleanup_(hb_cgroup_map_freep) struct hb_cgroup_map *m = NULL;
	const struct hb_cgroup_map_stats *st;

	(void)state;
	assert_int_equal(hb_cgroup_map_new(root, 3, &m, NULL), 0);
	assert_int_equal(hb_cgroup_map_rescan(m, 0, NULL), 0);
	st = hb_cgroup_map_stats(m);
	assert_int_equal(st->entries, 3);
	/* root, process_api and its 4 containers: 6, 3 of them left out */
	assert_int_equal(st->dropped, 3);
}

/* no cgroup.controllers: a cgroup v1 (or hybrid) host is refused, saying so */
static void test_owner_v1_host_is_refused(void **state)
{
	struct hb_cgroup_map *m = NULL;
	struct hb_err err = { 0 };
	char p[256];

	(void)state;
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/cgroup.controllers", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, &err), -EOPNOTSUPP);
	assert_null(m);
	assert_non_null(strstr(err.msg, "cgroup v1"));
}

/*
 * a cgroup v2 hierarchy without the memory controller (trial39b: v1 owns it,
 * or cgroup_disable=memory): refused, since kpagecgroup's inodes would then
 * belong to another hierarchy or be 0 for every page
 */
static void test_owner_v2_without_memory_controller_is_refused(void **state)
{
	struct hb_cgroup_map *m = NULL;
	struct hb_err err = { 0 };

	(void)state;
	hb_fake_put(root, "/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io pids\n");
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, &err), -EOPNOTSUPP);
	assert_null(m);
	assert_non_null(strstr(err.msg, "no memory controller"));
	hb_fake_put(root, "/sys/fs/cgroup/cgroup.controllers", "");
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, &err), -EOPNOTSUPP);
	/* "memory" as a word only */
	hb_fake_put(root, "/sys/fs/cgroup/cgroup.controllers", "cpu memoryx\n");
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, &err), -EOPNOTSUPP);
	hb_fake_put(root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
	assert_int_equal(hb_cgroup_map_new(root, 64, &m, &err), 0);
	hb_cgroup_map_free(m);
}

/* no /proc/kpagecgroup: said to be a kernel without CONFIG_MEMCG */
static void test_owner_no_kpagecgroup_says_memcg(void **state)
{
	struct hb_kpagecgroup *k = NULL;
	struct hb_err err = { 0 };
	char p[256];

	(void)state;
	snprintf(p, sizeof(p), "%s/proc/kpagecgroup", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hb_kpagecgroup_open(root, &k, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "CONFIG_MEMCG"));
}

/* a read past the end of the file is an error, not zeros */
static void test_owner_read_past_end_fails(void **state)
{
	_hb_cleanup_(hb_kpagecgroup_freep) struct hb_kpagecgroup *k = NULL;
	uint64_t got[4];

	(void)state;
	assert_int_equal(hb_kpagecgroup_open(root, &k, NULL), 0);
	assert_int_equal(hb_kpagecgroup_read(k, FIRST_PFN + NPFN - 2, 4, got, NULL), -EIO);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_owner_window_names_each_pfn),
		T(test_owner_root_is_slash),
		T(test_owner_map_counts_matching),
		T(test_owner_miss_rescans_at_most_once_a_second),
		T(test_owner_removed_cgroup_is_not_found),
		T(test_owner_map_is_bounded),
		T(test_owner_v1_host_is_refused),
		T(test_owner_v2_without_memory_controller_is_refused),
		T(test_owner_no_kpagecgroup_says_memcg),
		T(test_owner_read_past_end_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
