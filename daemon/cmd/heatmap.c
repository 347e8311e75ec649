// SPDX-License-Identifier: MIT
/* The heatmap's SVG (heatmap.h): cells binned by address and time, marks. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"

#define CELL_W 14.0
#define BAND_H 256.0
#define LEFT 120.0
#define TOP 48.0
#define GAP 28.0
/*
 * An em's share a character of sans-serif takes at most on average (DejaVu
 * Sans, the widest common default, averages about 0.55 em over text like
 * ours): the title (14 px) and the legend (11 px) are measured with it.
 */
#define CHAR_EM 0.62
#define TICK_SHADES 4

int hb_heatmap_init(struct hb_heatmap *h, size_t ncols, size_t rows)
{
	size_t n;

	if (!ncols || !rows || rows > HB_HEATMAP_ROWS_MAX || !h->nspace || ncols > 100000)
		return -EINVAL;
	for (size_t s = 0; s < h->nspace; s++)
		if (!h->space[s].size)
			return -EINVAL;
	h->ncols = ncols;
	h->rows = rows;
	n = h->nspace * rows * ncols;
	h->heat = calloc(n, sizeof(*h->heat));
	h->promote = calloc(n, sizeof(*h->promote));
	h->demote = calloc(n, sizeof(*h->demote));
	h->samples = calloc(ncols, sizeof(*h->samples));
	if (!h->heat || !h->promote || !h->demote || !h->samples) {
		hb_heatmap_done(h);
		return -ENOMEM;
	}
	return 0;
}

void hb_heatmap_done(struct hb_heatmap *h)
{
	free(h->heat);
	free(h->promote);
	free(h->demote);
	free(h->samples);
	h->heat = NULL;
	h->promote = h->demote = h->samples = NULL;
}

void hb_heatmap_sample(struct hb_heatmap *h, size_t col)
{
	if (col < h->ncols)
		h->samples[col]++;
}

int hb_heatmap_space(const struct hb_heatmap *h, const char *name)
{
	for (size_t s = 0; s < h->nspace; s++)
		if (!strcmp(h->space[s].name, name))
			return (int)s;
	return -1;
}

/* the cell of offset in space s, column col, or -1 */
static long cell(const struct hb_heatmap *h, int s, size_t col, uint64_t offset)
{
	uint64_t row;

	if (s < 0 || (size_t)s >= h->nspace || col >= h->ncols || offset >= h->space[s].size)
		return -1;
	row = (uint64_t)((unsigned __int128)offset * h->rows / h->space[s].size);
	return (long)(((size_t)s * h->rows + row) * h->ncols + col);
}

void hb_heatmap_add(struct hb_heatmap *h, int space, size_t col, uint64_t offset, double heat)
{
	long c = cell(h, space, col, offset);

	if (c >= 0 && heat > 0)
		h->heat[c] += heat;
}

void hb_heatmap_mark(struct hb_heatmap *h, int space, size_t col, uint64_t offset, bool demote)
{
	long c = cell(h, space, col, offset);

	if (c >= 0)
		(demote ? h->demote : h->promote)[c]++;
}

/* the first address of row r of space s */
static uint64_t row_lo(const struct hb_heatmap *h, size_t s, size_t r)
{
	return (uint64_t)(((unsigned __int128)h->space[s].size * r + h->rows - 1) / h->rows);
}

/* cold (dark blue) to hot (yellow-white) on t in [0, 1] */
static void colour(double t, char *buf, size_t size)
{
	static const double stop[][3] = {
		{ 20, 24, 82 },   { 120, 28, 109 },  { 222, 73, 49 },
		{ 252, 200, 40 }, { 255, 255, 220 },
	};
	double x = t * 4;
	int i = x >= 4 ? 3 : (int)x;
	double f = x - i;

	snprintf(buf, size, "#%02x%02x%02x",
		 (unsigned int)(stop[i][0] + (stop[i + 1][0] - stop[i][0]) * f),
		 (unsigned int)(stop[i][1] + (stop[i + 1][1] - stop[i][1]) * f),
		 (unsigned int)(stop[i][2] + (stop[i + 1][2] - stop[i][2]) * f));
}

/* cell i's heat: its sum over the samples of its column, averaged */
static double cell_heat(const struct hb_heatmap *h, size_t i)
{
	uint32_t k = h->samples[i % h->ncols];

	return k > 1 ? h->heat[i] / k : h->heat[i];
}

