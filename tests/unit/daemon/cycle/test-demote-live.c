// SPDX-License-Identifier: MIT
/*
 * Demotion the way a live host does it: the daemon's real cycle with the
 * live coldness source (daemon/cycle/coldness-live.c) over a fake tree. Node 0's
 * memory is blocks 2 and 3 (32 KiB blocks: PFN 16-31) and /proc/kpageflags
 * says which frames hold movable pages; the page_idle bitmap is a regular
 * file (tests/unit/kernel/coldness/test-idle.c says how it differs from the
 * kernel's), where the test plays "the host touched PFN p" by clearing
 * p's bit. The platform is the emulated host's (node 0 short of its goal,
 * node 2 the CXL node); the wrapped move_phys_pages records what is asked.
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

#include <json-c/json.h>

#include "cycle/coldness.h"
#include "daemon.h"
#include "platform/emulated-host.h"
#include "coldness/frames.h"
#include "kernel.h"
#include "live-fixture.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define BIT(b) (1ULL << (b))

static uint64_t demoted[64]; /* PFN -> times asked to go to node 2 */
static uint64_t wrong_node, demote_asked;

long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags);
long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags)
{
	for (unsigned long i = 0; i < count; i++) {
		status[i] = nodes[i];
		if (nodes[i] == 2 && pages[i] / 4096 < 64) {
			demoted[pages[i] / 4096]++;
			demote_asked++;
		} else if (nodes[i] != 0) {
			wrong_node++;
			status[i] = -EINVAL;
		}
	}
	return 0;
}

static uint64_t bitmap_word(void)
{
	char p[256];
	uint64_t w = 0;
	int fd;

	snprintf(p, sizeof(p), "%s%s", root, HB_IDLE_BITMAP);
	assert_true((fd = open(p, O_RDWR)) >= 0);
	assert_int_equal(pread(fd, &w, 8, 0), 8);
	close(fd);
	return w;
}

/* the host touched these PFNs since they were marked */
static void touch(uint64_t mask)
{
	uint64_t w = bitmap_word() & ~mask;

	put_bin(HB_IDLE_BITMAP, &w, 8);
}

static int setup(void **state)
{
	uint64_t kpf[64] = { 0 }, zero = 0;

	(void)state;
	node0_tree("test-demote-live");
	put("/sys/kernel/mm/page_idle", NULL);
	for (int p = 16; p < 32; p++)
		kpf[p] = BIT(HB_KPF_LRU) | BIT(HB_KPF_MMAP) | BIT(12);
	kpf[24] = BIT(HB_KPF_BUDDY); /* free */
	kpf[25] |= BIT(HB_KPF_UNEVICTABLE);
	kpf[26] = BIT(HB_KPF_SLAB);
	kpf[27] |= BIT(HB_KPF_THP) | BIT(HB_KPF_COMPOUND_HEAD);
	put_bin("/proc/kpageflags", kpf, sizeof(kpf));
	put_bin(HB_IDLE_BITMAP, &zero, 8);
	memset(demoted, 0, sizeof(demoted));
	wrong_node = demote_asked = 0;
	return 0;
}

static int live_daemon(struct hb_emulated_host *host, struct hb_config *cfg,
		       enum hb_migrator_kind mover, struct hb_live_coldness **ret_cold,
		       struct hb_daemon **ret, struct hb_err *err)
{
	static char probe[4096];
	struct hb_migrator_config mc = { .root = probe };
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };
	int r;

	snprintf(probe, sizeof(probe), "%s/mpp-probe/ported", getenv("HB_TEST_DATA"));
	if (mover == HB_MIGRATOR_PAGEMAP)
		mc.root = root;
	assert_int_equal(hb_live_coldness_new(root, 4096, ret_cold, err), 0);
	env.coldness = hb_live_coldness(*ret_cold);
	assert_int_equal(hb_emulated_platform_new(host, &env.platform, err), 0);
	assert_int_equal(hb_migrator_new(mover, &mc, &env.migrator, err), 0);
	r = hb_daemon_new(cfg, &env, ret, err);
	if (r == 0)
		host->d = *ret;
	return r;
}

