// SPDX-License-Identifier: MIT
/*
 * DAMON's monitoring results as a coldness reading (damon-monitor.h): the
 * kdamond the damon migrator made for us, set up monitoring-only (action
 * `stat`) and read through its scheme's tried_regions. The scheme matches
 * only regions with no access sampled in the last aggregation: the kernel
 * leaves the others out of tried_regions, so a reading costs sysfs reads
 * for the cold regions alone (four files a region, each a round trip).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damon-monitor.h"
#include "damon.h"
#include "util/macro.h"

/* below the kdamond's directory (struct hb_damon_monitor's kd) */
#define MCTX "contexts/0"
#define MSCHEME MCTX "/schemes/0"
#define MREGIONS MCTX "/targets/0/regions"
#define TRIED MSCHEME "/tried_regions"
/*
 * Region counts: min bounds how large a merged region may grow (the
 * monitored size over min), max what a sample interval costs the kernel
 * (an access check of one page a region).
 */
#define MONITOR_MIN_REGIONS 100
#define MONITOR_MAX_REGIONS 2000

struct hb_damon_monitor {
	char root[256];
	char kd[64]; /* HB_DAMON_KD/<kdamond> */
	int kdamond;
	bool on;
	struct hb_damon_region *reg;
	size_t cap;
};

/* value into rel, a path below the kdamond's directory */
static int wr(const struct hb_damon_monitor *m, const char *rel, const char *value, struct hb_err *err)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", m->kd, rel);
	return hb_damon_write(m->root, path, value, err);
}

static int wr_u64(const struct hb_damon_monitor *m, const char *rel, uint64_t v, struct hb_err *err)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return wr(m, rel, buf, err);
}

static int write_ranges(const struct hb_damon_monitor *m, size_t n, const uint64_t (*range)[2],
			struct hb_err *err)
{
	char rel[128];
	int r = wr_u64(m, MREGIONS "/nr_regions", n, err);

	for (size_t i = 0; r == 0 && i < n; i++) {
		snprintf(rel, sizeof(rel), MREGIONS "/%zu/start", i);
		r = wr_u64(m, rel, range[i][0], err);
		snprintf(rel, sizeof(rel), MREGIONS "/%zu/end", i);
		if (r == 0)
			r = wr_u64(m, rel, range[i][1], err);
	}
	return r;
}

static int setup(const struct hb_damon_monitor *m, size_t n, const uint64_t (*range)[2],
		 struct hb_err *err)
{
	int r;

	if ((r = wr(m, "contexts/nr_contexts", "1", err)) < 0 ||
	    (r = wr(m, MCTX "/operations", "paddr", err)) < 0 ||
	    (r = wr_u64(m, MCTX "/monitoring_attrs/intervals/sample_us", HB_DAMON_MONITOR_SAMPLE_US,
			err)) < 0 ||
	    (r = wr_u64(m, MCTX "/monitoring_attrs/intervals/aggr_us", HB_DAMON_MONITOR_AGGR_US,
			err)) < 0 ||
	    (r = wr_u64(m, MCTX "/monitoring_attrs/intervals/update_us", 1000000, err)) < 0 ||
	    (r = wr_u64(m, MCTX "/monitoring_attrs/nr_regions/max", MONITOR_MAX_REGIONS, err)) < 0 ||
	    (r = wr_u64(m, MCTX "/monitoring_attrs/nr_regions/min", MONITOR_MIN_REGIONS, err)) < 0 ||
	    (r = wr(m, MCTX "/targets/nr_targets", "1", err)) < 0 ||
	    (r = write_ranges(m, n, range, err)) < 0 ||
	    (r = wr(m, MCTX "/schemes/nr_schemes", "1", err)) < 0 ||
	    (r = wr(m, MSCHEME "/action", "stat", err)) < 0 ||
	    (r = wr(m, MSCHEME "/access_pattern/sz/min", "0", err)) < 0 ||
	    (r = wr(m, MSCHEME "/access_pattern/sz/max", "18446744073709551615", err)) < 0 ||
	    (r = wr(m, MSCHEME "/access_pattern/nr_accesses/min", "0", err)) < 0 ||
	    (r = wr(m, MSCHEME "/access_pattern/nr_accesses/max", "0", err)) < 0 ||
	    (r = wr(m, MSCHEME "/access_pattern/age/min", "0", err)) < 0 ||
	    (r = wr(m, MSCHEME "/access_pattern/age/max", "4294967295", err)) < 0 ||
	    (r = wr(m, MSCHEME "/watermarks/metric", "none", err)) < 0)
		return r;
	return 0;
}

int hb_damon_monitor_open(const char *root, int kdamond, size_t n, const uint64_t (*range)[2],
			  struct hb_damon_monitor **ret, struct hb_err *err)
{
	_hb_cleanup_(hb_damon_monitor_freep) struct hb_damon_monitor *m = calloc(1, sizeof(*m));
	char state[16] = "", path[192];
	int r;