/* a cell's place on the colour scale, in shades steps when set */
static double shade(const struct hb_heatmap *h, double heat, double min, double max)
{
	double t = max > min ? (log1p(heat) - log1p(min)) / (log1p(max) - log1p(min)) : 1;
	unsigned int l;

	if (h->shades < 2)
		return t;
	l = (unsigned int)(t * h->shades);
	return (double)(l < h->shades ? l : h->shades - 1) / (h->shades - 1);
}

/* a tick's opacity for cnt moves, in TICK_SHADES steps when shades is set */
static double opacity(const struct hb_heatmap *h, uint32_t cnt, uint32_t most)
{
	unsigned int l;

	if (!h->shades)
		return 0.2 + 0.8 * cnt / most;
	l = (unsigned int)((double)cnt / most * TICK_SHADES);
	return 0.2 + 0.8 * (double)((l < TICK_SHADES ? l : TICK_SHADES - 1) + 1) / TICK_SHADES;
}

/* the cells run() and alike() look at: heats (moves NULL), or move counts */
struct values {
	const uint32_t *moves;
	double min, max;
	uint32_t most;
};

/* whether cells i and j are drawn alike: both present, one colour or opacity */
static bool alike(const struct hb_heatmap *h, const struct values *v, size_t i, size_t j)
{
	if (!v->moves)
		return cell_heat(h, j) > 0 && shade(h, cell_heat(h, j), v->min, v->max) ==
						      shade(h, cell_heat(h, i), v->min, v->max);
	return v->moves[j] && opacity(h, v->moves[j], v->most) == opacity(h, v->moves[i], v->most);
}

/*
 * How many rows the cell i (row r) draws: 0 when it is empty or, with
 * shades, continues the cell above it; else 1, or with shades, 1 and the
 * cells below it in its column that are drawn alike.
 */
static size_t run(const struct hb_heatmap *h, const struct values *v, size_t i, size_t r)
{
	size_t k = 1;

	if (!v->moves ? !(cell_heat(h, i) > 0) : !v->moves[i])
		return 0;
	if (!h->shades)
		return 1;
	if (r > 0 && alike(h, v, i, i - h->ncols))
		return 0;
	while (r + k < h->rows && alike(h, v, i, i + k * h->ncols))
		k++;
	return k;
}

/* text's width in px at font size px, at most (CHAR_EM an average character) */
static double text_w(const char *text, double px)
{
	size_t chars = 0;

	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		chars += (*c & 0xc0) != 0x80; /* UTF-8: count characters, not bytes */
	return (double)chars * px * CHAR_EM;
}

