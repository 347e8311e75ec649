// SPDX-License-Identifier: MIT
/*
 * What the daemon says about itself: status, stats and sources as JSON
 * (control socket), Prometheus text (metrics, textfile), the --once
 * counters and the line at exit.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/resource.h>

#include <json-c/json.h>

#include "config.h"
#include "cycle/coldness.h"
#include "control/damon-report.h"
#include "control/history-json.h"
#include "daemon-private.h"
#include "ingest/ingest.h"
#include "util/util.h"

/* a label value as the exposition format wants it: \\, \" and \n escaped */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* {source="NAME",type="TYPE"} */
static void source_labels(FILE *f, const struct source *s)
{
	fputs("{source=\"", f);
	label_value(f, s->name);
	fputs("\",type=\"", f);
	label_value(f, s->ops->name);
	fputs("\"}", f);
}

/* the frames the live census skipped as shared, or -1 without a census */
static long long census_shared(const struct hb_daemon *d)
{
	const struct hb_coldness *c = &d->env.coldness;

	if (!d->dm.placed || !c->ops || !c->ops->shared)
		return -1;
	return (long long)c->ops->shared(c->priv);
}

static uint64_t src_records(const struct source *s)
{
	return s->records;
}
static uint64_t src_bad_input(const struct source *s)
{
	return s->bad_input;
}
static uint64_t src_events(const struct source *s)
{
	return s->events;
}
static uint64_t src_errors(const struct source *s)
{
	return (uint64_t)s->errors;
}
static uint64_t src_disabled(const struct source *s)
{
	return s->disabled;
}
static uint64_t src_overflows(const struct source *s)
{
	return s->overflows;
}

/* an isolated source's host (hb_plugin_proxy_state()): failures, and whether it runs */
static uint64_t src_host_failures(const struct source *s)
{
	struct hb_proxy_state ps;

	if (!s->isolated)
		return 0;
	hb_plugin_proxy_state(s->priv, &ps);
	return ps.failures;
}
static uint64_t src_host_up(const struct source *s)
{
	struct hb_proxy_state ps;

	if (!s->isolated)
		return 1; /* it runs in the daemon */
	hb_plugin_proxy_state(s->priv, &ps);
	return !s->disabled && !strcmp(ps.state, "running");
}
static uint64_t src_host_dropped(const struct source *s)
{
	struct hb_proxy_state ps;

	if (!s->isolated)
		return 0;
	hb_plugin_proxy_state(s->priv, &ps);
	return ps.dropped;
}
static uint64_t src_host_bad_records(const struct source *s)
{
	struct hb_proxy_state ps;

	if (!s->isolated)
		return 0;
	hb_plugin_proxy_state(s->priv, &ps);
	return ps.bad_records;
}

/* the per-source series, labelled {source,type}: one table, one loop */
static void source_metrics(FILE *f, const struct hb_daemon *d)
{
	static const struct {
		const char *name, *type, *help;
		uint64_t (*value)(const struct source *s);
	} m[] = {
		{ "source_records_total", "counter",
		  "Records each source submitted (they add up to records_total).", src_records },
		{ "source_bad_input_total", "counter",
		  "Input each source could not make records of (they add up to bad_input_total).",
		  src_bad_input },
		{ "source_events_total", "counter", "Media events each source delivered.",
		  src_events },
		{ "source_consecutive_errors", "gauge",
		  "Failed polls of each source in a row (it is disabled at 10).", src_errors },
		{ "source_disabled", "gauge",
		  "1 for a source disabled after failing polls, or stopped (no poll, and no fd watched or timer armed any more).",
		  src_disabled },
		{ "source_overflows_total", "counter",
		  "Times each source's device dropped hotness it could not hold (a CHMU hotlist overflow).",
		  src_overflows },
		{ "source_host_failures_total", "counter",
		  "Times the hotbridge-plugin-host of each plugin source ended: crashed, hung, at its "
		  "memory limit, refused at a restart (status plugin_hosts says how; 0 in the daemon).",
		  src_host_failures },
		{ "source_host_up", "gauge",
		  "1 while each source runs: its hotbridge-plugin-host is up and the source not "
		  "disabled (1 in the daemon).",
		  src_host_up },
		{ "source_host_dropped_total", "counter",
		  "Records each plugin source submitted past a full backlog, dropped in its "
		  "hotbridge-plugin-host (0 in the daemon).",
		  src_host_dropped },
		{ "source_host_bad_records_total", "counter",
		  "Records from each plugin source's host that the daemon cannot use (bad space, "
		  "length or count), dropped (0 in the daemon).",
		  src_host_bad_records },
	};

	for (size_t k = 0; k < HB_ARRAY_SIZE(m); k++) {
		fprintf(f, "# HELP hotbridge_%s %s\n# TYPE hotbridge_%s %s\n", m[k].name, m[k].help,
			m[k].name, m[k].type);
		for (size_t i = 0; i < d->nsrc; i++) {
			fprintf(f, "hotbridge_%s", m[k].name);
			source_labels(f, &d->src[i]);
			fprintf(f, " %llu\n", (unsigned long long)m[k].value(&d->src[i]));
		}
	}
}

