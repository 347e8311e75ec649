// SPDX-License-Identifier: MIT
/*
 * The DAMON coldness monitor (kernel/damon/damon-monitor.h) over a fake DAMON
 * sysfs tree in a tmpdir. Reads go to the files; writes go through the
 * seam (hb_sys_damon_write, --wrap) to a small model of 6.12: files are
 * written only inside an existing kdamond directory, `state` takes on/off
 * and, while on, update_schemes_tried_regions, which replaces the scheme's
 * tried_regions with the model's regions (as the kernel's next apply would).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "damon/damon-monitor.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define KD "/sys/kernel/mm/damon/admin/kdamonds"
#define KD1 KD "/1"
#define TRIED KD1 "/contexts/0/schemes/0/tried_regions"
#define PS 4096ULL
#define AGGR HB_DAMON_MONITOR_AGGR_US

static char root[64];

static struct {
	struct hb_damon_region reg[8];
	size_t nreg;
	unsigned int updates;
	unsigned int empty_updates; /* updates still to answer with no regions */
	bool refuse_on;
} fk;

static void path_of(char *p, size_t size, const char *rel)
{
	snprintf(p, size, "%s%s", root, rel);
}

static void put(const char *rel, const char *content)
{
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void get(const char *rel, char *buf, size_t size)
{
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), rel);
	buf[0] = 0;
	if (!(f = fopen(p, "r")))
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static void mkdirs(const char *rel)
{
	char p[600];

	path_of(p, sizeof(p), rel);
	for (char *q = p + strlen(root) + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = 0;
		assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
		*q = '/';
	}
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void sh(const char *fmt, const char *rel)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), fmt, root, rel);
	assert_int_equal(system(cmd), 0);
}

static void write_tried(void)
{
	char p[256], v[32];

	sh("rm -rf '%s%s'", TRIED);
	mkdirs(TRIED);
	for (size_t i = 0; i < fk.nreg; i++) {
		const struct hb_damon_region *g = &fk.reg[i];

		snprintf(p, sizeof(p), TRIED "/%zu", i);
		mkdirs(p);
		snprintf(p, sizeof(p), TRIED "/%zu/start", i);
		snprintf(v, sizeof(v), "%llu\n", (unsigned long long)g->start);
		put(p, v);
		snprintf(p, sizeof(p), TRIED "/%zu/end", i);
		snprintf(v, sizeof(v), "%llu\n", (unsigned long long)g->end);
		put(p, v);
		snprintf(p, sizeof(p), TRIED "/%zu/nr_accesses", i);
		snprintf(v, sizeof(v), "%u\n", g->nr_accesses);
		put(p, v);
		snprintf(p, sizeof(p), TRIED "/%zu/age", i);
		snprintf(v, sizeof(v), "%u\n", g->age);
		put(p, v);
	}
}

int __wrap_hb_sys_damon_write(const char *r, const char *path, const char *value);
int __wrap_hb_sys_damon_write(const char *r, const char *path, const char *value)
{
	char p[512], dir[300], st[16];

	assert_string_equal(r, root);
	path_of(p, sizeof(p), KD1);
	if (strncmp(path, KD1 "/", strlen(KD1) + 1) || access(p, F_OK) < 0)
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	mkdirs(dir);
	if (!strcmp(path, KD1 "/state")) {
		get(path, st, sizeof(st));
		if (!strcmp(value, "on")) {
			if (fk.refuse_on)
				return -EINVAL;
		} else if (!strcmp(value, "update_schemes_tried_regions")) {
			if (strcmp(st, "on"))
				return -EINVAL; /* commands need a running kdamond */
			fk.updates++;
			if (fk.empty_updates) {
				size_t keep = fk.nreg;

				fk.empty_updates--;
				fk.nreg = 0;
				write_tried();
				fk.nreg = keep;
				return 0;
			}
			write_tried();
			return 0;
		} else if (strcmp(value, "off")) {
			return -EINVAL;
		}
	}
	snprintf(p, sizeof(p), "%s\n", value);
	put(path, p);
	return 0;
}

