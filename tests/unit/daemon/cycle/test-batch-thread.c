// SPDX-License-Identifier: MIT
/*
 * The batches of moves run off the event loop's thread (daemon/cycle/
 * move.c): the daemon loops (hb_daemon_run) on the emulated host with the
 * phys migrator over a probed fixture, and the wrapped move_phys_pages
 * holds the first batch until the test lets it go. While it is held the
 * loop's cycles go on and records keep reaching the table, no second batch
 * is handed over, and the reports read the batch's counters as they were;
 * once it is let go the batch is folded (every page counted, the promoted
 * ones too) and its duration recorded.
 */
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "daemon.h"
#include "emul-config.h"
#include "platform/emulated-host.h"

/* the run's cycles; the batch is let go HOLD_CYCLES cycles after it was seen held */
#define RUN_CYCLES 80
#define HOLD_CYCLES 10

static pthread_t loop_thread;
static sem_t let_go;
static atomic_int calls, inside, most_inside, on_loop_thread;
static atomic_ulong pages_asked, first_batch;

long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags);
long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags)
{
	int now;
	bool first;

	/* the phys backend's open asks, for no page, whether the flag 0x100 is known */
	if (!count && !nodes)
		return 0;
	now = atomic_fetch_add(&inside, 1) + 1;
	first = atomic_fetch_add(&calls, 1) == 0;
	(void)nr;
	(void)pages;
	(void)flags;
	if (now > atomic_load(&most_inside))
		atomic_store(&most_inside, now);
	/* on the loop's thread the test fails, rather than hold the loop for good */
	if (pthread_equal(pthread_self(), loop_thread))
		atomic_fetch_add(&on_loop_thread, 1);
	else if (first) {
		atomic_store(&first_batch, count);
		while (sem_wait(&let_go) < 0)
			;
	}
	for (unsigned long i = 0; i < count; i++)
		status[i] = nodes[i];
	atomic_fetch_add(&pages_asked, count);
	atomic_fetch_sub(&inside, 1);
	return 0;
}

struct watch {
	uint64_t held_at;       /* the cycle the batch was first seen held */
	uint64_t records_then;  /* records taken by then */
	uint64_t records_held;  /* ... and by the last cycle it was held */
	uint64_t cycles_held;   /* cycles that ended while it was held */
	uint64_t promoted_held; /* promoted bytes counted while it was held */
	int calls_held;         /* calls made while it was held */
	uint64_t held_ns;       /* first seen held, CLOCK_MONOTONIC */
	uint64_t let_go_ns;     /* let go */
	bool let_go;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct watch w;

static void after_cycle(void *ud, struct hb_daemon *d)
{
	const struct hb_daemon_stats *s = hb_daemon_stats(d);

	(void)ud;
	if (!w.let_go && atomic_load(&inside) == 1) {
		if (!w.held_at) {
			w.held_ns = now_ns();
			w.held_at = s->cycles;
			w.records_then = s->in.records;
		}
		w.cycles_held++;
		w.records_held = s->in.records;
		w.promoted_held = s->promoted_bytes;
		w.calls_held = atomic_load(&calls);
	}
	/* let it go after HOLD_CYCLES, and in any case in time for the run to end */
	if (!w.let_go &&
	    ((w.held_at && s->cycles >= w.held_at + HOLD_CYCLES) || s->cycles >= RUN_CYCLES - 20)) {
		w.let_go = true;
		w.let_go_ns = now_ns();
		sem_post(&let_go);
	}
}

static const char *probe_root(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/mpp-probe/ported", getenv("HB_TEST_DATA"));
	return buf;
}

static uint64_t json_u64(json_object *o, const char *a, const char *b, const char *c)
{
	json_object *x = NULL;

	assert_true(json_object_object_get_ex(o, a, &x));
	assert_true(json_object_object_get_ex(x, b, &x));
	assert_true(json_object_object_get_ex(x, c, &x));
	return (uint64_t)json_object_get_int64(x);
}

static void test_batch_runs_off_the_loop_while_records_reach_the_table(void **state)
{
	static const char *const params[] = { "capacity=536870912", "accesses=50000", NULL };
	struct hb_migrator_config mc = { .root = probe_root() };
	struct hb_daemon_env env = { .quiet = true,
				     .keep_capabilities = true,
				     .after_cycle = after_cycle,
				     .stop_cycles = RUN_CYCLES };
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	const struct hb_daemon_stats *s;
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };
	struct hb_config cfg;
	uint64_t total = 0;
	json_object *st;

	(void)state;
	loop_thread = pthread_self();
	assert_int_equal(sem_init(&let_go, 0, 0), 0);
	hb_test_emul_config(&cfg, params);
	cfg.threshold = 4;
	cfg.rate_mbps = 0;
	cfg.interval_ms = 10;
	assert_int_equal(hb_emulated_platform_new(&host, &env.platform, &err), 0);
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &mc, &env.migrator, &err), 0);
	assert_int_equal(hb_daemon_new(&cfg, &env, &d, &err), 0);
	host.d = d;
	assert_int_equal(hb_daemon_run(d, NULL), 0);
	s = hb_daemon_stats(d);
	print_message("# first batch %lu pages, held %llu cycles; records %llu -> %llu meanwhile; "
		      "%d calls, %lu pages in all\n",
		      (unsigned long)first_batch, (unsigned long long)w.cycles_held,
		      (unsigned long long)w.records_then, (unsigned long long)w.records_held,
		      (int)calls, (unsigned long)pages_asked);

	/* the batch was held on a thread of its own while the loop went on */
	assert_true(first_batch > 0);
	assert_int_equal(on_loop_thread, 0);
	assert_true(w.cycles_held >= HOLD_CYCLES);
	assert_true(w.records_held > w.records_then);
	/* no second batch while it was out, and none of it counted before its end */
	assert_int_equal(w.calls_held, 1);
	assert_int_equal(most_inside, 1);
	assert_int_equal(w.promoted_held, 0);
	/* folded once let go: every page asked for is counted, and moved */
	for (int c = 0; c < _HB_MIGRATE_CLASS_MAX; c++)
		total += s->migrated.by_class[c];
	assert_int_equal(total, pages_asked);
	assert_int_equal(s->migrated.by_class[HB_MIGRATE_MOVED], pages_asked);
	assert_true(s->promoted_bytes >= first_batch * 4096);
	st = hb_daemon_stats_json(d);
	assert_int_equal(json_u64(st, "latency_us", "move_batch", "batches"), calls);
	/* the held batch took at least the time it was seen held (it began before, ended after) */
	assert_true(json_u64(st, "latency_us", "move_batch", "max") >=
		    (w.let_go_ns - w.held_ns) / 1000);
	json_object_put(st);
	hb_daemon_free(d);
	sem_destroy(&let_go);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_runs_off_the_loop_while_records_reach_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
