/* SPDX-License-Identifier: MIT */
/*
 * kernel/ internals of the DAMON coldness monitor (damon-monitor.c; its
 * API is kernel.h's "DAMON as a coldness reading"): which kdamond it
 * drives, which the damon migrator (damon.c) makes for it, and its
 * intervals.
 */
#ifndef HB_KERNEL_DAMON_MONITOR_H
#define HB_KERNEL_DAMON_MONITOR_H

#include <stdint.h>

#include "kernel.h"

#define HB_DAMON_MONITOR_KDAMOND 1
/* 8 samples an aggregation: age restarts at any change (kernel.h) */
#define HB_DAMON_MONITOR_SAMPLE_US 20000ULL
#define HB_DAMON_MONITOR_AGGR_US 160000ULL

#endif
