/* SPDX-License-Identifier: MIT */
/*
 * hotbridge demo's score (demo-score.c): the pages on DRAM (promoted, not
 * demoted since) against the current hot set, from the emulated CHMUs'
 * ground truth. The hot set at a cycle is the pages that drew 80 % of the
 * accesses of the last `window` cycles.
 */
#ifndef HB_DEMO_SCORE_H
#define HB_DEMO_SCORE_H

#include <stddef.h>

#include "daemon.h"

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
};

/*
 * After each cycle: a snapshot of the ground truth; from cycle `from` on
 * the pages on DRAM are scored too (t: the emulated topology, for HPAs).
 * 0 or -errno (-ENOENT: no emulated CHMU on mem0/mem1).
 */
int hb_demo_score_cycle(struct hb_demo_score *s, struct hb_daemon *d, const struct hb_topology *t,
			uint64_t from);
void hb_demo_score_done(struct hb_demo_score *s);

#endif
