// SPDX-License-Identifier: MIT
/*
 * The configuration again (SIGHUP, `hotbridge reload`): read as at
 * start-up, checked with this host's facts, the live keys applied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <event2/event.h>

#include "conf/conf-check.h"
#include "daemon-private.h"
#include "notify.h"
#include "util/macro.h"

struct refusals {
	struct hb_plugin_refusal v[8];
	size_t n;
};

static void note_refusal(void *ud, const char *path, const char *why)
{
	struct refusals *rf = ud;

	if (rf->n < HB_ARRAY_SIZE(rf->v) && hb_plugin_refusal_note(&rf->v[rf->n], path, why) == 0)
		rf->n++;
}

/* what check-config checks too (conf-check.c), with this host's facts */
static void warn_log(void *ud, const char *msg)
{
	struct hb_daemon *d = ud;

	hb_dlog(d, LOG_WARNING, "%s", msg);
}

int hb_daemon_check_config(struct hb_daemon *d, const struct hb_config *cfg, struct hb_err *err)
{
	struct hb_plugin_set scanned = { 0 };
	struct refusals *rf = calloc(1, sizeof(*rf));
	struct hb_config_facts f = { .nodes = d->nodes,
				     .cxl_nodes = d->source_mask,
				     .plugins = &scanned,
				     .page_size = d->pcfg.page_size,
				     .mem_bytes = hb_config_mem_bytes(),
				     .migrator_given = d->mig != NULL,
				     .config_path = d->config_path };
	struct hb_source_facts sf = hb_daemon_source_facts(d);
	struct hb_err why = { 0 };
	int r;

	if (!rf)
		return hb_err_set(err, -ENOMEM, "out of memory");
	f.topology = hb_platform_topology(d->env.platform);
	f.window_nodes = sf.window_nodes;
	f.windows_why = sf.windows_why;
	/* names only: no plugin code runs to check a source's type */
	if (cfg->plugin_dir[0] &&
	    hb_plugins_scan(cfg->plugin_dir, 0, &scanned, note_refusal, rf, &why) < 0 &&
	    why.code != -ENOENT)
		hb_dlog(d, LOG_WARNING, "plugins: %s, ignoring", why.msg); /* the whole directory */
	f.refused = rf->v;
	f.nrefused = rf->n;
	r = hb_config_check(cfg, &f, err);
	if (r == 0) {
		f.warn = warn_log;
		f.warn_ud = d;
		hb_config_warn_limits(cfg, &f);
	}
	/* the refusals, each with its file, when a source's type is missing */
	for (size_t i = 0; r == -ENOENT && i < rf->n; i++)
		hb_dlog(d, LOG_WARNING, "plugin %s refused: %s", rf->v[i].path, rf->v[i].why);
	hb_plugin_set_done(&scanned);
	free(rf);
	return r;
}

/* keys a reload applies to the running daemon; all others need a restart */
static const char *const live_keys[] = {
	"daemon.interval_ms",  "daemon.log_level", "daemon.metrics_textfile",
	"policy.threshold",    "policy.top_k",     "policy.hysteresis_ms",
	"policy.rate_mbps",    "policy.burst_mb",  "policy.watermark_mb",
	"policy.target_node",  "demote.room_mb",   "demote.rate_pages",
	"demote.cxl_floor_mb", "demote.cxl_node",  "demote.cold_cycles",
	"demote.scan_mb",      "demote.step_ms",   "demote.idle_cpu_pct",
	"demote.track_mb",     "tenant.allow",     "tenant.deny",
	"tenant.budget_mb",    "tenant.no_cgroup", "policy.min_epochs",
};

struct reload_diff {
	char applied[512], restart[512];
};

static void list_add(char *list, size_t size, const char *item)
{
	size_t len = strlen(list);

	snprintf(list + len, size - len, "%s%s", len ? ", " : "", item);
}

static void on_changed(void *ud, const char *section, const char *key)
{
	struct reload_diff *rd = ud;
	char name[128];
	bool live = false;

	if (!key) {
		list_add(rd->restart, sizeof(rd->restart), "[source] sections");
		return;
	}
	snprintf(name, sizeof(name), "%s.%s", section, key);
	for (size_t i = 0; i < HB_ARRAY_SIZE(live_keys); i++)
		live |= !strcmp(live_keys[i], name);
	if (live)
		list_add(rd->applied, sizeof(rd->applied), name);
	else
		list_add(rd->restart, sizeof(rd->restart), name);
}

