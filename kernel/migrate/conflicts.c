// SPDX-License-Identifier: MIT
/*
 * Who else moves pages between tiers (kernel.h): NUMA balancing, in its
 * normal and its memory tiering mode, the kernel's demotion, another DAMON
 * user.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "damon/damon.h"
#include "util/strtab.h"

#define NUMA_BALANCING "/proc/sys/kernel/numa_balancing"
#define DEMOTION "/sys/kernel/mm/numa/demotion_enabled"
#define NUMA_BALANCING_NORMAL 0x1 /* include/linux/sched/sysctl.h */
#define NUMA_BALANCING_MEMORY_TIERING 0x2

static const char *const conflict_names[_HB_CONFLICT_MAX] = {
	[HB_CONFLICT_NUMA_TIERING] = "numa_balancing_tiering",
	[HB_CONFLICT_KERNEL_DEMOTION] = "kernel_demotion",
	[HB_CONFLICT_DAMON] = "damon_user",
	[HB_CONFLICT_NUMA_BALANCING] = "numa_balancing",
};

HB_STRTAB_TO_STRING(hb_conflict_to_string, enum hb_conflict, conflict_names, "unknown")

static void HB_PRINTF(3, 4) found(struct hb_conflicts *c, enum hb_conflict k, const char *fmt, ...)
{
	va_list ap;

	assert((unsigned int)k < _HB_CONFLICT_MAX);
	c->found |= 1u << k;
	va_start(ap, fmt);
	vsnprintf(c->why[k], sizeof(c->why[k]), fmt, ap);
	va_end(ap);
}

static void numa_tiering(const char *root, struct hb_conflicts *c)
{
	char v[32];
	uint64_t mode;

	if (hb_read_text(root, NUMA_BALANCING, v, sizeof(v)) < 0)
		return;
	if (hb_parse_u64_base(v, 10, &mode) < 0) {
		found(c, HB_CONFLICT_NUMA_TIERING, NUMA_BALANCING " is '%s', not a mode number", v);
		return;
	}
	if (mode & NUMA_BALANCING_MEMORY_TIERING)
		found(c, HB_CONFLICT_NUMA_TIERING,
		      NUMA_BALANCING " is %s: memory tiering mode (2) promotes pages of slow nodes",
		      v);
	if (mode & NUMA_BALANCING_NORMAL)
		found(c, HB_CONFLICT_NUMA_BALANCING,
		      NUMA_BALANCING " is %s: NUMA balancing (1) moves busy pages to the node of the "
				     "CPU touching them, off CXL nodes too; set it to 0",
		      v);
}

static void demotion(const char *root, struct hb_conflicts *c)
{
	char v[32];

	if (hb_read_text(root, DEMOTION, v, sizeof(v)) < 0 || !strcmp(v, "false"))
		return;
	if (!strcmp(v, "true"))
		found(c, HB_CONFLICT_KERNEL_DEMOTION,
		      DEMOTION " is %s: reclaim demotes pages to the next memory tier", v);
	else
		found(c, HB_CONFLICT_KERNEL_DEMOTION, DEMOTION " is '%s', neither true nor false", v);
}

void hb_conflicts_probe(const char *root, const char *damon_state, struct hb_conflicts *ret)
{
	struct hb_conflicts c = { 0 };

	numa_tiering(root, &c);
	demotion(root, &c);
	if (hb_damon_other_user(root, damon_state, c.why[HB_CONFLICT_DAMON],
				sizeof(c.why[HB_CONFLICT_DAMON])) > 0)
		c.found |= 1u << HB_CONFLICT_DAMON;
	*ret = c;
}
