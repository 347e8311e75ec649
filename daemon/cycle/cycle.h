/* SPDX-License-Identifier: MIT */
/*
 * The daemon's cycle stage (cycle/): decide -> migrate -> fold (cycle.c),
 * its demotion step (demote-step.c), one batch of moves for either
 * (move.c), the nodes refreshed (nodes.c). The batch's scratch arrays are
 * struct hb_cycle_scratch, a member of struct hb_daemon
 * (daemon-private.h), shared by promotion and demotion through
 * hb_daemon_move(); the demotion step's state is struct hb_demotion. Not
 * installed, not for commands.
 */
#ifndef HB_DAEMON_CYCLE_H
#define HB_DAEMON_CYCLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "kernel.h"

struct event;
struct hb_daemon;
struct hb_idle_worker;
struct hb_job_thread;

/* the most candidates a cycle takes from the table, and so a batch's size */
#define MAX_CANDIDATES 65536

enum hb_batch_kind {
	HB_BATCH_NONE,
	HB_BATCH_DEMOTE, /* promotion follows its fold */
	HB_BATCH_PROMOTE,
	HB_BATCH_DEMOTE_DECIDE,  /* no moves: the demotion's decision; its batch follows */
	HB_BATCH_PROMOTE_DECIDE, /* no moves: the promotion's decision; its batch follows */
	/*
	 * no moves, no thread: the demotion step's work on the loop (census,
	 * coldness), a slice of the loop's turn at a time; its decision follows
	 */
	HB_BATCH_DEMOTE_PREP,
};

/**
 * struct hb_cycle_scratch - a batch's arrays, MAX_CANDIDATES entries each,
 * and the batch of moves they make, off the event loop (move.c)
 * @cand: the table's candidates (the promotion cycle's input)
 * @dec: the decisions on them, the policy's or the demoter's
 * @hpa: the pages hb_daemon_move_start() hands to the migrator, in order
 * @tnode: each page's target node
 * @snode: each page's source node
 * @status: each page's result from the migrator (a node or -errno)
 * @kind: the batch handed over and not yet folded, or HB_BATCH_NONE
 * @n: its step's decisions
 * @np: the pages in it
 * @t0: the rule clock of the cycle that decided it
 * @started_ns: handed over, machine clock
 * @done_ns: finished (the migrator returned), machine clock
 * @work: a job other than moves (the demotion's decision), or NULL
 * @r: the migrator's return
 * @err: its error
 * @job: the thread the batch runs on (job-thread.h); NULL until the first
 * @ev: the loop's watch on @job's fd: a finished batch is folded at once
 * @serial: held by a batch, and by an idle round of a DAMON coldness
 *	source: DAMON sysfs serves one command at a time (job-thread.h)
 * @damon: the damon migrator's counters at the hand-over, which reports
 *	read while the batch runs (the migrator's own are the thread's)
 * @damon_valid: @damon was read
 * @folding: the batch being folded (taken, its fold not yet over), or
 *	HB_BATCH_NONE: a large batch's fold goes a slice of the loop's turn at
 *	a time (FOLD_SLICE_NS), as ingestion does
 * @fold_next: the next page to fold
 * @fold_mc: the batch's counts, folded at its take
 * @fold_freed: demotions: pages freed before the move
 * @fold_ev: the loop's zero-timeout timer for the next slice
 * @pd: the promotion's decision on the batch thread (HB_BATCH_PROMOTE_DECIDE):
 *	its input as the cycle left it (@cand's first n, the nodes, their
 *	distances, the rules), what its promotions spend, the loop's time
 *	gathering and the thread's sorting and deciding
 * @line: the cycle line's figures from its promotion: decisions, pages,
 *	rate-limited, below the watermark, that cycle and its time, and
 *	whether the line waits for the promotion's fold
 *
 * Promotion and demotion fill @dec, hb_daemon_move_start() the rest; a
 * step's results are read before the next step overwrites them, and while
 * a batch is out (@kind) no step runs: its arrays are the thread's.
 */
struct hb_cycle_scratch {
	struct hb_candidate *cand;
	struct hb_decision *dec;
	uint64_t *hpa;
	int *tnode, *snode, *status;
	enum hb_batch_kind kind;
	size_t n, np;
	uint64_t t0, started_ns, done_ns;
	void (*work)(struct hb_daemon *d);
	int r;
	struct hb_err err;
	struct hb_job_thread *job;
	struct event *ev;
	pthread_mutex_t serial;
	struct hb_damon_stats damon;
	bool damon_valid;
	enum hb_batch_kind folding;
	size_t fold_next;
	struct hb_migrate_counts fold_mc;
	uint64_t fold_freed;
	struct event *fold_ev;
	struct {
		struct hb_numa_node nodes[HB_MAX_NODES];
		uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
		struct hb_policy_config cfg;
		size_t n, nq; /* candidates for the policy; quarantined ones after them */
		struct hb_policy_spent spent;
		uint64_t gather_ns, took_ns;
		uint64_t reloads; /* topology rebuilds before the gather */
	} pd;
	struct {
		size_t n, np;
		uint64_t rate_limited, watermark, cycle;
		double ms;
		bool deferred;
		struct hb_migrate_counts mc;
	} line;
};

