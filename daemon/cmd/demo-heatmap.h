/* SPDX-License-Identifier: MIT */
/*
 * `hotbridge demo --heatmap FILE`: the demo's hotness by memdev DPA, a
 * column a cycle (several a column past HB_DEMO_HEATMAP_COLS cycles), from
 * the daemon's heat reply (its hottest pages) after each cycle, and its
 * promotions and demotions from the dry-run migrator's records. Coarse
 * rows and merged cells keep the file small (contrib/demo-heatmap.svg, the
 * README's picture: at most 200 KB, tests/integration/heatmap.sh).
 */
#ifndef HB_DEMO_HEATMAP_H
#define HB_DEMO_HEATMAP_H

#include <stdint.h>
#include <stdio.h>

#include "heatmap.h"

#define HB_DEMO_HEATMAP_COLS 300
#define HB_DEMO_HEATMAP_PAGES 8192 /* the hottest pages a cycle */
#define HB_DEMO_HEATMAP_ROWS 16    /* 32 MiB of DPA a row */
#define HB_DEMO_HEATMAP_SHADES 16  /* colour steps; like cells merged (heatmap.h) */

struct hb_daemon;
struct hb_topology;

struct hb_demo_heatmap {
	struct hb_heatmap h;
	uint64_t cycles;   /* the run's */
	size_t moves_seen; /* dry-run records drawn */
	int rc;            /* the first error, -errno */
};

/* after cycle (1-based) of cycles: the heat and the moves of that cycle */
void hb_demo_heatmap_cycle(struct hb_demo_heatmap *m, struct hb_daemon *d,
			   const struct hb_topology *t, uint64_t cycle, int cxl_node);
/* the SVG to f (from its start); -errno (a failure during the run, or the write) */
int hb_demo_heatmap_write(struct hb_demo_heatmap *m, FILE *f, uint64_t seed);
void hb_demo_heatmap_done(struct hb_demo_heatmap *m);

#endif
