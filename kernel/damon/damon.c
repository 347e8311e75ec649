// SPDX-License-Identifier: MIT
/*
 * damon: moving given physical pages on a stock kernel (>= 6.11) through
 * DAMON's paddr operations and the DAMOS migrate_hot action with target_nid,
 * driven through /sys/kernel/mm/damon/admin. One kdamond, one context, one
 * target, one scheme, set up at open and kept on; a batch replaces the
 * target's regions and commits.
 *
 * The traps (../shared/notes/linux-6.12.md), and what this file does:
 *  - Fallback to a non-target node: within one migrate_pages() call of a
 *    multi-page region, 6.12's alloc_migrate_folio() drops the node
 *    restriction after its first success, and when a later allocation on
 *    the target fails the page goes to another node (with node 0 nearly
 *    full, 10122 of 16384 pages went to a third node and were counted as
 *    applied). The allocation (GFP_NOWAIT, __GFP_THISNODE, no reserves)
 *    fails only once the target's zone is below its min watermark plus the
 *    lowmem reserve. So the target's free pages are checked against its
 *    HIGH watermark plus that reserve before each commit, and pages beyond
 *    that are not programmed (-ENOMEM): everything programmed fits with
 *    the high-min gap to spare, and only another allocator eating that gap
 *    during the apply could make one fall back. Given that, contiguous
 *    pages go as one region (a range), which is what makes a batch cheap:
 *    fewer regions to write and for the kdamond to walk. Region
 *    directories are kept between commits (damon-sysfs.c): writing
 *    nr_regions removes and makes every one of them again, which under
 *    TCG cost seconds per 4096.
 *  - The rate: the kernel paces, not we. With a rate, the scheme applies
 *    once per period P (apply_interval_us; P = the configured reset
 *    interval plus one aggregation) and its quota window (reset_interval_ms
 *    = P minus one aggregation) is shorter than P, so every apply opens a
 *    new window and spends at most one budget (rate x P). A commit restarts
 *    the apply clock (damon_set_attrs() sets next_apply_sis), so the first
 *    apply after any commit is P later: no two budgets can land within P,
 *    whenever a commit comes. A batch is then one commit (up to 4096
 *    ranges) that the kernel works through a budget per apply, resuming
 *    where the last one stopped (damos_skip_charged_region()).
 *  - Quota not applied in the first window: 6.12 sets the effective quota
 *    only when a window ends, so the first apply after `on` is unlimited.
 *    The kdamond starts with the placeholder (inert regions beyond any
 *    physical memory, damon.h) and no real range is committed before the
 *    scheme was applied once (stats/nr_tried > 0, checked).
 *  - It keeps going: once sz_applied stops rising (or reached the batch),
 *    the placeholder is committed. With a rate, the next apply is a whole
 *    period after the last one, which is the time we have to see the batch
 *    settle and replace it. A commit with zero regions would leave the old
 *    ranges live, so it is never used.
 *  - No per-page status: per batch the sz_applied delta is measured; per
 *    page only what /proc/kpageflags and the memory block's node support is
 *    reported, the rest is -ENODATA (see hb_damon_stats).
 *
 * The sysfs sequencing (set-up, commands, tear-down) is damon-sysfs.c; this
 * file decides what a batch commits and reads what it did.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damon.h"
#include "damon-monitor.h"
#include "util/macro.h"
#include "kernel-private.h"

/* a frame still mapped or on the LRU: its page did not move (yet) */
#define STILL_THERE ((1ULL << HB_KPF_LRU) | (1ULL << HB_KPF_MMAP))

struct damon {
	struct hb_damon_kd kd;
	uint64_t applied_last; /* sz_applied when the last commit settled */
	bool applied_valid;    /* ... and all its pages were applied */
	bool live;             /* real ranges are committed */
	struct hb_damon_stats st;
	/* per batch scratch */
	uint64_t *pfn, *flags;
	size_t *idx;
	struct hb_damon_range *rg; /* HB_DAMON_COMMIT_MAX */
	size_t cap;
};

