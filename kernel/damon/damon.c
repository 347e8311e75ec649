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
 *    restriction after its first success, so pages went to a third node and
 *    were counted as applied. Every region here is ONE page, and DAMON can
 *    never merge two of them: kdamond_merge_regions() merges neighbours
 *    only while their sum stays within damon_region_sz_limit(), the
 *    monitored size over min_nr_regions, at least DAMON_MIN_REGION. With
 *    min_nr_regions above the most regions a commit holds, that limit is
 *    one page, so a merged pair (two pages) is never allowed. A one-page
 *    region is one folio in one migrate_pages() call: nothing to fall back
 *    for. On top, the target's free pages are checked against its high
 *    watermarks before each commit and pages beyond that are not
 *    programmed (-ENOMEM).
 *  - The rate: the kernel paces, not we. With a rate, the scheme applies
 *    once per period P (apply_interval_us; P = the configured reset
 *    interval plus one aggregation) and its quota window (reset_interval_ms
 *    = P minus one aggregation) is shorter than P, so every apply opens a
 *    new window and spends at most one budget (rate x P). A commit restarts
 *    the apply clock (damon_set_attrs() sets next_apply_sis), so the first
 *    apply after any commit is P later: no two budgets can land within P,
 *    whenever a commit comes. A batch is then one commit (up to 4096
 *    regions) that the kernel works through a budget per apply, resuming
 *    where the last one stopped (damos_skip_charged_region()).
 *  - Quota not applied in the first window: 6.12 sets the effective quota
 *    only when a window ends, so the first apply after `on` is unlimited.
 *    The kdamond starts with a placeholder region (PFN 1, reserved memory
 *    on x86) and no real range is committed before the scheme was applied
 *    once (stats/nr_tried > 0, checked).
 *  - It keeps going: once sz_applied stops rising (or reached the batch),
 *    the placeholder is committed. With a rate, the next apply is a whole
 *    period after the last one, which is the time we have to see the batch
 *    settle and replace it. A commit with zero regions would leave the old
 *    ranges live, so it is never used.
 *  - No per-page status: per batch the sz_applied delta is measured; per
 *    page only what /proc/kpageflags and the memory block's node support is
 *    reported, the rest is -ENODATA (see hb_damon_stats).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "damon.h"
#include "util/macro.h"
#include "kernel-private.h"

#define CTX HB_DAMON_KD "/0/contexts/0"
#define SCHEME CTX "/schemes/0"
#define REGIONS CTX "/targets/0/regions"
/* regions per commit; writing 8192 from C took 0.8 s under TCG */
#define DAMON_COMMIT_MAX 4096
/* min = max nr_regions: above DAMON_COMMIT_MAX + the placeholder, see above */
#define DAMON_NR_REGIONS (DAMON_COMMIT_MAX + 16)
#define PLACEHOLDER_START 4096ULL
#define PLACEHOLDER_END 8192ULL

struct damon {
	char root[256];
	char state_path[PATH_MAX];
	uint64_t page_size;
	unsigned int reset_ms, aggr_ms;  /* reset_ms: the apply period P with a
					    rate (configured + aggr) */
	uint64_t quota_bytes;         /* per apply period; 0 = none */
	bool tried_once;              /* the scheme was applied since `on` */
	uint64_t applied_last;        /* sz_applied when the last commit settled */
	bool applied_valid;           /* ... and all its pages were applied */
	bool live;                    /* real ranges are committed */
	int nid;                      /* target_nid written last, -1 none */
	uint64_t on_ns;               /* when the kdamond was turned on */
	pid_t kdamond_pid;
	bool on;
	unsigned int nr_kdamonds;     /* we made: ours (0) and the monitor's (1) */
	struct hb_damon_stats st;
	/* per batch scratch */
	uint64_t *pfn, *flags;
	size_t *idx;
	size_t cap;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * DAMON sysfs takes its lock with mutex_trylock: -EBUSY while another
 * command is in flight. Retry that for about a second.
 */
int hb_damon_write(const char *root, const char *path, const char *value, struct hb_err *err)
{
	int r;

	for (int tries = 0; (r = hb_sys_damon_write(root, path, value)) == -EBUSY && tries < 100;
	     tries++)
		sleep_ns(10000000ULL);

	if (r < 0)
		return hb_err_set(err, r, "damon: writing '%s' to %s: %s", value, path, strerror(-r));
	return 0;
}

static int wr(struct damon *d, const char *path, const char *value, struct hb_err *err)
{
	return hb_damon_write(d->root, path, value, err);
}

static int wr_u64(struct damon *d, const char *path, uint64_t v, struct hb_err *err)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return wr(d, path, buf, err);
}

