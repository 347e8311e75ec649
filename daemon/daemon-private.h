/* SPDX-License-Identifier: MIT */
/*
 * What the daemon's own files share (daemon.h is the face the commands
 * see): struct hb_daemon and the steps of its pipeline, one file each.
 *   daemon.c                  lifecycle and the loop (new, free, run, signals)
 *   accessors.c               counters, migrator, topology, pause (daemon.h)
 *   logger.c                  the logger (logger.h)
 *   capabilities.c            what the migrator needs, the rest dropped
 *   ingest/source-host.c      the plugin host: watches, timers, open/poll of sources
 *   ingest/intake.c           records -> translation -> table (ingest.c), in slices
 *   cycle/cycle.c             decide -> migrate -> fold -> hold/back off -> decay
 *   cycle/move.c              one batch of moves, promotion's or demotion's
 *   cycle/nodes.c             the nodes refreshed (resting ones read as full)
 *   cycle/demote-step.c       the cycle's demotion: coldness, decide, migrate, fold
 *   control/report.c          status/stats/sources JSON, Prometheus, textfile
 *   control/damon-report.c    the damon migrator's counters in those
 *   control/explain.c         explain and history (core/'s const evaluation)
 *   control/conflict-report.c NUMA balancing, kernel demotion, other DAMON users
 *   control/control-ops.c     the control socket's callbacks
 *   conf/reload.c             the configuration again (SIGHUP, `reload`)
 *   platform/topology-watch.c uevents, debounce, topology rebuild, source nodes
 *   platform/platform.c       the platform (platform.h): topology, nodes, events
 *   platform/platform-live.c  the live host: libcxl/snapshot, sysfs blocks, libnuma, uevents
 * Not installed, not for commands or tests.
 */
#ifndef HB_DAEMON_PRIVATE_H
#define HB_DAEMON_PRIVATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"
#include "daemon.h"
#include "devices.h"
#include "cycle/cycle.h"
#include "ingest/intake.h"
#include "logger.h"
#include "platform/source-nodes.h"
#include "platform/topology-watch.h"

struct event;
struct event_base;
struct json_object;
struct hb_control;

/* the daemon's logger, at a LOG_* priority */
#define hb_dlog(d, prio, ...) hb_logger_log(&(d)->log, (prio), __VA_ARGS__)
/* with journal fields: f a const struct hb_log_fields * (logger.h) */
#define hb_dlogf(d, prio, f, ...) hb_logger_logf(&(d)->log, (prio), (f), __VA_ARGS__)

#define MAX_WATCHES 160
#define SOURCE_MAX_ERRORS 10

struct hb_host {
	struct hb_daemon *d;
	struct source *src;
};

struct source {
	const struct hb_device_ops *ops;
	char origin[PATH_MAX];
	void *priv;
	struct hb_dev_info info;
	struct hb_host host;
	char name[64], memdev[32], pci[32];
	/* the config's parameters, plus what the host adds (emul-chmu's capacity) */
	const char *params[HB_MAX_SOURCE_PARAMS + 2];
	char added[48];
	uint64_t records, errors;
	uint64_t bad_input; /* units it could not make records of */
	uint64_t events;    /* media events taken (ABI 1.2) */
	uint64_t overflows; /* the device dropped hotness (ABI 1.3: a CHMU hotlist overflow) */
	bool disabled;
	bool stopped;     /* disabled because it can never report again (not by failed polls) */
	bool pushed_back; /* told the backlog is full (ABI 1.4): poll it once it has room */
	/* fds watched and timers armed: an fd-only source with neither is stopped */
	unsigned int nwatch, ntimer;
	bool isolated; /* a plugin run in hotbridge-plugin-host: priv is its proxy */
};

struct watch {
	struct hb_daemon *d;
	struct source *src; /* whose watch it is */
	int fd;
	struct event *ev;
	void (*cb)(void *priv, int fd, uint32_t revents);
	void *priv;
};