static int damon_open(struct hb_migrator *m, const struct hb_migrator_config *cfg, struct hb_err *err)
{
	struct hb_damon_found found;
	struct hb_damon_kd *kd;
	struct damon *d;
	char feat[96];
	long ps = sysconf(_SC_PAGESIZE);
	int r;

	r = hb_damon_probe_found(cfg, &found, err);
	if (r < 0)
		return r;
	d = calloc(1, sizeof(*d));
	if (d)
		d->rg = calloc(HB_DAMON_COMMIT_MAX, sizeof(*d->rg));
	if (!d || !d->rg) {
		free(d);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	kd = &d->kd;
	snprintf(kd->root, sizeof(kd->root), "%s", m->root);
	if (cfg->damon_state)
		snprintf(kd->state_path, sizeof(kd->state_path), "%s", cfg->damon_state);
	kd->page_size = ps > 0 ? (uint64_t)ps : 4096;
	/*
	 * Without a rate the aggregation is short: a commit is taken at the
	 * next aggregation and applied one later, so with 20 ms the apply has
	 * begun before the writer of `commit` wakes (6.12 polls every 100 ms
	 * for the command to be served), and the stats update after it sees
	 * the batch done. With a rate the apply period keeps its 100 ms.
	 */
	kd->aggr_ms = cfg->damon_aggr_ms ? cfg->damon_aggr_ms : cfg->rate_bytes ? 100 : 20;
	kd->reset_ms = (cfg->damon_reset_ms ? cfg->damon_reset_ms : 1000) + kd->aggr_ms;
	if (cfg->rate_bytes) {
		/*
		 * Two samples (= aggregations) per apply period: the kdamond's
		 * per-sample work (an access check of every region) stretches
		 * the period, 1.1 s took 1.2-1.7 s under TCG with 11 samples;
		 * and the stats we poll after an apply are read at the next
		 * aggregation, before the next apply (see run_commit()).
		 */
		kd->aggr_ms = kd->reset_ms / 2;
		/*
		 * Whole pages, the nearest number, at least one: DAMOS charges
		 * a region only whole, so with a budget that is not a page
		 * multiple charged_sz never reaches it, the window counts as not
		 * spent, the resume point is not kept, and the next apply starts
		 * again from the first (moved) region (seen in the guest: 1 of
		 * 4 budgets moved anything).
		 */
		kd->quota_bytes = (cfg->rate_bytes * kd->reset_ms / 1000 + kd->page_size / 2) /
				  kd->page_size * kd->page_size;
		if (kd->quota_bytes < kd->page_size)
			kd->quota_bytes = kd->page_size;
	}
	r = hb_damon_kd_start(kd, &found, cfg->damon_monitor, err);
	if (r < 0) {
		free(d->rg);
		free(d);
		return r;
	}
	/*
	 * A fresh kdamond's scheme stats start at 0, and its only regions so
	 * far are inert: sz_applied is 0 without asking (a command saved).
	 */
	d->applied_last = 0;
	d->applied_valid = true;
	hb_damon_features_describe(&kd->feat, feat, sizeof(feat));
	snprintf(m->describe, sizeof(m->describe),
		 "damon: DAMOS migrate_hot on paddr, kdamond pid %d, contiguous pages as one region, "
		 "quota %llu bytes per apply every %u ms%s%s; features: %s",
		 (int)kd->kdamond_pid, (unsigned long long)kd->quota_bytes, kd->reset_ms,
		 found.nr_kdamonds ? " (took DAMON over)" : "",
		 cfg->damon_monitor ? "; kdamond 1 made for the coldness monitor" : "", feat);
	m->priv = d;
	return 0;
}

void hb_damon_monitor_reserve(struct hb_migrator_config *cfg)
{
	assert(cfg);
	cfg->damon_monitor = true;
}

int hb_damon_monitor_kdamond(const struct hb_migrator *m, struct hb_err *err)
{
	const struct damon *d;

	/* m's own fields, not migrator.c's accessors: migrator.c calls into this file */
	assert(m);
	if (m->kind == HB_MIGRATOR_DRYRUN)
		return HB_DAMON_MONITOR_KDAMOND;
	if (m->kind != HB_MIGRATOR_DAMON)
		return hb_err_set(err, -EOPNOTSUPP,
				  "the damon coldness source needs "
				  "migrate.backend = damon, not %s",
				  m->be->name);
	d = m->priv;
	if (d->kd.nr_kdamonds <= HB_DAMON_MONITOR_KDAMOND)
		return hb_err_set(err, -ENOENT,
				  "the damon migrator was opened without the "
				  "coldness monitor's kdamond (hb_damon_monitor_reserve())");
	return HB_DAMON_MONITOR_KDAMOND;
}

static void damon_close(struct hb_migrator *m)
{
	struct damon *d = m->priv;

	if (!d)
		return;
	hb_damon_kd_stop(&d->kd);
	free(d->pfn);
	free(d->flags);
	free(d->idx);
	free(d->rg);
	free(d);
}

/* ---- a batch ---- */

/*
 * Whether the commit's last page is still in its frame (1), has left it
 * (0), or kpageflags cannot be read (-1). The kdamond applies the regions
 * in address order, so the last one leaves last; one read: under TCG the
 * guest's CPUs share one host thread, and reading the flags of 65536
 * frames every few ms took the kdamond's time (4.1 s instead of 2.3).
 */
static int last_there(struct damon *d, size_t n, const struct hb_damon_range *rg)
{
	uint64_t pfn = rg[n - 1].pfn + rg[n - 1].n - 1, f;

	if (hb_damon_kpageflags(d->kd.root, 1, &pfn, &f) < 0)
		return -1;
	return !!(f & STILL_THERE);
}

/*
 * Without a rate: the commands by threads (hb_damon_kd_post), their
 * effects watched instead of their writers, which in 6.12 return only at
 * a 100 ms poll. The commit is applied one aggregation after the kdamond
 * took it; once the last page has left its frame (or the commit's writer
 * returned), stats updates are asked for one after the other, each
 * seen served when stats/nr_tried changes (the scheme tries every region,
 * inert ones too, every aggregation), until sz_applied covers the commit
 * or it did not rise for three updates and three aggregations, or the
 * time limit. The placeholder follows by a thread (end_batch()).
 */
/*
 * Until the commit's last page left its frame, or its writer returned, or
 * the limit. expect: last_there() read before the commit was posted (read
 * after, the kernel may have moved the page already).
 */
static void wait_last_page(struct damon *d, size_t n, const struct hb_damon_range *rg, int ca,
			   int expect, uint64_t t0, uint64_t limit)
{
	int left = expect;

	while (!(expect > 0 && left == 0)) {
		if (hb_damon_kd_post_done(&d->kd, ca) || hb_now_ns() - t0 >= limit)
			return;
		hb_damon_sleep_ns(d->kd.aggr_ms * 250000ULL);
		left = last_there(d, n, rg);
	}
}

/*
 * One stats update by a thread, seen served when stats/nr_tried changes
 * (or its writer returned); then sz_applied. *sb: the last update's slot,
 * joined once its writer is back (or when half the slots are out).
 */
static int stats_update(struct damon *d, int *sb, uint64_t *ret_applied, struct hb_err *err)
{
	uint64_t tried0, tried, nap = d->kd.aggr_ms * 250000ULL;
	int r;

	if (*sb >= 0 && (hb_damon_kd_post_done(&d->kd, *sb) ||
			 hb_damon_kd_posts_out(&d->kd) >= HB_DAMON_POSTS / 2)) {
		r = hb_damon_kd_post_wait(&d->kd, *sb, err);
		if (r < 0)
			return r;
	}
	if (hb_damon_kd_stat(&d->kd, "nr_tried", &tried0, NULL) < 0)
		tried0 = UINT64_MAX;
	*sb = hb_damon_kd_post(&d->kd, "update_schemes_stats", err);
	if (*sb < 0)
		return *sb;
	for (;;) {
		hb_damon_sleep_ns(nap ? nap : 1000000ULL);
		if (hb_damon_kd_post_done(&d->kd, *sb)) {
			r = hb_damon_kd_post_wait(&d->kd, *sb, err);
			*sb = -1;
			if (r < 0)
				return r;
			break;
		}
		if (tried0 != UINT64_MAX &&
		    hb_damon_kd_stat(&d->kd, "nr_tried", &tried, NULL) == 0 && tried != tried0) {
			/* 6.12 writes nr_tried first: a moment for sz_applied */
			hb_damon_sleep_ns(1000000ULL);
			break;
		}
	}
	return hb_damon_kd_stat(&d->kd, "sz_applied", ret_applied, err);
}

/*
 * How a commit's settling ends, on either path (posted, rated). r >= 0:
 * settled after t0 at sz_applied a (from a0, want bytes committed): the
 * delta measured and counted, the next batch's start known when it
 * covered the commit. r < 0: the commands failed; the placeholder is
 * committed at once (d->live stays only if that fails too), t0, a0, a
 * and want unused. Returns 0 or r.
 */
static int settle_done(struct damon *d, int r, uint64_t t0, uint64_t a0, uint64_t a, uint64_t want,
		       uint64_t *ret_bytes)
{
	if (r < 0) {
		d->applied_valid = false;
		d->live = hb_damon_kd_commit_placeholder(&d->kd, NULL) < 0;
		return r;
	}
	d->st.settle_us += (hb_now_ns() - t0) / 1000;
	*ret_bytes = a - a0;
	d->st.bytes_applied += a - a0;
	d->applied_last = a;
	d->applied_valid = a - a0 >= want;
	return 0;
}

static int run_commit_posted(struct damon *d, size_t n, const struct hb_damon_range *rg,
			     uint64_t pages, uint64_t a0, uint64_t *ret_bytes, struct hb_err *err)
{
	uint64_t aggr = d->kd.aggr_ms * 1000000ULL, want = pages * d->kd.page_size;
	uint64_t t0, t, t_change, limit, a = a0, last = a0;
	unsigned int quiet_polls = 0;
	bool taken = false;
	int expect = last_there(d, n, rg), ca, sb = -1, r;

	ca = hb_damon_kd_commit_post(&d->kd, n, rg, err);
	if (ca < 0) {
		r = ca;
		goto placeholder;
	}
	d->live = true;
	t0 = t_change = hb_now_ns();
	d->st.commits++;
	d->st.pages_programmed += pages;
	d->st.regions += n;
	limit = 3 * aggr + 2000000000ULL + pages * 200000ULL; /* 65536 pages: 7 s under TCG */
	wait_last_page(d, n, rg, ca, expect, t0, limit);
	for (;;) {
		if (!taken && hb_damon_kd_post_done(&d->kd, ca)) {
			r = hb_damon_kd_post_wait(&d->kd, ca, err);
			if (r < 0)
				goto placeholder;
			taken = true;
		}
		r = stats_update(d, &sb, &a, err);
		if (r < 0)
			goto placeholder;
		t = hb_now_ns();
		quiet_polls++;
		if (a != last) {
			last = a;
			t_change = t;
			quiet_polls = 0;
		}
		if (a - a0 >= want || (taken && quiet_polls >= 3 && t - t_change >= 3 * aggr))
			break;
		if (t - t0 >= limit) {
			d->st.settle_timeouts++;
			break;
		}
	}
	return settle_done(d, 0, t0, a0, a, want, ret_bytes);
placeholder:
	return settle_done(d, r, 0, 0, 0, 0, ret_bytes);
}

/* With a rate: the commands one after the other, the kernel pacing the budgets. */
static int run_commit_rated(struct damon *d, size_t n, const struct hb_damon_range *rg,
			    uint64_t pages, uint64_t a0, uint64_t *ret_bytes, struct hb_err *err)
{
	uint64_t want = pages * d->kd.page_size, a, last, t0, t_change, quiet, limit;
	uint64_t period = d->kd.reset_ms * 1000000ULL;
	unsigned int polls = 0, quiet_polls;
	int r;

	r = hb_damon_kd_commit(&d->kd, n, rg, err);
	if (r < 0)
		goto placeholder;
	d->live = true;
	t0 = hb_now_ns();
	d->st.commits++;
	d->st.pages_programmed += pages;
	d->st.regions += n;
	/*
	 * Settled: the delta covers the commit, or nothing rose for three
	 * aggregations (with a rate: two apply periods and one more, as the
	 * first apply comes a period after the commit), or the time the
	 * budgets need plus that. Counted twice: in time, and in stats updates
	 * served, one an aggregation: under TCG an aggregation of 4096 live
	 * regions outlasted the time, and a batch was taken as settled before
	 * its first apply (0 of 4096 moved in the bench).
	 */
	quiet = d->kd.quota_bytes ? 2 * period + d->kd.aggr_ms * 1000000ULL :
				    3ULL * d->kd.aggr_ms * 1000000ULL;
	quiet_polls = d->kd.quota_bytes ? 5 : 3;
	limit = quiet + 2000000000ULL;
	/*
	 * Three periods a budget: a starved guest stretched 1.1 s periods to
	 * 2.1-2.8 s, and a limit of one period a budget cut a batch short
	 * while it still moved (the quiet rule ends one that stalls).
	 */
	if (d->kd.quota_bytes)
		limit += (want / d->kd.quota_bytes + 1) * 3 * period;
	else
		limit += pages * 200000ULL; /* 65536 pages took 7 s under TCG */
	last = a0;
	t_change = t0;
	/*
	 * A stats update is served at the next aggregation. With a rate the
	 * polls follow one another: a burst (an apply) is seen at the
	 * aggregation after it, which is not an apply, so the placeholder
	 * committed then lands at the one after, before the next apply (and
	 * the commit pushes that apply a period further).
	 */
	for (;;) {
		uint64_t t;

		if (!d->kd.quota_bytes)
			hb_damon_sleep_ns(d->kd.aggr_ms * 500000ULL);
		r = hb_damon_kd_applied(&d->kd, &a, err);
		if (r < 0)
			goto placeholder;
		t = hb_now_ns();
		polls++;
		if (a != last) {
			last = a;
			t_change = t;
			polls = 0;
		}
		if (a - a0 >= want || (t - t_change >= quiet && polls >= quiet_polls))
			break;
		if (t - t0 >= limit) {
			d->st.settle_timeouts++;
			break;
		}
	}
	return settle_done(d, 0, t0, a0, a, want, ret_bytes);
placeholder:
	return settle_done(d, r, 0, 0, 0, 0, ret_bytes);
}

/*
 * Commits rg[0..n) (sorted, apart), pages in all, as regions for target
 * nid and waits until sz_applied settles: the kernel moves them, with a rate
 * one budget per apply period. The ranges stay live until the next commit
 * replaces them or end_batch() commits the placeholder (on an error here,
 * at once). ret_bytes: the measured delta.
 */
static int run_commit(struct damon *d, int nid, size_t n, const struct hb_damon_range *rg,
		      uint64_t pages, uint64_t *ret_bytes, struct hb_err *err)
{
	uint64_t a0;
	int r;

	r = hb_damon_kd_wait_first_apply(&d->kd, err);
	if (r < 0)
		return r;
	/* after a fully applied commit nothing more can rise: no re-read */
	if (d->applied_valid) {
		a0 = d->applied_last;
	} else {
		r = hb_damon_kd_applied(&d->kd, &a0, err);
		if (r < 0)
			return r;
	}
	d->applied_valid = false;
	r = hb_damon_kd_set_nid(&d->kd, nid, err);
	if (r < 0)
		return r;
	return d->kd.quota_bytes ? run_commit_rated(d, n, rg, pages, a0, ret_bytes, err) :
				   run_commit_posted(d, n, rg, pages, a0, ret_bytes, err);
}

/*
 * Once a batch is done: no real range stays live. Without a rate by a
 * thread: the kernel takes it at the next aggregation, the batch's
 * commit having been taken first (hb_damon_kd_placeholder_post()); the
 * next command of any kind waits for its writer.
 */
static int end_batch(struct damon *d, struct hb_err *err)
{
	int r;

	if (!d->live)
		return 0;
	if (!d->kd.quota_bytes && err) {
		r = hb_damon_kd_placeholder_post(&d->kd, err);
		if (r >= 0) {
			d->live = false;
			return 0;
		}
	}
	r = hb_damon_kd_commit_placeholder(&d->kd, err);
	if (r == 0)
		d->live = false;
	return r;
}

static int grow(struct damon *d, size_t n)
{
	if (n <= d->cap)
		return 0;
	free(d->pfn);
	free(d->flags);
	free(d->idx);
	d->pfn = calloc(n, sizeof(*d->pfn));
	d->flags = calloc(n, sizeof(*d->flags));
	d->idx = calloc(n, sizeof(*d->idx));
	if (!d->pfn || !d->flags || !d->idx) {
		d->cap = 0;
		return -ENOMEM;
	}
	d->cap = n;
	return 0;
}

static const uint64_t *sort_hpa;

static int cmp_idx(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x = sort_hpa[i], y = sort_hpa[j];

	/* equal addresses in the order given: the later one is the repeat */
	return x != y ? (x < y ? -1 : 1) : (i < j ? -1 : i > j);
}

/*
 * Per-page status for idx[0..k) after a commit that applied `bytes`.
 * Sound: all moved when the delta covers every page; none when it is 0.
 * Otherwise /proc/kpageflags: a source frame still mapped or on the LRU did
 * not move (a page still in a per-CPU LRU batch is mapped but not on the
 * LRU, and cannot be isolated); when the other frames are exactly as many
 * as the delta, those moved.
 */
static void settle_status(struct damon *d, int nid, size_t k, const size_t *idx,
			  const uint64_t *pfn, uint64_t bytes, int *status)
{
	uint64_t moved = bytes / d->kd.page_size, off_lru = 0;
	bool flags_ok;

	if (moved >= k || moved == 0) {
		for (size_t i = 0; i < k; i++)
			status[idx[i]] = moved ? nid : -EBUSY;
		if (moved)
			d->st.pages_moved += k;
		else
			d->st.pages_not_moved += k;
		return;
	}
	flags_ok = hb_damon_kpageflags(d->kd.root, k, pfn, d->flags) == 0;
	for (size_t i = 0; flags_ok && i < k; i++)
		off_lru += !(d->flags[i] & STILL_THERE);
	for (size_t i = 0; i < k; i++) {
		bool lru = flags_ok && (d->flags[i] & STILL_THERE);

		if (lru) {
			status[idx[i]] = -EBUSY;
			d->st.pages_not_moved++;
		} else if (flags_ok && off_lru == moved) {
			status[idx[i]] = nid;
			d->st.pages_moved++;
		} else {
			status[idx[i]] = -ENODATA;
			d->st.pages_unknown++;
		}
	}
}

static int move_to(struct damon *d, int nid, size_t n, const uint64_t *hpa, const int *nodes,
		   int *status, struct hb_err *err)
{
	struct hb_damon_block_cache bc = { 0 };
	uint64_t headroom = UINT64_MAX;
	size_t k = 0;
	int r;

	/* the pages for nid, sorted by address, checked */
	for (size_t i = 0; i < n; i++)
		if (nodes[i] == nid)
			d->idx[k++] = i;
	sort_hpa = hpa;
	qsort(d->idx, k, sizeof(*d->idx), cmp_idx);
	r = hb_damon_node_headroom(d->kd.root, nid, &headroom);
	if (r < 0)
		return hb_err_set(err, r == -ENOENT ? -ENODEV : r,
				  "damon: node %d: no zones in /proc/zoneinfo (%s)", nid,
				  strerror(-r));
	{
		size_t w = 0;

		for (size_t j = 0; j < k; j++) {
			size_t i = d->idx[j];
			uint64_t pfn = hpa[i] / d->kd.page_size;
			int src;

			if (hpa[i] % d->kd.page_size) {
				status[i] = -EINVAL;
				continue;
			}
			if (w && d->pfn[w - 1] == pfn) {
				status[i] = -EBUSY; /* the same page twice */
				continue;
			}
			src = hb_damon_pfn_node(d->kd.root, &bc, pfn, d->kd.page_size);
			if (src == -EFAULT) {
				status[i] = -EFAULT;
				continue;
			}
			if (src == nid) {
				status[i] = nid;
				d->st.pages_already++;
				continue;
			}
			if (headroom == 0) {
				status[i] = -ENOMEM;
				d->st.pages_over_watermark++;
				continue;
			}
			headroom--;
			d->idx[w] = i;
			d->pfn[w++] = pfn;
		}
		k = w;
	}
	/* contiguous pages as one range, up to HB_DAMON_COMMIT_MAX ranges a commit */
	if (k)
		d->st.batches++;
	for (size_t j = 0; j < k;) {
		size_t nr = 0, m = 0;
		uint64_t bytes = 0;

		while (j + m < k && nr < HB_DAMON_COMMIT_MAX) {
			uint64_t first = d->pfn[j + m], len = 1;

			while (j + m + len < k && d->pfn[j + m + len] == first + len)
				len++;
			d->rg[nr++] = (struct hb_damon_range){ .pfn = first, .n = len };
			m += len;
		}
		r = run_commit(d, nid, nr, d->rg, m, &bytes, err);
		if (r < 0) {
			(void)end_batch(d, NULL);
			for (size_t i = j; i < k; i++)
				status[d->idx[i]] = r;
			return r;
		}
		settle_status(d, nid, m, d->idx + j, d->pfn + j, bytes, status);
		j += m;
	}
	return end_batch(d, err);
}

static int damon_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		      int *status, unsigned int flags, struct hb_err *err)
{
	struct damon *d = m->priv;
	int r;

	(void)flags; /* DAMON migrates shared pages too: it works on frames */
	if (grow(d, n) < 0)
		return hb_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		status[i] = INT_MIN;
	for (size_t i = 0; i < n; i++) {
		if (status[i] != INT_MIN)
			continue;
		if (nodes[i] < 0) {
			status[i] = -EINVAL;
			continue;
		}
		r = move_to(d, nodes[i], n, hpa, nodes, status, err);
		if (r < 0) {
			for (size_t j = 0; j < n; j++)
				if (status[j] == INT_MIN)
					status[j] = r;
			return r;
		}
	}
	return 0;
}

int hb_migrator_damon_flush(struct hb_migrator *m, struct hb_err *err)
{
	struct damon *d = m->priv;

	if (m->kind != HB_MIGRATOR_DAMON || !d)
		return -EINVAL;
	return hb_damon_kd_join(&d->kd, err);
}

int hb_migrator_damon_stats(const struct hb_migrator *m, struct hb_damon_stats *ret)
{
	const struct damon *d = m->priv;

	if (m->kind != HB_MIGRATOR_DAMON || !d)
		return -EINVAL;
	*ret = d->st;
	return 0;
}

int hb_migrator_damon_memcg_filters(struct hb_migrator *m, const char *const *reject, size_t n,
				    const char *only, struct hb_err *err)
{
	struct damon *d = m->priv;

	if (m->kind != HB_MIGRATOR_DAMON || !d)
		return hb_err_set(err, -EOPNOTSUPP, "memcg filters: only the damon backend has them");
	return hb_damon_kd_memcg_filters(&d->kd, reject, n, only, err);
}

const struct hb_migrator_backend hb_migrator_damon = {
	.name = "damon",
	.open = damon_open,
	.move = damon_move,
	.close = damon_close,
};
