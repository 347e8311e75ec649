/* SPDX-License-Identifier: MIT */
/*
 * Hotness over time by address, as SVG text (no library): one band per
 * address space (a memdev's DPA, or a region's HPA), columns the samples
 * in time order, rows equal slices of the space; a cell's colour is the
 * heat of its pages summed, averaged over the samples its column took (a
 * column of three samples is not three times as hot as one of two), on a
 * log scale to the hottest cell. Promotions
 * and demotions are marked on the cell of the page and sample they fell
 * in. Each cell is a <rect class="cell"> with data-space, data-col,
 * data-lo, data-hi (its addresses, hex, hi exclusive) and data-heat; each
 * mark a <rect class="promote"|"demote"> with data-space, data-col,
 * data-lo, data-hi and data-count, so that a test or a script can read it back.
 *
 * With shades set, colours take that many steps and ticks 4 opacities, and
 * cells (ticks) of one column that touch and share a colour (a class and an
 * opacity) are drawn as one: data-lo and data-hi span them all, data-heat
 * (data-count) is their sum. It keeps a long run's file small.
 */
#ifndef HB_HEATMAP_H
#define HB_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HB_HEATMAP_SPACES 16
#define HB_HEATMAP_ROWS_MAX 512

struct hb_heatmap_space {
	char name[32]; /* mem0, region0 */
	uint64_t size; /* bytes, > 0 */
};

struct hb_heatmap {
	const char *title;
	const char *axis;   /* "DPA" or "HPA offset" */
	const char *note;   /* NULL, or said after the legend (what is missing) */
	double col_s;       /* seconds a column stands for */
	size_t ncols, rows; /* rows per space */
	/* 0: every cell its own colour; else 2..256 steps, cells merged */
	unsigned int shades;
	struct hb_heatmap_space space[HB_HEATMAP_SPACES];
	size_t nspace;
	/* cells: nspace * rows * ncols heats; marks: as many counts each */
	double *heat;
	uint32_t *promote, *demote;
	uint32_t *samples; /* ncols: the samples each column took */
};

/* ncols columns of rows rows for each of the spaces already in h: -ENOMEM, -EINVAL */
int hb_heatmap_init(struct hb_heatmap *h, size_t ncols, size_t rows);
void hb_heatmap_done(struct hb_heatmap *h);
/* the space named name, or -1 */
int hb_heatmap_space(const struct hb_heatmap *h, const char *name);
/* one more sample into column col: its cells show their heat's mean over them */
void hb_heatmap_sample(struct hb_heatmap *h, size_t col);
/* heat at offset of space in column col; out of range is ignored */
void hb_heatmap_add(struct hb_heatmap *h, int space, size_t col, uint64_t offset, double heat);
void hb_heatmap_mark(struct hb_heatmap *h, int space, size_t col, uint64_t offset, bool demote);
/*
 * the SVG document, wide enough for its title and legend; -errno of the
 * write
 */
int hb_heatmap_svg(const struct hb_heatmap *h, FILE *f);

/*
 * From the control socket's heat reply (its "heat" object): the spaces,
 * each memdev's DPA or (by_hpa) each region's HPA, -EINVAL without any;
 * then a sample's pages into column col.
 */
struct json_object;
int hb_heatmap_spaces_from(struct hb_heatmap *h, struct json_object *heat, bool by_hpa);
/* a sample (hb_heatmap_sample) of the reply's pages into column col */
void hb_heatmap_add_from(struct hb_heatmap *h, struct json_object *heat, bool by_hpa, size_t col);

#endif
