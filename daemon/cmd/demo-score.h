/* SPDX-License-Identifier: MIT */
/*
 * hotbridge demo's score (demo-score.c), from the emulated CHMUs' ground
 * truth. The hot set of a cycle is the pages that drew 80 % of the accesses
 * of the last `window` cycles (fewer at the start); it moves with the
 * workload. Each cycle:
 *  - every page promoted in it is scored against that cycle's hot set: a
 *    promotion is right when its page was hot then (what the daemon could
 *    know), not when it is hot over the whole run, which depends on the
 *    run's length (newuser r4 D22: 0.927 at 30 cycles, 0.693 at 100);
 *  - from cycle `from` on, the pages on DRAM (promoted, not demoted since)
 *    are scored against it.
 */
#ifndef HB_DEMO_SCORE_H
#define HB_DEMO_SCORE_H

#include <stddef.h>

#include "daemon.h"
#include "demo-oracle.h"

#define HB_DEMO_SCORE_LAST 10 /* cycles averaged */

struct hb_demo_figures {
	size_t hot, on_dram, hits;
	double precision, recall;
};

struct hb_demo_score {
	unsigned int window; /* cycles of accesses that define the hot set */
	uint32_t *snap[2];   /* per memdev: (window + 1) snapshots of its truth */
	size_t nunits[2];
	uint64_t unit, cycles;
	struct hb_demo_figures last;      /* at the latest cycle scored */
	double sum_precision, sum_recall; /* over the cycles scored */
	size_t scored;
	int cxl_node;                    /* a dry-run record to another node is a promotion */
	size_t records_seen;             /* dry-run records scored so far */
	uint64_t promoted, promoted_hot; /* promotions, and those of a page hot in their cycle */
	struct hb_demo_oracle oracle;    /* told each cycle's hot set when its room is set */
};

/*
 * After each cycle: a snapshot of the ground truth, the cycle's promotions
 * scored against its hot set; from cycle `from` on the pages on DRAM are
 * scored too (t: the emulated topology, for HPAs). The oracle, when
 * hb_demo_oracle_init() set it up, is told every cycle's hot set and scored
 * on the same cycles.
 * 0 or -errno (-ENOENT: no emulated CHMU on mem0/mem1).
 */
int hb_demo_score_cycle(struct hb_demo_score *s, struct hb_daemon *d, const struct hb_topology *t,
			uint64_t from);
/* After the last cycle: the oracle steps it. 0 or -ENOMEM. */
int hb_demo_score_finish(struct hb_demo_score *s);
void hb_demo_score_done(struct hb_demo_score *s);

#endif