static void test_demote_live_moves_frames_idle_for_cold_cycles(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_live_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };
	const struct hb_daemon_stats *s;
	/* movable: 16-23 and 28-31; 24 free, 25 unevictable, 26 slab, 27 a THP */
	const uint64_t movable = 0xff0000ULL | 0xf0000000ULL;

	(void)state;
	live_config(&cfg);
	assert_int_equal(live_daemon(&host, &cfg, HB_MIGRATOR_PHYS, &cold, &d, &err), 0);
	s = hb_daemon_stats(d);
	/* 1: the census finds the movable frames and marks them idle */
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(hb_placed_len(hb_daemon_placed(d)), 12);
	assert_int_equal(bitmap_word(), movable);
	/* 2: PFN 20 and 21 were touched; the others idle once: not yet cold */
	touch(BIT(20) | BIT(21));
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(demote_asked, 0);
	/* 3: 21 touched again; ten frames idle twice go to node 2, nothing else moves */
	touch(BIT(21));
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(demote_asked, 10);
	for (int p = 0; p < 64; p++)
		assert_int_equal(demoted[p], ((movable >> p) & 1) && p != 20 && p != 21);
	assert_int_equal(wrong_node, 0);
	assert_int_equal(s->demoted_pages_by_node[2], 10);
	assert_int_equal(s->demoted_bytes, 10 * 4096);
	{
		json_object *st = hb_daemon_stats_json(d);

		assert_string_equal(json_object_get_string(json_object_object_get(st, "coldness")),
				    "page_idle");
		assert_int_equal(json_object_get_int64(json_object_object_get(st, "placed_pages")),
				 2);
		json_object_put(st);
	}
	/* 4: PFN 20, idle twice since it was touched, goes too; 21 was freed meanwhile */
	{
		uint64_t kpf = BIT(HB_KPF_BUDDY);
		char p[256];
		int fd;

		snprintf(p, sizeof(p), "%s/proc/kpageflags", root);
		assert_true((fd = open(p, O_WRONLY)) >= 0);
		assert_int_equal(pwrite(fd, &kpf, 8, 21 * 8), 8);
		close(fd);
	}
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(demoted[20], 1);
	assert_int_equal(demoted[21], 0);
	assert_null(hb_placed_find(hb_daemon_placed(d), 21 * 4096));
	/* the census took the ten demoted frames back (still in use by the fixture) */
	assert_int_equal(hb_placed_len(hb_daemon_placed(d)), 10);
	hb_daemon_free(d);
	hb_live_coldness_free(cold);
}

/*
 * Frames whose page is mapped more than once (/proc/kpagecount > 1) are
 * never tracked, so never demoted (the mover would refuse them, EACCES),
 * and stats count them (issue 30).
 */
static void test_demote_live_skips_and_counts_shared_frames(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_live_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };
	uint64_t count[64];
	json_object *st;

	(void)state;
	for (int p = 0; p < 64; p++)
		count[p] = 1;
	count[18] = 2;
	count[19] = 3;
	put_bin("/proc/kpagecount", count, sizeof(count));
	live_config(&cfg);
	assert_int_equal(live_daemon(&host, &cfg, HB_MIGRATOR_PHYS, &cold, &d, &err), 0);
	assert_int_equal(hb_daemon_cycle(d), 0);
	/* twelve movable frames, two of them shared */
	assert_int_equal(hb_placed_len(hb_daemon_placed(d)), 10);
	assert_null(hb_placed_find(hb_daemon_placed(d), 18 * 4096));
	assert_null(hb_placed_find(hb_daemon_placed(d), 19 * 4096));
	st = hb_daemon_stats_json(d);
	assert_int_equal(json_object_get_int64(json_object_object_get(st, "census_shared_frames")),
			 2);
	json_object_put(st);
	hb_daemon_free(d);
	hb_live_coldness_free(cold);
}

/*
 * On simulated time (1 s a cycle) with a hysteresis of 2.5 s: a frame's
 * time starts when the census first sees it (a promotion's new frame is
 * one) and again whenever it is found touched.
 */
static void test_demote_live_frames_wait_for_the_hysteresis(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_live_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };

	(void)state;
	live_config(&cfg);
	cfg.hysteresis_ms = 2500;
	assert_int_equal(live_daemon(&host, &cfg, HB_MIGRATOR_PHYS, &cold, &d, &err), 0);
	/* t=0 first seen, marked; t=1 16 found touched; t=2 idle twice, too young */
	assert_int_equal(hb_daemon_simulate(d, 1), 0);
	touch(BIT(16));
	assert_int_equal(hb_daemon_simulate(d, 2), 0);
	assert_int_equal(demote_asked, 0);
	/* the eleven within the hysteresis leave the node short: one decision says why */
	assert_int_equal(hb_daemon_stats(d)->decisions[HB_REASON_PROMOTED_RECENTLY], 1);
	/* t=3: 3 s since first seen: eleven go; 16 was touched 2 s ago */
	assert_int_equal(hb_daemon_simulate(d, 1), 0);
	assert_int_equal(demote_asked, 11);
	assert_int_equal(demoted[16], 0);
	/* t=4 */
	assert_int_equal(hb_daemon_simulate(d, 1), 0);
	assert_int_equal(demoted[16], 1);
	assert_int_equal(demote_asked, 12);
	hb_daemon_free(d);
	hb_live_coldness_free(cold);
}

