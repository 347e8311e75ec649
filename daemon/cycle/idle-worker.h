/* SPDX-License-Identifier: MIT */
/*
 * The idle checks of a coldness source whose checks cost the kernel work
 * per frame (page idle tracking: an rmap walk a frame, about 0.2 ms under
 * TCG), done by a thread of their own, off the event loop's: one job at a
 * time, a round over every placed page (check the marked ones, then mark
 * them all idle). The cycle starts a round when none runs and folds the
 * last one's answers in when it has finished; records keep flowing
 * meanwhile, and a page's idle count counts rounds. (The cycle spaces the
 * rounds so that the thread takes at most demote.idle_cpu_pct of a CPU.)
 *
 * The thread only calls the source's check_idle and mark_idle, on arrays
 * of its job; the census and everything else stay on the loop's thread
 * (coldness-live.c keeps their files and buffers apart).
 */
#ifndef HB_IDLE_WORKER_H
#define HB_IDLE_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cycle/coldness.h"

struct hb_idle_worker;

/* A worker for c (borrowed; it outlives the worker). */
int hb_idle_worker_new(const struct hb_coldness *c, struct hb_idle_worker **ret);
/* Waits for a running round, then stops the thread. */
struct hb_idle_worker *hb_idle_worker_free(struct hb_idle_worker *w);

/*
 * The job's arrays for a round of n pages, to fill before
 * hb_idle_worker_start(): pfn[i], and marked[i] true when pfn[i] was
 * marked idle before (only those are checked). -ENOMEM, or 0; -EBUSY
 * while a round runs.
 */
int hb_idle_worker_prepare(struct hb_idle_worker *w, size_t n, uint64_t **pfn, bool **marked);
/* Runs the prepared round on the thread (wait: on the caller's, at once). */
void hb_idle_worker_start(struct hb_idle_worker *w, bool wait);
/* A round runs and has not finished. */
bool hb_idle_worker_busy(struct hb_idle_worker *w);
/*
 * A finished round's answers, once: its pages and, for the marked ones,
 * idle[i] (1: not accessed since marked); 0, -ENODATA when there is none
 * to take, or the source's error. The round took *took_ns.
 */
int hb_idle_worker_take(struct hb_idle_worker *w, size_t *n, const uint64_t **pfn,
			const bool **marked, const uint8_t **idle, uint64_t *took_ns);

#endif