/*
 * Pages the kernel refused, by errno. The errnos the migrators report per
 * page are always there (0 until seen), so rate() and the alert rules have
 * a series from the start; any other errno once it was seen.
 */
static void errno_metrics(FILE *f, const char *name, const struct hb_migrate_counts *c)
{
	static const int always[] = { EPERM,  ENOENT, EIO,    EAGAIN,  ENOMEM, EACCES,
				      EFAULT, EBUSY,  EINVAL, ENODATA, EXDEV };

	for (size_t e = 1; e < HB_ARRAY_SIZE(c->by_errno); e++) {
		bool show = c->by_errno[e] != 0;

		for (size_t k = 0; k < HB_ARRAY_SIZE(always) && !show; k++)
			show = always[k] == (int)e;
		if (show)
			fprintf(f, "hotbridge_%s{errno=\"%s\"} %llu\n", name, hb_errno_name((int)e),
				(unsigned long long)c->by_errno[e]);
	}
}

/*
 * a summary of a latency histogram: its median, p90, p99, sum and count
 * (the Prometheus convention: rate(_sum) / rate(_count) is the mean)
 */
static void latency_summary(FILE *f, const char *name, const struct hb_latency_hist *h)
{
	static const double q[] = { 0.5, 0.9, 0.99 };

	for (size_t i = 0; i < HB_ARRAY_SIZE(q); i++)
		fprintf(f, "hotbridge_%s{quantile=\"%g\"} %.6f\n", name, q[i],
			(double)hb_latency_quantile(h, q[i]) / 1e9);
	fprintf(f, "hotbridge_%s_sum %.9f\n", name, h->sum_ns / 1e9);
	fprintf(f, "hotbridge_%s_count %llu\n", name, (unsigned long long)h->count);
}

/* every value of a label, the one that holds now 1, the others 0 */
static void one_of(FILE *f, const char *name, const char *label, const char *const *values,
		   size_t n, const char *now)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "hotbridge_%s{%s=\"%s\"} %d\n", name, label, values[i],
			!strcmp(values[i], now));
}

/*
 * What this run is and why promotion holds (newuser r4 D33): the migrator
 * and whether it moves anything (a dry run counts pages it never moved as
 * moved), the targets' free memory against the watermark, promotion's
 * state and the limit that held it (status's promotion and
 * promotion_limit), and the start time
 */
static void run_metrics(const struct hb_daemon *d, FILE *f)
{
	static const char *const states[] = { "active", "paused", "no_source_node",
					      "no_target_node", "held_by_watermark" };
	static const char *const limits[] = { "none", "top_k", "watermark", "rate_mbps", "burst_mb" };
	enum hb_migrator_kind kind = d->mig ? hb_migrator_kind(d->mig) : HB_MIGRATOR_DRYRUN;
	uint64_t up_ns = hb_now_ns() - d->started_ns, wall = hb_wall_ns();
	const char *state, *limit;
	uint64_t done = 0;

	fprintf(f, "# HELP hotbridge_info Always 1: the migrator, whether it is a dry run (1: "
		   "nothing is moved, pages_migrated_total counts what would have been), the "
		   "version.\n# TYPE hotbridge_info gauge\n");
	fprintf(f, "hotbridge_info{migrator=\"%s\",dry_run=\"%d\",version=\"",
		hb_migrator_kind_to_string(kind), kind == HB_MIGRATOR_DRYRUN);
	label_value(f, HB_VERSION);
	fputs("\"} 1\n", f);
	fprintf(f, "# HELP hotbridge_target_free_bytes Free memory of each DRAM node promoted "
		   "to, as the last cycle read it.\n# TYPE hotbridge_target_free_bytes gauge\n");
	for (int s = 0; s < HB_MAX_NODES && s < 64; s++) {
		int t = d->nodes[s].is_source ? hb_policy_target(&d->pcfg, d->nodes, d->dist, s) : -1;

		if (t < 0 || t >= 64 || (done >> t) & 1)
			continue;
		done |= 1ULL << t;
		fprintf(f, "hotbridge_target_free_bytes{node=\"%d\"} %llu\n", t,
			(unsigned long long)d->nodes[t].free_bytes);
	}
	fprintf(f, "# HELP hotbridge_watermark_bytes policy.watermark_mb: promotion stops "
		   "at a target with less free.\n# TYPE hotbridge_watermark_bytes gauge\n");
	fprintf(f, "hotbridge_watermark_bytes %llu\n", (unsigned long long)d->pcfg.watermark_bytes);
	state = hb_daemon_promotion_state(d, &limit, NULL, 0);
	fprintf(f, "# HELP hotbridge_promotion_state 1 for promotion's state now (status's "
		   "promotion), 0 for the others.\n# TYPE hotbridge_promotion_state gauge\n");
	one_of(f, "promotion_state", "state", states, HB_ARRAY_SIZE(states), state);
	fprintf(f, "# HELP hotbridge_promotion_limit 1 for the rule that held back hot pages "
		   "in the last cycle (status's promotion_limit), 0 for the "
		   "others.\n# TYPE hotbridge_promotion_limit gauge\n");
	one_of(f, "promotion_limit", "limit", limits, HB_ARRAY_SIZE(limits), limit);
	fprintf(f, "# HELP process_start_time_seconds Start time of the process since the "
		   "Unix epoch in seconds.\n# TYPE process_start_time_seconds gauge\n");
	fprintf(f, "process_start_time_seconds %.3f\n",
		(double)(wall > up_ns ? wall - up_ns : 0) / 1e9);
}

