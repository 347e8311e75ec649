/* SPDX-License-Identifier: MIT */
/*
 * hotbridge demo's oracle (demo-oracle.c): what a clairvoyant policy held to
 * the daemon's own limits reaches, so the demo's recall can be read against
 * what was possible.
 *
 * Each cycle the oracle is told that cycle's hot set (the pages scored as
 * hot, hottest first) and the next cycle's: it knows the future, which the
 * daemon cannot. It promotes the current hot set's pages first, hottest
 * first, then the next cycle's, at most `promote` pages a cycle from a
 * bucket `depth` deep (the daemon's rate_mbps and burst_mb), never holding
 * more than `room` pages on DRAM (the room above the watermark). When DRAM is
 * full it demotes at most `demote` pages a cycle (the daemon's
 * demote_rate_pages), those in neither hot set first, and never a page of
 * the current hot set. Its recall in a cycle is the share of that cycle's
 * hot set on DRAM after the cycle's moves: the daemon's recall is measured
 * the same way (demo-score.c).
 */
#ifndef HB_DEMO_ORACLE_H
#define HB_DEMO_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hb_demo_oracle_set {
	uint64_t *slot; /* open addressing; 0 is free (a page's HPA is never 0 here) */
	size_t mask, len;
};

struct hb_demo_oracle {
	double room;                      /* pages DRAM may hold */
	double promote, depth, tokens;    /* promotions: a cycle, the bucket, now */
	double demote, dtokens;           /* demotions: a cycle, now (depth: one cycle) */
	struct hb_demo_oracle_set placed; /* pages on DRAM */
	uint64_t *pending;                /* the hot set of the cycle not stepped yet */
	size_t npending;
	bool has_pending, pending_scored;
	double last_recall, sum_recall; /* at the last scored cycle; over the scored cycles */
	size_t scored;
	uint64_t promoted, demoted;
};

/* An oracle with those limits (pages; promote > 0, room >= 1). 0 or -EINVAL. */
int hb_demo_oracle_init(struct hb_demo_oracle *o, double room, double promote, double depth,
			double demote);

/*
 * A cycle's hot set (HPAs of 4 KiB pages, hottest first; copied): steps the
 * cycle before it, with this one as its lookahead. `scored`: this cycle's
 * recall counts in the mean. 0 or -ENOMEM.
 */
int hb_demo_oracle_cycle(struct hb_demo_oracle *o, const uint64_t *hot, size_t n, bool scored);

/* Steps the last cycle (no lookahead). 0 or -ENOMEM. */
int hb_demo_oracle_finish(struct hb_demo_oracle *o);

/* The mean recall over the scored cycles (0 when none). */
double hb_demo_oracle_recall(const struct hb_demo_oracle *o);

void hb_demo_oracle_done(struct hb_demo_oracle *o);

#endif
