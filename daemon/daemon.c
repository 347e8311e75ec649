// SPDX-License-Identifier: MIT
/*
 * The daemon's lifecycle and loop: set-up (the stages, the migrator, the
 * sources), the event loop with its cycle timer and signals, tear-down.
 * Each stage has its file (daemon-private.h lists them).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <event2/event.h>

#include "conf/conf-check.h"
#include "daemon-private.h"
#include "pause-state.h"
#include "ingest/ingest.h"
#include "notify.h"
#include "signals.h"

static int open_migrator(struct hb_daemon *d, struct hb_err *err)
{
	struct hb_migrator_config mc = { .syscall_nr = d->cfg.syscall_nr,
					 .source_nodes = d->source_mask,
					 .rescan_ms = (unsigned int)d->cfg.rescan_ms,
					 .dryrun_keep = d->env.dryrun_keep,
					 .rate_bytes = (uint64_t)(d->cfg.rate_mbps * 1e6),
					 /*
					  * damon: apply periods of 200 ms, not 1.1 s: a
					  * batch waits for the first apply after its commit
					  * with the event loop blocked (the quota stays:
					  * without one the old ranges are applied again
					  * until the next commit lands, and move what a
					  * freed frame holds by then)
					  */
					 .damon_reset_ms = 100,
					 .damon_takeover = d->cfg.damon_takeover,
					 .damon_state = d->cfg.damon_state,
					 .override_mempolicy = d->cfg.override_mempolicy };
	const char *b = d->cfg.dry_run ? "dryrun" : d->cfg.backend;
	struct hb_migrator_choice why;
	int r;

	/* the damon coldness source's kdamond, made with ours (kernel.h) */
	if (d->dm.placed && d->env.coldness.ops && d->env.coldness.ops->damon)
		hb_damon_monitor_reserve(&mc);
	if (strcmp(b, "auto"))
		return hb_migrator_new(hb_migrator_kind_from_string(b), &mc, &d->mig, err);
	r = hb_migrator_new_auto(&mc, &d->mig, &why, err);
	for (int k = 0; k < _HB_MIGRATOR_MAX; k++)
		if (why.why[k][0])
			hb_dlog(d, LOG_INFO, "backend auto: %s unavailable: %s",
				hb_migrator_kind_to_string(k), why.why[k]);
	if (r == 0)
		hb_dlog(d, LOG_INFO, "backend auto: using %s", hb_migrator_kind_to_string(why.kind));
	return r;
}

