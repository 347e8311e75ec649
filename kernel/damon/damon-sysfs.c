// SPDX-License-Identifier: MIT
/*
 * damon: the migrator's kdamond, sequenced through DAMON sysfs
 * (/sys/kernel/mm/damon/admin): its set-up and tear-down, the commands
 * (commit, update_schemes_stats) and the files they read or write. What is
 * committed and when a batch has settled is the backend's (damon.c); why
 * the sequence is what it is, is said there too.
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

#define CTX HB_DAMON_KD "/0/contexts/0"
#define SCHEME CTX "/schemes/0"
#define REGIONS CTX "/targets/0/regions"

void hb_damon_sleep_ns(uint64_t ns)
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
		hb_damon_sleep_ns(10000000ULL);

	if (r < 0)
		return hb_err_set(err, r, "damon: writing '%s' to %s: %s", value, path, strerror(-r));
	return 0;
}

static int wr(struct hb_damon_kd *d, const char *path, const char *value, struct hb_err *err)
{
	return hb_damon_write(d->root, path, value, err);
}

static int wr_u64(struct hb_damon_kd *d, const char *path, uint64_t v, struct hb_err *err)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return wr(d, path, buf, err);
}

static int read_stat(struct hb_damon_kd *d, const char *name, uint64_t *ret, struct hb_err *err)
{
	char path[128];
	int r;

	snprintf(path, sizeof(path), SCHEME "/stats/%s", name);
	r = hb_read_u64(d->root, path, 10, ret);
	if (r < 0)
		return hb_err_set(err, r, "damon: reading %s: %s", path, strerror(-r));
	return 0;
}

int hb_damon_kd_stat(struct hb_damon_kd *d, const char *name, uint64_t *ret, struct hb_err *err)
{
	return read_stat(d, name, ret, err);
}

/* ---- commands in a thread ---- */

static void *post_run(void *arg)
{
	struct hb_damon_post *p = arg;

	p->r = hb_damon_write(p->d->root, HB_DAMON_KD "/0/state", p->value, NULL);
	atomic_store(&p->done, true);
	return NULL;
}

static void *placeholder_run(void *arg);

static int post_start(struct hb_damon_kd *d, const char *value, void *(*fn)(void *),
		      struct hb_err *err)
{
	for (int i = 0; i < HB_DAMON_POSTS; i++) {
		struct hb_damon_post *p = &d->post[i];
		int r;

		if (p->used)
			continue;
		p->d = d;
		/* the placeholder waits for these: they were out before it */
		p->wait_mask = 0;
		for (int j = 0; j < HB_DAMON_POSTS; j++)
			if (d->post[j].used)
				p->wait_mask |= 1U << j;
		snprintf(p->value, sizeof(p->value), "%s", value);
		atomic_store(&p->done, false);
		r = -pthread_create(&p->th, NULL, fn, p);
		if (r < 0)
			return hb_err_set(err, r, "damon: no thread for '%s': %s", value,
					  strerror(-r));
		p->used = true;
		return i;
	}
	return hb_err_set(err, -EBUSY, "damon: %d commands out already", HB_DAMON_POSTS);
}

int hb_damon_kd_post(struct hb_damon_kd *d, const char *value, struct hb_err *err)
{
	return post_start(d, value, post_run, err);
}

int hb_damon_kd_placeholder_post(struct hb_damon_kd *d, struct hb_err *err)
{
	return post_start(d, "commit", placeholder_run, err);
}

unsigned int hb_damon_kd_posts_out(const struct hb_damon_kd *d)
{
	unsigned int n = 0;

	for (int i = 0; i < HB_DAMON_POSTS; i++)
		n += d->post[i].used;
	return n;
}

bool hb_damon_kd_post_done(struct hb_damon_kd *d, int slot)
{
	return !d->post[slot].used || atomic_load(&d->post[slot].done);
}

