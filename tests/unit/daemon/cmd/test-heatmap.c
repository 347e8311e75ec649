// SPDX-License-Identifier: MIT
/*
 * daemon/cmd/heatmap.c and demo-heatmap.c: the SVG the heatmaps draw.
 * A column that took three samples shows the same heat as one that took
 * two when every sample saw the same (no stripes when the demo folds 701
 * cycles into 300 columns of 2 or 3), the demo's title says how many
 * cycles a column holds, and the document is wide enough for its title
 * and its legend however few columns it has.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/demo-heatmap.h"
#include "cmd/heatmap.h"

/* the SVG of h, as a string (free it) */
static char *svg_of(const struct hb_heatmap *h)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(hb_heatmap_svg(h, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* one space, mem0, of 1 MiB */
static void one_space(struct hb_heatmap *h, size_t ncols, size_t rows)
{
	*h = (struct hb_heatmap){ .nspace = 1, .axis = "DPA", .col_s = 1 };
	strcpy(h->space[0].name, "mem0");
	h->space[0].size = 1 << 20;
	assert_int_equal(hb_heatmap_init(h, ncols, rows), 0);
}

/* the data-heat of the cell of column col, -1 when there is none */
static double heat_of_col(const char *svg, size_t col)
{
	char want[48];
	const char *at;

	snprintf(want, sizeof(want), "data-col=\"%zu\" ", col);
	for (at = strstr(svg, want); at; at = strstr(at + 1, want)) {
		const char *start = at, *heat;

		while (start > svg && *start != '<')
			start--;
		if (strncmp(start, "<rect class=\"cell\"", 18))
			continue;
		heat = strstr(at, "data-heat=\"");
		assert_non_null(heat);
		return strtod(heat + 11, NULL);
	}
	return -1;
}

/* the document's width attribute */
static double width_of(const char *svg)
{
	const char *w = strstr(svg, " width=\"");

	assert_non_null(w);
	return strtod(w + 8, NULL);
}

static void test_heatmap_columns_of_two_and_three_samples_show_the_same_heat(void **state)
{
	struct hb_heatmap h;
	char *svg;

	(void)state;
	one_space(&h, 2, 8);
	/* every sample sees the page at 0 with heat 10: column 0 takes 2, column 1 takes 3 */
	for (int k = 0; k < 5; k++) {
		size_t col = k < 2 ? 0 : 1;

		hb_heatmap_sample(&h, col);
		hb_heatmap_add(&h, 0, col, 0, 10);
	}
	svg = svg_of(&h);
	assert_true(heat_of_col(svg, 0) == 10);
	assert_true(heat_of_col(svg, 1) == 10);
	/* columns unlike in samples are no longer "each" one length */
	assert_non_null(strstr(svg, "s on average"));
	free(svg);
	hb_heatmap_done(&h);
}

static void test_heatmap_with_few_columns_is_wide_enough_for_title_and_legend(void **state)
{
	const char *title = "hotbridge heatmap: the 200 hottest pages by memdev DPA, 1 samples";
	struct hb_heatmap h;
	const char *legend;
	char *svg;
	size_t legend_len;

	(void)state;
	one_space(&h, 1, 8);
	h.title = title;
	hb_heatmap_sample(&h, 0);
	hb_heatmap_add(&h, 0, 0, 4096, 3);
	svg = svg_of(&h);
	legend = strstr(svg, "fill=\"#555\">");
	assert_non_null(legend);
	legend += strlen("fill=\"#555\">");
	legend_len = (size_t)(strchr(legend, '<') - legend);
	/*
	 * the text starts at x = 120; DejaVu Sans, the widest common default
	 * sans-serif, averages about 0.55 em a character over such text
	 */
	assert_true(width_of(svg) >= 120 + 0.55 * 14 * (double)strlen(title));
	assert_true(width_of(svg) >= 120 + 0.55 * 11 * (double)legend_len);
	free(svg);
	hb_heatmap_done(&h);
}

static void test_heatmap_without_heat_says_so(void **state)
{
	struct hb_heatmap h;
	char *svg;

	(void)state;
	one_space(&h, 2, 8);
	hb_heatmap_sample(&h, 0);
	hb_heatmap_sample(&h, 1);
	h.note = "a note";
	svg = svg_of(&h);
	assert_null(strstr(svg, "log scale from 0"));
	assert_non_null(strstr(svg, "no heat"));
	assert_non_null(strstr(svg, "; a note</text>"));
	free(svg);
	hb_heatmap_done(&h);
}

static void test_demo_heatmap_title_says_two_or_three_cycles_a_column(void **state)
{
	struct hb_demo_heatmap m = { .cycles = 701 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	one_space(&m.h, HB_DEMO_HEATMAP_COLS, 8);
	for (size_t c = 0; c < HB_DEMO_HEATMAP_COLS; c++)
		hb_heatmap_sample(&m.h, c);
	assert_int_equal(hb_demo_heatmap_write(&m, f, 1), 0);
	assert_int_equal(fclose(f), 0);
	/* 701 cycles in 300 columns: 2 or 3 a column, never "3 cycle(s)" */
	assert_non_null(strstr(text, "a column per 2 or 3 cycles"));
	free(text);
	hb_demo_heatmap_done(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heatmap_columns_of_two_and_three_samples_show_the_same_heat),
		cmocka_unit_test(test_heatmap_with_few_columns_is_wide_enough_for_title_and_legend),
		cmocka_unit_test(test_heatmap_without_heat_says_so),
		cmocka_unit_test(test_demo_heatmap_title_says_two_or_three_cycles_a_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
