// SPDX-License-Identifier: MIT
/*
 * A live host's coldness source over DAMON (coldness.h), for kernels
 * without idle page tracking (Debian's stock 6.12): kernel.h's frame
 * census says which frames exist, a monitoring kdamond (kernel.h's DAMON
 * monitor) over the census nodes' online memory says which went
 * unaccessed. A frame is idle when its DAMON region had no access
 * sampled for the whole time since the previous check.
 *
 * mark_idle does nothing: DAMON restarts each region's count every
 * aggregation and its age says for how many aggregations it stayed
 * unaccessed, so "since the last check" is a question of time, answered at
 * the check; there is nothing to write per frame (and DAMON sysfs takes
 * no per-page input).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycle/coldness.h"
#include "platform/source-nodes.h"
#include "kernel.h"

#define MAX_RANGES 256
/*
 * A reading is a sysfs command the kdamond serves at its next aggregation
 * (6.12's writer checks every 100 ms whether it was), then four reads a
 * cold region: by default at most one every 2 s, so the cycles between
 * read nothing, and a page's idle count counts readings.
 */
#define HB_DAMON_COLDNESS_EVERY_US 2000000ULL

struct hb_damon_coldness {
	char root[256];
	uint64_t page_size;
	struct hb_frames *frames;
	struct hb_damon_monitor *mon;
	uint64_t last_us;  /* the previous check, or start() */
	uint64_t every_us; /* readings at most this often */
};

int hb_damon_coldness_new(const char *root, uint64_t page_size, int64_t every_us,
			  struct hb_damon_coldness **ret, struct hb_err *err)
{
	_hb_cleanup_(hb_damon_coldness_freep) struct hb_damon_coldness *dc = calloc(1, sizeof(*dc));
	int r;

	if (!dc)
		return hb_err_set(err, -ENOMEM, "out of memory");
	if (root && strlen(root) >= sizeof(dc->root))
		return hb_err_set(err, -ENAMETOOLONG, "damon coldness: root %s: too long", root);
	snprintf(dc->root, sizeof(dc->root), "%s", root ? root : "");
	dc->page_size = page_size;
	dc->every_us = every_us < 0 ? HB_DAMON_COLDNESS_EVERY_US : (uint64_t)every_us;
	if ((r = hb_frames_open(root, page_size, &dc->frames, err)) < 0)
		return r;
	*ret = HB_TAKE_PTR(dc);
	return 0;
}

struct hb_damon_coldness *hb_damon_coldness_free(struct hb_damon_coldness *dc)
{
	if (!dc)
		return NULL;
	hb_damon_monitor_free(dc->mon);
	hb_frames_free(dc->frames);
	free(dc);
	return NULL;
}

static int by_start(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int damon_start(void *priv, int kdamond, uint64_t node_mask, struct hb_err *err)
{
	struct hb_damon_coldness *dc = priv;
	uint64_t range[MAX_RANGES][2];
	size_t n = 0;

	for (int node = 0; node < 64 && n < MAX_RANGES; node++) {
		long k;

		if (!(node_mask >> node & 1))
			continue;
		k = hb_frames_node_ranges(dc->frames, node, MAX_RANGES - n, range + n, err);
		if (k == -ENOENT)
			continue;
		if (k < 0)
			return (int)k;
		n += (size_t)k;
	}
	if (!n) {
		char set[HB_NODE_SET_MAX];

		return hb_err_set(err, -ENOENT,
				  "damon coldness: no online memory on the census "
				  "nodes (%s)",
				  hb_node_set_format(node_mask, set, sizeof(set)));
	}
	/* PFNs to bytes; DAMON wants the ranges sorted (nodes may interleave) */
	qsort(range, n, sizeof(range[0]), by_start);
	for (size_t i = 0; i < n; i++) {
		range[i][0] *= dc->page_size;
		range[i][1] *= dc->page_size;
	}
	dc->mon = hb_damon_monitor_free(dc->mon);
	dc->last_us = hb_now_us();
	return hb_damon_monitor_open(dc->root, kdamond, n, (const uint64_t(*)[2])range, &dc->mon,
				     err);
}

static int damon_mark_idle(void *priv, size_t n, const uint64_t *pfn)
{
	(void)priv; /* nothing to mark: see the top */
	(void)n;
	(void)pfn;
	return 0;
}

static int damon_check_idle(void *priv, size_t n, const uint64_t *pfn, uint8_t *idle)
{
	struct hb_damon_coldness *dc = priv;
	const struct hb_damon_region *reg;
	struct hb_err err = { 0 };
	uint64_t now = hb_now_us();
	long nr;

	if (!dc->mon)
		return -ENOTCONN; /* not started: the migrator is not damon */
	if (now - dc->last_us < dc->every_us)
		return -EAGAIN; /* too soon for another reading: see the top */
	nr = hb_damon_monitor_regions(dc->mon, &reg, &err);
	if (nr < 0)
		return (int)nr;
	hb_damon_monitor_idle(reg, (size_t)nr, dc->page_size, now - dc->last_us, n, pfn, idle);
	dc->last_us = now;
	return 0;
}

static long damon_census(void *priv, int node, size_t max, uint64_t *pfn,
			 struct hb_census_window *win, struct hb_err *err)
{
	struct hb_damon_coldness *dc = priv;

	return hb_coldness_census(dc->frames, node, max, pfn, win, err);
}

static void damon_sample(void *priv, uint64_t max_frames)
{
	struct hb_damon_coldness *dc = priv;

	hb_frames_sample(dc->frames, max_frames);
}

static uint64_t damon_pass_frames(void *priv, int node)
{
	struct hb_damon_coldness *dc = priv;

	return hb_coldness_pass_frames(dc->frames, node);
}

static uint64_t damon_shared(void *priv)
{
	const struct hb_damon_coldness *dc = priv;

	return hb_frames_shared(dc->frames);
}

static const struct hb_coldness_ops damon_ops = {
	.name = "damon",
	.damon = true,
	.off_loop = true,
	.start = damon_start,
	.mark_idle = damon_mark_idle,
	.check_idle = damon_check_idle,
	.census = damon_census,
	.sample = damon_sample,
	.pass_frames = damon_pass_frames,
	.shared = damon_shared,
};

struct hb_coldness hb_damon_coldness(struct hb_damon_coldness *dc)
{
	return (struct hb_coldness){ .ops = &damon_ops, .priv = dc };
}