int hb_damon_kd_post_wait(struct hb_damon_kd *d, int slot, struct hb_err *err)
{
	struct hb_damon_post *p = &d->post[slot];

	if (!p->used)
		return 0;
	(void)pthread_join(p->th, NULL);
	p->used = false;
	if (p->r < 0)
		return hb_err_set(err, p->r, "damon: writing '%s' to %s/0/state: %s", p->value,
				  HB_DAMON_KD, strerror(-p->r));
	return 0;
}

int hb_damon_kd_join(struct hb_damon_kd *d, struct hb_err *err)
{
	int r = 0;

	for (int i = 0; i < HB_DAMON_POSTS; i++) {
		int q = hb_damon_kd_post_wait(d, i, r < 0 ? NULL : err);

		if (r == 0)
			r = q;
	}
	return r;
}

int hb_damon_kd_applied(struct hb_damon_kd *d, uint64_t *ret, struct hb_err *err)
{
	int r = hb_damon_kd_join(d, err);

	if (r == 0)
		r = wr(d, HB_DAMON_KD "/0/state", "update_schemes_stats", err);

	return r < 0 ? r : read_stat(d, "sz_applied", ret, err);
}

/*
 * The first apply after `on` is unlimited (see damon.c): wait until it has
 * been made on the placeholder (nr_tried > 0), at most 20 periods.
 */
int hb_damon_kd_wait_first_apply(struct hb_damon_kd *d, struct hb_err *err)
{
	uint64_t t0 = hb_now_ns(), tried = 0, limit = 20ULL * d->reset_ms * 1000000ULL;
	uint64_t first_ok = d->on_ns + (uint64_t)(d->reset_ms + d->aggr_ms) * 1000000ULL;
	int r;

	if (d->tried_once || !d->quota_bytes)
		return 0;
	r = hb_damon_kd_join(d, err);
	if (r < 0)
		return r;
	if (hb_now_ns() < first_ok)
		hb_damon_sleep_ns(first_ok - hb_now_ns());
	for (;;) {
		r = wr(d, HB_DAMON_KD "/0/state", "update_schemes_stats", err);
		if (r == 0)
			r = read_stat(d, "nr_tried", &tried, err);
		if (r < 0)
			return r;
		if (tried > 0)
			break;
		if (hb_now_ns() - t0 >= limit)
			return hb_err_set(err, -ETIMEDOUT,
					  "damon: the kdamond has not applied its scheme once in %llu ms",
					  (unsigned long long)((hb_now_ns() - d->on_ns) / 1000000));
		hb_damon_sleep_ns(d->aggr_ms * 1000000ULL);
	}
	d->tried_once = true;
	return 0;
}

int hb_damon_kd_owned(struct hb_damon_kd *d, struct hb_err *err)
{
	char why[128];
	int r = d->lost ? 0 : hb_damon_kd0_marked(d->root, d->kdamond_pid, why, sizeof(why));

	if (r == 1)
		return 0;
	if (r < 0)
		return hb_err_set(err, -EAGAIN, "damon: kdamond 0 (%s/0): %s", HB_DAMON_KD, why);
	if (!d->lost)
		hb_err_set(err, -EBUSY,
			   "damon: kdamond 0 (%s/0) is no longer the one hotbridge started: %s; "
			   "another DAMON user changed it, nothing more is written to it",
			   HB_DAMON_KD, why);
	else
		hb_err_set(err, -EBUSY,
			   "damon: kdamond 0 (%s/0) was changed by another DAMON user; "
			   "nothing more is written to it",
			   HB_DAMON_KD);
	d->lost = true;
	return -EBUSY;
}

int hb_damon_kd_set_nid(struct hb_damon_kd *d, int nid, struct hb_err *err)
{
	int r;

	if (nid == d->nid)
		return 0;
	r = hb_damon_kd_join(d, err);
	if (r == 0)
		r = hb_damon_kd_owned(d, err);
	if (r < 0)
		return r;
	r = wr_u64(d, SCHEME "/target_nid", (uint64_t)nid, err);
	if (r < 0)
		return r;
	d->nid = nid;
	return 0;
}