/* kdamond 1 made (by the migrator) and off */
static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	snprintf(root, sizeof(root), "/tmp/hb-test-damon-mon-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkdirs(KD1 "/contexts");
	put(KD "/nr_kdamonds", "2\n");
	put(KD1 "/state", "off\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s%s'", "");
	return 0;
}

static const uint64_t ranges[2][2] = { { 0x100000, 0x8000000 }, { 0x10000000, 0x18000000 } };

static struct hb_damon_monitor *open_ok(void)
{
	struct hb_damon_monitor *m = NULL;
	struct hb_err err = { 0 };

	if (hb_damon_monitor_open(root, 1, 2, ranges, &m, &err) < 0)
		fail_msg("open: %s", err.msg);
	return m;
}

static void expect_file(const char *rel, const char *want)
{
	char b[64];

	get(rel, b, sizeof(b));
	assert_string_equal(b, want);
}

static void test_monitor_sets_up_kdamond_1_monitoring_only(void **state)
{
	_hb_cleanup_(hb_damon_monitor_freep) struct hb_damon_monitor *m = open_ok();

	(void)state;
	expect_file(KD1 "/contexts/nr_contexts", "1");
	expect_file(KD1 "/contexts/0/operations", "paddr");
	expect_file(KD1 "/contexts/0/monitoring_attrs/intervals/sample_us", "20000");
	expect_file(KD1 "/contexts/0/monitoring_attrs/intervals/aggr_us", "160000");
	expect_file(KD1 "/contexts/0/targets/0/regions/nr_regions", "2");
	expect_file(KD1 "/contexts/0/targets/0/regions/0/start", "1048576");
	expect_file(KD1 "/contexts/0/targets/0/regions/1/end", "402653184");
	/* stat moves nothing; every region matches */
	expect_file(KD1 "/contexts/0/schemes/0/action", "stat");
	/* only unaccessed regions are listed: the reading's cost follows the cold ones */
	expect_file(KD1 "/contexts/0/schemes/0/access_pattern/nr_accesses/max", "0");
	expect_file(KD1 "/state", "on");
	/* nr_kdamonds is the migrator's: never written here */
	expect_file(KD "/nr_kdamonds", "2");
	m = hb_damon_monitor_free(m);
	expect_file(KD1 "/state", "off");
}

static void test_monitor_without_kdamond_1_names_the_migrator(void **state)
{
	struct hb_damon_monitor *m = NULL;
	struct hb_err err = { 0 };

	(void)state;
	sh("rm -rf '%s%s'", KD1);
	assert_int_equal(hb_damon_monitor_open(root, 1, 2, ranges, &m, &err), -ENOENT);
	assert_null(m);
	assert_non_null(strstr(err.msg, "migrate.backend = damon"));
}

static void test_monitor_refuses_a_kdamond_that_is_on(void **state)
{
	struct hb_damon_monitor *m = NULL;
	struct hb_err err = { 0 };

	(void)state;
	put(KD1 "/state", "on\n");
	assert_int_equal(hb_damon_monitor_open(root, 1, 2, ranges, &m, &err), -EBUSY);
	assert_null(m);
	assert_non_null(strstr(err.msg, "another DAMON user"));
	/* and left it alone */
	expect_file(KD1 "/state", "on");
}

static void test_monitor_refuses_bad_ranges_and_a_failed_start(void **state)
{
	static const uint64_t overlap[2][2] = { { 0x1000, 0x9000 }, { 0x8000, 0xa000 } };
	static const uint64_t empty[1][2] = { { 0x1000, 0x1000 } };
	struct hb_damon_monitor *m = NULL;
	struct hb_err err = { 0 };

	(void)state;
	assert_int_equal(hb_damon_monitor_open(root, 1, 2, overlap, &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "range 1"));
	assert_int_equal(hb_damon_monitor_open(root, 1, 1, empty, &m, &err), -EINVAL);
	assert_int_equal(hb_damon_monitor_open(root, 1, 0, empty, &m, &err), -EINVAL);
	fk.refuse_on = true;
	assert_int_equal(hb_damon_monitor_open(root, 1, 2, ranges, &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "would not start"));
	assert_null(m);
}