static int reload(struct hb_daemon *d, struct hb_err *err)
{
	struct hb_config *next;
	struct reload_diff rd = { "", "" };
	uint64_t old_interval = d->cfg.interval_ms;
	int r;

	if (!d->config_path)
		return hb_err_set(err, -ENOENT, "no configuration file");
	next = malloc(sizeof(*next));
	if (!next)
		return hb_err_set(err, -ENOMEM, "out of memory");
	/* from the defaults, so that a key removed from the file is reset */
	r = hb_config_read(next, d->config_path, true, d->env.sets, d->env.nsets, err);
	if (r < 0) {
		free(next);
		return r;
	}
	if (d->env.dry_run_forced)
		next->dry_run = true;
	r = hb_daemon_check_config(d, next, err);
	if (r < 0 || (r = hb_daemon_demote_check(d, next, err)) < 0 ||
	    (r = hb_daemon_tenants_apply(d, next, err)) < 0)
		goto out;
	hb_config_diff(&d->cfg, next, on_changed, &rd);
	d->pcfg.threshold = next->threshold;
	d->pcfg.top_k = next->top_k;
	d->pcfg.hysteresis_ns = next->hysteresis_ms * 1000000ULL;
	d->pcfg.rate_mbps = next->rate_mbps;
	d->pcfg.burst_mb = hb_config_burst_mb(next);
	d->pcfg.watermark_bytes = next->watermark_mb << 20;
	d->pcfg.target_node = (int)next->target_node;
	d->pcfg.min_epochs = (unsigned int)next->min_epochs;
	d->cfg.threshold = next->threshold;
	d->cfg.top_k = next->top_k;
	d->cfg.hysteresis_ms = next->hysteresis_ms;
	d->cfg.rate_mbps = next->rate_mbps;
	d->cfg.burst_mb = next->burst_mb;
	d->cfg.watermark_mb = next->watermark_mb;
	d->cfg.target_node = next->target_node;
	d->cfg.min_epochs = next->min_epochs;
	d->cfg.demote_room_mb = next->demote_room_mb;
	d->cfg.demote_rate_pages = next->demote_rate_pages;
	d->cfg.demote_cxl_floor_mb = next->demote_cxl_floor_mb;
	d->cfg.demote_cxl_node = next->demote_cxl_node;
	d->cfg.demote_cold_cycles = next->demote_cold_cycles;
	d->cfg.demote_scan_mb = next->demote_scan_mb;
	d->cfg.demote_step_ms = next->demote_step_ms;
	d->cfg.demote_idle_cpu_pct = next->demote_idle_cpu_pct;
	d->cfg.demote_track_mb = next->demote_track_mb;
	memcpy(d->cfg.tenant_allow, next->tenant_allow, sizeof(d->cfg.tenant_allow));
	memcpy(d->cfg.tenant_deny, next->tenant_deny, sizeof(d->cfg.tenant_deny));
	memcpy(d->cfg.tenant_budget_mb, next->tenant_budget_mb, sizeof(d->cfg.tenant_budget_mb));
	memcpy(d->cfg.tenant_no_cgroup, next->tenant_no_cgroup, sizeof(d->cfg.tenant_no_cgroup));
	hb_daemon_demote_config(d);
	d->cfg.interval_ms = next->interval_ms;
	memcpy(d->cfg.log_level, next->log_level, sizeof(d->cfg.log_level));
	(void)hb_logger_set_level(&d->log, d->cfg.log_level); /* checked above */
	memcpy(d->cfg.metrics_textfile, next->metrics_textfile, sizeof(d->cfg.metrics_textfile));
	if (d->timer && d->cfg.interval_ms != old_interval) {
		struct timeval tv = { .tv_sec = (time_t)(d->cfg.interval_ms / 1000),
				      .tv_usec = (suseconds_t)(d->cfg.interval_ms % 1000 * 1000) };

		event_del(d->timer);
		if (event_add(d->timer, &tv) < 0)
			hb_dlog(d, LOG_ERR, "reload: cannot re-arm the cycle timer");
	}
	/* the reply to `hotbridge reload` and status: rd.restart is all that waits, as
	 * d->cfg keeps the running values of what needs a restart */
	memcpy(d->reload_applied, rd.applied, sizeof(d->reload_applied));
	memcpy(d->restart_needed, rd.restart, sizeof(d->restart_needed));
	/* one line: what was applied and what waits for a restart, never "nothing" beside it */
	if (!rd.applied[0] && !rd.restart[0])
		hb_dlog(d, LOG_INFO, "reloaded %s: nothing changed", d->config_path);
	else if (!rd.restart[0])
		hb_dlog(d, LOG_INFO, "reloaded %s: applied: %s", d->config_path, rd.applied);
	else
		hb_dlog(d, LOG_WARNING,
			"reloaded %s: applied: %s; changed but needs a restart (running values "
			"kept): %s",
			d->config_path, rd.applied[0] ? rd.applied : "none", rd.restart);
	hb_daemon_check_conflicts(d, "reload");
out:
	hb_config_done(next);
	free(next);
	return r;
}

/*
 * SIGHUP and `hotbridge reload` both come here, so a refusal is logged
 * the same way whichever asked (the control client also gets err).
 */
int hb_daemon_reload(struct hb_daemon *d, struct hb_err *err)
{
	struct hb_err local = { 0 };
	int r;

	if (!err)
		err = &local;
	(void)hb_notify_reloading();
	r = reload(d, err);
	if (r < 0)
		hb_dlog(d, LOG_ERR, "reload refused, keeping the running configuration: %s",
			err->msg);
	(void)hb_notify("READY=1\nSTATUS=%s", r < 0 ? "reload refused, running configuration kept" :
						      "running: configuration reloaded");
	return r;
}
