// SPDX-License-Identifier: MIT
/*
 * Demotion with DAMON as the coldness source (daemon/cycle/coldness-damon.c), the
 * way a stock kernel without idle page tracking does it: the daemon's real
 * cycle over a fake tree. Node 0's memory is blocks 2 and 3 (32 KiB
 * blocks: PFN 16-31), /proc/kpageflags says which frames hold movable
 * pages, and kdamond 1 exists (as the damon migrator makes it). DAMON
 * sysfs writes go through the seam (hb_sys_damon_write, --wrap) to a small
 * model: files inside kdamond 1, `state` on/off, and
 * update_schemes_tried_regions, which writes the test's regions as the
 * kernel would. The mover is dryrun (it records what it is asked).
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
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cycle/coldness.h"
#include "daemon.h"
#include "damon/damon-monitor.h"
#include "platform/emulated-host.h"
#include "coldness/frames.h"
#include "live-fixture.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define BIT(b) (1ULL << (b))
#define KD1 "/sys/kernel/mm/damon/admin/kdamonds/1"
#define TRIED KD1 "/contexts/0/schemes/0/tried_regions"
#define PS 4096ULL

static struct {
	struct hb_damon_region reg[8];
	size_t nreg;
	unsigned int updates;
} fk;
/* the source's readings at most this often (0: every check) */
static int64_t every_us;

static void get(const char *rel, char *buf, size_t size)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	buf[0] = 0;
	if (!(f = fopen(p, "r")))
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static void put_u64(const char *fmt, size_t i, uint64_t v)
{
	char p[200], t[32];

	snprintf(p, sizeof(p), fmt, i);
	snprintf(t, sizeof(t), "%llu\n", (unsigned long long)v);
	put(p, t);
}

int __wrap_hb_sys_damon_write(const char *r, const char *path, const char *value);
int __wrap_hb_sys_damon_write(const char *r, const char *path, const char *value)
{
	char p[256], st[16], cmd[300];

	assert_string_equal(r, root);
	snprintf(p, sizeof(p), "%s" KD1, root);
	if (strncmp(path, KD1 "/", strlen(KD1) + 1) || access(p, F_OK) < 0)
		return -ENOENT;
	if (!strcmp(path, KD1 "/state")) {
		get(path, st, sizeof(st));
		if (!strcmp(value, "update_schemes_tried_regions")) {
			if (strcmp(st, "on"))
				return -EINVAL;
			fk.updates++;
			snprintf(cmd, sizeof(cmd), "rm -rf '%s" TRIED "'", root);
			assert_int_equal(system(cmd), 0);
			put(TRIED, NULL);
			for (size_t i = 0; i < fk.nreg; i++) {
				put_u64(TRIED "/%zu/start", i, fk.reg[i].start);
				put_u64(TRIED "/%zu/end", i, fk.reg[i].end);
				put_u64(TRIED "/%zu/nr_accesses", i, fk.reg[i].nr_accesses);
				put_u64(TRIED "/%zu/age", i, fk.reg[i].age);
			}
			return 0;
		}
		if (strcmp(value, "on") && strcmp(value, "off"))
			return -EINVAL;
	}
	snprintf(p, sizeof(p), "%s\n", value);
	put(path, p);
	return 0;
}

static int setup(void **state)
{
	uint64_t kpf[64] = { 0 };

	(void)state;
	memset(&fk, 0, sizeof(fk));
	every_us = 0;
	node0_tree("test-demote-damon");
	for (int p = 16; p < 32; p++)
		kpf[p] = BIT(HB_KPF_LRU) | BIT(HB_KPF_MMAP);
	kpf[24] = BIT(HB_KPF_BUDDY); /* free */
	put_bin("/proc/kpageflags", kpf, sizeof(kpf));
	put(KD1 "/state", "off\n");
	return 0;
}

static int damon_daemon(struct hb_emulated_host *host, struct hb_config *cfg,
			enum hb_migrator_kind mover, struct hb_damon_coldness **ret_cold,
			struct hb_daemon **ret, struct hb_err *err)
{
	struct hb_migrator_config mc = { .root = root, .dryrun_keep = 64 };
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };
	int r;

	assert_int_equal(hb_damon_coldness_new(root, PS, every_us, ret_cold, err), 0);
	env.coldness = hb_damon_coldness(*ret_cold);
	assert_int_equal(hb_emulated_platform_new(host, &env.platform, err), 0);
	assert_int_equal(hb_migrator_new(mover, &mc, &env.migrator, err), 0);
	r = hb_daemon_new(cfg, &env, ret, err);
	if (r == 0)
		host->d = *ret;
	return r;
}

/* the dryrun mover's records: PFN bits asked to go to node 2, and any other node */
static uint64_t asked(struct hb_daemon *d, size_t *other)
{
	const struct hb_dryrun_record *rec;
	size_t n = hb_migrator_dryrun_records(hb_daemon_migrator(d), &rec);
	uint64_t mask = 0;

	*other = 0;
	for (size_t i = 0; i < n; i++) {
		if (rec[i].node == 2 && rec[i].hpa / PS < 64)
			mask |= BIT(rec[i].hpa / PS);
		else
			(*other)++;
	}
	return mask;
}

