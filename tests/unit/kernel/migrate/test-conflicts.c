// SPDX-License-Identifier: MIT
/*
 * Who else moves pages (kernel/migrate/conflicts.c) over the fixture trees in
 * tests/data/sysfs/ (see its README.md), and a few variants of them built
 * in a tmpdir.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "kernel.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define SCHEME "/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0"

static char tmp[64];

static void tree(const char *name, char *buf, size_t size)
{
	const char *data = getenv("HB_TEST_DATA");

	assert_non_null(data);
	snprintf(buf, size, "%s/sysfs/%s", data, name);
}

/* a copy of fixture name in tmp, for a test to change */
static void copy(const char *name)
{
	char src[512], cmd[1200];

	tree(name, src, sizeof(src));
	snprintf(tmp, sizeof(tmp), "/tmp/hb-test-conflicts-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof(cmd), "cp -R '%s'/. '%s'/", src, tmp);
	assert_int_equal(system(cmd), 0);
}

static void put(const char *rel, const char *v)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", tmp, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(v, f);
	fclose(f);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (tmp[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		assert_int_equal(system(cmd), 0);
		tmp[0] = 0;
	}
	return 0;
}

/* the stock defaults: NUMA balancing's mode 1 moves busy CXL pages too (issue 28) */
static void test_conflicts_stock_defaults_name_numa_balancing_mode_1(void **state)
{
	struct hb_conflicts c;
	char root[512];

	(void)state;
	tree("tiering-quiet", root, sizeof(root));
	hb_conflicts_probe(root, NULL, &c);
	assert_int_equal(c.found, 1u << HB_CONFLICT_NUMA_BALANCING);
	assert_non_null(strstr(c.why[HB_CONFLICT_NUMA_BALANCING], "numa_balancing is 1: NUMA "
								  "balancing (1) moves busy pages"));
	assert_string_equal(hb_conflict_to_string(HB_CONFLICT_NUMA_BALANCING), "numa_balancing");
}

static void test_conflicts_all_three_named(void **state)
{
	struct hb_conflicts c;
	char root[512];

	(void)state;
	tree("tiering-busy", root, sizeof(root));
	hb_conflicts_probe(root, NULL, &c);
	assert_int_equal(c.found, 7);
	assert_non_null(
		strstr(c.why[HB_CONFLICT_NUMA_TIERING], "numa_balancing is 2: memory tiering"));
	assert_non_null(strstr(c.why[HB_CONFLICT_KERNEL_DEMOTION], "demotion_enabled is true"));
	assert_non_null(strstr(c.why[HB_CONFLICT_DAMON], "1 of 1 kdamond(s)"));
	assert_string_equal(hb_conflict_to_string(HB_CONFLICT_NUMA_TIERING),
			    "numa_balancing_tiering");
	assert_string_equal(hb_conflict_to_string(HB_CONFLICT_KERNEL_DEMOTION), "kernel_demotion");
	assert_string_equal(hb_conflict_to_string(HB_CONFLICT_DAMON), "damon_user");
}

static void test_conflicts_reclaim_module_and_mode_3(void **state)
{
	struct hb_conflicts c;
	char root[512];

	(void)state;
	tree("damon-reclaim", root, sizeof(root));
	hb_conflicts_probe(root, NULL, &c);
	assert_int_equal(c.found, 1u << HB_CONFLICT_NUMA_TIERING | 1u << HB_CONFLICT_DAMON |
					  1u << HB_CONFLICT_NUMA_BALANCING);
	assert_non_null(strstr(c.why[HB_CONFLICT_NUMA_TIERING], "is 3"));
	assert_non_null(strstr(c.why[HB_CONFLICT_NUMA_BALANCING], "is 3"));
	assert_non_null(strstr(c.why[HB_CONFLICT_DAMON], "damon_reclaim is enabled"));
}

static void test_conflicts_our_own_kdamond_is_not_one(void **state)
{
	struct hb_conflicts c;
	char st[128], cmd[256];

	(void)state;
	copy("tiering-busy");
	/* the scheme as our damon migrator sets it up: migrate_hot, the mark */
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s" SCHEME "/watermarks'", tmp);
	assert_int_equal(system(cmd), 0);
	put(SCHEME "/action", "migrate_hot\n");
	put(SCHEME "/watermarks/interval_us", "1752134754\n");
	snprintf(st, sizeof(st), "%s/damon-state", tmp);
	put("/damon-state", "kdamond_pid=4242\nfound_kdamonds=0\n");
	hb_conflicts_probe(tmp, st, &c);
	assert_false(c.found & 1u << HB_CONFLICT_DAMON);
	/* another pid: not ours */
	put("/damon-state", "kdamond_pid=4243\nfound_kdamonds=0\n");
	hb_conflicts_probe(tmp, st, &c);
	assert_true(c.found & 1u << HB_CONFLICT_DAMON);
	/* no state file (a crash that lost /run): ours by the mark */
	hb_conflicts_probe(tmp, NULL, &c);
	assert_false(c.found & 1u << HB_CONFLICT_DAMON);
	/* our pid, but another tool made it page out: not ours */
	put("/damon-state", "kdamond_pid=4242\nfound_kdamonds=0\n");
	put(SCHEME "/action", "pageout\n");
	hb_conflicts_probe(tmp, st, &c);
	assert_true(c.found & 1u << HB_CONFLICT_DAMON);
	hb_conflicts_probe(tmp, NULL, &c);
	assert_true(c.found & 1u << HB_CONFLICT_DAMON);
	/* a kdamond that is off moves nothing */
	put("/sys/kernel/mm/damon/admin/kdamonds/0/state", "off\n");
	hb_conflicts_probe(tmp, st, &c);
	assert_false(c.found & 1u << HB_CONFLICT_DAMON);
}

static void test_conflicts_absent_files_mean_absent_mechanisms(void **state)
{
	struct hb_conflicts c;
	char p[256];

	(void)state;
	copy("tiering-busy");
	snprintf(p, sizeof(p), "rm -rf '%s/proc' '%s/sys'", tmp, tmp);
	assert_int_equal(system(p), 0);
	hb_conflicts_probe(tmp, NULL, &c);
	assert_int_equal(c.found, 0);
}

static void test_conflicts_unparsable_values_are_named(void **state)
{
	struct hb_conflicts c;

	(void)state;
	copy("tiering-quiet");
	put("/proc/sys/kernel/numa_balancing", "on\n");
	put("/sys/kernel/mm/numa/demotion_enabled", "1\n");
	hb_conflicts_probe(tmp, NULL, &c);
	assert_int_equal(c.found, 1u << HB_CONFLICT_NUMA_TIERING | 1u << HB_CONFLICT_KERNEL_DEMOTION);
	assert_non_null(strstr(c.why[HB_CONFLICT_NUMA_TIERING], "is 'on', not a mode number"));
	assert_non_null(strstr(c.why[HB_CONFLICT_KERNEL_DEMOTION], "is '1', neither true nor false"));
	/* mode 1 alone is not the tiering mode, but NUMA balancing; 0 is neither */
	put("/proc/sys/kernel/numa_balancing", "1\n");
	put("/sys/kernel/mm/numa/demotion_enabled", "false\n");
	hb_conflicts_probe(tmp, NULL, &c);
	assert_int_equal(c.found, 1u << HB_CONFLICT_NUMA_BALANCING);
	put("/proc/sys/kernel/numa_balancing", "0\n");
	hb_conflicts_probe(tmp, NULL, &c);
	assert_int_equal(c.found, 0);
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_conflicts_stock_defaults_name_numa_balancing_mode_1),
		T(test_conflicts_all_three_named),
		T(test_conflicts_reclaim_module_and_mode_3),
		T(test_conflicts_our_own_kdamond_is_not_one),
		T(test_conflicts_absent_files_mean_absent_mechanisms),
		T(test_conflicts_unparsable_values_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