	if (!m)
		return hb_err_set(err, -ENOMEM, "out of memory");
	if (root && strlen(root) >= sizeof(m->root))
		return hb_err_set(err, -ENAMETOOLONG, "damon monitor: root %s: too long", root);
	snprintf(m->root, sizeof(m->root), "%s", root ? root : "");
	if (kdamond < 0)
		return hb_err_set(err, -EINVAL, "damon monitor: no kdamond (%d)", kdamond);
	m->kdamond = kdamond;
	snprintf(m->kd, sizeof(m->kd), HB_DAMON_KD "/%d", kdamond);
	if (!n)
		return hb_err_set(err, -EINVAL, "damon monitor: no physical range to monitor");
	for (size_t i = 0; i < n; i++)
		if (range[i][0] >= range[i][1] || (i && range[i][0] < range[i - 1][1]))
			return hb_err_set(err, -EINVAL,
					  "damon monitor: range %zu [0x%llx, 0x%llx) is "
					  "empty, unsorted or overlaps the one before",
					  i, (unsigned long long)range[i][0],
					  (unsigned long long)range[i][1]);
	snprintf(path, sizeof(path), "%s/state", m->kd);
	r = hb_read_text(m->root, path, state, sizeof(state));
	if (r < 0)
		return hb_err_set(err, r == -ENOENT ? -ENOENT : r,
				  "damon monitor: no kdamond %d "
				  "in %s (%s): the damon migrator makes it (migrate.backend = damon)",
				  kdamond, HB_DAMON_KD, strerror(-r));
	if (!strcmp(state, "on"))
		return hb_err_set(err, -EBUSY,
				  "damon monitor: kdamond %d is already on: another "
				  "DAMON user",
				  kdamond);
	if ((r = setup(m, n, range, err)) < 0)
		return r;
	r = hb_sys_damon_write(m->root, path, "on");
	if (r < 0)
		return hb_err_set(err, r,
				  "damon monitor: kdamond %d would not start (writing 'on' "
				  "to %s: %s)",
				  kdamond, path, strerror(-r));
	m->on = true;
	*ret = HB_TAKE_PTR(m);
	return 0;
}

struct hb_damon_monitor *hb_damon_monitor_free(struct hb_damon_monitor *m)
{
	if (!m)
		return NULL;
	/* the migrator may have removed it already: nothing to turn off then */
	if (m->on) {
		char path[192];

		snprintf(path, sizeof(path), "%s/state", m->kd);
		(void)hb_sys_damon_write(m->root, path, "off");
	}
	free(m->reg);
	free(m);
	return NULL;
}

static int read_u32(const char *root, const char *path, uint32_t *ret)
{
	uint64_t v;
	int r = hb_read_u64(root, path, 10, &v);

	if (r == 0 && v > UINT32_MAX)
		r = -ERANGE;
	if (r == 0)
		*ret = (uint32_t)v;
	return r;
}

/* region i of the tried_regions: 0, -ENOENT past the last, or -errno */
static int read_region(const struct hb_damon_monitor *m, size_t i, struct hb_damon_region *g,
		       char *path, size_t size)
{
	int r;

	snprintf(path, size, "%s/" TRIED "/%zu/start", m->kd, i);
	if ((r = hb_read_u64(m->root, path, 10, &g->start)) < 0)
		return r;
	snprintf(path, size, "%s/" TRIED "/%zu/end", m->kd, i);
	if ((r = hb_read_u64(m->root, path, 10, &g->end)) < 0)
		return r;
	snprintf(path, size, "%s/" TRIED "/%zu/nr_accesses", m->kd, i);
	if ((r = read_u32(m->root, path, &g->nr_accesses)) < 0)
		return r;
	snprintf(path, size, "%s/" TRIED "/%zu/age", m->kd, i);
	return read_u32(m->root, path, &g->age);
}

static int by_start(const void *a, const void *b)
{
	const struct hb_damon_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

long hb_damon_monitor_regions(struct hb_damon_monitor *m, const struct hb_damon_region **ret,
			      struct hb_err *err)
{
	char path[192];
	size_t n = 0;
	int r, tries = 0;

again:
	/* served at the kdamond's next apply: the write returns when it is done */
	r = wr(m, "state", "update_schemes_tried_regions", err);
	if (r < 0)
		return r;
	for (n = 0;;) {
		struct hb_damon_region g;

		r = read_region(m, n, &g, path, sizeof(path));
		if (r == -ENOENT)
			break;
		if (r < 0)
			return hb_err_set(err, r, "damon monitor: reading %s: %s", path,
					  strerror(-r));
		if (n == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 256;
			struct hb_damon_region *p = realloc(m->reg, cap * sizeof(*p));

			if (!p)
				return hb_err_set(err, -ENOMEM, "out of memory");
			m->reg = p;
			m->cap = cap;
		}
		m->reg[n++] = g;
	}
	/*
	 * A kdamond over a range always has a region, yet a loaded 6.12 guest
	 * once answered an update with none (vm-damon-coldness-6.12, 1 run
	 * in several): ask once more before reporting an empty view.
	 */
	if (n == 0 && tries++ == 0)
		goto again;
	qsort(m->reg, n, sizeof(*m->reg), by_start);
	*ret = m->reg;
	return (long)n;
}

/* the region holding byte address a, or NULL */
static const struct hb_damon_region *find(const struct hb_damon_region *reg, size_t nr, uint64_t a)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < reg[mid].start)
			hi = mid;
		else if (a >= reg[mid].end)
			lo = mid + 1;
		else
			return &reg[mid];
	}
	return NULL;
}

void hb_damon_monitor_idle(const struct hb_damon_region *regions, size_t nr, uint64_t page_size,
			   uint64_t span_us, size_t n, const uint64_t *pfn, uint8_t *idle)
{
	for (size_t i = 0; i < n; i++) {
		const struct hb_damon_region *g = find(regions, nr, pfn[i] * page_size);

		/* (age + 1) aggregations unaccessed, one more for the misalignment */
		idle[i] = g && g->nr_accesses == 0 &&
			  ((uint64_t)g->age + 2) * HB_DAMON_MONITOR_AGGR_US >= span_us;
	}
}