/* every source failed to open (each said why above): nothing to run for */
static int no_source_opened(struct hb_daemon *d, struct hb_err *err)
{
	char names[HB_ERR_MSG_MAX] = "";

	for (size_t i = 0; i < d->cfg.nsources; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", d->cfg.sources[i].name);
	return hb_err_set(err, -ENODEV, "no source opened: %s (each one's error is above)", names);
}

int hb_daemon_new(const struct hb_config *cfg, struct hb_daemon_env *env, struct hb_daemon **ret,
		  struct hb_err *err)
{
	struct hb_daemon *d = calloc(1, sizeof(*d));
	char set[HB_NODE_SET_MAX];
	long ps = sysconf(_SC_PAGESIZE);
	int r;

	if (!d)
		return hb_err_set(err, -ENOMEM, "out of memory");
	d->cfg = *cfg;
	d->cfg.nsources = cfg->nsources; /* params stay owned by the caller's config */
	d->env = *env;
	memset(env, 0, sizeof(*env)); /* taken */
	d->topo_watch.uevent_fd = -1; /* opened when watched */
	d->mig = d->env.migrator;     /* NULL: opened from the config below */
	d->env.migrator = NULL;
	if (!d->env.platform) {
		r = hb_err_set(err, -EINVAL,
			       "no platform: neither the live host nor the emulated one");
		goto fail;
	}
	if (hb_logger_init(&d->log, cfg->log_level, cfg->log_target) < 0) {
		r = hb_err_set(err, -EINVAL, "log_level '%s' or log_target '%s': unknown",
			       cfg->log_level, cfg->log_target);
		goto fail;
	}
	d->started_ns = hb_now_ns();
	d->pcfg = (struct hb_policy_config){
		.threshold = cfg->threshold,
		.top_k = cfg->top_k,
		.hysteresis_ns = cfg->hysteresis_ms * 1000000ULL,
		.rate_mbps = cfg->rate_mbps,
		.burst_mb = hb_config_burst_mb(cfg),
		.watermark_bytes = cfg->watermark_mb << 20,
		.target_node = (int)cfg->target_node,
		.page_size = ps > 0 ? (uint64_t)ps : 4096,
		.min_epochs = (unsigned int)cfg->min_epochs,
	};
	d->base = event_base_new();
	if (!d->base || hb_cycle_scratch_init(&d->scratch) < 0) {
		r = hb_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if ((r = hb_config_check_table(cfg, hb_config_mem_bytes(), err)) < 0 ||
	    (r = hb_heat_new(cfg->max_entries, cfg->decay,
			     (unsigned int)__builtin_ctzll(d->pcfg.page_size), &d->heat, err)) < 0 ||
	    (r = hb_policy_new(cfg->top_k ? cfg->top_k * 64 : 4096 * 64, &d->policy, err)) < 0 ||
	    (r = hb_history_new(cfg->history_size, &d->history, err)) < 0 ||
	    (r = hb_daemon_demote_new(d, err)) < 0)
		goto fail;
	if ((r = hb_config_source_nodes(cfg, &d->source_mask, err)) < 0)
		goto fail;
	if (!d->source_mask)
		d->source_mask = hb_daemon_topology_nodes(d);
	hb_daemon_warn_refused(d);
	if ((r = hb_daemon_intake_new(d, err)) < 0)
		goto fail;
	hb_daemon_refresh_nodes(d);
	if ((r = hb_daemon_check_config(d, &d->cfg, err)) < 0 ||
	    (r = hb_daemon_tenants_apply(d, &d->cfg, err)) < 0)
		goto fail;
	if ((!d->mig && (r = open_migrator(d, err)) < 0) ||
	    (r = hb_daemon_demote_check_mover(d, err)) < 0)
		goto fail;
	hb_daemon_check_conflicts(d, "start"); /* after the migrator: its kdamond is ours */
	hb_daemon_open_sources(d);
	if (d->nsrc == 0) {
		r = no_source_opened(d, err);
		goto fail;
	}
	hb_dlog(d, LOG_INFO,
		"%zu source(s), migrator %s, source nodes %s, threshold %g, every %llu ms", d->nsrc,
		hb_migrator_describe(d->mig), hb_node_set_format(d->source_mask, set, sizeof(set)),
		cfg->threshold, (unsigned long long)cfg->interval_ms);
	*ret = d;
	return 0;
fail:
	hb_daemon_free(d);
	return r;
}

struct hb_daemon *hb_daemon_free(struct hb_daemon *d)
{
	if (!d)
		return NULL;
	hb_daemon_close_control(d);
	if (d->intake.drain_ev)
		event_free(d->intake.drain_ev);
	if (d->topo_watch.uevent_ev)
		event_free(d->topo_watch.uevent_ev);
	if (d->topo_watch.debounce_ev)
		event_free(d->topo_watch.debounce_ev);
	if (d->topo_watch.uevent_fd >= 0)
		close(d->topo_watch.uevent_fd);
	hb_daemon_close_sources(d);
	if (d->timer)
		event_free(d->timer);
	if (d->watchdog)
		event_free(d->watchdog);
	if (d->status_ev)
		event_free(d->status_ev);
	for (size_t i = 0; i < HB_ARRAY_SIZE(d->sig); i++)
		if (d->sig[i])
			event_free(d->sig[i]);
	/*
	 * the idle worker, then the batch thread (their shared mutex after
	 * both), the batch's watch before the base, and both threads, which
	 * use the migrator and the coldness source, before those
	 */
	hb_daemon_batch_wait(d); /* a demotion's decision reads the placed pages */
	hb_daemon_demote_free(d);
	hb_daemon_tenants_free(d);
	hb_cycle_scratch_done(&d->scratch);
	if (d->base)
		event_base_free(d->base);
	hb_ingest_free(d->intake.ingest);
	hb_heat_free(d->heat);
	hb_daemon_media_free(d);
	hb_policy_free(d->policy);
	hb_history_free(d->history);
	hb_migrator_free(d->mig);
	hb_platform_free(d->env.platform);
	free(d);
	return NULL;
}

/* ---- the loop ---- */

static void on_cycle(evutil_socket_t fd, short what, void *arg)
{
	struct hb_daemon *d = arg;

	hb_daemon_cycle(d);
	if (d->env.after_cycle)
		d->env.after_cycle(d->env.ud, d);
	if (d->env.stop_cycles && d->st.cycles >= d->env.stop_cycles)
		event_base_loopexit(d->base, NULL);
}

_Static_assert(HB_ARRAY_SIZE(((struct hb_daemon *)0)->sig) == HB_ARRAY_SIZE(hb_signals_handled),
	       "an event for each handled signal");

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct hb_daemon *d = arg;

	if (sig == SIGHUP) {
		struct hb_err err = { 0 };

		(void)hb_daemon_reload(d, &err); /* logs a refusal */
		return;
	}
	if (sig == SIGUSR1) {
		hb_daemon_log_counters(d, "SIGUSR1: running for");
		return;
	}
	/* once: libevent may hand over two that came together */
	if (!d->finishing)
		hb_dlog(d, LOG_INFO,
			"SIG%s: finishing the cycle, then exiting 0 (another SIGTERM or SIGINT "
			"changes nothing)",
			sig == SIGINT ? "INT" : "TERM");
	if (!d->finishing)
		(void)hb_notify("STOPPING=1\nSTATUS=SIG%s: finishing the cycle",
				sig == SIGINT ? "INT" : "TERM");
	d->finishing = true;
	event_base_loopexit(d->base, NULL);
}

#define STATUS_EVERY_NS (10 * 1000000000ULL)

/*
 * Every 10 s from its own timer: STATUS= says what the loop does, per second
 * since the last one (systemctl status shows it): records in, pages
 * promoted and demoted, and promotions held by the rate limit and the
 * watermark.
 */
static void send_status(struct hb_daemon *d)
{
	const struct hb_daemon_stats *s = hb_daemon_stats(d);
	uint64_t now = hb_now_ns(), dt = now - d->status_sent.ns;
	uint64_t rec = s->in.records, pro = s->migrated.by_class[HB_MIGRATE_MOVED],
		 dem = s->demoted.by_class[HB_MIGRATE_MOVED],
		 rl = s->decisions[HB_REASON_RATE_LIMIT], wm = s->decisions[HB_REASON_WATERMARK];
	double sec = (double)dt / 1e9;

	if (d->status_sent.ns)
		(void)hb_notify("STATUS=%s%zu source(s): %.0f records/s, %.1f pages/s promoted, "
				"%.1f demoted; held: rate limit %.1f/s, watermark %.1f/s",
				d->paused ? "paused; " : "", d->nsrc,
				(double)(rec - d->status_sent.records) / sec,
				(double)(pro - d->status_sent.promoted) / sec,
				(double)(dem - d->status_sent.demoted) / sec,
				(double)(rl - d->status_sent.rate_limit) / sec,
				(double)(wm - d->status_sent.watermark) / sec);
	d->status_sent.ns = now;
	d->status_sent.records = rec;
	d->status_sent.promoted = pro;
	d->status_sent.demoted = dem;
	d->status_sent.rate_limit = rl;
	d->status_sent.watermark = wm;
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)hb_notify("WATCHDOG=1");
}