static void regions(struct hb_damon_region a, struct hb_damon_region b)
{
	fk.reg[0] = a;
	fk.reg[1] = b;
	fk.nreg = 2;
}

static void test_demote_damon_moves_frames_of_unaccessed_regions(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_damon_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };
	size_t other;
	char v[32];
	/* movable: 16-23 and 25-31 (24 is free) */
	const uint64_t movable = 0xff0000ULL | 0xfe000000ULL;
	/* PFN 16-19 accessed, 20-31 unaccessed for 50 aggregations */
	const struct hb_damon_region hot = { 16 * PS, 20 * PS, 3, 4 };
	const struct hb_damon_region cold_reg = { 20 * PS, 32 * PS, 0, 50 };

	(void)state;
	live_config(&cfg);
	assert_int_equal(damon_daemon(&host, &cfg, HB_MIGRATOR_DRYRUN, &cold, &d, &err), 0);
	/* started after the migrator: kdamond 1 over node 0's memory (PFN 16-31), on */
	get(KD1 "/contexts/0/targets/0/regions/nr_regions", v, sizeof(v));
	assert_string_equal(v, "1");
	get(KD1 "/contexts/0/targets/0/regions/0/start", v, sizeof(v));
	assert_string_equal(v, "65536");
	get(KD1 "/contexts/0/targets/0/regions/0/end", v, sizeof(v));
	assert_string_equal(v, "131072");
	get(KD1 "/contexts/0/schemes/0/action", v, sizeof(v));
	assert_string_equal(v, "stat");
	get(KD1 "/state", v, sizeof(v));
	assert_string_equal(v, "on");
	regions(hot, cold_reg);
	/* 1: the census finds the movable frames (nothing to check yet) */
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(hb_placed_len(hb_daemon_placed(d)), 15);
	assert_int_equal(fk.updates, 0);
	/* 2: one idle check: not yet cold */
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(fk.updates, 1);
	assert_int_equal(asked(d, &other), 0);
	/* 3: idle twice: the unaccessed region's movable frames go, only to node 2 */
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(asked(d, &other), movable & ~0xf0000ULL);
	assert_int_equal(other, 0);
	assert_int_equal(hb_daemon_stats(d)->demoted_pages_by_node[2], 11);
	/* 4: a region quiet for one aggregation is not idle over 0.4 s (2.5 of them) */
	fk.reg[0].nr_accesses = 0;
	fk.reg[0].age = 0;
	usleep(400000);
	assert_int_equal(hb_daemon_cycle(d), 0);
	usleep(400000);
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(asked(d, &other) & 0xf0000ULL, 0);
	hb_daemon_free(d);
	hb_damon_coldness_free(cold);
	/* closed last, the source turned its kdamond off */
	get(KD1 "/state", v, sizeof(v));
	assert_string_equal(v, "off");
}

static void test_demote_damon_refuses_what_it_cannot_do(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_damon_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };
	char p[256];

	(void)state;
	/* a mover by virtual address: the kdamond is the damon migrator's to make */
	live_config(&cfg);
	assert_int_equal(damon_daemon(&host, &cfg, HB_MIGRATOR_PAGEMAP, &cold, &d, &err),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "the damon coldness source needs migrate.backend = damon, "
					"not pagemap"));
	cold = hb_damon_coldness_free(cold);
	/* no kdamond 1: named */
	snprintf(p, sizeof(p), "rm -rf '%s/sys/kernel/mm/damon'", root);
	assert_int_equal(system(p), 0);
	live_config(&cfg);
	assert_int_equal(damon_daemon(&host, &cfg, HB_MIGRATOR_DRYRUN, &cold, &d, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no kdamond 1"));
	cold = hb_damon_coldness_free(cold);
}

/*
 * A reading costs DAMON sysfs round trips that block the cycle: checks
 * sooner than the source's period read nothing and change no idle count
 * (issue 30: cycles of 1-9 s under TCG with a reading every cycle).
 */
static void test_demote_damon_reads_at_most_once_a_period(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_damon_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };
	size_t other;

	(void)state;
	every_us = 1000000; /* a second: cycles under valgrind take 50-200 ms */
	live_config(&cfg);
	assert_int_equal(damon_daemon(&host, &cfg, HB_MIGRATOR_DRYRUN, &cold, &d, &err), 0);
	regions((struct hb_damon_region){ 16 * PS, 20 * PS, 3, 4 },
		(struct hb_damon_region){ 20 * PS, 32 * PS, 0, 50 });
	/* census, then a check within the second from the start: no reading, nothing cold */
	for (int i = 0; i < 2; i++)
		assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(fk.updates, 0);
	assert_int_equal(asked(d, &other), 0);
	/* a period later one reading, and at once no second */
	usleep(1050000);
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(fk.updates, 1);
	assert_int_equal(asked(d, &other), 0);
	/* the second reading makes the unaccessed region's frames cold twice: they go */
	usleep(1050000);
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(fk.updates, 2);
	assert_int_equal(asked(d, &other), (0xff0000ULL & ~0xf0000ULL) | 0xfe000000ULL);
	assert_int_equal(other, 0);
	hb_daemon_free(d);
	hb_damon_coldness_free(cold);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_demote_damon_moves_frames_of_unaccessed_regions),
		T(test_demote_damon_refuses_what_it_cannot_do),
		T(test_demote_damon_reads_at_most_once_a_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
