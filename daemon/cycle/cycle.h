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

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "kernel.h"

struct hb_daemon;
struct hb_idle_worker;

/* the most candidates a cycle takes from the table, and so a batch's size */
#define MAX_CANDIDATES 65536

/**
 * struct hb_cycle_scratch - a batch's arrays, MAX_CANDIDATES entries each
 * @cand: the table's candidates (the promotion cycle's input)
 * @dec: the decisions on them, the policy's or the demoter's
 * @hpa: the pages hb_daemon_move() hands to the migrator, in order
 * @tnode: each page's target node
 * @snode: each page's source node
 * @status: each page's result from the migrator (a node or -errno)
 *
 * Promotion and demotion fill @dec, hb_daemon_move() the rest; a step's
 * results are read before the next step overwrites them.
 */
struct hb_cycle_scratch {
	struct hb_candidate *cand;
	struct hb_decision *dec;
	uint64_t *hpa;
	int *tnode, *snode, *status;
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
 * @census_sample: live hosts: the sample each node's census reads
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
	uint64_t census_sample[HB_MAX_NODES];
};

/* cycle/move.c: allocates every array; 0 or -ENOMEM (the rest then NULL or freed by _done) */
int hb_cycle_scratch_init(struct hb_cycle_scratch *s);
/* frees the arrays (any of them may be NULL) */
void hb_cycle_scratch_done(struct hb_cycle_scratch *s);

/* cycle/nodes.c */
int hb_daemon_refresh_nodes(struct hb_daemon *d);
/*
 * cycle/move.c: d->scratch.dec[0..n) counted by reason; those with reason
 * `acted` handed to the migrator in one batch (d->scratch's hpa, tnode,
 * snode, status hold them), folded into ret_counts (zeroed by the caller)
 * and added to total. With freed non-NULL, -ENOENT (no process's page in
 * the frame any more: freed since it was chosen) is counted there
 * instead, neither a class nor an error. Returns how many.
 */
size_t hb_daemon_move(struct hb_daemon *d, size_t n, enum hb_reason acted, const char *what,
		      struct hb_migrate_counts *ret_counts, struct hb_migrate_counts *total,
		      uint64_t *freed);

/* cycle/move.c: a step's n decisions and its np moves' status, into the history */
void hb_daemon_record_step(struct hb_daemon *d, size_t n, size_t np);

#endif