struct hb_daemon {
	struct hb_config cfg;
	struct hb_daemon_env env;
	struct event_base *base;
	struct event *timer, *sig[4]; /* signals.h's handled ones */
	struct event *watchdog;       /* systemd's WatchdogSec= (notify.h) */
	struct event *status_ev;      /* STATUS= every 10 s under systemd (notify.h) */
	struct {                      /* the last STATUS= sent */
		uint64_t ns, records, promoted, demoted, rate_limit, watermark;
	} status_sent;
	struct hb_heat_table *heat;
	struct hb_policy *policy;
	struct hb_policy_config pcfg;
	struct hb_history *history; /* decisions and their outcomes */
	struct hb_migrator *mig;
	struct hb_plugin_set plugins;
	struct source src[HB_MAX_SOURCES];
	size_t nsrc;
	size_t poll_next; /* the source the next polling round starts at */
	struct watch watch[MAX_WATCHES];
	struct hb_numa_node nodes[HB_MAX_NODES];
	uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
	uint64_t source_mask;                 /* from config or topology */
	uint64_t backoff_until[HB_MAX_NODES]; /* ENOMEM on a target: rest it */
	struct hb_demotion dm;                /* the demotion step's (cycle/cycle.h) */
	struct hb_tenants *tenants;           /* [tenant] rules (cycle/tenants.h); NULL: none */
	int8_t *tenant_budget;                /* a promotion batch's pages' budgets (-1: none) */
	bool tenant_filter_off;               /* damon: the kernel has no DAMOS filters */
	struct hb_cycle_scratch scratch;      /* a batch's arrays (cycle/cycle.h) */
	struct hb_daemon_stats st;
	/* st.in at the last cycle line: the line counts what came since, by any way */
	struct hb_ingest_stats logged_in;
	/* idle cycles have no line (cycle.c): the first since the last line, and its time */
	uint64_t idle_from, line_ns;
	struct hb_media_state media;
	struct hb_latency lat;
	struct hb_intake intake; /* records into the table (ingest/intake.h) */
	bool looping;            /* in hb_daemon_run() */
	bool finishing;          /* SIGTERM or SIGINT came: the loop ends */
	bool stopped;            /* its loop ended: metrics say hotbridge_up 0 */
	int textfile_err;        /* the last metrics_textfile write's, or 0 */
	/* hb_daemon_simulate(): the clock is sim_ns, interval_ms more each cycle */
	bool simulated;
	uint64_t sim_ns;
	const char *config_path;
	struct hb_logger log;
	bool paused;
	/* the last reload's changed keys: applied, and kept until a restart (", " lists) */
	char reload_applied[512], restart_needed[512];
	bool paused_kept; /* paused at start by the pause_state of the last run */
	uint64_t started_ns;
	struct hb_control *control;
	struct hb_conflicts conflicts;       /* as probed at start or the last reload */
	struct hb_topology_watch topo_watch; /* uevents (platform/topology-watch.h) */
	int rc;
};

/*
 * The rule clock (util.h, "The clocks"): what the daemon times by rule
 * (hysteresis, rate limits, back-offs) reads this and nothing else. The
 * machine's monotonic clock (hb_now_ns()) on a live host; in a simulation
 * the simulated one. Latencies, uptime and deadlines are the machine's.
 */
static inline uint64_t hb_daemon_clock(const struct hb_daemon *d)
{
	return d->simulated ? d->sim_ns : hb_now_ns();
}

/* ---- shared between the daemon's files (each says where it lives) ---- */

/* the intake (media-events.c, source-host.c, intake.c): ingest/intake.h */
/* the cycle (cycle/nodes.c, cycle/move.c): cycle/cycle.h */

/* tenant-step.c */
/* c's [tenant] rules: opened (start, or a reload that first gives some) or replaced */
int hb_daemon_tenants_apply(struct hb_daemon *d, const struct hb_config *c, struct hb_err *err);
void hb_daemon_tenants_free(struct hb_daemon *d);
/* a promotion's n decisions (scratch) checked against the rules, before charging */
void hb_daemon_tenants_filter(struct hb_daemon *d, size_t n);
/* the batch's page i reached DRAM: counted to its budget */
void hb_daemon_tenants_moved(struct hb_daemon *d, size_t i);
/*
 * explain: buf gets the page's cgroup and the rule that applies, and a
 * promotion dec becomes the rules' refusal; false (nothing) without rules
 */
