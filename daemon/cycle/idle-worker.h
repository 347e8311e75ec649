/* SPDX-License-Identifier: MIT */
/*
 * The idle checks of a coldness source whose checks take long (coldness.h's
 * off_loop: page idle tracking's rmap walk a frame, about 1 us under TCG;
 * DAMON's sysfs round trips, which the kdamond serves at its next
 * aggregation), done by a job thread (job-thread.h), off the event loop's:
 * one round at a time over every placed page (check the marked ones, then
 * mark them all idle). The cycle starts a round when none runs and folds
 * the last one's answers in when it has finished; records keep flowing
 * meanwhile, and a page's idle count counts rounds. (The cycle spaces the
 * rounds by the CPU time they took, so that the thread takes at most
 * demote.idle_cpu_pct of a CPU.)
 *
 * The thread only calls the source's check_idle and mark_idle, on arrays
 * of its job; the census and everything else stay on the loop's thread
 * (coldness-live.c and coldness-damon.c keep their files and buffers
 * apart).
 */
#ifndef HB_IDLE_WORKER_H
#define HB_IDLE_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include "cycle/coldness.h"

struct hb_idle_worker;

/*
 * A worker for c (borrowed; it outlives the worker); serial NULL, or the
 * mutex a round holds (job-thread.h).
 */
int hb_idle_worker_new(const struct hb_coldness *c, pthread_mutex_t *serial,
		       struct hb_idle_worker **ret);
/* Waits for a running round, then stops the thread. */
struct hb_idle_worker *hb_idle_worker_free(struct hb_idle_worker *w);

/*
 * The job's arrays for a round of n pages, to fill before
 * hb_idle_worker_start(): pfn[i], and marked[i] true when pfn[i] was
 * marked idle before (only those are checked). -ENOMEM, or 0; -EBUSY
 * while a round runs or waits to be taken.
 */
int hb_idle_worker_prepare(struct hb_idle_worker *w, size_t n, uint64_t **pfn, bool **marked);
/* Runs the prepared round on the thread (wait: on the caller's, at once); 0 or -errno. */
int hb_idle_worker_start(struct hb_idle_worker *w, bool wait);
/* A round runs and has not finished. */
bool hb_idle_worker_busy(struct hb_idle_worker *w);
/*
 * A finished round's answers, once: its pages and, for the marked ones,
 * idle[i] (1: not accessed since marked); 0, -ENODATA when there is none
 * to take, or the source's error (-EAGAIN: nothing new yet, coldness.h).
 * The round took *took_ns, *cpu_ns of them on a CPU.
 */
int hb_idle_worker_take(struct hb_idle_worker *w, size_t *n, const uint64_t **pfn,
			const bool **marked, const uint8_t **idle, uint64_t *took_ns,
			uint64_t *cpu_ns);

#endif