void hb_daemon_metrics(const struct hb_daemon *d, FILE *f)
{
	const struct hb_daemon_stats *s = &d->st;
	struct hb_damon_stats ds;

#define METRIC(name, type, help) \
	fprintf(f, "# HELP hotbridge_" name " " help "\n# TYPE hotbridge_" name " " type "\n")
	METRIC("cycles_total", "counter", "Daemon cycles run.");
	fprintf(f, "hotbridge_cycles_total %llu\n", (unsigned long long)s->cycles);
	METRIC("records_total", "counter", "Hotness records received from sources.");
	fprintf(f, "hotbridge_records_total %llu\n", (unsigned long long)s->in.records);
	source_metrics(f, d);
	METRIC("records_translated_total", "counter", "Records translated to host physical pages.");
	fprintf(f, "hotbridge_records_translated_total %llu\n", (unsigned long long)s->in.translated);
	METRIC("records_dropped_total", "counter",
	       "Records (of records_total) with a part dropped, by reason.");
	for (int i = 0; i < _HB_DROP_MAX; i++)
		fprintf(f, "hotbridge_records_dropped_total{reason=\"%s\"} %llu\n",
			hb_drop_to_string(i), (unsigned long long)s->in.dropped[i]);
	METRIC("bad_input_total", "counter",
	       "Input sources could not make records of (not in records_total).");
	fprintf(f, "hotbridge_bad_input_total %llu\n", (unsigned long long)s->in.bad_input);
	METRIC("pages_dropped_total", "counter",
	       "Pages of records that did not enter the table, by reason.");
	for (int i = 0; i < _HB_DROP_MAX; i++)
		fprintf(f, "hotbridge_pages_dropped_total{reason=\"%s\"} %llu\n",
			hb_drop_to_string(i), (unsigned long long)s->in.pages_dropped[i]);
	METRIC("device_events_total", "counter", "Devices' media events, by kind.");
	fprintf(f,
		"hotbridge_device_events_total{kind=\"media\"} %llu\n"
		"hotbridge_device_events_total{kind=\"poison\"} %llu\n"
		"hotbridge_device_events_total{kind=\"overflow\"} %llu\n",
		(unsigned long long)s->media.media_events, (unsigned long long)s->media.poison_events,
		(unsigned long long)s->media.overflow_events);
	METRIC("device_hpa_mismatch_total", "counter",
	       "Device events whose HPA differs from hotbridge's translation.");
	fprintf(f, "hotbridge_device_hpa_mismatch_total %llu\n",
		(unsigned long long)s->media.hpa_mismatch);
	METRIC("quarantined_pages", "gauge", "Pages kept out of promotion (poison, uncorrectable).");
	fprintf(f, "hotbridge_quarantined_pages %llu\n",
		(unsigned long long)s->media.quarantined_pages);
	METRIC("decisions_total", "counter", "Policy decisions, by reason.");
	for (int i = 0; i < _HB_REASON_MAX; i++)
		fprintf(f, "hotbridge_decisions_total{reason=\"%s\"} %llu\n",
			hb_reason_to_string(i), (unsigned long long)s->decisions[i]);
	METRIC("pages_migrated_total", "counter", "Pages handed to the migrator, by outcome.");
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		fprintf(f, "hotbridge_pages_migrated_total{status=\"%s\"} %llu\n",
			hb_migrate_class_to_string(i), (unsigned long long)s->migrated.by_class[i]);
	METRIC("pages_migrated_errors_total", "counter",
	       "Promotions the kernel refused, by errno (the retry, backoff, drop and policy of pages_migrated_total; EXDEV: the owners' memory policy).");
	errno_metrics(f, "pages_migrated_errors_total", &s->migrated);
	METRIC("pages_promoted_total", "counter", "Pages promoted, by target node.");
	for (int n = 0; n < HB_MAX_NODES; n++)
		if (s->promoted_pages_by_node[n] || (d->nodes[n].present && d->nodes[n].has_cpus))
			fprintf(f, "hotbridge_pages_promoted_total{node=\"%d\"} %llu\n", n,
				(unsigned long long)s->promoted_pages_by_node[n]);
	METRIC("promoted_bytes_total", "counter", "Bytes promoted (rate: take its derivative).");
	fprintf(f, "hotbridge_promoted_bytes_total %llu\n", (unsigned long long)s->promoted_bytes);
	METRIC("pages_demoted_total", "counter", "Demotions handed to the migrator, by outcome.");
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		fprintf(f, "hotbridge_pages_demoted_total{status=\"%s\"} %llu\n",
			hb_migrate_class_to_string(i), (unsigned long long)s->demoted.by_class[i]);
	METRIC("pages_demoted_errors_total", "counter",
	       "Demotions the kernel refused, by errno (the retry, backoff, drop and policy of pages_demoted_total; EXDEV: the owners' memory policy).");
	errno_metrics(f, "pages_demoted_errors_total", &s->demoted);
	METRIC("demoted_bytes_total", "counter", "Bytes demoted to CXL nodes.");
	fprintf(f, "hotbridge_demoted_bytes_total %llu\n", (unsigned long long)s->demoted_bytes);
	METRIC("demote_backoffs_total", "counter",
	       "Failed demotions (EBUSY, ENOMEM) that rested their DRAM node.");
	fprintf(f, "hotbridge_demote_backoffs_total %llu\n", (unsigned long long)s->demote_backoffs);
	METRIC("demoted_freed_total", "counter",
	       "Demotions whose page was freed between the census and the move (ENOENT): not failures.");
	fprintf(f, "hotbridge_demoted_freed_total %llu\n", (unsigned long long)s->demoted_freed);
	if (census_shared(d) >= 0) {
		METRIC("census_shared_frames_total", "counter",
		       "DRAM frames demotion's census skipped as mapped more than once (the movers refuse them).");
		fprintf(f, "hotbridge_census_shared_frames_total %lld\n", census_shared(d));
	}
	METRIC("placed_pages", "gauge",
	       "Pages tracked for demotion: those hotbridge placed on DRAM (emulated host), the DRAM frames its census found (live host).");
	fprintf(f, "hotbridge_placed_pages %zu\n", d->dm.placed ? hb_placed_len(d->dm.placed) : 0);
	METRIC("source_errors_total", "counter", "Failed source polls.");
	fprintf(f, "hotbridge_source_errors_total %llu\n", (unsigned long long)s->source_errors);
	METRIC("cycle_seconds_last", "gauge", "Duration of the last cycle.");
	fprintf(f, "hotbridge_cycle_seconds_last %.6f\n", s->last_cycle_ms / 1e3);
	METRIC("cycle_seconds_total", "counter", "Time spent in cycles.");
	fprintf(f, "hotbridge_cycle_seconds_total %.6f\n", s->cycle_ms_total / 1e3);
	METRIC("cycle_duration_seconds", "summary", "Duration of the cycles.");
	latency_summary(f, "cycle_duration_seconds", &d->lat.cycle);
	METRIC("demote_step_seconds", "summary",
	       "Duration of the cycles' demotion steps on the event loop (census, idle checks, decisions).");
	latency_summary(f, "demote_step_seconds", &d->lat.demote);
	METRIC("move_batch_seconds", "summary",
	       "Duration of the batches of moves, handed to the migrator to finished (off the event loop).");
	latency_summary(f, "move_batch_seconds", &d->lat.batch);
	METRIC("record_to_decision_seconds", "summary",
	       "Time from a record being made to the decision that considered it.");
	latency_summary(f, "record_to_decision_seconds", &d->lat.to_decision);
	METRIC("record_to_table_seconds", "summary",
	       "Time from a record being made to its pages entering the hotness table.");
	latency_summary(f, "record_to_table_seconds", &d->lat.to_table);
	METRIC("table_pages", "gauge", "Pages in the hotness table.");
	fprintf(f, "hotbridge_table_pages %zu\n", hb_heat_len(d->heat));
	METRIC("paused", "gauge", "1 while promotion is paused.");
	fprintf(f, "hotbridge_paused %d\n", d->paused);
	METRIC("up", "gauge", "1 while the daemon runs; the textfile's last write at exit says 0.");
	fprintf(f, "hotbridge_up %d\n", !d->stopped);
	METRIC("build_info", "gauge", "Always 1; the version of the running hotbridge is its label.");
	fprintf(f, "hotbridge_build_info{version=\"");
	label_value(f, HB_VERSION);
	fputs("\"} 1\n", f);
#undef METRIC
	run_metrics(d, f);
	hb_daemon_tenants_metrics(d, f);
	if (hb_daemon_damon_stats(d, &ds) == 0)
		hb_damon_stats_metrics(&ds, f);
}