bool hb_daemon_tenants_explain(struct hb_daemon *d, struct hb_decision *dec, char *buf, size_t size);
/* a demotion's n decisions: the budget of each page to demote, read before it moves */
void hb_daemon_tenants_demote_owners(struct hb_daemon *d, size_t n);
/*
 * before a demotion decision: each tenant's pages over its budget, and the
 * budget of every placed page while one is (its owner read now), for
 * hb_demote_select() to take those first
 */
void hb_daemon_tenants_mark_over(struct hb_daemon *d);
/* whether a tenant holds more pages than its budget (a reload lowered it) */
bool hb_daemon_tenants_any_over(const struct hb_daemon *d);
/* the demotion batch's page i left DRAM: counted off its budget */
void hb_daemon_tenants_demoted(struct hb_daemon *d, size_t i);
/* status's "tenants" (nothing without rules) */
struct json_object;
void hb_daemon_tenants_status(const struct hb_daemon *d, struct json_object *o);
/* the per-budget gauges (nothing without budgets): labels bounded by the configuration */
void hb_daemon_tenants_metrics(const struct hb_daemon *d, FILE *f);

/* demote-step.c */
int hb_daemon_demote_new(struct hb_daemon *d, struct hb_err *err);
/* c's [demote] is usable here (start and reload) */
int hb_daemon_demote_check(const struct hb_daemon *d, const struct hb_config *c, struct hb_err *err);
void hb_daemon_demote_free(struct hb_daemon *d);
/*
 * after the migrator opened: a live host demotes with phys (or dryrun) only,
 * or with damon when the coldness is DAMON's, whose kdamond it then starts
 */
int hb_daemon_demote_check_mover(struct hb_daemon *d, struct hb_err *err);
void hb_daemon_demote_config(struct hb_daemon *d);
/*
 * the census and coldness of the demotion step, then its decision handed
 * to the batch thread (a batch of HB_BATCH_DEMOTE_DECIDE, out when
 * looping: hb_daemon_demote_decided() takes it): true, or false when
 * there is no demotion this cycle. When looping, the census and coldness
 * go on in slices of the loop's turns (a "batch" of HB_BATCH_DEMOTE_PREP,
 * worked by hb_daemon_batch_done()) and true says the step began.
 */
bool hb_daemon_demote_step(struct hb_daemon *d, uint64_t t0);
/* a promotion moved hpa from src to node: placed, for demotion to find */
void hb_daemon_demote_placed(struct hb_daemon *d, uint64_t hpa, int src, int node, uint64_t t0);

/* control/json.c */
struct json_object *hb_daemon_json_u64(uint64_t v);
/* status-why.c: adds to status why nothing is promoted (targets, watermark, demotion) */
void hb_daemon_status_why(struct hb_daemon *d, struct json_object *o);
/*
 * Promotion's state in one word (status's "promotion") and the limit that
 * held the last cycle's promotions ("promotion_limit": none, top_k,
 * watermark, rate_mbps or burst_mb); why in words into why (NULL: not)
 */
const char *hb_daemon_promotion_state(const struct hb_daemon *d, const char **ret_limit, char *why,
				      size_t size);
/* report.c */
void hb_daemon_write_textfile(struct hb_daemon *d);
void hb_daemon_log_exit_summary(const struct hb_daemon *d);
/* the same line, led by lead ("SIGUSR1: running for") */
void hb_daemon_log_counters(const struct hb_daemon *d, const char *lead);

/* topology-watch.c: platform/topology-watch.h */

/* control-ops.c: the control socket, when the configuration names one */
int hb_daemon_listen_control(struct hb_daemon *d); /* logged */
void hb_daemon_close_control(struct hb_daemon *d);

/* conflict-report.c: other movers of the same pages, into d->conflicts and
   the log (when: "start", "reload"); status's "conflicts" */
void hb_daemon_check_conflicts(struct hb_daemon *d, const char *when);
struct json_object *hb_daemon_conflicts_json(const struct hb_daemon *d);

/* reload.c */
int hb_daemon_check_config(struct hb_daemon *d, const struct hb_config *cfg, struct hb_err *err);

#endif
