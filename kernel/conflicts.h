/* SPDX-License-Identifier: MIT */
/*
 * Who else moves pages between tiers (conflicts.c): the kernel's own
 * tiering and other DAMON users move the same pages hotbridge promotes and
 * demotes, each undoing the other's work. Reading only; the daemon shows
 * what it finds in `status` and warns at start and on reload.
 */
#ifndef HB_KERNEL_CONFLICTS_H
#define HB_KERNEL_CONFLICTS_H

#include "util/util.h"

enum hb_conflict {
	/* /proc/sys/kernel/numa_balancing has NUMA_BALANCING_MEMORY_TIERING (2):
	   hinting faults promote pages from slow nodes */
	HB_CONFLICT_NUMA_TIERING,
	/* /sys/kernel/mm/numa/demotion_enabled is true: reclaim demotes pages
	   to the next tier */
	HB_CONFLICT_KERNEL_DEMOTION,
	/* damon_reclaim/damon_lru_sort enabled, or a kdamond on that is not ours */
	HB_CONFLICT_DAMON,
	/* /proc/sys/kernel/numa_balancing has NUMA_BALANCING_NORMAL (1): hinting
	   faults move a busy page to the node of the CPU that touches it, off a
	   CPU-less CXL node too (most distributions' default where NUMA is) */
	HB_CONFLICT_NUMA_BALANCING,
	_HB_CONFLICT_MAX,
};

/* "numa_balancing_tiering", "kernel_demotion", "damon_user", "numa_balancing" */
const char *hb_conflict_to_string(enum hb_conflict c);

struct hb_conflicts {
	unsigned int found;                       /* bit c: conflict c is active */
	char why[_HB_CONFLICT_MAX][HB_ERR_MSG_MAX];  /* what was read, for found ones */
};

/*
 * Reads root/proc and root/sys (root NULL or "" = "/"). damon_state: the
 * damon migrator's state file (NULL: none), so that our own kdamond is not
 * counted. An absent file means that mechanism is not there (an older
 * kernel, or built without it); a file that does not parse is named in
 * why[] and counted as active, since it cannot be ruled out.
 */
void hb_conflicts_probe(const char *root, const char *damon_state, struct hb_conflicts *ret);

#endif