/* how many placed pages lie in [lo, hi) (PFNs) */
static size_t placed_in(struct hb_daemon *d, uint64_t lo, uint64_t hi)
{
	size_t n = 0;

	for (uint64_t p = lo; p < hi; p++)
		n += hb_placed_find(hb_daemon_placed(d), p * 4096) != NULL;
	return n;
}

/*
 * A node larger than demote.track_mb is tracked a sample at a time: while
 * the census reads one block of node 0's two, only that block's frames
 * are placed, and when it moves on to the other (after 8 passes) the first
 * block's frames leave the table (issue 30: what is tracked, and what an
 * idle round costs, stays the sample's size whatever the node's).
 */
static void test_demote_live_tracks_a_sample_of_a_large_node(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_live_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };
	json_object *st;

	(void)state;
	live_config(&cfg);
	assert_int_equal(live_daemon(&host, &cfg, HB_MIGRATOR_PHYS, &cold, &d, &err), 0);
	/* demote.track_mb is MiB, the fixture's blocks 32 KiB: one block's frames */
	hb_live_coldness(cold).ops->sample(cold, 8);
	for (int pass = 0; pass < 8; pass++) {
		assert_int_equal(hb_daemon_cycle(d), 0);
		assert_int_equal(placed_in(d, 24, 32), 0);
	}
	assert_int_equal(placed_in(d, 16, 24), 8); /* block 2: PFN 16-23, all movable */
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(placed_in(d, 16, 24), 0);
	assert_int_equal(placed_in(d, 24, 32), 4); /* block 3: 28-31; 24-27 refused */
	st = hb_daemon_stats_json(d);
	assert_int_equal(json_object_get_int64(
				 json_object_object_get(json_object_object_get(st, "demote_work"),
							"census_samples")),
			 1);
	json_object_put(st);
	hb_daemon_free(d);
	hb_live_coldness_free(cold);
}

/* far from its goal (1032 MiB + the room, 8 MiB), node 0 costs the kernel nothing */
static void test_demote_live_tracks_nothing_while_dram_has_room(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1040ULL + 1) << 20 };
	struct hb_live_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };

	(void)state;
	live_config(&cfg);
	assert_int_equal(live_daemon(&host, &cfg, HB_MIGRATOR_PHYS, &cold, &d, &err), 0);
	assert_int_equal(hb_daemon_simulate(d, 3), 0);
	assert_int_equal(hb_placed_len(hb_daemon_placed(d)), 0);
	assert_int_equal(bitmap_word(), 0);
	/* within the room of its goal: the census and idle marks start */
	host.dram_free = (1040ULL - 1) << 20;
	assert_int_equal(hb_daemon_simulate(d, 1), 0);
	assert_int_equal(hb_placed_len(hb_daemon_placed(d)), 12);
	assert_int_equal(demote_asked, 0);
	hb_daemon_free(d);
	hb_live_coldness_free(cold);
}

static void test_demote_live_refuses_what_it_cannot_do(void **state)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_live_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };

	(void)state;
	/* no CXL node named: a frame does not say where its page came from */
	live_config(&cfg);
	cfg.demote_cxl_node = -1;
	assert_int_equal(live_daemon(&host, &cfg, HB_MIGRATOR_PHYS, &cold, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "demote.cxl_node = -1: on a live host name the CXL node"));
	cold = hb_live_coldness_free(cold);
	/* a mover that takes virtual addresses */
	live_config(&cfg);
	assert_int_equal(live_daemon(&host, &cfg, HB_MIGRATOR_PAGEMAP, &cold, &d, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "migrate.backend = phys), not with pagemap"));
	cold = hb_live_coldness_free(cold);
	/* no idle page tracking in the kernel */
	{
		char p[256];

		snprintf(p, sizeof(p), "%s%s", root, HB_IDLE_BITMAP);
		assert_int_equal(unlink(p), 0);
		assert_int_equal(hb_live_coldness_new(root, 4096, &cold, &err), -ENOENT);
		assert_non_null(strstr(err.msg, "CONFIG_IDLE_PAGE_TRACKING"));
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_demote_live_moves_frames_idle_for_cold_cycles),
		T(test_demote_live_skips_and_counts_shared_frames),
		T(test_demote_live_frames_wait_for_the_hysteresis),
		T(test_demote_live_tracks_a_sample_of_a_large_node),
		T(test_demote_live_tracks_nothing_while_dram_has_room),
		T(test_demote_live_refuses_what_it_cannot_do),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
