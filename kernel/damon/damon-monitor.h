/* SPDX-License-Identifier: MIT */
/*
 * DAMON as a coldness reading on a stock kernel (damon-monitor.c): a
 * monitoring-only kdamond over given physical ranges (paddr operations),
 * one DAMOS scheme with action `stat` that matches every region (it moves
 * nothing), and its monitoring results read through the scheme's
 * tried_regions (`update_schemes_tried_regions`, 6.2 on).
 *
 * Which kdamond: nr_kdamonds is global and can only be written while no
 * kdamond is on. The damon migrator (damon.c) owns kdamond 0 and writes
 * nr_kdamonds; with hb_migrator_config.damon_monitor it creates
 * HB_DAMON_MONITOR_KDAMOND as well and leaves it off, before its own is
 * on. This monitor then sets up that one and turns it on: it never writes
 * nr_kdamonds. The migrator turns both off and removes them at close.
 *
 * What the kernel reports (6.12 mm/damon/core.c, kdamond_fn): every
 * sample interval DAMON checks one random page of each region for an
 * access (and clears its accessed bits); at each aggregation nr_accesses
 * is how many samples found the region accessed, and age how many
 * aggregations its nr_accesses stayed within max_nr_accesses / 10 of the
 * previous one. With fewer than 10 samples an aggregation that bound is 0:
 * a region with nr_accesses 0 and age a went unaccessed (as sampled) for
 * the last a + 1 aggregations. Regions split and merge on their own
 * between the min and max counts; a page is as cold as its region.
 */
#ifndef HB_KERNEL_DAMON_MONITOR_H
#define HB_KERNEL_DAMON_MONITOR_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define HB_DAMON_MONITOR_KDAMOND 1
/* 8 samples an aggregation: age restarts at any change (above) */
#define HB_DAMON_MONITOR_SAMPLE_US 20000ULL
#define HB_DAMON_MONITOR_AGGR_US 160000ULL

struct hb_damon_monitor;

struct hb_damon_region {
	uint64_t start, end;      /* physical bytes, end exclusive */
	uint32_t nr_accesses, age;
};

/*
 * Sets up kdamond HB_DAMON_MONITOR_KDAMOND below root (NULL or "" = "/")
 * over the physical byte ranges range[0..n) (sorted, not overlapping) and
 * turns it on. -ENOENT when that kdamond does not exist (the damon migrator
 * did not make it), -EBUSY when it is already on, or a write's error; err
 * says which.
 */
int hb_damon_monitor_open(const char *root, size_t n, const uint64_t (*range)[2],
			  struct hb_damon_monitor **ret, struct hb_err *err);
/* Turns the kdamond off (when it is still there). */
struct hb_damon_monitor *hb_damon_monitor_free(struct hb_damon_monitor *m);
HB_DEFINE_CLEANUP(struct hb_damon_monitor *, hb_damon_monitor_free)

/*
 * The kernel's current regions (its last aggregation), ascending: the
 * returned array is the monitor's, valid until the next call. Count, or
 * -errno with err.
 */
long hb_damon_monitor_regions(struct hb_damon_monitor *m, const struct hb_damon_region **ret,
			      struct hb_err *err);

/*
 * idle[i] = 1 when pfn[i]'s region (regions[0..nr), as returned above)
 * was found unaccessed for at least `span_us` up to its last aggregation
 * (nr_accesses 0 and (age + 1) aggregations covering span_us less one
 * aggregation, as aggregations do not line up with the caller's checks),
 * else 0; a PFN in no region is not idle. pfn[] in any order.
 */
void hb_damon_monitor_idle(const struct hb_damon_region *regions, size_t nr, uint64_t page_size,
			   uint64_t span_us, size_t n, const uint64_t *pfn, uint8_t *idle);

#endif
