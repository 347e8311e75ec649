// SPDX-License-Identifier: MIT
/*
 * The demotion step's work on the loop goes a slice of the loop's turn at
 * a time (daemon/cycle/demote-step.c's hb_daemon_demote_prep()): the
 * census a window a slice, a finished idle round's answers FOLD_EVERY a
 * slice, each slice going on where the last stopped, and nothing lost on
 * the way: every frame is tracked, every answer counted. The daemon is a
 * live host's (test-demote-live.c's fixture, with node 0 at 2048 frames:
 * two 4 MiB blocks) with the loop's flag set, so that the idle rounds run
 * on their own thread, and each slice is given an end already past (the
 * least a slice does).
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
#include <unistd.h>
#include <cmocka.h>

#include "cycle/coldness.h"
#include "cycle/idle-worker.h"
#include "daemon-private.h"
#include "platform/emulated-host.h"
#include "coldness/frames.h"
#include "kernel.h"
#include "live-fixture.h"

#define BIT(b) (1ULL << (b))
/* node 0: blocks 2 and 3 of 4 MiB, PFN 2048-4095, every frame movable */
#define FIRST 2048
#define FRAMES 2048
/* the census's window (demote-step.c's CENSUS_CHUNK) */
#define WINDOW 1024

static uint64_t moves;

long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags);
long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags)
{
	(void)nr;
	(void)pages;
	(void)flags;
	for (unsigned long i = 0; i < count; i++)
		status[i] = nodes[i];
	moves += count;
	return 0;
}

static int setup(void **state)
{
	static uint64_t kpf[FIRST + FRAMES];
	static uint8_t bitmap[(FIRST + FRAMES) / 8];

	(void)state;
	node0_tree_blocks("test-demote-slices", "400000");
	put("/sys/kernel/mm/page_idle", NULL);
	for (int p = FIRST; p < FIRST + FRAMES; p++)
		kpf[p] = BIT(HB_KPF_LRU) | BIT(HB_KPF_MMAP) | BIT(12);
	put_bin("/proc/kpageflags", kpf, sizeof(kpf));
	memset(bitmap, 0, sizeof(bitmap));
	put_bin(HB_IDLE_BITMAP, bitmap, sizeof(bitmap));
	moves = 0;
	return 0;
}

/* the host touched PFN p since it was marked idle */
static void touch(uint64_t p)
{
	char path[256];
	uint64_t w;
	int fd;

	snprintf(path, sizeof(path), "%s%s", root, HB_IDLE_BITMAP);
	assert_true((fd = open(path, O_RDWR)) >= 0);
	assert_int_equal(pread(fd, &w, 8, (off_t)(p / 64 * 8)), 8);
	w &= ~BIT(p % 64);
	assert_int_equal(pwrite(fd, &w, 8, (off_t)(p / 64 * 8)), 8);
	close(fd);
}

/* the idle round out on the worker's thread has finished */
static void round_over(struct hb_daemon *d)
{
	for (int i = 0; i < 10000 && hb_idle_worker_busy(d->dm.idle_worker); i++)
		usleep(1000);
	assert_false(hb_idle_worker_busy(d->dm.idle_worker));
}

/*
 * One step, its slices each given an end already past; the calls it took.
 * Its decision (handed over at once: no batch thread) is taken after it.
 */
static int step_in_slices(struct hb_daemon *d, uint64_t t0, uint64_t *census_after_first)
{
	int calls = 0, r;

	d->dm.step = (struct hb_demote_prep){ .t0 = t0 };
	do {
		r = hb_daemon_demote_prep(d, 1);
		if (++calls == 1)
			*census_after_first = d->st.census_frames;
	} while (r == -EINPROGRESS);
	assert_int_equal(r, 1); /* the decision handed over */
	d->looping = false;     /* its fold, the promotion: at once */
	hb_daemon_batch_done(d, true);
	d->looping = true;
	return calls;
}

static void test_demote_step_goes_a_slice_at_a_time_and_loses_nothing(void **state)
{
	static char probe[4096];
	struct hb_migrator_config mc = { .root = probe };
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };
	struct hb_emulated_host host = { .dram_free = (1024ULL + 4) << 20 };
	struct hb_live_coldness *cold = NULL;
	struct hb_daemon *d = NULL;
	struct hb_config cfg;
	struct hb_err err = { 0 };
	uint64_t census = 0, idle = 0, busy = 0;
	int calls;

	(void)state;
	snprintf(probe, sizeof(probe), "%s/mpp-probe/ported", getenv("HB_TEST_DATA"));
	live_config(&cfg);
	cfg.demote_idle_cpu_pct = 100; /* the next round at once: no pause to time */
	assert_int_equal(hb_live_coldness_new(root, 4096, &cold, &err), 0);
	env.coldness = hb_live_coldness(cold);
	assert_int_equal(hb_emulated_platform_new(&host, &env.platform, &err), 0);
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &mc, &env.migrator, &err), 0);
	assert_int_equal(hb_daemon_new(&cfg, &env, &d, &err), 0);
	host.d = d;
	d->looping = true;

	/*
	 * 1: the census, a window a slice: the first slice read one window
	 * and stopped, the second read the other and went on to start the
	 * first idle round (nothing to fold before it)
	 */
	calls = step_in_slices(d, 1000, &census);
	assert_int_equal(census, WINDOW);
	assert_int_equal(calls, FRAMES / WINDOW);
	assert_int_equal(d->st.census_frames, FRAMES);
	assert_int_equal(hb_placed_len(d->dm.placed), FRAMES);
	round_over(d); /* it marked every frame idle */
	for (uint64_t p = FIRST; p < FIRST + FRAMES; p += 7)
		touch(p);
	/*
	 * 2: the census again (one slice a window), then the first round's
	 * answers (none counts: no frame was marked before it), FOLD_EVERY
	 * a slice, and the second round
	 */
	calls = step_in_slices(d, 2000, &census);
	assert_int_equal(calls, 1 + FRAMES / FOLD_EVERY);
	round_over(d); /* it found the touched frames in use, the others idle */
	/* 3: its answers, all of them, a slice at a time */
	calls = step_in_slices(d, 3000, &census);
	assert_int_equal(calls, 1 + FRAMES / FOLD_EVERY);
	for (uint64_t p = FIRST; p < FIRST + FRAMES; p++) {
		const struct hb_placed_page *e = hb_placed_find(d->dm.placed, p * 4096);

		assert_non_null(e);
		assert_int_equal(e->idle, (p - FIRST) % 7 ? 1 : 0);
		idle += e->idle;
		busy += !e->idle;
	}
	print_message("# %llu frames idle once, %llu in use; %d slices a step\n",
		      (unsigned long long)idle, (unsigned long long)busy, calls);
	assert_int_equal(d->st.idle_checked, FRAMES);
	/* idle once is not cold (demote.cold_cycles = 2): nothing moved yet */
	assert_int_equal(moves, 0);
	/* the steps' time on the loop: one figure a step, whatever its slices */
	assert_int_equal(d->lat.demote.count, 3);
	round_over(d);
	d->looping = false;
	hb_daemon_free(d);
	hb_live_coldness_free(cold);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_demote_step_goes_a_slice_at_a_time_and_loses_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