static void on_status(evutil_socket_t fd, short what, void *arg)
{
	send_status(arg);
}

/*
 * systemd's WatchdogSec=: pinged from the loop, so a stuck loop is seen;
 * and, under any service manager, STATUS= every 10 s on a timer of its
 * own (with the pings it came every 30 s under the unit's WatchdogSec=60s,
 * and never without a watchdog)
 */
static int watch_dog(struct hb_daemon *d)
{
	uint64_t us = hb_notify_watchdog_period_us();
	struct timeval tv = { .tv_sec = (time_t)(us / 1000000),
			      .tv_usec = (suseconds_t)(us % 1000000) };
	struct timeval every = { .tv_sec = (time_t)(STATUS_EVERY_NS / 1000000000ULL) };

	if (hb_notify_enabled()) {
		d->status_ev = event_new(d->base, -1, EV_PERSIST, on_status, d);
		if (!d->status_ev || event_add(d->status_ev, &every) < 0)
			return -ENOMEM;
		send_status(d); /* the baseline the first rates are taken from */
	}
	if (!us)
		return 0;
	d->watchdog = event_new(d->base, -1, EV_PERSIST, on_watchdog, d);
	if (!d->watchdog || event_add(d->watchdog, &tv) < 0)
		return -ENOMEM;
	hb_dlog(d, LOG_INFO, "systemd watchdog: a ping every %llu ms", (unsigned long long)us / 1000);
	return 0;
}