/* a finished idle round taken and being folded, a slice of the loop's turn at a time (demote-step.c) */
struct hb_idle_round {
	const uint64_t *pfn; /* the worker's arrays, the loop's until the next round */
	const bool *was;
	const uint8_t *idle;
	size_t n, next; /* its pages, the next to fold */
	bool open;      /* taken, not all folded */
};

/**
 * struct hb_demote_prep - one demotion step's work on the loop, which goes
 * in slices of the loop's turn (demote-step.c's hb_daemon_demote_prep())
 * @phase: census, a finished idle round's fold, the next round's frames,
 *	the decision (demote-step.c's STEP_*)
 * @t0: the rule clock of the cycle that began the step
 * @node: census: the node it reads ...
 * @seen: ... the frames of it read this step ...
 * @node_done: ... and whether this step is done with it
 * @n: the next round's frames: how many ...
 * @k: ... copied so far ...
 * @cursor: ... the placed table's cursor ...
 * @pfn: ... and the worker's arrays they go to
 * @marked: (each frame marked idle before)
 * @census_ns: the step's time in the census ...
 * @coldness_ns: ... in coldness ...
 * @loop_ns: ... and on the loop in all
 */
struct hb_demote_prep {
	int phase;
	uint64_t t0;
	int node;
	uint64_t seen;
	bool node_done;
	size_t n, k, cursor;
	uint64_t *pfn;
	bool *marked;
	uint64_t census_ns, coldness_ns, loop_ns;
};

/**
 * struct hb_demotion - the demotion step's state (demote-step.c)
 * @placed: the pages on DRAM that may be demoted; NULL when demotion is off
 * @demoter: the rules' state (core/demote.c)
 * @dcfg: the rules' configuration, from [demote]
 * @backoff_until: a demotion from this DRAM node failed: rest it until then
 * @pfn: coldness buffers: the frames asked about ...
 * @idle: ... and the answers
 * @pfn_cap: their size
 * @census: live hosts: one census window's movable frames
 * @census_cap: its size
 * @idle_worker: per-frame coldness (page idle tracking): rounds off the loop
 * @idle_next_ns: the next round not before (machine clock)
 * @round: the round being folded: a step folds it whole, in slices,
 *	and the next round starts once it is all folded
 * @census_sample: live hosts: the sample each node's census reads
 * @step: the step under way
 * @decision: the decision made on the batch thread (HB_BATCH_DEMOTE_DECIDE):
 *	its input as the step left it (the nodes, the rules, the nodes not
 *	backed off), then its decisions' number, what they spend and its time
 */
struct hb_demotion {
	struct hb_placed *placed;
	struct hb_demoter *demoter;
	struct hb_demote_config dcfg;
	uint64_t backoff_until[HB_MAX_NODES];
	uint64_t *pfn;
	uint8_t *idle;
	size_t pfn_cap;
	uint64_t *census;
	size_t census_cap;
	struct hb_idle_worker *idle_worker;
	uint64_t idle_next_ns;
	struct hb_idle_round round;
	uint64_t census_sample[HB_MAX_NODES];
	struct hb_demote_prep step;
	struct {
		struct hb_numa_node nodes[HB_MAX_NODES];
		struct hb_demote_config cfg;
		uint64_t mask;
		size_t n;
		struct hb_demote_spent spent;
		uint64_t took_ns;
	} decision;
};

/* cycle/move.c: allocates every array; 0 or -ENOMEM (the rest then NULL or freed by _done) */
int hb_cycle_scratch_init(struct hb_cycle_scratch *s);
/* waits for a batch out (not folded), stops its thread, frees the arrays (any may be NULL) */
void hb_cycle_scratch_done(struct hb_cycle_scratch *s);

