// SPDX-License-Identifier: MIT
/* The damon migrator's counters in stats JSON, Prometheus text and --once lines. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "control/damon-report.h"

/*
 * basis: "measured" (sysfs sz_applied, the PFN's memory block, zoneinfo),
 * "inferred" (per-page outcome deduced from sz_applied and kpageflags) or
 * NULL (our own bookkeeping: what was committed, how long it took).
 */
struct damon_counter {
	const char *key; /* JSON key and --once name */
	size_t off;      /* in struct hb_damon_stats */
	const char *basis;
	const char *metric; /* hotbridge_damon_<metric> */
	const char *label;  /* outcome="..." of hotbridge_damon_pages_total, or NULL */
	const char *help;
};

#define OFF(f) offsetof(struct hb_damon_stats, f)
static const struct damon_counter counters[] = {
	{ "batches", OFF(batches), NULL, "batches_total", NULL,
	  "Batches: the pages of one move call for one target node." },
	{ "commits", OFF(commits), NULL, "commits_total", NULL,
	  "Region sets committed to DAMON (a batch is one or more)." },
	{ "pages_programmed", OFF(pages_programmed), NULL, "pages_programmed_total", NULL,
	  "Pages committed to DAMON." },
	{ "regions", OFF(regions), NULL, "regions_total", NULL,
	  "Regions committed: a run of contiguous pages is one." },
	{ "bytes_applied", OFF(bytes_applied), "measured", "applied_bytes_total", NULL,
	  "Bytes DAMOS applied migrate_hot to (sum of sz_applied deltas)." },
	{ "pages_already", OFF(pages_already), "measured", "pages_total", "already", NULL },
	{ "pages_over_watermark", OFF(pages_over_watermark), "measured", "pages_total",
	  "over_watermark", NULL },
	{ "pages_moved", OFF(pages_moved), "inferred", "pages_total", "moved", NULL },
	{ "pages_not_moved", OFF(pages_not_moved), "inferred", "pages_total", "not_moved", NULL },
	{ "pages_unknown", OFF(pages_unknown), "inferred", "pages_total", "unknown", NULL },
	{ "settle_timeouts", OFF(settle_timeouts), NULL, "settle_timeouts_total", NULL,
	  "Commits that did not settle in time." },
};
#undef OFF

static uint64_t value(const struct hb_damon_stats *s, const struct damon_counter *c)
{
	uint64_t v;

	memcpy(&v, (const char *)s + c->off, sizeof(v));
	return v;
}

static json_object *u64_json(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* {"batches":…, …, "measured": {…}, "inferred": {…}, "settle_us": …} */
json_object *hb_damon_stats_json(const struct hb_damon_stats *s)
{
	json_object *o = json_object_new_object();
	json_object *measured = json_object_new_object(), *inferred = json_object_new_object();

	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		const struct damon_counter *c = &counters[i];
		json_object *to = !c->basis                    ? o :
				  strcmp(c->basis, "measured") ? inferred :
								 measured;

		json_object_object_add(to, c->key, u64_json(value(s, c)));
	}
	json_object_object_add(o, "measured", measured);
	json_object_object_add(o, "inferred", inferred);
	json_object_object_add(o, "settle_us", u64_json(s->settle_us));
	return o;
}

void hb_damon_stats_metrics(const struct hb_damon_stats *s, FILE *f)
{
	bool pages_header = false;

	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		const struct damon_counter *c = &counters[i];

		if (c->label) {
			if (!pages_header)
				fprintf(f,
					"# HELP hotbridge_damon_pages_total Pages by outcome; basis "
					"\"measured\" is read from the kernel, \"inferred\" deduced "
					"(DAMON reports no per-page status).\n"
					"# TYPE hotbridge_damon_pages_total counter\n");
			pages_header = true;
			fprintf(f, "hotbridge_damon_pages_total{outcome=\"%s\",basis=\"%s\"} %llu\n",
				c->label, c->basis, (unsigned long long)value(s, c));
			continue;
		}
		fprintf(f, "# HELP hotbridge_damon_%s %s\n# TYPE hotbridge_damon_%s counter\n",
			c->metric, c->help, c->metric);
		fprintf(f, "hotbridge_damon_%s %llu\n", c->metric, (unsigned long long)value(s, c));
	}
	fprintf(f,
		"# HELP hotbridge_damon_settle_seconds_total Time from commit to settled.\n"
		"# TYPE hotbridge_damon_settle_seconds_total counter\n"
		"hotbridge_damon_settle_seconds_total %.6f\n",
		(double)s->settle_us / 1e6);
}

/* "damon inferred pages_moved 256", "damon commits 2": the value is the last word */
void hb_damon_stats_print(const struct hb_damon_stats *s, FILE *f)
{
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		const struct damon_counter *c = &counters[i];

		fprintf(f, "damon %s%s%s %llu\n", c->basis ? c->basis : "", c->basis ? " " : "",
			c->key, (unsigned long long)value(s, c));
	}
}
