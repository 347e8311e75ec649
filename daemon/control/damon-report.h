/* SPDX-License-Identifier: MIT */
/*
 * The damon migrator's counters (struct hb_damon_stats, kernel.h) as the
 * daemon reports them: `stats` JSON ("damon"), Prometheus metrics
 * (hotbridge_damon_*) and the --once lines ("damon KEY N"). One table
 * drives all three, and each counter says whether it is measured (read from
 * the kernel) or inferred (per page, from what DAMON let us see).
 */
#ifndef HB_DAMON_REPORT_H
#define HB_DAMON_REPORT_H

#include <stdio.h>

#include <json-c/json.h>

#include "kernel.h"

json_object *hb_damon_stats_json(const struct hb_damon_stats *s);
void hb_damon_stats_metrics(const struct hb_damon_stats *s, FILE *f);
void hb_damon_stats_print(const struct hb_damon_stats *s, FILE *f);

#endif