static int read_stat(struct damon *d, const char *name, uint64_t *ret, struct hb_err *err)
{
	char path[128];
	int r;

	snprintf(path, sizeof(path), SCHEME "/stats/%s", name);
	r = hb_read_u64(d->root, path, 10, ret);
	if (r < 0)
		return hb_err_set(err, r, "damon: reading %s: %s", path, strerror(-r));
	return 0;
}

static int read_applied(struct damon *d, uint64_t *ret, struct hb_err *err)
{
	int r = wr(d, HB_DAMON_KD "/0/state", "update_schemes_stats", err);

	return r < 0 ? r : read_stat(d, "sz_applied", ret, err);
}

/*
 * The first apply after `on` is unlimited (see the top): wait until it has
 * been made on the placeholder (nr_tried > 0), at most 20 periods.
 */
static int wait_first_apply(struct damon *d, struct hb_err *err)
{
	uint64_t t0 = now_ns(), tried = 0, limit = 20ULL * d->reset_ms * 1000000ULL;
	uint64_t first_ok = d->on_ns + (uint64_t)(d->reset_ms + d->aggr_ms) * 1000000ULL;
	int r;

	if (d->tried_once || !d->quota_bytes)
		return 0;
	if (now_ns() < first_ok)
		sleep_ns(first_ok - now_ns());
	for (;;) {
		r = wr(d, HB_DAMON_KD "/0/state", "update_schemes_stats", err);
		if (r == 0)
			r = read_stat(d, "nr_tried", &tried, err);
		if (r < 0)
			return r;
		if (tried > 0)
			break;
		if (now_ns() - t0 >= limit)
			return hb_err_set(err, -ETIMEDOUT,
					  "damon: the kdamond has not applied its scheme once in %llu ms",
					  (unsigned long long)((now_ns() - d->on_ns) / 1000000));
		sleep_ns(d->aggr_ms * 1000000ULL);
	}
	d->tried_once = true;
	return 0;
}

/* nr_regions, then each start/end: pfns must be sorted, without repeats */
static int write_regions(struct damon *d, size_t n, const uint64_t *pfn, struct hb_err *err)
{
	char path[128];
	int r = wr_u64(d, REGIONS "/nr_regions", n, err);

	for (size_t i = 0; r == 0 && i < n; i++) {
		snprintf(path, sizeof(path), REGIONS "/%zu/start", i);
		r = wr_u64(d, path, pfn[i] * d->page_size, err);
		snprintf(path, sizeof(path), REGIONS "/%zu/end", i);
		if (r == 0)
			r = wr_u64(d, path, (pfn[i] + 1) * d->page_size, err);
	}
	return r;
}

static int commit_placeholder(struct damon *d, struct hb_err *err)
{
	uint64_t pfn = PLACEHOLDER_START / d->page_size;
	int r = write_regions(d, 1, &pfn, err);

	return r < 0 ? r : wr(d, HB_DAMON_KD "/0/state", "commit", err);
}

/* ---- set-up and tear-down ---- */

static void teardown(struct damon *d)
{
	if (d->on)
		(void)hb_sys_damon_write(d->root, HB_DAMON_KD "/0/state", "off");
	d->on = false;
	/* the monitor's kdamond too: nr_kdamonds cannot change while one is on */
	if (d->nr_kdamonds > 1)
		(void)hb_sys_damon_write(d->root, HB_DAMON_KD "/1/state", "off");
	(void)hb_sys_damon_write(d->root, HB_DAMON_KD "/nr_kdamonds", "0");
	hb_damon_state_remove(d->state_path);
}