static void test_monitor_reads_the_kernels_regions_sorted_and_fresh(void **state)
{
	_hb_cleanup_(hb_damon_monitor_freep) struct hb_damon_monitor *m = open_ok();
	const struct hb_damon_region *reg;
	struct hb_err err = { 0 };

	(void)state;
	fk.reg[0] = (struct hb_damon_region){ 0x10000000, 0x18000000, 3, 1 };
	fk.reg[1] = (struct hb_damon_region){ 0x100000, 0x4000000, 0, 12 };
	fk.reg[2] = (struct hb_damon_region){ 0x4000000, 0x8000000, 0, 2 };
	fk.nreg = 3;
	assert_int_equal(hb_damon_monitor_regions(m, &reg, &err), 3);
	assert_int_equal(fk.updates, 1);
	assert_true(reg[0].start == 0x100000 && reg[0].age == 12 && reg[0].nr_accesses == 0);
	assert_true(reg[1].start == 0x4000000 && reg[1].end == 0x8000000 && reg[1].age == 2);
	assert_true(reg[2].start == 0x10000000 && reg[2].nr_accesses == 3);
	/* each call asks the kernel again: the old list is gone */
	fk.nreg = 1;
	assert_int_equal(hb_damon_monitor_regions(m, &reg, &err), 1);
	assert_int_equal(fk.updates, 2);
	assert_true(reg[0].start == 0x10000000);
	/* an update answered with no regions at all is asked once more */
	fk.empty_updates = 1;
	assert_int_equal(hb_damon_monitor_regions(m, &reg, &err), 1);
	assert_int_equal(fk.updates, 4);
	fk.empty_updates = 5; /* and then the empty view is what it is */
	assert_int_equal(hb_damon_monitor_regions(m, &reg, &err), 0);
	assert_int_equal(fk.updates, 6);
	fk.empty_updates = 0;
	/* a kdamond that stopped cannot answer: named */
	put(KD1 "/state", "off\n");
	assert_int_equal(hb_damon_monitor_regions(m, &reg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "update_schemes_tried_regions"));
}

static void test_monitor_idle_needs_no_access_for_the_whole_span(void **state)
{
	const struct hb_damon_region reg[] = {
		{ 0x0, 0x100000, 0, 10 },      /* unaccessed 11 aggregations */
		{ 0x100000, 0x200000, 1, 40 }, /* accessed */
		{ 0x200000, 0x300000, 0, 2 },  /* unaccessed 3 aggregations only */
		{ 0x400000, 0x500000, 0, 0 },  /* just went quiet */
	};
	const uint64_t pfn[] = { 0x10, 0x150, 0x250, 0x350, 0x400, 0xff, 0x100 };
	uint8_t idle[7];

	(void)state;
	/* a span of 1 s = 6.25 aggregations */
	hb_damon_monitor_idle(reg, 4, PS, 1000000, 7, pfn, idle);
	assert_int_equal(idle[0], 1);
	assert_int_equal(idle[1], 0);
	assert_int_equal(idle[2], 0); /* too young for the span */
	assert_int_equal(idle[3], 0); /* in no region */
	assert_int_equal(idle[4], 0);
	assert_int_equal(idle[5], 1); /* the last page of region 0 */
	assert_int_equal(idle[6], 0); /* the first of region 1 */
	/* a short span: the young quiet regions count */
	hb_damon_monitor_idle(reg, 4, PS, 4 * AGGR, 7, pfn, idle);
	assert_int_equal(idle[2], 1);
	assert_int_equal(idle[4], 0);
	hb_damon_monitor_idle(reg, 4, PS, 2 * AGGR, 7, pfn, idle);
	assert_int_equal(idle[4], 1);
	assert_int_equal(idle[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_monitor_sets_up_kdamond_1_monitoring_only),
		T(test_monitor_without_kdamond_1_names_the_migrator),
		T(test_monitor_refuses_a_kdamond_that_is_on),
		T(test_monitor_refuses_bad_ranges_and_a_failed_start),
		T(test_monitor_reads_the_kernels_regions_sorted_and_fresh),
		T(test_monitor_idle_needs_no_access_for_the_whole_span),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
