// SPDX-License-Identifier: MIT
/*
 * A live host's coldness source (coldness.h): idle page tracking
 * (kernel.h) over frames in any order, kernel.h's frame census.
 */
#include <errno.h>
#include <stdlib.h>

#include "cycle/coldness.h"
#include "kernel.h"

struct pfn_at {
	uint64_t pfn;
	size_t i;
};

struct hb_live_coldness {
	struct hb_idle *idle;
	struct hb_frames *frames;
	struct pfn_at *order;
	uint64_t *sorted;
	bool *idle_buf;
	size_t cap;
};

int hb_live_coldness_new(const char *root, uint64_t page_size, struct hb_live_coldness **ret,
			 struct hb_err *err)
{
	_hb_cleanup_(hb_live_coldness_freep) struct hb_live_coldness *lc = calloc(1, sizeof(*lc));
	int r;

	if (!lc)
		return hb_err_set(err, -ENOMEM, "out of memory");
	if ((r = hb_idle_open(root, &lc->idle, err)) < 0 ||
	    (r = hb_frames_open(root, page_size, &lc->frames, err)) < 0)
		return r;
	*ret = HB_TAKE_PTR(lc);
	return 0;
}

struct hb_live_coldness *hb_live_coldness_free(struct hb_live_coldness *lc)
{
	if (!lc)
		return NULL;
	hb_idle_free(lc->idle);
	hb_frames_free(lc->frames);
	free(lc->order);
	free(lc->sorted);
	free(lc->idle_buf);
	free(lc);
	return NULL;
}

static int by_pfn(const void *a, const void *b)
{
	const struct pfn_at *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* lc->sorted[0..n): pfn[] ascending, lc->order[k].i where each came from */
static int sort_pfns(struct hb_live_coldness *lc, size_t n, const uint64_t *pfn)
{
	if (n > lc->cap) {
		struct pfn_at *o = realloc(lc->order, n * sizeof(*o));
		uint64_t *s = o ? realloc(lc->sorted, n * sizeof(*s)) : NULL;
		bool *b = s ? realloc(lc->idle_buf, n * sizeof(*b)) : NULL;

		if (o)
			lc->order = o;
		if (s)
			lc->sorted = s;
		if (!b)
			return -ENOMEM;
		lc->idle_buf = b;
		lc->cap = n;
	}
	for (size_t k = 0; k < n; k++)
		lc->order[k] = (struct pfn_at){ .pfn = pfn[k], .i = k };
	qsort(lc->order, n, sizeof(*lc->order), by_pfn);
	for (size_t k = 0; k < n; k++)
		lc->sorted[k] = lc->order[k].pfn;
	return 0;
}

static int live_mark_idle(void *priv, size_t n, const uint64_t *pfn)
{
	struct hb_live_coldness *lc = priv;
	struct hb_err err = { 0 };
	int r;

	if ((r = sort_pfns(lc, n, pfn)) < 0)
		return r;
	return hb_idle_mark(lc->idle, n, lc->sorted, &err);
}

static int live_check_idle(void *priv, size_t n, const uint64_t *pfn, uint8_t *idle)
{
	struct hb_live_coldness *lc = priv;
	struct hb_err err = { 0 };
	long r;

	if ((r = sort_pfns(lc, n, pfn)) < 0 ||
	    (r = hb_idle_read(lc->idle, n, lc->sorted, lc->idle_buf, &err)) < 0)
		return (int)r;
	for (size_t k = 0; k < n; k++)
		idle[lc->order[k].i] = lc->idle_buf[k];
	return 0;
}

long hb_coldness_census(struct hb_frames *f, int node, size_t max, uint64_t *pfn,
			struct hb_census_window *win, struct hb_err *err)
{
	uint64_t w[2];
	long n = hb_frames_scan(f, node, max, pfn, w, err);

	win->first = w[0];
	win->end = w[1];
	win->pass_done = hb_frames_pass_done(f, node);
	win->sample = hb_frames_sample_epoch(f, node);
	return n;
}

uint64_t hb_coldness_pass_frames(struct hb_frames *f, int node)
{
	uint64_t range[64][2], frames = 0;
	long n = hb_frames_node_ranges(f, node, 64, range, NULL);

	for (long i = 0; i < n; i++)
		frames += range[i][1] - range[i][0];
	return frames;
}

static uint64_t live_pass_frames(void *priv, int node)
{
	struct hb_live_coldness *lc = priv;

	return hb_coldness_pass_frames(lc->frames, node);
}

static long live_census(void *priv, int node, size_t max, uint64_t *pfn,
			struct hb_census_window *win, struct hb_err *err)
{
	struct hb_live_coldness *lc = priv;

	return hb_coldness_census(lc->frames, node, max, pfn, win, err);
}

static void live_sample(void *priv, uint64_t max_frames)
{
	struct hb_live_coldness *lc = priv;

	hb_frames_sample(lc->frames, max_frames);
}

static uint64_t live_shared(void *priv)
{
	const struct hb_live_coldness *lc = priv;

	return hb_frames_shared(lc->frames);
}

static const struct hb_coldness_ops live_ops = {
	.name = "page_idle",
	.off_loop = true,
	.mark_idle = live_mark_idle,
	.check_idle = live_check_idle,
	.census = live_census,
	.sample = live_sample,
	.pass_frames = live_pass_frames,
	.shared = live_shared,
};

struct hb_coldness hb_live_coldness(struct hb_live_coldness *lc)
{
	return (struct hb_coldness){ .ops = &live_ops, .priv = lc };
}