/*
 * Rewritten atomically each cycle (hb_write_file_atomic: a fresh temporary
 * beside it, never through a planted link, then rename), mode 0644 for the
 * node exporter.
 */
void hb_daemon_write_textfile(struct hb_daemon *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int r = -ENOMEM;

	if (m) {
		hb_daemon_metrics(d, m);
		r = fclose(m) == 0 ? hb_write_file_atomic(d->cfg.metrics_textfile, text, len, 0644) :
				     -ENOMEM;
	}
	free(text);
	/* a failure is logged once (again if its cause changes), and the recovery */
	if (r < 0 && r != d->textfile_err)
		hb_dlog(d, LOG_WARNING,
			"metrics: %s: %s, ignoring (logged again only when it "
			"changes or works again)",
			d->cfg.metrics_textfile, strerror(-r));
	else if (r == 0 && d->textfile_err)
		hb_dlog(d, LOG_NOTICE, "metrics: %s written again", d->cfg.metrics_textfile);
	d->textfile_err = r < 0 ? r : 0;
}

void hb_daemon_print_stats(const struct hb_daemon *d, FILE *f)
{
	const struct hb_daemon_stats *s = &d->st;
	struct hb_damon_stats ds;

	fprintf(f, "cycles %llu, records %llu, translated %llu, pages added %llu\n",
		(unsigned long long)s->cycles, (unsigned long long)s->in.records,
		(unsigned long long)s->in.translated, (unsigned long long)s->in.pages);
	if (s->in.dropped_records)
		fprintf(f, "records dropped %llu\n", (unsigned long long)s->in.dropped_records);
	for (int i = 0; i < _HB_DROP_MAX; i++)
		if (s->in.dropped[i])
			fprintf(f, "dropped %s %llu\n", hb_drop_to_string(i),
				(unsigned long long)s->in.dropped[i]);
	if (s->in.bad_input)
		fprintf(f, "bad input %llu\n", (unsigned long long)s->in.bad_input);
	for (int i = 0; i < _HB_REASON_MAX; i++)
		if (s->decisions[i])
			fprintf(f, "decision %s %llu\n", hb_reason_to_string(i),
				(unsigned long long)s->decisions[i]);
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		if (s->migrated.by_class[i])
			fprintf(f, "migrated %s %llu\n", hb_migrate_class_to_string(i),
				(unsigned long long)s->migrated.by_class[i]);
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		if (s->demoted.by_class[i])
			fprintf(f, "demoted %s %llu\n", hb_migrate_class_to_string(i),
				(unsigned long long)s->demoted.by_class[i]);
	if (s->demoted_freed)
		fprintf(f, "demoted freed %llu\n", (unsigned long long)s->demoted_freed);
	if (hb_daemon_damon_stats(d, &ds) == 0)
		hb_damon_stats_print(&ds, f);
}