static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') && (!p[n] || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* other users' kdamonds: stop each that is on (takeover only) */
static int stop_others(struct damon *d, uint64_t nr, struct hb_err *err)
{
	for (uint64_t i = 0; i < nr; i++) {
		char path[128], state[16];

		snprintf(path, sizeof(path), HB_DAMON_KD "/%llu/state", (unsigned long long)i);
		if (hb_read_text(d->root, path, state, sizeof(state)) > 0 && !strcmp(state, "on")) {
			int r = wr(d, path, "off", err);

			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int setup(struct damon *d, struct hb_err *err)
{
	char avail[256], pid[32];
	int64_t p;
	int r;

	r = wr(d, HB_DAMON_KD "/0/contexts/nr_contexts", "1", err);
	if (r < 0)
		return r;
	r = hb_read_text(d->root, CTX "/avail_operations", avail, sizeof(avail));
	if (r < 0)
		return hb_err_set(err, r, "damon: reading %s/avail_operations: %s", CTX, strerror(-r));
	if (!has_word(avail, "paddr"))
		return hb_err_set(err, -EOPNOTSUPP,
				  "damon: no paddr operations (avail_operations: %s; CONFIG_DAMON_PADDR)",
				  avail);
	if ((r = wr(d, CTX "/operations", "paddr", err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/intervals/sample_us", d->aggr_ms * 1000ULL, err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/intervals/aggr_us", d->aggr_ms * 1000ULL, err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/intervals/update_us", d->aggr_ms * 10000ULL, err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/nr_regions/max", DAMON_NR_REGIONS, err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/nr_regions/min", DAMON_NR_REGIONS, err)) < 0 ||
	    (r = wr(d, CTX "/targets/nr_targets", "1", err)) < 0 ||
	    (r = wr(d, CTX "/schemes/nr_schemes", "1", err)) < 0)
		return r;
	r = hb_sys_damon_write(d->root, SCHEME "/action", "migrate_hot");
	if (r < 0)
		return hb_err_set(err, r == -EINVAL ? -EOPNOTSUPP : r,
				  "damon: the kernel refuses action migrate_hot (%s)", strerror(-r));
	if ((r = wr(d, SCHEME "/target_nid", "0", err)) < 0 ||
	    (r = wr_u64(d, SCHEME "/apply_interval_us",
			d->quota_bytes ? d->reset_ms * 1000ULL : 0, err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/sz/min", "0", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/sz/max", "18446744073709551615", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/nr_accesses/min", "0", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/nr_accesses/max", "4294967295", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/age/min", "0", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/age/max", "4294967295", err)) < 0 ||
	    (r = wr(d, SCHEME "/quotas/ms", "0", err)) < 0 ||
	    (r = wr_u64(d, SCHEME "/quotas/bytes", d->quota_bytes, err)) < 0 ||
	    (r = wr_u64(d, SCHEME "/quotas/reset_interval_ms", d->reset_ms - d->aggr_ms, err)) < 0 ||
	    (r = wr(d, SCHEME "/watermarks/metric", "none", err)) < 0)
		return r;
	d->nid = 0;
	/* the placeholder first: no real range before the first apply */
	r = write_regions(d, 1, &(uint64_t){ PLACEHOLDER_START / d->page_size }, err);
	if (r < 0)
		return r;
	r = hb_sys_damon_write(d->root, HB_DAMON_KD "/0/state", "on");
	if (r < 0)
		return hb_err_set(err, r, "damon: the kdamond would not start (writing 'on' to %s/0/state: %s)",
				  HB_DAMON_KD, strerror(-r));
	d->on = true;
	d->on_ns = now_ns();
	if (hb_read_text(d->root, HB_DAMON_KD "/0/pid", pid, sizeof(pid)) < 0 ||
	    hb_parse_i64(pid, &p) < 0 || p <= 0 || p > INT_MAX)
		return hb_err_set(err, -ESRCH, "damon: the kdamond did not start (pid '%s')", pid);
	d->kdamond_pid = (pid_t)p;
	return 0;
}

static int damon_open(struct hb_migrator *m, const struct hb_migrator_config *cfg,
		      struct hb_err *err)
{
	struct hb_damon_found found;
	struct damon *d;
	long ps = sysconf(_SC_PAGESIZE);
	int r;

	r = hb_damon_probe_found(cfg, &found, err);
	if (r < 0)
		return r;
	d = calloc(1, sizeof(*d));
	if (!d)
		return hb_err_set(err, -ENOMEM, "out of memory");
	snprintf(d->root, sizeof(d->root), "%s", m->root);
	if (cfg->damon_state)
		snprintf(d->state_path, sizeof(d->state_path), "%s", cfg->damon_state);
	d->page_size = ps > 0 ? (uint64_t)ps : 4096;
	d->aggr_ms = cfg->damon_aggr_ms ? cfg->damon_aggr_ms : 100;
	d->reset_ms = (cfg->damon_reset_ms ? cfg->damon_reset_ms : 1000) + d->aggr_ms;
	if (cfg->rate_bytes) {
		/*
		 * Two samples (= aggregations) per apply period: the kdamond's
		 * per-sample work (an access check of every region) stretches
		 * the period, 1.1 s took 1.2-1.7 s under TCG with 11 samples;
		 * and the stats we poll after an apply are read at the next
		 * aggregation, before the next apply (see run_commit()).
		 */
		d->aggr_ms = d->reset_ms / 2;
		/*
		 * Whole pages, the nearest number, at least one: DAMOS charges
		 * a region only whole, so with a budget that is not a page
		 * multiple charged_sz never reaches it, the window counts as not
		 * spent, the resume point is not kept, and the next apply starts
		 * again from the first (moved) region (seen in the guest: 1 of
		 * 4 budgets moved anything).
		 */
		d->quota_bytes = (cfg->rate_bytes * d->reset_ms / 1000 + d->page_size / 2) /
				 d->page_size * d->page_size;
		if (d->quota_bytes < d->page_size)
			d->quota_bytes = d->page_size;
	}
	d->nid = -1;
	if (found.ours) {
		/* ours (and its monitor's) from a run that did not close: off, then as found */
		for (uint64_t k = 0; k < found.nr_kdamonds; k++) {
			char path[96];

			snprintf(path, sizeof(path), HB_DAMON_KD "/%llu/state", (unsigned long long)k);
			(void)hb_sys_damon_write(d->root, path, "off");
		}
		found.nr_kdamonds = 0;
	} else if (found.nr_kdamonds > 0) {
		r = stop_others(d, found.nr_kdamonds, err);
		if (r < 0)
			goto err_free;
	}
	/*
	 * All of them at once, before any is on: the kernel refuses to change
	 * nr_kdamonds while one is (EBUSY). The monitor's stays off here.
	 */
	d->nr_kdamonds = cfg->damon_monitor ? 2 : 1;
	r = wr_u64(d, HB_DAMON_KD "/nr_kdamonds", d->nr_kdamonds, err);
	if (r < 0)
		goto err_free;
	r = setup(d, err);
	if (r < 0)
		goto err_teardown;
	r = hb_damon_state_write(d->state_path, d->kdamond_pid, found.nr_kdamonds);
	if (r < 0) {
		hb_err_set(err, r, "damon: writing the state file %s: %s", d->state_path,
			   strerror(-r));
		goto err_teardown;
	}
	snprintf(m->describe, sizeof(m->describe),
		 "damon: DAMOS migrate_hot on paddr, kdamond pid %d, single-page regions, "
		 "quota %llu bytes per apply every %u ms%s%s", (int)d->kdamond_pid,
		 (unsigned long long)d->quota_bytes, d->reset_ms,
		 found.nr_kdamonds ? " (took DAMON over)" : "",
		 cfg->damon_monitor ? "; kdamond 1 made for the coldness monitor" : "");
	m->priv = d;
	return 0;

err_teardown:
	teardown(d);
err_free:
	free(d);
	return r;
}

static void damon_close(struct hb_migrator *m)
{
	struct damon *d = m->priv;

	if (!d)
		return;
	teardown(d);
	free(d->pfn);
	free(d->flags);
	free(d->idx);
	free(d);
}

/* ---- a batch ---- */

/*
 * Commits pfn[0..n) (sorted, no repeats) as single-page regions for target
 * nid and waits until sz_applied settles: the kernel moves them, with a rate
 * one budget per apply period. The ranges stay live until the next commit
 * replaces them or end_batch() commits the placeholder (on an error here,
 * at once). ret_bytes: the measured delta.
 */
static int run_commit(struct damon *d, int nid, size_t n, const uint64_t *pfn,
		      uint64_t *ret_bytes, struct hb_err *err)
{
	uint64_t want = n * d->page_size, a0, a, last, t0, t_change, quiet, limit;
	uint64_t period = d->reset_ms * 1000000ULL;
	unsigned int polls = 0, quiet_polls;
	int r, r2;

	r = wait_first_apply(d, err);
	if (r < 0)
		return r;
	/* after a fully applied commit nothing more can rise: no re-read */
	if (d->applied_valid) {
		a0 = d->applied_last;
	} else {
		r = read_applied(d, &a0, err);
		if (r < 0)
			return r;
	}
	d->applied_valid = false;
	if (nid != d->nid) {
		r = wr_u64(d, SCHEME "/target_nid", (uint64_t)nid, err);
		if (r < 0)
			return r;
		d->nid = nid;
	}
	r = write_regions(d, n, pfn, err);
	if (r == 0)
		r = wr(d, HB_DAMON_KD "/0/state", "commit", err);
	if (r < 0)
		goto placeholder;
	d->live = true;
	t0 = now_ns();
	d->st.commits++;
	d->st.pages_programmed += n;
	/*
	 * Settled: the delta covers the commit, or nothing rose for three
	 * aggregations (with a rate: two apply periods and one more, as the
	 * first apply comes a period after the commit), or the time the
	 * budgets need plus that. Counted twice: in time, and in stats updates
	 * served, one an aggregation: under TCG an aggregation of 4096 live
	 * regions outlasted the time, and a batch was taken as settled before
	 * its first apply (0 of 4096 moved in the bench).
	 */
	quiet = d->quota_bytes ? 2 * period + d->aggr_ms * 1000000ULL
			       : 3ULL * d->aggr_ms * 1000000ULL;
	quiet_polls = d->quota_bytes ? 5 : 3;
	limit = quiet + 2000000000ULL;
	/*
	 * Three periods a budget: a starved guest stretched 1.1 s periods to
	 * 2.1-2.8 s, and a limit of one period a budget cut a batch short
	 * while it still moved (the quiet rule ends one that stalls).
	 */
	if (d->quota_bytes)
		limit += (want / d->quota_bytes + 1) * 3 * period;
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

		if (!d->quota_bytes)
			sleep_ns(d->aggr_ms * 500000ULL);
		r = read_applied(d, &a, err);
		if (r < 0)
			goto placeholder;
		t = now_ns();
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
	d->st.settle_us += (now_ns() - t0) / 1000;
	*ret_bytes = a - a0;
	d->st.bytes_applied += a - a0;
	d->applied_last = a;
	d->applied_valid = a - a0 >= want;
	return 0;
placeholder:
	d->applied_valid = false;
	r2 = commit_placeholder(d, NULL);
	d->live = r2 < 0;
	return r;
}

/* once a batch is done: no real range stays live */
static int end_batch(struct damon *d, struct hb_err *err)
{
	int r;

	if (!d->live)
		return 0;
	r = commit_placeholder(d, err);
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
#define STILL_THERE ((1ULL << HB_KPF_LRU) | (1ULL << HB_KPF_MMAP))
static void settle_status(struct damon *d, int nid, size_t k, const size_t *idx,
			  const uint64_t *pfn, uint64_t bytes, int *status)
{
	uint64_t moved = bytes / d->page_size, off_lru = 0;
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
	flags_ok = hb_damon_kpageflags(d->root, k, pfn, d->flags) == 0;
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
	r = hb_damon_node_headroom(d->root, nid, &headroom);
	if (r < 0)
		return hb_err_set(err, r == -ENOENT ? -ENODEV : r,
				  "damon: node %d: no zones in /proc/zoneinfo (%s)", nid, strerror(-r));
	{
		size_t w = 0;

		for (size_t j = 0; j < k; j++) {
			size_t i = d->idx[j];
			uint64_t pfn = hpa[i] / d->page_size;
			int src;

			if (hpa[i] % d->page_size) {
				status[i] = -EINVAL;
				continue;
			}
			if (w && d->pfn[w - 1] == pfn) {
				status[i] = -EBUSY;      /* the same page twice */
				continue;
			}
			src = hb_damon_pfn_node(d->root, &bc, pfn, d->page_size);
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
	/* one commit for up to DAMON_COMMIT_MAX pages; the kernel paces */
	if (k)
		d->st.batches++;
	for (size_t j = 0; j < k; j += DAMON_COMMIT_MAX) {
		size_t m = k - j < DAMON_COMMIT_MAX ? k - j : DAMON_COMMIT_MAX;
		uint64_t bytes = 0;

		r = run_commit(d, nid, m, d->pfn + j, &bytes, err);
		if (r < 0) {
			(void)end_batch(d, NULL);
			for (size_t i = j; i < k; i++)
				status[d->idx[i]] = r;
			return r;
		}
		settle_status(d, nid, m, d->idx + j, d->pfn + j, bytes, status);
	}
	return end_batch(d, err);
}

static int damon_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		      int *status, unsigned int flags, struct hb_err *err)
{
	struct damon *d = m->priv;
	int r;

	(void)flags;    /* DAMON migrates shared pages too: it works on frames */
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

int hb_migrator_damon_stats(const struct hb_migrator *m, struct hb_damon_stats *ret)
{
	const struct damon *d = m->priv;

	if (m->kind != HB_MIGRATOR_DAMON || !d)
		return -EINVAL;
	*ret = d->st;
	return 0;
}

const struct hb_migrator_backend hb_migrator_damon = {
	.name = "damon",
	.open = damon_open,
	.move = damon_move,
	.close = damon_close,
};