int hb_heatmap_svg(const struct hb_heatmap *h, FILE *f)
{
	const char *title = h->title ? h->title : "hotbridge heatmap";
	double row_h = BAND_H / (double)h->rows, width = LEFT + CELL_W * (double)h->ncols + 40;
	double height = TOP + (BAND_H + GAP) * (double)h->nspace + 40, max = 0, min = 0;
	uint32_t most = 1; /* the most moves a cell, for the ticks' opacity */
	size_t n = h->nspace * h->rows * h->ncols;
	char fill[16], legend[512];
	bool uneven = false; /* columns of unlike numbers of samples */
	struct values heat;

	for (size_t i = 0; i < n; i++) {
		double v = cell_heat(h, i);

		if (v > max)
			max = v;
		if (v > 0 && (!min || v < min))
			min = v;
		most = h->promote[i] > most ? h->promote[i] : most;
		most = h->demote[i] > most ? h->demote[i] : most;
	}
	for (size_t c = 1; c < h->ncols; c++)
		uneven |= h->samples[c] != h->samples[0];
	if (max > 0)
		snprintf(legend, sizeof(legend),
			 "heat summed per cell (a column's samples averaged), log scale from %.3g "
			 "(dark) to %.3g (light); columns %g s %s, oldest left; green tick: "
			 "promoted, cyan tick: demoted%s%s",
			 min, max, h->col_s, uneven ? "on average" : "each", h->note ? "; " : "",
			 h->note ? h->note : "");
	else
		snprintf(legend, sizeof(legend),
			 "no heat: no page of the hotness table in these samples; columns %g s %s, "
			 "oldest left; green tick: promoted, cyan tick: demoted%s%s",
			 h->col_s, uneven ? "on average" : "each", h->note ? "; " : "",
			 h->note ? h->note : "");
	/* wide enough for the title and the legend, which start at LEFT */
	if (width < LEFT + text_w(title, 14) + 20)
		width = LEFT + text_w(title, 14) + 20;
	if (width < LEFT + text_w(legend, 11) + 20)
		width = LEFT + text_w(legend, 11) + 20;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\" "
		"data-columns=\"%zu\" data-rows=\"%zu\" data-column-seconds=\"%g\" data-max-heat=\"%g\">\n",
		width, height, width, height, h->ncols, h->rows, h->col_s, max);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">", LEFT);
	for (const char *c = title; *c; c++)
		fputs(*c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[2]){ *c, 0 }, f);
	fprintf(f, "</text>\n<text x=\"%.0f\" y=\"36\" fill=\"#555\">", LEFT);
	for (const char *c = legend; *c; c++)
		fputs(*c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[2]){ *c, 0 }, f);
	fputs("</text>\n", f);
	heat = (struct values){ .min = min, .max = max };
	for (size_t s = 0; s < h->nspace; s++) {
		double y0 = TOP + (BAND_H + GAP) * (double)s;

		fprintf(f, "<g class=\"space\" data-space=\"%s\" data-size=\"0x%llx\">\n",
			h->space[s].name, (unsigned long long)h->space[s].size);
		fprintf(f,
			"<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#14184f\"/>\n",
			LEFT, y0, CELL_W * (double)h->ncols, BAND_H);
		fprintf(f, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", y0 + 12,
			h->space[s].name);
		fprintf(f, "<text x=\"8\" y=\"%.1f\">%s 0x0</text>\n", y0 + 26, h->axis);
		fprintf(f, "<text x=\"8\" y=\"%.1f\">0x%llx</text>\n", y0 + BAND_H,
			(unsigned long long)h->space[s].size);
		for (size_t r = 0; r < h->rows; r++) {
			/* low addresses at the top of the band */
			double y = y0 + row_h * (double)r;

			for (size_t c = 0; c < h->ncols; c++) {
				size_t i = (s * h->rows + r) * h->ncols + c;
				double x = LEFT + CELL_W * (double)c;
				unsigned long long lo = row_lo(h, s, r);
				size_t k = run(h, &heat, i, r);

				if (k) {
					double sum = 0;

					/* merged cells: their heats summed, as scripts add them */
					for (size_t j = 0; j < k; j++)
						sum += cell_heat(h, i + j * h->ncols);
					colour(shade(h, cell_heat(h, i), min, max), fill,
					       sizeof(fill));
					fprintf(f,
						"<rect class=\"cell\" x=\"%g\" y=\"%g\" width=\"%g\" "
						"height=\"%g\" fill=\"%s\" data-space=\"%s\" "
						"data-col=\"%zu\" data-lo=\"0x%llx\" data-hi=\"0x%llx\" "
						"data-heat=\"%.4g\"/>\n",
						x, y, CELL_W, row_h * (double)k, fill,
						h->space[s].name, c, lo,
						(unsigned long long)row_lo(h, s, r + k), sum);
				}
				for (int m = 0; m < 2; m++) {
					const uint32_t *moves = m ? h->demote : h->promote;
					struct values mv = { .moves = moves, .most = most };
					double th;
					uint32_t cnt = 0;

					k = run(h, &mv, i, r);
					if (!k)
						continue;
					for (size_t j = 0; j < k; j++)
						cnt += moves[i + j * h->ncols];
					th = row_h * (double)k;
					/*
					 * a tick at the cell's left (promote) or right
					 * (demote) edge, the more opaque the more moves
					 */
					fprintf(f,
						"<rect class=\"%s\" x=\"%g\" y=\"%g\" width=\"2\" "
						"height=\"%g\" fill=\"%s\" fill-opacity=\"%.2f\" "
						"data-space=\"%s\" data-col=\"%zu\" data-lo=\"0x%llx\" "
						"data-hi=\"0x%llx\" data-count=\"%u\"/>\n",
						m ? "demote" : "promote", m ? x + CELL_W - 2 : x, y,
						th < 2 ? 2 : th, m ? "#00e5ff" : "#39ff14",
						opacity(h, moves[i], most), h->space[s].name, c, lo,
						(unsigned long long)row_lo(h, s, r + k), cnt);
				}
			}
		}
		fprintf(f, "</g>\n");
	}
	fprintf(f,
		"<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">time \xe2\x86\x92 (%zu columns)</text>\n"
		"</svg>\n",
		LEFT, height - 12, h->ncols);
	return ferror(f) ? -EIO : 0;
}