int hb_daemon_simulate(struct hb_daemon *d, uint64_t cycles)
{
	int r = 0;

	if (!d->simulated) { /* a second call goes on from there */
		d->simulated = true;
		d->sim_ns = hb_now_ns();
	}
	hb_daemon_drop_capabilities(d);
	for (uint64_t i = 0; i < cycles && r == 0; i++) {
		d->sim_ns += d->cfg.interval_ms * 1000000ULL;
		r = hb_daemon_cycle(d);
		if (d->env.after_cycle)
			d->env.after_cycle(d->env.ud, d);
	}
	hb_daemon_log_exit_summary(d);
	return r;
}

/* a pause of the last run (pause_state) holds on; unreadable, run starts paused */
static void keep_pause(struct hb_daemon *d)
{
	struct hb_err err = { 0 };
	int r = hb_pause_state_read(d->env.pause_state_aside ? "" : d->cfg.pause_state, &err);

	if (r == 0)
		return;
	d->paused = d->paused_kept = true;
	if (r < 0)
		hb_dlog(d, LOG_WARNING,
			"%s: starting paused to be safe (`hotbridge resume` to "
			"promote)",
			err.msg);
	else
		hb_dlog(d, LOG_NOTICE,
			"paused (kept from the last run: %s; `hotbridge resume` "
			"to promote)",
			d->cfg.pause_state);
}

int hb_daemon_run(struct hb_daemon *d, const char *config_path)
{
	struct timeval tv = { .tv_sec = (time_t)(d->cfg.interval_ms / 1000),
			      .tv_usec = (suseconds_t)(d->cfg.interval_ms % 1000 * 1000) };

	d->config_path = config_path;
	d->looping = true;
	d->timer = event_new(d->base, -1, EV_PERSIST, on_cycle, d);
	if (!d->timer || event_add(d->timer, &tv) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < HB_ARRAY_SIZE(d->sig); i++) {
		d->sig[i] = evsignal_new(d->base, hb_signals_handled[i], on_signal, d);
		if (!d->sig[i] || event_add(d->sig[i], NULL) < 0)
			return -ENOMEM;
	}
	keep_pause(d);
	if (hb_daemon_listen_control(d) < 0)
		return -EADDRINUSE;
	hb_daemon_watch_uevents(d);
	hb_daemon_drop_capabilities(d);
	/* after the drop: the batch thread has the credentials the loop keeps */
	if (hb_daemon_batch_watch(d) < 0)
		hb_dlog(d, LOG_WARNING, "moves: no watch on their thread, they run on the loop's");
	if (watch_dog(d) < 0)
		return -ENOMEM;
	(void)hb_notify("READY=1\nSTATUS=running: %zu source(s), migrator %s, a cycle every %llu ms",
			d->nsrc, hb_migrator_describe(d->mig),
			(unsigned long long)d->cfg.interval_ms);
	/* `run` held them during its set-up (signals.h); the threads keep them blocked */
	(void)hb_signals_unblock();
	event_base_dispatch(d->base);
	d->looping = false;
	hb_daemon_batch_settle(d); /* a batch out is folded: the counts are whole */
	d->stopped = true;
	if (d->cfg.metrics_textfile[0])
		hb_daemon_write_textfile(d); /* the last word: hotbridge_up 0 */
	hb_daemon_log_exit_summary(d);
	return d->rc;
}