static size_t dirs_for(size_t n)
{
	size_t d = 1;

	while (d < n && d < HB_DAMON_COMMIT_MAX)
		d <<= 1;
	return d;
}

/* nr_regions = n: every directory removed and made again, contents unknown */
static int resize_dirs(struct hb_damon_kd *d, size_t n, struct hb_err *err)
{
	uint64_t *s = malloc(n * sizeof(*s)), *e = malloc(n * sizeof(*e));
	int r;

	if (!s || !e) {
		free(s);
		free(e);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	free(d->dir_start);
	free(d->dir_end);
	d->dir_start = s;
	d->dir_end = e;
	d->nr_dirs = 0;
	d->small_commits = 0;
	r = wr_u64(d, REGIONS "/nr_regions", n, err);
	if (r < 0)
		return r; /* nr_dirs 0: written again next time */
	d->dir_resizes++;
	for (size_t i = 0; i < n; i++)
		s[i] = e[i] = UINT64_MAX;
	d->nr_dirs = n;
	return 0;
}

static int write_dir(struct hb_damon_kd *d, size_t i, const char *file, uint64_t *have, uint64_t v,
		     struct hb_err *err)
{
	char path[128];
	int r;

	if (*have == v)
		return 0;
	snprintf(path, sizeof(path), REGIONS "/%zu/%s", i, file);
	*have = UINT64_MAX;
	r = wr_u64(d, path, v, err);
	if (r < 0)
		return r;
	*have = v;
	d->dir_writes++;
	return 0;
}

/*
 * The real ranges in directories 0..n-1, inert pages above every real
 * address in the rest (so the whole stays sorted), only changed files
 * written. Grows to the next power of two when n does not fit; shrinks
 * after HB_DAMON_SHRINK_AFTER real commits in a row that used under an
 * eighth of the directories.
 */
static int write_ranges(struct hb_damon_kd *d, size_t n, const struct hb_damon_range *rg,
			struct hb_err *err)
{
	size_t want = dirs_for(n ? n : 1);
	int r;

	if (n) {
		if (n * 8 < d->nr_dirs)
			d->small_commits++;
		else
			d->small_commits = 0;
	}
	if (want > d->nr_dirs || (n && d->small_commits >= HB_DAMON_SHRINK_AFTER)) {
		r = resize_dirs(d, want, err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < d->nr_dirs; i++) {
		uint64_t start =
			i < n ? rg[i].pfn * d->page_size : HB_DAMON_INERT_BASE + i * d->page_size;
		uint64_t end = i < n ? (rg[i].pfn + rg[i].n) * d->page_size : start + d->page_size;

		/* the kernel checks them only at commit: no order needed */
		if ((r = write_dir(d, i, "start", &d->dir_start[i], start, err)) < 0 ||
		    (r = write_dir(d, i, "end", &d->dir_end[i], end, err)) < 0)
			return r;
	}
	return 0;
}

int hb_damon_kd_commit(struct hb_damon_kd *d, size_t n, const struct hb_damon_range *rg,
		       struct hb_err *err)
{
	int r = hb_damon_kd_join(d, err);

	if (r == 0)
		r = hb_damon_kd_owned(d, err);
	if (r == 0)
		r = write_ranges(d, n, rg, err);
	return r < 0 ? r : wr(d, HB_DAMON_KD "/0/state", "commit", err);
}

int hb_damon_kd_commit_post(struct hb_damon_kd *d, size_t n, const struct hb_damon_range *rg,
			    struct hb_err *err)
{
	int r = hb_damon_kd_join(d, err);

	if (r == 0)
		r = hb_damon_kd_owned(d, err);
	if (r == 0)
		r = write_ranges(d, n, rg, err);
	return r < 0 ? r : hb_damon_kd_post(d, "commit", err);
}

/*
 * The placeholder from a thread, once every command out before it has
 * returned: a commit's writer returns only after the kernel took it, so
 * the placeholder can never be taken before the ranges it replaces.
 */
static void *placeholder_run(void *arg)
{
	struct hb_damon_post *p = arg;
	struct hb_damon_kd *d = p->d;

	for (int i = 0; i < HB_DAMON_POSTS; i++)
		while ((p->wait_mask & (1U << i)) && !atomic_load(&d->post[i].done))
			hb_damon_sleep_ns(2000000ULL);
	/* d->lost: read by the caller only after it joined this thread */
	p->r = hb_damon_kd_owned(d, NULL);
	if (p->r == 0)
		p->r = write_ranges(d, 0, NULL, NULL);
	if (p->r == 0)
		p->r = hb_damon_write(d->root, HB_DAMON_KD "/0/state", "commit", NULL);
	atomic_store(&p->done, true);
	return NULL;
}

int hb_damon_kd_commit_placeholder(struct hb_damon_kd *d, struct hb_err *err)
{
	return hb_damon_kd_commit(d, 0, NULL, err);
}

static bool present(const struct hb_damon_kd *d, const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s%s", d->root, path);
	return access(p, F_OK) == 0;
}

/*
 * The scheme's filters: ops_filters (6.15+: the operations layer handles
 * memcg filters) or filters (6.3+, both layers); NULL when neither is there
 */
static const char *filters_dir(const struct hb_damon_kd *d)
{
	if (present(d, SCHEME "/ops_filters"))
		return SCHEME "/ops_filters";
	return present(d, SCHEME "/filters") ? SCHEME "/filters" : NULL;
}

int hb_damon_kd_memcg_filters(struct hb_damon_kd *d, const char *const *reject, size_t n,
			      const char *only, struct hb_err *err)
{
	const char *dir = filters_dir(d);
	size_t nf = n + (only != NULL);
	char path[512];
	int r;

	if (!dir)
		return nf ? hb_err_set(err, -EOPNOTSUPP,
				       "damon: this kernel's DAMOS has no filters (%s/filters, 6.3)",
				       SCHEME) :
			    0;
	if (nf > HB_DAMON_FILTERS_MAX)
		return hb_err_set(err, -E2BIG, "damon: %zu memcg filters, at most %d", nf,
				  HB_DAMON_FILTERS_MAX);
	if ((r = hb_damon_kd_join(d, err)) < 0 || (r = hb_damon_kd_owned(d, err)) < 0)
		return r;
	snprintf(path, sizeof(path), "%s/nr_filters", dir);
	if ((r = wr_u64(d, path, nf, err)) < 0)
		return r;
	for (size_t i = 0; i < nf; i++) {
		static const char *const files[] = { "type", "memcg_path", "matching", "allow" };
		/* reject: pages that match are filtered out; only: pages that do not */
		const char *values[] = { "memcg", i < n ? reject[i] : only, i < n ? "Y" : "N", "N" };

		for (size_t f = 0; f < 4; f++) {
			snprintf(path, sizeof(path), "%s/%zu/%s", dir, i, files[f]);
			/* allow came with 6.14; before it every filter rejects */
			if (f == 3 && !present(d, path))
				continue;
			if ((r = wr(d, path, values[f], err)) < 0)
				return r;
		}
	}
	return 0;
}

/* what damo's sysinfo reads: the files a feature added */
static void probe_features(struct hb_damon_kd *d)
{
	d->feat = (struct hb_damon_features){
		.quota_goals = present(d, SCHEME "/quotas/goals"),
		.intervals_goal = present(d, CTX "/monitoring_attrs/intervals/intervals_goal"),
		.dests = present(d, SCHEME "/dests"),
		.addr_unit = present(d, CTX "/addr_unit"),
	};
}

void hb_damon_features_describe(const struct hb_damon_features *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s", f->quota_goals ? " quota_goals" : "",
		 f->intervals_goal ? " intervals_goal" : "", f->dests ? " dests" : "",
		 f->addr_unit ? " addr_unit" : "");
	if (!buf[0])
		snprintf(buf, size, " none");
	memmove(buf, buf + 1, strlen(buf));
}

/* ---- set-up and tear-down ---- */

void hb_damon_kd_stop(struct hb_damon_kd *d)
{
	(void)hb_damon_kd_join(d, NULL);
	/*
	 * not ours any more: stop nothing, only the state file no longer
	 * holds. A pid that stays unreadable (DAMON sysfs busy) leaves the
	 * action and the mark to tell.
	 */
	if (d->on && !d->lost) {
		char why[128];
		int r = hb_damon_kd0_marked(d->root, d->kdamond_pid, why, sizeof(why));

		if (r < 0)
			r = hb_damon_kd0_marked(d->root, 0, why, sizeof(why));
		d->lost = r != 1;
	}
	if (d->lost) {
		d->on = false;
		d->nr_kdamonds = 0;
	}
	/* a crash in the writes below leaves them ours (hb_damon_kd_start()) */
	if (d->on || (!d->lost && d->nr_kdamonds))
		(void)hb_damon_state_write(d->state_path, HB_DAMON_STATE_BUSY, d->nr_kdamonds);
	if (d->on)
		(void)hb_sys_damon_write(d->root, HB_DAMON_KD "/0/state", "off");
	d->on = false;
	/* the monitor's kdamond too: nr_kdamonds cannot change while one is on */
	if (d->nr_kdamonds > 1)
		(void)hb_sys_damon_write(d->root, HB_DAMON_KD "/1/state", "off");
	if (!d->lost)
		(void)hb_sys_damon_write(d->root, HB_DAMON_KD "/nr_kdamonds", "0");
	hb_damon_state_remove(d->state_path);
	free(d->dir_start);
	free(d->dir_end);
	d->dir_start = d->dir_end = NULL;
	d->nr_dirs = 0;
}

static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (!p[n] || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* other users' kdamonds: stop each that is on (takeover only) */
static int stop_others(struct hb_damon_kd *d, uint64_t nr, struct hb_err *err)
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

static int setup(struct hb_damon_kd *d, struct hb_err *err)
{
	char avail[256], pid[32];
	int64_t p;
	int r;

	r = wr(d, HB_DAMON_KD "/0/contexts/nr_contexts", "1", err);
	if (r < 0)
		return r;
	r = hb_read_text(d->root, CTX "/avail_operations", avail, sizeof(avail));
	if (r < 0)
		return hb_err_set(err, r, "damon: reading %s/avail_operations: %s", CTX,
				  strerror(-r));
	if (!has_word(avail, "paddr"))
		return hb_err_set(err, -EOPNOTSUPP,
				  "damon: no paddr operations (avail_operations: %s; CONFIG_DAMON_PADDR)",
				  avail);
	if ((r = wr(d, CTX "/operations", "paddr", err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/intervals/sample_us", d->aggr_ms * 1000ULL, err)) <
		    0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/intervals/aggr_us", d->aggr_ms * 1000ULL, err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/intervals/update_us", d->aggr_ms * 10000ULL, err)) <
		    0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/nr_regions/max", HB_DAMON_NR_REGIONS, err)) < 0 ||
	    (r = wr_u64(d, CTX "/monitoring_attrs/nr_regions/min", HB_DAMON_NR_REGIONS, err)) < 0 ||
	    (r = wr(d, CTX "/targets/nr_targets", "1", err)) < 0 ||
	    (r = wr(d, CTX "/schemes/nr_schemes", "1", err)) < 0)
		return r;
	/* the migrate actions came with target_nid (6.11): the file, not the release */
	if (!present(d, SCHEME "/target_nid"))
		return hb_err_set(err, -EOPNOTSUPP,
				  "damon: this kernel's DAMOS has no migrate_hot (no %s/target_nid, "
				  "added with it in 6.11)",
				  SCHEME);
	r = hb_sys_damon_write(d->root, SCHEME "/action", "migrate_hot");
	if (r < 0)
		return hb_err_set(err, r == -EINVAL ? -EOPNOTSUPP : r,
				  "damon: the kernel refuses action migrate_hot (%s)", strerror(-r));
	if ((r = wr(d, SCHEME "/target_nid", "0", err)) < 0 ||
	    (r = wr_u64(d, SCHEME "/apply_interval_us", d->quota_bytes ? d->reset_ms * 1000ULL : 0,
			err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/sz/min", "0", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/sz/max", "18446744073709551615", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/nr_accesses/min", "0", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/nr_accesses/max", "4294967295", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/age/min", "0", err)) < 0 ||
	    (r = wr(d, SCHEME "/access_pattern/age/max", "4294967295", err)) < 0 ||
	    (r = wr(d, SCHEME "/quotas/ms", "0", err)) < 0 ||
	    (r = wr_u64(d, SCHEME "/quotas/bytes", d->quota_bytes, err)) < 0 ||
	    (r = wr_u64(d, SCHEME "/quotas/reset_interval_ms", d->reset_ms - d->aggr_ms, err)) < 0 ||
	    (r = wr(d, SCHEME "/watermarks/metric", "none", err)) < 0 ||
	    (r = wr_u64(d, SCHEME "/watermarks/interval_us", HB_DAMON_MARK, err)) < 0)
		return r;
	d->nid = 0;
	probe_features(d);
	/* the placeholder first: no real range before the first apply */
	r = write_ranges(d, 0, NULL, err);
	if (r < 0)
		return r;
	r = hb_sys_damon_write(d->root, HB_DAMON_KD "/0/state", "on");
	if (r < 0)
		return hb_err_set(err, r,
				  "damon: the kdamond would not start (writing 'on' to %s/0/state: %s)",
				  HB_DAMON_KD, strerror(-r));
	d->on = true;
	d->on_ns = hb_now_ns();
	if (hb_read_text(d->root, HB_DAMON_KD "/0/pid", pid, sizeof(pid)) < 0 ||
	    hb_parse_i64(pid, &p) < 0 || p <= 0 || p > INT_MAX)
		return hb_err_set(err, -ESRCH, "damon: the kdamond did not start (pid '%s')", pid);
	d->kdamond_pid = (pid_t)p;
	return 0;
}

int hb_damon_kd_start(struct hb_damon_kd *d, const struct hb_damon_found *found_in, bool monitor,
		      struct hb_err *err)
{
	struct hb_damon_found found = *found_in;
	int r;

	d->nid = -1;
	/*
	 * Before the first write: a crash from here until the pid is known
	 * leaves kdamonds that no pid names (off, half set up, or on under a
	 * new pid); this says they are ours, so the next start takes them over
	 */
	r = hb_damon_state_write(d->state_path, HB_DAMON_STATE_BUSY, found.nr_kdamonds);
	if (r < 0)
		return hb_err_set(err, r, "damon: writing the state file %s: %s", d->state_path,
				  strerror(-r));
	if (found.ours) {
		/* ours (and its monitor's) from a run that did not close: off, then as found */
		for (uint64_t k = 0; k < found.nr_kdamonds; k++) {
			char path[96];

			snprintf(path, sizeof(path), HB_DAMON_KD "/%llu/state",
				 (unsigned long long)k);
			(void)hb_sys_damon_write(d->root, path, "off");
		}
		found.nr_kdamonds = 0;
	} else if (found.nr_kdamonds > 0) {
		r = stop_others(d, found.nr_kdamonds, err);
		if (r < 0)
			return r;
	}
	/*
	 * All of them at once, before any is on: the kernel refuses to change
	 * nr_kdamonds while one is (EBUSY). The monitor's stays off here.
	 */
	d->nr_kdamonds = monitor ? 2 : 1;
	r = wr_u64(d, HB_DAMON_KD "/nr_kdamonds", d->nr_kdamonds, err);
	if (r < 0)
		return r;
	r = setup(d, err);
	if (r < 0)
		goto err_stop;
	r = hb_damon_state_write(d->state_path, d->kdamond_pid, found.nr_kdamonds);
	if (r < 0) {
		hb_err_set(err, r, "damon: writing the state file %s: %s", d->state_path,
			   strerror(-r));
		goto err_stop;
	}
	return 0;

err_stop:
	hb_damon_kd_stop(d);
	return r;
}