/*
 * One line: what this run did so far, for the journal; at exit, and at
 * SIGUSR1 ("lead after N s": "exiting after", "SIGUSR1: running for").
 */
void hb_daemon_log_counters(const struct hb_daemon *d, const char *lead)
{
	const struct hb_daemon_stats *s = &d->st;
	const uint64_t *c = s->migrated.by_class;
	uint64_t not_moved, host_failures = 0;

	not_moved = c[HB_MIGRATE_RETRY] + c[HB_MIGRATE_BACKOFF] + c[HB_MIGRATE_DROP] +
		    c[HB_MIGRATE_WRONG_NODE] + c[HB_MIGRATE_POLICY];
	for (size_t i = 0; i < d->nsrc; i++)
		host_failures += src_host_failures(&d->src[i]);
	/* dropped: records none of whose pages entered the table, a subset of
	   records; bad input never became records and is counted on its own */
	hb_dlog(d, LOG_INFO,
		"%s %.1f s and %llu cycles: %llu records (%llu dropped), "
		"%llu bad input, %llu pages promoted%s, %llu failures (%llu pages not moved, "
		"%llu source errors, %llu plugin host failures)",
		lead, (double)(hb_now_ns() - d->started_ns) / 1e9, (unsigned long long)s->cycles,
		(unsigned long long)s->in.records, (unsigned long long)s->in.dropped_records,
		(unsigned long long)s->in.bad_input, (unsigned long long)c[HB_MIGRATE_MOVED],
		d->cfg.dry_run ? " (dry run)" : "",
		(unsigned long long)(not_moved + s->source_errors + host_failures),
		(unsigned long long)not_moved, (unsigned long long)s->source_errors,
		(unsigned long long)host_failures);
}

void hb_daemon_log_exit_summary(const struct hb_daemon *d)
{
	hb_daemon_log_counters(d, "exiting after");
}

/* NUMA nodes are numbers everywhere in our JSON (explain, translate, topology) */
static json_object *nodes_json(uint64_t mask)
{
	json_object *a = json_object_new_array();

	for (int n = 0; n < 64; n++)
		if ((mask >> n) & 1)
			json_object_array_add(a, json_object_new_int(n));
	return a;
}

/* a ", " list of keys as a JSON array */
static json_object *key_list(const char *list)
{
	json_object *a = json_object_new_array();

	while (*list) {
		const char *end = strstr(list, ", ");
		size_t len = end ? (size_t)(end - list) : strlen(list);

		json_object_array_add(a, json_object_new_string_len(list, (int)len));
		list += len + (end ? 2 : 0);
	}
	return a;
}

json_object *hb_daemon_reload_json(const struct hb_daemon *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "applied", key_list(d->reload_applied));
	json_object_object_add(o, "restart_needed", key_list(d->restart_needed));
	return o;
}