/* cycle/nodes.c */
int hb_daemon_refresh_nodes(struct hb_daemon *d);
/*
 * cycle/move.c: d->scratch.dec[0..n) counted by reason; those with reason
 * `acted` handed to the migrator in one batch of `kind` (d->scratch's hpa,
 * tnode, snode hold them), decided at rule clock t0. In the event loop,
 * once hb_daemon_batch_watch() set the watch up, the batch runs on the
 * batch thread: true, it is out. Otherwise (one cycle at a time, no
 * thread) it runs at once, and with no page to move there is nothing to
 * run: false, it has finished. Either way hb_daemon_batch_take() says when
 * it is to be folded.
 */
bool hb_daemon_move_start(struct hb_daemon *d, size_t n, enum hb_reason acted,
			  enum hb_batch_kind kind, uint64_t t0);
/*
 * work(d) on the batch thread as a batch of kind, no moves (the demotion's
 * decision): out, as hb_daemon_move_start() says; its take is the caller's
 */
bool hb_daemon_job_start(struct hb_daemon *d, enum hb_batch_kind kind,
			 void (*work)(struct hb_daemon *d), uint64_t t0);
/* the batch job, no thread yet (job-thread.h), for the watch; 0 or -errno */
int hb_daemon_batch_job(struct hb_daemon *d);
/* a batch is out: handed over and not yet folded */
bool hb_daemon_batch_out(const struct hb_daemon *d);
/*
 * The kind of the batch that has finished, once (its fold is the caller's),
 * or HB_BATCH_NONE when none has (none out, or still running).
 */
enum hb_batch_kind hb_daemon_batch_take(struct hb_daemon *d);
/* waits for a batch on the thread to finish */
void hb_daemon_batch_wait(struct hb_daemon *d);
/*
 * The finished batch's results (d->scratch's status) folded into
 * ret_counts (zeroed by the caller) and added to total; what names it in
 * an error. With freed non-NULL, -ENOENT (no process's page in the frame
 * any more: freed since it was chosen) is counted there instead, neither a
 * class nor an error. Returns how many pages.
 */
size_t hb_daemon_move_fold(struct hb_daemon *d, const char *what,
			   struct hb_migrate_counts *ret_counts, struct hb_migrate_counts *total,
			   uint64_t *freed);
/* the damon migrator's counters, as they were at the hand-over while a batch is out */
int hb_daemon_damon_stats(const struct hb_daemon *d, struct hb_damon_stats *ret);

/*
 * cycle/cycle.c: a finished batch folded (the kind's fold: demote-step.c's,
 * cycle.c's), and after a demotion, with chain, the promotion decided and
 * handed over; nothing when none has finished. The loop's watch calls it,
 * and the cycle.
 */
void hb_daemon_batch_done(struct hb_daemon *d, bool chain);
/* the loop's watch on the batch thread (hb_daemon_run()); 0 or -errno */
int hb_daemon_batch_watch(struct hb_daemon *d);
/*
 * waits for a batch out and folds it whole, no promotion after (the loop
 * ended; a pause)
 */
void hb_daemon_batch_settle(struct hb_daemon *d);

/*
 * cycle/demote-step.c: the decision that hb_daemon_demote_step() handed
 * over, once taken: charged, its stats counted; its decisions in
 * d->scratch.dec, the number returned, for hb_daemon_move_start()
 */
size_t hb_daemon_demote_decided(struct hb_daemon *d);
/*
 * cycle/demote-step.c: the demotion batch's fold, from d->scratch.fold_next
 * until the machine clock passes until (0: no limit); true once over
 */
bool hb_daemon_demote_fold(struct hb_daemon *d, uint64_t until);
/*
 * cycle/demote-step.c: the demotion step's work (HB_BATCH_DEMOTE_PREP)
 * until the machine clock passes until (0: no limit): -EINPROGRESS, its
 * slice is over and it goes on at the next call; 1, its decision was
 * handed over (a batch of HB_BATCH_DEMOTE_DECIDE); 0, no demotion this
 * cycle (the coldness source failed: logged, counted)
 */
int hb_daemon_demote_prep(struct hb_daemon *d, uint64_t until);

/*
 * a fold checks the clock every FOLD_EVERY pages (under TCG a page's fold
 * took up to 150 us: 256 pages a check let a 5 ms slice last 40 ms)
 */
#define FOLD_EVERY 32

/*
 * In a fold at page i: true when its slice is over (the machine clock past
 * until, 0: never), the fold to go on from i (s->fold_next)
 */
static inline bool hb_fold_pause(struct hb_cycle_scratch *s, size_t i, uint64_t until)
{
	if (!until || i % FOLD_EVERY || i == s->fold_next || hb_now_ns() <= until)
		return false;
	s->fold_next = i;
	return true;
}

/* cycle/move.c: a step's n decisions and its np moves' status, into the history */
void hb_daemon_record_step(struct hb_daemon *d, size_t n, size_t np);

#endif