/* an isolated source's host: state, pid, restarts, its last failure, bad and dropped records */
static json_object *plugin_host_json(const struct source *s)
{
	json_object *o = json_object_new_object();
	struct hb_proxy_state ps;

	hb_plugin_proxy_state(s->priv, &ps);
	/* a source the daemon disabled (its polls failed) is disabled whatever its host does */
	if (s->disabled && strcmp(ps.state, "disabled")) {
		ps.state = "disabled";
		snprintf(ps.problem, sizeof(ps.problem),
			 "disabled: its polls failed %d times in a row", SOURCE_MAX_ERRORS);
	}
	json_object_object_add(o, "source", json_object_new_string(s->name));
	json_object_object_add(o, "state", json_object_new_string(ps.state));
	json_object_object_add(o, "problem", json_object_new_string(ps.problem));
	json_object_object_add(o, "pid", json_object_new_int(ps.pid));
	json_object_object_add(o, "restarts", hb_daemon_json_u64(ps.restarts));
	json_object_object_add(o, "failures", hb_daemon_json_u64(ps.failures));
	json_object_object_add(o, "last_failure", json_object_new_string(ps.last_failure));
	json_object_object_add(o, "retry_in_s", hb_daemon_json_u64(ps.retry_in_s));
	json_object_object_add(o, "bad_records", hb_daemon_json_u64(ps.bad_records));
	json_object_object_add(o, "dropped", hb_daemon_json_u64(ps.dropped));
	return o;
}

/* the sources run in hotbridge-plugin-host, each with what went wrong */
static json_object *plugin_hosts_json(const struct hb_daemon *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < d->nsrc; i++)
		if (d->src[i].isolated)
			json_object_array_add(a, plugin_host_json(&d->src[i]));
	return a;
}

json_object *hb_daemon_status_json(struct hb_daemon *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "state", json_object_new_string(d->paused ? "paused" : "running"));
	if (d->paused)
		json_object_object_add(o, "paused_kept", json_object_new_boolean(d->paused_kept));
	json_object_object_add(o, "uptime_s",
			       hb_json_double((double)(hb_now_ns() - d->started_ns) / 1e9, 3));
	json_object_object_add(o, "cycles", hb_daemon_json_u64(d->st.cycles));
	json_object_object_add(o, "interval_ms", hb_daemon_json_u64(d->cfg.interval_ms));
	json_object_object_add(o, "migrator", json_object_new_string(hb_migrator_describe(d->mig)));
	json_object_object_add(o, "dry_run", json_object_new_boolean(d->cfg.dry_run));
	json_object_object_add(o, "restart_needed", key_list(d->restart_needed));
	json_object_object_add(o, "sources", hb_daemon_json_u64(d->nsrc));
	json_object_object_add(o, "plugin_hosts", plugin_hosts_json(d));
	json_object_object_add(o, "table_pages", hb_daemon_json_u64(hb_heat_len(d->heat)));
	json_object_object_add(o, "table_bytes", hb_daemon_json_u64(hb_heat_bytes(d->heat)));
	json_object_object_add(o, "source_nodes", nodes_json(d->source_mask));
	json_object_object_add(o, "last_cycle_ms", hb_json_double(d->st.last_cycle_ms, 3));
	json_object_object_add(o, "history_entries", hb_daemon_json_u64(hb_history_len(d->history)));
	json_object_object_add(o, "history_bytes", hb_daemon_json_u64(hb_history_bytes(d->history)));
	json_object_object_add(o, "conflicts", hb_daemon_conflicts_json(d));
	hb_daemon_tenants_status(d, o);
	hb_daemon_status_why(d, o);
	return o;
}

/*
 * what h counts (records, cycles), its median, p99 and maximum in us, and
 * its histogram: [[largest ns, count], ...] for the buckets not empty, so
 * a client takes two and has the quantiles of the span between them
 */
static json_object *latency_json(const char *what, const struct hb_latency_hist *h)
{
	json_object *o = json_object_new_object(), *b = json_object_new_array();

	json_object_object_add(o, what, hb_daemon_json_u64(h->count));
	json_object_object_add(o, "p50", hb_daemon_json_u64(hb_latency_quantile(h, 0.50) / 1000));
	json_object_object_add(o, "p99", hb_daemon_json_u64(hb_latency_quantile(h, 0.99) / 1000));
	json_object_object_add(o, "max", hb_daemon_json_u64(h->max_ns / 1000));
	for (size_t i = 0; i < HB_LATENCY_BUCKETS; i++) {
		json_object *pair;

		if (!h->bucket[i])
			continue;
		pair = json_object_new_array_ext(2);
		json_object_array_add(pair, hb_daemon_json_u64(hb_latency_bucket_top(i)));
		json_object_array_add(pair, hb_daemon_json_u64(h->bucket[i]));
		json_object_array_add(b, pair);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

/* {"EACCES": n, ...}: the failed moves by errno, the ones seen only */
static json_object *errno_counts(const struct hb_migrate_counts *c)
{
	json_object *o = json_object_new_object();

	for (size_t e = 1; e < HB_ARRAY_SIZE(c->by_errno); e++)
		if (c->by_errno[e])
			json_object_object_add(o, hb_errno_name((int)e),
					       hb_daemon_json_u64(c->by_errno[e]));
	return o;
}

json_object *hb_daemon_stats_json(struct hb_daemon *d)
{
	json_object *o = json_object_new_object(), *x;
	struct hb_damon_stats ds;

	json_object_object_add(o, "cycles", hb_daemon_json_u64(d->st.cycles));
	json_object_object_add(o, "records", hb_daemon_json_u64(d->st.in.records));
	json_object_object_add(o, "translated", hb_daemon_json_u64(d->st.in.translated));
	json_object_object_add(o, "records_dropped", hb_daemon_json_u64(d->st.in.dropped_records));
	json_object_object_add(o, "bad_input", hb_daemon_json_u64(d->st.in.bad_input));
	json_object_object_add(o, "partial", hb_daemon_json_u64(d->st.in.partial));
	json_object_object_add(o, "pages_added", hb_daemon_json_u64(d->st.in.pages));
	json_object_object_add(o, "deferred", hb_daemon_json_u64(d->st.in.deferred));
	json_object_object_add(o, "backlog", hb_daemon_json_u64(hb_ingest_backlog(d->intake.ingest)));
	{
		/* the thread serving this is the event loop's: its CPU time and page faults */
		struct rusage ru;

		if (getrusage(RUSAGE_THREAD, &ru) == 0) {
			x = json_object_new_object();
			json_object_object_add(x, "user_ms",
					       hb_daemon_json_u64(
						       (uint64_t)ru.ru_utime.tv_sec * 1000 +
						       (uint64_t)ru.ru_utime.tv_usec / 1000));
			json_object_object_add(x, "sys_ms",
					       hb_daemon_json_u64(
						       (uint64_t)ru.ru_stime.tv_sec * 1000 +
						       (uint64_t)ru.ru_stime.tv_usec / 1000));
			json_object_object_add(x, "minor_faults",
					       hb_daemon_json_u64((uint64_t)ru.ru_minflt));
			json_object_object_add(x, "major_faults",
					       hb_daemon_json_u64((uint64_t)ru.ru_majflt));
			json_object_object_add(o, "loop_thread", x);
		}
	}
	x = json_object_new_object();
	for (int i = 0; i < _HB_DROP_MAX; i++)
		json_object_object_add(x, hb_drop_to_string(i),
				       hb_daemon_json_u64(d->st.in.dropped[i]));
	json_object_object_add(o, "dropped", x);
	x = json_object_new_object();
	for (int i = 0; i < _HB_DROP_MAX; i++)
		json_object_object_add(x, hb_drop_to_string(i),
				       hb_daemon_json_u64(d->st.in.pages_dropped[i]));
	json_object_object_add(o, "pages_dropped", x);
	x = json_object_new_object();
	for (int i = 0; i < _HB_REASON_MAX; i++)
		json_object_object_add(x, hb_reason_to_string(i),
				       hb_daemon_json_u64(d->st.decisions[i]));
	json_object_object_add(o, "decisions", x);
	x = json_object_new_object();
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		json_object_object_add(x, hb_migrate_class_to_string(i),
				       hb_daemon_json_u64(d->st.migrated.by_class[i]));
	json_object_object_add(o, "migrated", x);
	json_object_object_add(o, "migrated_errors", errno_counts(&d->st.migrated));
	json_object_object_add(o, "promoted_bytes", hb_daemon_json_u64(d->st.promoted_bytes));
	x = json_object_new_object();
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		json_object_object_add(x, hb_migrate_class_to_string(i),
				       hb_daemon_json_u64(d->st.demoted.by_class[i]));
	json_object_object_add(o, "demoted", x);
	json_object_object_add(o, "demoted_errors", errno_counts(&d->st.demoted));
	json_object_object_add(o, "demoted_bytes", hb_daemon_json_u64(d->st.demoted_bytes));
	json_object_object_add(o, "demote_backoffs", hb_daemon_json_u64(d->st.demote_backoffs));
	x = json_object_new_object();
	json_object_object_add(x, "census_ms", hb_daemon_json_u64(d->st.demote_census_us / 1000));
	json_object_object_add(x, "census_max_ms",
			       hb_daemon_json_u64(d->st.demote_census_max_us / 1000));
	json_object_object_add(x, "coldness_ms", hb_daemon_json_u64(d->st.demote_coldness_us / 1000));
	json_object_object_add(x, "coldness_max_ms",
			       hb_daemon_json_u64(d->st.demote_coldness_max_us / 1000));
	json_object_object_add(x, "move_ms", hb_daemon_json_u64(d->st.demote_move_us / 1000));
	json_object_object_add(x, "decide_ms", hb_daemon_json_u64(d->st.demote_decide_us / 1000));
	json_object_object_add(x, "decide_max_ms",
			       hb_daemon_json_u64(d->st.demote_decide_max_us / 1000));
	json_object_object_add(x, "census_frames", hb_daemon_json_u64(d->st.census_frames));
	json_object_object_add(x, "idle_checked", hb_daemon_json_u64(d->st.idle_checked));
	json_object_object_add(x, "census_samples", hb_daemon_json_u64(d->st.census_samples));
	json_object_object_add(x, "idle_rounds", hb_daemon_json_u64(d->st.idle_rounds));
	json_object_object_add(x, "idle_round_ms", hb_daemon_json_u64(d->st.idle_round_us / 1000));
	json_object_object_add(o, "demote_work", x);
	json_object_object_add(o, "demoted_freed", hb_daemon_json_u64(d->st.demoted_freed));
	{
		uint64_t expired, dropped;
		size_t held;

		hb_policy_hold_counts(d->policy, &held, &expired, &dropped);
		x = json_object_new_object();
		json_object_object_add(x, "held", hb_daemon_json_u64(held));
		json_object_object_add(x, "expired", hb_daemon_json_u64(expired));
		json_object_object_add(x, "dropped", hb_daemon_json_u64(dropped));
		json_object_object_add(o, "hysteresis", x);
	}
	json_object_object_add(o, "placed_pages",
			       d->dm.placed ? hb_daemon_json_u64(hb_placed_len(d->dm.placed)) : NULL);
	json_object_object_add(o, "coldness",
			       d->dm.placed && d->env.coldness.ops ?
				       json_object_new_string(d->env.coldness.ops->name) :
				       NULL);
	json_object_object_add(o, "census_shared_frames",
			       census_shared(d) >= 0 ? hb_daemon_json_u64((uint64_t)census_shared(d)) :
						       NULL);
	json_object_object_add(o, "source_errors", hb_daemon_json_u64(d->st.source_errors));
	json_object_object_add(o, "uevents", hb_daemon_json_u64(d->st.uevents));
	json_object_object_add(o, "topology_reloads", hb_daemon_json_u64(d->st.topology_reloads));
	json_object_object_add(o, "topology_reload_failures",
			       hb_daemon_json_u64(d->st.topology_reload_failures));
	json_object_object_add(o, "topology_pages_dropped",
			       hb_daemon_json_u64(d->st.topology_pages_dropped));
	x = json_object_new_object();
#define MEDIA(name) json_object_object_add(x, #name, hb_daemon_json_u64(d->st.media.name))
	MEDIA(media_events), MEDIA(poison_events), MEDIA(poison_cleared);
	MEDIA(overflow_events), MEDIA(overflow_records_lost), MEDIA(hpa_agree), MEDIA(hpa_mismatch);
	MEDIA(quarantined_pages), MEDIA(quarantine_dropped), MEDIA(quarantine_untranslated);
	MEDIA(quarantine_full), MEDIA(quarantine_refused_late), MEDIA(poison_released);
	MEDIA(poison_clear_kept);
#undef MEDIA
	json_object_object_add(o, "device_events", x);
	x = json_object_new_object();
	json_object_object_add(x, "record_to_table", latency_json("records", &d->lat.to_table));
	json_object_object_add(x, "record_to_decision", latency_json("records", &d->lat.to_decision));
	json_object_object_add(x, "cycle", latency_json("cycles", &d->lat.cycle));
	json_object_object_add(x, "demote_step", latency_json("cycles", &d->lat.demote));
	json_object_object_add(x, "move_batch", latency_json("batches", &d->lat.batch));
	json_object_object_add(x, "batch_fold", latency_json("batches", &d->lat.fold));
	json_object_object_add(x, "promote_decide", latency_json("steps", &d->lat.decide));
	json_object_object_add(x, "history", latency_json("steps", &d->lat.history));
	json_object_object_add(o, "latency_us", x);
	/* only with the damon migrator: measured and inferred kept apart */
	if (hb_daemon_damon_stats(d, &ds) == 0)
		json_object_object_add(o, "damon", hb_damon_stats_json(&ds));
	return o;
}

json_object *hb_daemon_sources_json(struct hb_daemon *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < d->nsrc; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(d->src[i].name));
		json_object_object_add(o, "source", json_object_new_string(d->src[i].ops->name));
		json_object_object_add(o, "origin", json_object_new_string(d->src[i].origin));
		if (d->src[i].memdev[0])
			json_object_object_add(o, "memdev", json_object_new_string(d->src[i].memdev));
		json_object_object_add(o, "records", hb_daemon_json_u64(d->src[i].records));
		json_object_object_add(o, "bad_input", hb_daemon_json_u64(d->src[i].bad_input));
		json_object_object_add(o, "events", hb_daemon_json_u64(d->src[i].events));
		json_object_object_add(o, "consecutive_errors", hb_daemon_json_u64(d->src[i].errors));
		json_object_object_add(o, "overflows", hb_daemon_json_u64(d->src[i].overflows));
		json_object_object_add(o, "disabled", json_object_new_boolean(d->src[i].disabled));
		json_object_object_add(o, "isolated", json_object_new_boolean(d->src[i].isolated));
		if (d->src[i].isolated)
			json_object_object_add(o, "host", plugin_host_json(&d->src[i]));
		json_object_array_add(a, o);
	}
	return a;
}
