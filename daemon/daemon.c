// SPDX-License-Identifier: MIT
/* The daemon: sources in, translation, table, policy, migration, counters. */
#include <errno.h>
#include <limits.h>
#include <cap-ng.h>
#include <numa.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "control.h"
#include "conf-check.h"
#include "daemon.h"
#include "history-json.h"
#include "ingest.h"
#include "uevent.h"
#include "devices.h"
#include "util/log.h"
#include "util/macro.h"

#define MAX_WATCHES 160
#define MAX_CANDIDATES 65536
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
	uint64_t records, errors;
	uint64_t bad_input;            /* units it could not make records of */
	bool disabled;
};

struct watch {
	struct hb_daemon *d;
	int fd;
	struct event *ev;
	void (*cb)(void *priv, int fd, uint32_t revents);
	void *priv;
};

/*
 * Ingestion works in slices of this length per loop turn; what is left waits
 * in its backlog, and the sources' fds are not read until it is worked off.
 */
#define INGEST_SLICE_NS (5ULL * 1000 * 1000)

struct hb_daemon {
	struct hb_config cfg;
	struct hb_daemon_env env;
	struct event_base *base;
	struct event *timer, *sig[3];
	struct hb_heat_table *heat;
	struct hb_policy *policy;
	struct hb_policy_config pcfg;
	struct hb_history *history;    /* decisions and their outcomes */
	struct hb_migrator *mig;
	struct hb_plugin_set plugins;
	struct source src[HB_MAX_SOURCES];
	size_t nsrc;
	struct watch watch[MAX_WATCHES];
	struct hb_numa_node nodes[HB_MAX_NODES];
	uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
	uint64_t source_mask;          /* from config or topology */
	uint64_t backoff_until[HB_MAX_NODES];   /* ENOMEM on a target: rest it */
	struct hb_candidate *cand;
	struct hb_decision *dec;
	uint64_t *hpa;
	int *tnode, *snode, *status;
	struct hb_daemon_stats st;
	struct hb_latency lat;
	struct hb_ingest *ingest;
	struct event *drain_ev;        /* works the ingestion backlog off */
	uint64_t turn_deadline;        /* this loop turn's ingestion slice ends */
	bool throttled;                /* source fds paused for the backlog */
	bool looping;                  /* in hb_daemon_run() */
	struct source *submitting;     /* whose records are being taken in */
	const char *config_path;
	bool journal, paused;
	uint64_t started_ns;
	struct hb_control *control;
	struct event *uevent_ev, *debounce_ev;
	int rc;
};


static int level_of(const char *s)
{
	static const char *const names[] = { "err", "warning", "notice", "info", "debug" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i]))
			return i + 3;
	return 6;
}

HB_PRINTF(3, 0)
static void vlog(const struct hb_daemon *d, int prio, const char *fmt, va_list ap)
{
	if (prio > level_of(d->cfg.log_level))
		return;
	if (!strcmp(d->cfg.log_target, "syslog")) {
		vsyslog(prio, fmt, ap);
		return;
	}
	hb_log_vstderr(d->journal, prio, d->journal ? NULL : "hotbridge", fmt, ap);
}

HB_PRINTF(3, 4)
static void logf_(const struct hb_daemon *d, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(d, prio, fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- host services for sources ---- */

HB_PRINTF(3, 4)
static void host_log(struct hb_host *h, int prio, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	logf_(h->d, prio, "source %s: %s", h->src->name, msg);
}

/*
 * Around every callback into a source: its records get one slice of
 * ingestion; a backlog left behind pauses the sources' fds (the kernel's
 * buffers hold what they have, and writers feel the back-pressure) until
 * on_drain() has worked it off, one slice per loop turn.
 */
static void turn_begin(struct hb_daemon *d)
{
	d->turn_deadline = d->looping ? now_ns() + INGEST_SLICE_NS : 0;
}

static void throttle(struct hb_daemon *d, bool on)
{
	if (d->throttled == on)
		return;
	d->throttled = on;
	for (int i = 0; i < MAX_WATCHES; i++)
		if (d->watch[i].ev)
			(void)(on ? event_del(d->watch[i].ev) : event_add(d->watch[i].ev, NULL));
}

/*
 * A zero timeout, not event_active(): libevent runs what is activated during
 * its active queue in the same pass, which would starve the control socket;
 * timers come after the next poll of every fd.
 */
static void drain_later(struct hb_daemon *d)
{
	static const struct timeval now = { 0, 0 };

	(void)evtimer_add(d->drain_ev, &now);
}

static void turn_end(struct hb_daemon *d)
{
	if (!hb_ingest_backlog(d->ingest))
		return;
	if (!d->looping) {
		(void)hb_ingest_drain(d->ingest, 0);
		return;
	}
	throttle(d, true);
	drain_later(d);
}

static void on_drain(evutil_socket_t fd, short what, void *arg)
{
	struct hb_daemon *d = arg;

	if (hb_ingest_drain(d->ingest, now_ns() + INGEST_SLICE_NS))
		drain_later(d);
	else
		throttle(d, false);
}

static void on_fd(evutil_socket_t fd, short what, void *arg)
{
	struct watch *w = arg;

	turn_begin(w->d);
	w->cb(w->priv, (int)fd, ((what & EV_READ) ? HB_FD_READ : 0) |
				((what & EV_WRITE) ? HB_FD_WRITE : 0));
	turn_end(w->d);
}

static int host_watch(struct hb_host *h, int fd, uint32_t events,
		      void (*cb)(void *priv, int fd, uint32_t revents), void *priv)
{
	struct hb_daemon *d = h->d;

	for (int i = 0; i < MAX_WATCHES; i++) {
		struct watch *w = &d->watch[i];

		if (w->ev)
			continue;
		w->d = d;
		w->fd = fd;
		w->cb = cb;
		w->priv = priv;
		w->ev = event_new(d->base, fd, EV_PERSIST | ((events & HB_FD_READ) ? EV_READ : 0) |
					      ((events & HB_FD_WRITE) ? EV_WRITE : 0), on_fd, w);
		if (!w->ev || (!d->throttled && event_add(w->ev, NULL) < 0)) {
			if (w->ev)
				event_free(w->ev);
			w->ev = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	return -EMFILE;
}

static int host_unwatch(struct hb_host *h, int fd)
{
	for (int i = 0; i < MAX_WATCHES; i++) {
		struct watch *w = &h->d->watch[i];

		if (w->ev && w->fd == fd) {
			event_free(w->ev);
			w->ev = NULL;
			return 0;
		}
	}
	return -ENOENT;
}

struct timer_arg {
	struct hb_daemon *d;
	struct event *ev;
	void (*cb)(void *priv);
	void *priv;
};

static void on_timer_once(evutil_socket_t fd, short what, void *arg)
{
	struct timer_arg *t = arg;
	struct hb_daemon *d = t->d;

	event_free(t->ev);
	turn_begin(d);
	t->cb(t->priv);
	turn_end(d);
	free(t);
}

static int host_timer(struct hb_host *h, uint64_t after_ns, void (*cb)(void *priv), void *priv)
{
	struct timer_arg *t = calloc(1, sizeof(*t));
	struct timeval tv = { .tv_sec = (time_t)(after_ns / 1000000000ULL),
			      .tv_usec = (suseconds_t)(after_ns % 1000000000ULL / 1000) };

	if (!t)
		return -ENOMEM;
	t->d = h->d;
	t->cb = cb;
	t->priv = priv;
	t->ev = evtimer_new(h->d->base, on_timer_once, t);
	if (!t->ev || evtimer_add(t->ev, &tv) < 0) {
		if (t->ev)
			event_free(t->ev);
		free(t);
		return -ENOMEM;
	}
	return 0;
}

static int node_of(struct hb_daemon *d, uint64_t hpa)
{
	struct hb_node_info ni;

	if (!d->env.node_map)
		return d->env.node_of ? d->env.node_of(d->env.ud, hpa) : -1;
	if (hb_node_map_lookup(d->env.node_map, hpa, &ni) < 0 || !ni.online)
		return -1;
	return ni.node;
}

static int host_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	int ret;

	h->src->records += n;
	h->d->submitting = h->src;
	ret = hb_ingest_submit(h->d->ingest, r, n, h->d->turn_deadline);
	if (ret == -ENOBUFS)
		logf_(h->d, 4, "source %s: the ingestion backlog is full (%u records): records "
		      "dropped, counted in backlog_full", h->src->name, HB_INGEST_BACKLOG_MAX);
	return ret;
}

/* input a source could not parse: counted with the bad records */
static void host_count_bad(struct hb_host *h, uint64_t n)
{
	h->src->bad_input += n;
	h->d->st.in.dropped[HB_DROP_BAD_RECORD] += n;
}

/* bad records: once per burst, not once per record */
static void ingest_report(void *ud, const char *msg)
{
	struct hb_daemon *d = ud;

	logf_(d, 4, "source %s: %s", d->submitting ? d->submitting->name : "?", msg);
}

static const struct hb_host_ops host_ops = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_host_ops),
	.log = host_log,
	.watch_fd = host_watch,
	.unwatch_fd = host_unwatch,
	.arm_timer = host_timer,
	.submit = host_submit,
	.count_bad = host_count_bad,
};

/* ---- set-up ---- */

static const struct hb_device_ops *find_source(struct hb_daemon *d, const char *type,
					       const char **origin)
{
	const struct hb_device_ops *ops = hb_builtin_find(type);

	*origin = "built-in";
	if (ops)
		return ops;
	for (size_t i = 0; i < d->plugins.n; i++) {
		if (!strcmp(d->plugins.v[i].ops->name, type)) {
			*origin = d->plugins.v[i].path;
			return d->plugins.v[i].ops;
		}
	}
	return NULL;
}

static void plugin_refused(void *ud, const char *path, const char *why)
{
	logf_(ud, 4, "plugin %s refused: %s", path, why);
}

/* a plugin a source uses that takes longer to load in a child is refused */
#define PLUGIN_INSPECT_MS 5000

static int open_sources(struct hb_daemon *d)
{
	const char *want[HB_MAX_SOURCES + 1];
	struct hb_err err = { 0 };
	size_t nwant = 0;

	/* only the plugins a source names are loaded: no other plugin's code
	 * runs; those are tried in a child first, so one that crashes while
	 * loading is refused instead of killing the daemon */
	for (size_t i = 0; i < d->cfg.nsources; i++)
		if (!hb_builtin_find(d->cfg.sources[i].type))
			want[nwant++] = d->cfg.sources[i].type;
	want[nwant] = NULL;
	if (nwant && d->cfg.plugin_dir[0] &&
	    hb_plugins_load(d->cfg.plugin_dir, 0, want, PLUGIN_INSPECT_MS, &d->plugins,
			    plugin_refused, d, &err) < 0 && err.code != -ENOENT)
		logf_(d, 4, "plugins: %s, ignoring", err.msg);
	for (size_t i = 0; i < d->cfg.nsources; i++) {
		const struct hb_source_config *sc = &d->cfg.sources[i];
		struct source *s = &d->src[d->nsrc];
		const char *origin;

		s->ops = find_source(d, sc->type, &origin);
		if (!s->ops) {
			logf_(d, 3, "%s: [source %s]: no source of type '%s' (built-in or plugin), "
			      "skipping it", sc->where, sc->name, sc->type);
			continue;
		}
		snprintf(s->origin, sizeof(s->origin), "%s", origin);
		snprintf(s->name, sizeof(s->name), "%s", sc->name);
		snprintf(s->memdev, sizeof(s->memdev), "%s", sc->memdev);
		snprintf(s->pci, sizeof(s->pci), "%s", sc->pci);
		s->info = (struct hb_dev_info){ .size = sizeof(s->info), .name = s->name,
						.memdev = s->memdev[0] ? s->memdev : NULL,
						.pci_bdf = s->pci[0] ? s->pci : NULL,
						.params = (const char *const *)sc->params };
		s->host = (struct hb_host){ .d = d, .src = s };
		if (hb_source_open(s->ops, s->origin, &host_ops, &s->host, &s->info, &s->priv,
				   &err) < 0) {
			logf_(d, 3, "%s: %s; going on without it", sc->where, err.msg);
			continue;
		}
		logf_(d, 6, "source %s: %s (%s) open", s->name, s->ops->name, s->origin);
		d->nsrc++;
	}
	return 0;
}

static int node_of_ud(void *ud, uint64_t hpa)
{
	return node_of(ud, hpa);
}

/* the nodes the topology's committed regions lie on */
static uint64_t topology_nodes(struct hb_daemon *d)
{
	return hb_topology_cxl_nodes(d->env.topology, node_of_ud, d);
}

static int refresh_nodes(struct hb_daemon *d)
{
	int r = d->env.nodes(d->env.ud, d->nodes, d->dist);

	uint64_t now = now_ns();

	for (int n = 0; n < HB_MAX_NODES; n++) {
		d->nodes[n].is_source = d->nodes[n].present && (d->source_mask >> n) & 1;
		if (now < d->backoff_until[n])
			d->nodes[n].free_bytes = 0;   /* the watermark rule holds it off */
	}
	return r;
}

/* what ingestion checks records against: the regions, source nodes, blocks */
static int set_ingest_topology(struct hb_daemon *d)
{
	return hb_ingest_set_topology(d->ingest, d->env.topology, d->source_mask,
				      d->env.node_map ? hb_node_map_block_size(d->env.node_map) : 0);
}

static int open_migrator(struct hb_daemon *d, struct hb_err *err)
{
	struct hb_migrator_config mc = { .syscall_nr = d->cfg.syscall_nr,
					 .source_nodes = d->source_mask,
					 .rescan_ms = (unsigned int)d->cfg.rescan_ms,
					 .dryrun_keep = 1u << 20 };
	const char *b = d->cfg.dry_run ? "dryrun" : d->cfg.backend;
	int r;

	if (!strcmp(b, "auto")) {
		struct hb_err why = { 0 };

		r = hb_migrator_new(HB_MIGRATOR_PHYS, &mc, &d->mig, &why);
		if (r == 0)
			return 0;
		logf_(d, 6, "%s; using pagemap", why.msg);
		b = "pagemap";
	}
	return hb_migrator_new(hb_migrator_kind_from_string(b), &mc, &d->mig, err);
}

struct refusals {
	char path[4][PATH_MAX], why[4][HB_ERR_MSG_MAX];
	size_t n;
};

static void note_refusal(void *ud, const char *path, const char *why)
{
	struct refusals *rf = ud;

	if (rf->n == HB_ARRAY_SIZE(rf->path))
		return;
	snprintf(rf->path[rf->n], sizeof(rf->path[0]), "%s", path);
	snprintf(rf->why[rf->n++], sizeof(rf->why[0]), "%s", why);
}

/* what check-config checks too (conf-check.c), with this host's facts */
static int check_config(struct hb_daemon *d, const struct hb_config *cfg, struct hb_err *err)
{
	struct hb_plugin_set scanned = { 0 };
	struct hb_config_facts f = { .nodes = d->nodes, .cxl_nodes = d->source_mask,
				     .plugins = &scanned, .page_size = d->pcfg.page_size,
				     .migrator_given = d->mig != NULL };
	struct refusals *rf = calloc(1, sizeof(*rf));
	struct hb_err why = { 0 };
	int r;

	if (!rf)
		return hb_err_set(err, -ENOMEM, "out of memory");
	/* names only: no plugin code runs to check a source's type */
	if (cfg->plugin_dir[0] &&
	    hb_plugins_scan(cfg->plugin_dir, 0, &scanned, note_refusal, rf, &why) < 0 &&
	    why.code != -ENOENT)
		note_refusal(rf, cfg->plugin_dir, why.msg);   /* the whole directory */
	r = hb_config_check(cfg, &f, err);
	/* a source's type may be unknown because its plugin was refused: say why */
	for (size_t i = 0; r == -ENOENT && i < rf->n; i++)
		plugin_refused(d, rf->path[i], rf->why[i]);
	hb_plugin_set_done(&scanned);
	free(rf);
	return r;
}

/* every source failed to open (each said why above): nothing to run for */
static int no_source_opened(struct hb_daemon *d, struct hb_err *err)
{
	char names[HB_ERR_MSG_MAX] = "";

	for (size_t i = 0; i < d->cfg.nsources; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", d->cfg.sources[i].name);
	return hb_err_set(err, -ENODEV, "no source opened: %s (each one's error is above)",
			  names);
}

int hb_daemon_new(const struct hb_config *cfg, struct hb_daemon_env *env,
		  struct hb_daemon **ret, struct hb_err *err)
{
	struct hb_daemon *d = calloc(1, sizeof(*d));
	long ps = sysconf(_SC_PAGESIZE);
	int r;

	if (!d)
		return hb_err_set(err, -ENOMEM, "out of memory");
	d->cfg = *cfg;
	d->cfg.nsources = cfg->nsources;   /* params stay owned by the caller's config */
	d->env = *env;
	memset(env, 0, sizeof(*env));      /* taken */
	d->mig = d->env.migrator;          /* NULL: opened from the config below */
	d->env.migrator = NULL;
	if (!d->env.nodes)
		d->env.nodes = hb_numa_nodes;
	d->journal = hb_log_stderr_is_journal();
	if (!strcmp(cfg->log_target, "syslog"))
		openlog("hotbridge", LOG_PID, LOG_DAEMON);
	d->started_ns = now_ns();
	d->pcfg = (struct hb_policy_config){
		.threshold = cfg->threshold, .top_k = cfg->top_k,
		.hysteresis_ns = cfg->hysteresis_ms * 1000000ULL, .rate_mbps = cfg->rate_mbps,
		.burst_mb = cfg->burst_mb, .watermark_bytes = cfg->watermark_mb << 20,
		.target_node = (int)cfg->target_node, .page_size = ps > 0 ? (uint64_t)ps : 4096,
	};
	d->base = event_base_new();
	d->cand = calloc(MAX_CANDIDATES, sizeof(*d->cand));
	d->dec = calloc(MAX_CANDIDATES, sizeof(*d->dec));
	d->hpa = calloc(MAX_CANDIDATES, sizeof(*d->hpa));
	d->tnode = calloc(MAX_CANDIDATES, sizeof(int));
	d->snode = calloc(MAX_CANDIDATES, sizeof(int));
	d->status = calloc(MAX_CANDIDATES, sizeof(int));
	if (!d->base || !d->cand || !d->dec || !d->hpa || !d->tnode || !d->snode || !d->status) {
		r = hb_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if ((r = hb_heat_new(cfg->max_entries, cfg->decay, (unsigned int)__builtin_ctzll(d->pcfg.page_size),
			     &d->heat, err)) < 0 ||
	    (r = hb_policy_new(cfg->top_k ? cfg->top_k * 64 : 65536, &d->policy, err)) < 0 ||
	    (r = hb_history_new(cfg->history_size, &d->history, err)) < 0)
		goto fail;
	if ((r = hb_config_source_nodes(cfg, &d->source_mask, err)) < 0)
		goto fail;
	if (!d->source_mask)
		d->source_mask = topology_nodes(d);
	{
		struct hb_ingest_env ie = {
			.heat = d->heat, .lat = &d->lat, .stats = &d->st.in,
			.page_size = d->pcfg.page_size, .node_of = node_of_ud, .ud = d,
			.report = ingest_report, .report_ud = d,
		};

		if ((r = hb_ingest_new(&ie, &d->ingest, err)) < 0 ||
		    (r = set_ingest_topology(d)) < 0)
			goto fail;
		d->drain_ev = evtimer_new(d->base, on_drain, d);
		if (!d->drain_ev) {
			r = hb_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	refresh_nodes(d);
	if ((r = check_config(d, &d->cfg, err)) < 0)
		goto fail;
	if (!d->mig && (r = open_migrator(d, err)) < 0)
		goto fail;
	open_sources(d);
	if (d->nsrc == 0) {
		r = no_source_opened(d, err);
		goto fail;
	}
	logf_(d, 6, "%zu source(s), migrator %s, source nodes %#llx, threshold %g, every %llu ms",
	      d->nsrc, hb_migrator_describe(d->mig), (unsigned long long)d->source_mask,
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
	hb_control_free(d->control);
	if (d->drain_ev)
		event_free(d->drain_ev);
	if (d->uevent_ev)
		event_free(d->uevent_ev);
	if (d->debounce_ev)
		event_free(d->debounce_ev);
	if (d->env.uevent_fd > 0)
		close(d->env.uevent_fd);
	for (size_t i = 0; i < d->nsrc; i++)
		d->src[i].ops->close(d->src[i].priv);
	for (int i = 0; i < MAX_WATCHES; i++)
		if (d->watch[i].ev)
			event_free(d->watch[i].ev);
	hb_plugin_set_done(&d->plugins);
	if (d->timer)
		event_free(d->timer);
	for (int i = 0; i < 3; i++)
		if (d->sig[i])
			event_free(d->sig[i]);
	if (d->base)
		event_base_free(d->base);
	hb_ingest_free(d->ingest);
	hb_heat_free(d->heat);
	hb_policy_free(d->policy);
	hb_history_free(d->history);
	hb_migrator_free(d->mig);
	hb_topology_free(d->env.topology);
	hb_node_map_free(d->env.node_map);
	free(d->cand);
	free(d->dec);
	free(d->hpa);
	free(d->tnode);
	free(d->snode);
	free(d->status);
	free(d);
	return NULL;
}

/* ---- metrics ---- */

void hb_daemon_metrics(const struct hb_daemon *d, FILE *f)
{
	const struct hb_daemon_stats *s = &d->st;

#define METRIC(name, type, help) fprintf(f, "# HELP hotbridge_" name " " help "\n# TYPE hotbridge_" name " " type "\n")
	METRIC("cycles_total", "counter", "Daemon cycles run.");
	fprintf(f, "hotbridge_cycles_total %llu\n", (unsigned long long)s->cycles);
	METRIC("records_total", "counter", "Hotness records received from sources.");
	fprintf(f, "hotbridge_records_total %llu\n", (unsigned long long)s->in.records);
	METRIC("records_translated_total", "counter", "Records translated to host physical pages.");
	fprintf(f, "hotbridge_records_translated_total %llu\n", (unsigned long long)s->in.translated);
	METRIC("records_dropped_total", "counter", "Records (or pieces) dropped, by reason.");
	for (int i = 0; i < _HB_DROP_MAX; i++)
		fprintf(f, "hotbridge_records_dropped_total{reason=\"%s\"} %llu\n", hb_drop_to_string(i),
			(unsigned long long)s->in.dropped[i]);
	METRIC("pages_dropped_total", "counter", "Pages of records that did not enter the table, by reason.");
	for (int i = 0; i < _HB_DROP_MAX; i++)
		fprintf(f, "hotbridge_pages_dropped_total{reason=\"%s\"} %llu\n", hb_drop_to_string(i),
			(unsigned long long)s->in.pages_dropped[i]);
	METRIC("decisions_total", "counter", "Policy decisions, by reason.");
	for (int i = 0; i < _HB_REASON_MAX; i++)
		fprintf(f, "hotbridge_decisions_total{reason=\"%s\"} %llu\n", hb_reason_to_string(i),
			(unsigned long long)s->decisions[i]);
	METRIC("pages_migrated_total", "counter", "Pages handed to the migrator, by outcome.");
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		fprintf(f, "hotbridge_pages_migrated_total{status=\"%s\"} %llu\n",
			hb_migrate_class_to_string(i), (unsigned long long)s->migrated.by_class[i]);
	METRIC("pages_promoted_total", "counter", "Pages promoted, by target node.");
	for (int n = 0; n < HB_MAX_NODES; n++)
		if (s->promoted_pages_by_node[n] || (d->nodes[n].present && d->nodes[n].has_cpus))
			fprintf(f, "hotbridge_pages_promoted_total{node=\"%d\"} %llu\n", n,
				(unsigned long long)s->promoted_pages_by_node[n]);
	METRIC("promoted_bytes_total", "counter", "Bytes promoted (rate: take its derivative).");
	fprintf(f, "hotbridge_promoted_bytes_total %llu\n", (unsigned long long)s->promoted_bytes);
	METRIC("source_errors_total", "counter", "Failed source polls.");
	fprintf(f, "hotbridge_source_errors_total %llu\n", (unsigned long long)s->source_errors);
	METRIC("cycle_seconds_last", "gauge", "Duration of the last cycle.");
	fprintf(f, "hotbridge_cycle_seconds_last %.6f\n", s->last_cycle_ms / 1e3);
	METRIC("cycle_seconds_total", "counter", "Time spent in cycles.");
	fprintf(f, "hotbridge_cycle_seconds_total %.6f\n", s->cycle_ms_total / 1e3);
	METRIC("record_to_decision_seconds", "summary", "Time from a record being made to the decision that considered it.");
	for (int i = 0; i < 2; i++)
		fprintf(f, "hotbridge_record_to_decision_seconds{quantile=\"%s\"} %.6f\n", i ? "0.99" : "0.5",
			(double)hb_latency_quantile(&d->lat.to_decision, i ? 0.99 : 0.5) / 1e9);
	fprintf(f, "hotbridge_record_to_decision_seconds_count %llu\n",
		(unsigned long long)d->lat.to_decision.count);
	METRIC("table_pages", "gauge", "Pages in the hotness table.");
	fprintf(f, "hotbridge_table_pages %zu\n", hb_heat_len(d->heat));
	METRIC("paused", "gauge", "1 while promotion is paused.");
	fprintf(f, "hotbridge_paused %d\n", d->paused);
#undef METRIC
}

/*
 * Rewritten atomically each cycle (hb_write_file_atomic: a fresh temporary
 * beside it, never through a planted link, then rename), mode 0644 for the
 * node exporter.
 */
static void write_textfile(struct hb_daemon *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int r = -ENOMEM;

	if (m) {
		hb_daemon_metrics(d, m);
		r = fclose(m) == 0 ? hb_write_file_atomic(d->cfg.metrics_textfile, text, len, 0644)
				   : -ENOMEM;
	}
	free(text);
	if (r < 0)
		logf_(d, 4, "metrics: %s: %s, ignoring", d->cfg.metrics_textfile, strerror(-r));
}

/* ---- one cycle ---- */

int hb_daemon_cycle(struct hb_daemon *d)
{
	uint64_t t0 = now_ns();
	struct hb_daemon_stats before = d->st;
	struct hb_migrate_counts mc = { 0 };
	struct hb_err err = { 0 };
	size_t n, np = 0;

	/*
	 * 1. sources (fd-driven ones were fed by the loop already); none while
	 * the ingestion backlog is being worked off: it holds what they sent
	 */
	for (size_t i = 0; i < d->nsrc && !hb_ingest_backlog(d->ingest); i++) {
		struct source *s = &d->src[i];
		int r;

		if (s->disabled || !(s->ops->caps & HB_DEV_CAP_POLL))
			continue;
		turn_begin(d);
		r = s->ops->poll(s->priv);
		turn_end(d);
		if (r < 0) {
			d->st.source_errors++;
			if (++s->errors == SOURCE_MAX_ERRORS) {
				s->disabled = true;
				logf_(d, 3, "source %s: %d polls failed (last: %s); disabled", s->name,
				      SOURCE_MAX_ERRORS, strerror(-r));
			}
		} else {
			s->errors = 0;
		}
	}
	/* 2. decide (not while paused: the table keeps learning) */
	refresh_nodes(d);
	n = d->paused ? 0 : hb_heat_collect(d->heat, d->pcfg.threshold, d->cand, MAX_CANDIDATES);
	hb_policy_decide(d->policy, &d->pcfg, d->nodes, d->dist, d->cand, n, t0, d->dec);
	if (!d->paused)
		hb_latency_decide(&d->lat, now_ns());
	for (size_t i = 0; i < n; i++) {
		d->st.decisions[d->dec[i].reason]++;
		if (d->dec[i].reason != HB_REASON_PROMOTE)
			continue;
		d->hpa[np] = d->dec[i].hpa;
		d->tnode[np] = d->dec[i].target;
		d->snode[np] = d->dec[i].src;
		np++;
	}
	/* 3. migrate */
	if (np && hb_migrator_move(d->mig, np, d->hpa, d->tnode, d->status, 0, &err) < 0)
		logf_(d, 3, "migration of %zu pages failed: %s", np, err.msg);
	if (np) {
		hb_migrate_fold(&mc, np, d->status, d->tnode, d->snode);
		for (int k = 0; k < _HB_MIGRATE_CLASS_MAX; k++)
			d->st.migrated.by_class[k] += mc.by_class[k];
		for (size_t k = 0; k < HB_ARRAY_SIZE(mc.by_errno); k++)
			d->st.migrated.by_errno[k] += mc.by_errno[k];
	}
	for (size_t i = 0; i < np; i++) {
		enum hb_migrate_class c = hb_migrate_classify(d->status[i], d->tnode[i], d->snode[i]);

		if (c == HB_MIGRATE_MOVED) {
			d->st.promoted_bytes += d->pcfg.page_size;
			d->st.promoted_pages_by_node[d->tnode[i]]++;
		}
		if (c == HB_MIGRATE_BACKOFF)
			d->backoff_until[d->tnode[i]] = t0 + 10 * d->cfg.interval_ms * 1000000ULL;
		if (c != HB_MIGRATE_RETRY)
			hb_heat_forget(d->heat, d->hpa[i]);
		if (c != HB_MIGRATE_RETRY || d->pcfg.hysteresis_ns)
			hb_policy_hold_outcome(d->policy, &d->pcfg, d->hpa[i], t0,
					       c == HB_MIGRATE_ALREADY ? HB_HOLD_ON_TARGET :
					       c == HB_MIGRATE_BACKOFF || c == HB_MIGRATE_DROP
						       ? HB_HOLD_REFUSED : HB_HOLD_MOVED,
					       d->status[i]);
	}
	hb_history_record(d->history, &(struct hb_history_cycle){
		.time_ns = wall_ns(), .topology = d->env.topology, .dec = d->dec, .n = n,
		.status = d->status, .np = np });
	/* 4. decay, report */
	hb_heat_tick(d->heat);
	d->st.cycles++;
	d->st.last_cycle_ms = (double)(now_ns() - t0) / 1e6;
	d->st.cycle_ms_total += d->st.last_cycle_ms;
	if (d->cfg.metrics_textfile[0])
		write_textfile(d);
	if (!d->env.quiet)
		logf_(d, 6, "cycle %llu: %llu records (%llu dropped), %zu hot pages, %zu to promote: "
		      "%llu moved, %llu already there, %llu retry, %llu backoff, %llu dropped; "
		      "%llu rate-limited, %llu below watermark; table %zu pages; %.1f ms",
		      (unsigned long long)d->st.cycles,
		      (unsigned long long)(d->st.in.records - before.in.records),
		      (unsigned long long)(d->st.in.records - before.in.records -
					   (d->st.in.translated - before.in.translated)),
		      n, np, (unsigned long long)mc.by_class[HB_MIGRATE_MOVED],
		      (unsigned long long)mc.by_class[HB_MIGRATE_ALREADY],
		      (unsigned long long)mc.by_class[HB_MIGRATE_RETRY],
		      (unsigned long long)mc.by_class[HB_MIGRATE_BACKOFF],
		      (unsigned long long)mc.by_class[HB_MIGRATE_DROP],
		      (unsigned long long)(d->st.decisions[HB_REASON_RATE_LIMIT] -
					   before.decisions[HB_REASON_RATE_LIMIT]),
		      (unsigned long long)(d->st.decisions[HB_REASON_WATERMARK] -
					   before.decisions[HB_REASON_WATERMARK]),
		      hb_heat_len(d->heat), d->st.last_cycle_ms);
	return 0;
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

/* keys a reload applies to the running daemon; all others need a restart */
static const char *const live_keys[] = {
	"daemon.interval_ms", "daemon.log_level", "daemon.metrics_textfile",
	"policy.threshold", "policy.top_k", "policy.hysteresis_ms", "policy.rate_mbps",
	"policy.burst_mb", "policy.watermark_mb", "policy.target_node",
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

int hb_daemon_reload(struct hb_daemon *d, struct hb_err *err)
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
	r = check_config(d, next, err);
	if (r < 0)
		goto out;
	hb_config_diff(&d->cfg, next, on_changed, &rd);
	d->pcfg.threshold = next->threshold;
	d->pcfg.top_k = next->top_k;
	d->pcfg.hysteresis_ns = next->hysteresis_ms * 1000000ULL;
	d->pcfg.rate_mbps = next->rate_mbps;
	d->pcfg.burst_mb = next->burst_mb;
	d->pcfg.watermark_bytes = next->watermark_mb << 20;
	d->pcfg.target_node = (int)next->target_node;
	d->cfg.threshold = next->threshold;
	d->cfg.top_k = next->top_k;
	d->cfg.hysteresis_ms = next->hysteresis_ms;
	d->cfg.rate_mbps = next->rate_mbps;
	d->cfg.burst_mb = next->burst_mb;
	d->cfg.watermark_mb = next->watermark_mb;
	d->cfg.target_node = next->target_node;
	d->cfg.interval_ms = next->interval_ms;
	memcpy(d->cfg.log_level, next->log_level, sizeof(d->cfg.log_level));
	memcpy(d->cfg.metrics_textfile, next->metrics_textfile, sizeof(d->cfg.metrics_textfile));
	if (d->timer && d->cfg.interval_ms != old_interval) {
		struct timeval tv = { .tv_sec = (time_t)(d->cfg.interval_ms / 1000),
				      .tv_usec = (suseconds_t)(d->cfg.interval_ms % 1000 * 1000) };

		event_del(d->timer);
		if (event_add(d->timer, &tv) < 0)
			logf_(d, 3, "reload: cannot re-arm the cycle timer");
	}
	logf_(d, 6, "reloaded %s: applied: %s", d->config_path, rd.applied[0] ? rd.applied : "nothing changed");
	if (rd.restart[0])
		logf_(d, 4, "reload: changed but needs a restart (running values kept): %s",
		      rd.restart);
out:
	hb_config_done(next);
	free(next);
	return r;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct hb_daemon *d = arg;

	if (sig == SIGHUP) {
		struct hb_err err = { 0 };

		if (hb_daemon_reload(d, &err) < 0)
			logf_(d, 3, "reload refused, keeping the running configuration: %s", err.msg);
		return;
	}
	logf_(d, 6, "signal %d: finishing", (int)sig);
	event_base_loopexit(d->base, NULL);
}

static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, path);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	(void)sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa,
		     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path)));
	close(fd);
}

/*
 * After start-up (sources open, BARs mapped, sockets bound) keep only what
 * the migrator in use needs; the daemon never passes MPOL_MF_MOVE_ALL, so
 * CAP_SYS_NICE is never among them:
 *   phys     CAP_SYS_ADMIN        move_phys_pages checks it on every call
 *   pagemap  CAP_SYS_ADMIN        PFNs in /proc/<pid>/pagemap read as 0 without
 *            CAP_SYS_PTRACE       numa_maps, pagemap and move_pages(2) of
 *                                 processes of other users (ptrace read mode)
 *            CAP_DAC_READ_SEARCH  pagemap is mode 0400, owned by the task's uid
 *   dryrun   none
 */
void hb_daemon_drop_capabilities(struct hb_daemon *d)
{
	enum hb_migrator_kind kind = hb_migrator_kind(d->mig);
	const char *kept = "none";
	int r;

	if (d->env.keep_capabilities || geteuid() != 0)
		return;
	capng_clear(CAPNG_SELECT_BOTH);
	if (kind == HB_MIGRATOR_PHYS) {
		capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SYS_ADMIN);
		kept = "cap_sys_admin";
	} else if (kind == HB_MIGRATOR_PAGEMAP) {
		capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SYS_ADMIN,
			      CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, -1);
		kept = "cap_sys_admin, cap_sys_ptrace, cap_dac_read_search";
	}
	r = capng_apply(CAPNG_SELECT_BOTH);
	if (r < 0)
		logf_(d, 4, "could not drop capabilities (capng_apply: %d), keeping them", r);
	else
		logf_(d, 6, "capabilities now: %s", kept);
}

int hb_daemon_rebuild_topology(struct hb_daemon *d, struct hb_err *err)
{
	struct hb_topology *t = NULL;
	struct hb_node_map *m = NULL;
	size_t gone;

	if (!d->env.reload_topology)
		return hb_err_set(err, -EOPNOTSUPP, "this host cannot rebuild its topology");
	if (d->env.reload_topology(d->env.ud, &t, &m, err) < 0) {
		d->st.topology_reload_failures++;
		logf_(d, 3, "topology changed, but rebuilding it failed: %s; keeping the old one",
		      err->msg);
		return err->code ? err->code : -EIO;
	}
	hb_topology_free(d->env.topology);
	hb_node_map_free(d->env.node_map);
	d->env.topology = t;
	d->env.node_map = m;
	if (!d->cfg.source_nodes[0])
		d->source_mask = topology_nodes(d);
	if (set_ingest_topology(d) < 0) {
		/* without the new regions nothing could be checked: take nothing in */
		(void)hb_ingest_set_topology(d->ingest, NULL, 0, 0);
		logf_(d, 3, "topology rebuilt, but out of memory for its region list: "
		      "records are dropped until the next rebuild");
	}
	/* pages taken in under the old topology: their node may have changed */
	gone = hb_heat_revalidate(d->heat, node_of_ud, d);
	d->st.topology_pages_dropped += gone;
	d->st.topology_reloads++;
	logf_(d, 6, "topology rebuilt: %zu regions, %zu memdevs, source nodes %#llx; %zu hot pages "
	      "kept, %zu on no node any more dropped",
	      hb_topology_nr_regions(t), hb_topology_nr_memdevs(t),
	      (unsigned long long)d->source_mask, hb_heat_len(d->heat), gone);
	return 0;
}

static void on_debounced(evutil_socket_t fd, short what, void *arg)
{
	struct hb_err err = { 0 };

	(void)hb_daemon_rebuild_topology(arg, &err);
}

static void on_uevent(evutil_socket_t fd, short what, void *arg)
{
	struct hb_daemon *d = arg;
	struct timeval tv = { .tv_sec = d->env.debounce_ms / 1000,
			      .tv_usec = (suseconds_t)(d->env.debounce_ms % 1000) * 1000 };
	char buf[8192];

	for (;;) {
		struct hb_uevent ev;
		ssize_t n = recv((int)fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0)
			return;
		if (hb_uevent_parse(buf, (size_t)n, &ev) != 1)
			continue;
		d->st.uevents++;
		logf_(d, 7, "uevent %s %s (%s)", ev.action, ev.devpath, ev.subsystem);
		evtimer_add(d->debounce_ev, &tv);     /* re-arming pushes it back */
	}
}

static void watch_uevents(struct hb_daemon *d)
{
	int fd = d->env.uevent_fd;

	if (!d->env.reload_topology || fd < 0)
		return;
	if (fd == 0) {
		fd = hb_uevent_open();
		if (fd < 0) {
			logf_(d, 4, "uevents: %s; topology changes will not be noticed", strerror(-fd));
			return;
		}
		d->env.uevent_fd = fd;
	}
	if (!d->env.debounce_ms)
		d->env.debounce_ms = 500;
	d->uevent_ev = event_new(d->base, fd, EV_READ | EV_PERSIST, on_uevent, d);
	d->debounce_ev = evtimer_new(d->base, on_debounced, d);
	if (!d->uevent_ev || !d->debounce_ev || event_add(d->uevent_ev, NULL) < 0)
		logf_(d, 4, "uevents: out of memory; topology changes will not be noticed");
}

/* One line at exit: what this run did, for the journal. */
static void log_exit_summary(const struct hb_daemon *d)
{
	const struct hb_daemon_stats *s = &d->st;
	const uint64_t *c = s->migrated.by_class;
	uint64_t dropped = 0, not_moved;

	for (int i = 0; i < _HB_DROP_MAX; i++)
		dropped += s->in.dropped[i];
	not_moved = c[HB_MIGRATE_RETRY] + c[HB_MIGRATE_BACKOFF] + c[HB_MIGRATE_DROP] +
		    c[HB_MIGRATE_WRONG_NODE];
	logf_(d, 6, "exiting after %.1f s and %llu cycles: %llu records (%llu dropped), "
	      "%llu pages promoted%s, %llu failures (%llu pages not moved, %llu source errors)",
	      (double)(now_ns() - d->started_ns) / 1e9, (unsigned long long)s->cycles,
	      (unsigned long long)s->in.records, (unsigned long long)dropped,
	      (unsigned long long)c[HB_MIGRATE_MOVED], d->cfg.dry_run ? " (dry run)" : "",
	      (unsigned long long)(not_moved + s->source_errors), (unsigned long long)not_moved,
	      (unsigned long long)s->source_errors);
}

int hb_daemon_run(struct hb_daemon *d, const char *config_path)
{
	struct timeval tv = { .tv_sec = (time_t)(d->cfg.interval_ms / 1000),
			      .tv_usec = (suseconds_t)(d->cfg.interval_ms % 1000 * 1000) };
	static const int sigs[3] = { SIGTERM, SIGINT, SIGHUP };

	d->config_path = config_path;
	d->looping = true;
	d->timer = event_new(d->base, -1, EV_PERSIST, on_cycle, d);
	if (!d->timer || event_add(d->timer, &tv) < 0)
		return -ENOMEM;
	for (int i = 0; i < 3; i++) {
		d->sig[i] = evsignal_new(d->base, sigs[i], on_signal, d);
		if (!d->sig[i] || event_add(d->sig[i], NULL) < 0)
			return -ENOMEM;
	}
	if (d->cfg.control_socket[0]) {
		struct hb_err err = { 0 };

		if (hb_control_listen(d, d->cfg.control_socket, &err) < 0)
			logf_(d, 4, "control socket: %s; going on without it", err.msg);
	}
	watch_uevents(d);
	hb_daemon_drop_capabilities(d);
	notify_ready();
	event_base_dispatch(d->base);
	d->looping = false;
	log_exit_summary(d);
	return d->rc;
}

const struct hb_daemon_stats *hb_daemon_stats(const struct hb_daemon *d)
{
	return &d->st;
}

struct hb_migrator *hb_daemon_migrator(struct hb_daemon *d)
{
	return d->mig;
}

void *hb_daemon_source_priv(struct hb_daemon *d, const char *name)
{
	for (size_t i = 0; i < d->nsrc; i++)
		if (!strcmp(d->src[i].name, name))
			return d->src[i].priv;
	return NULL;
}

void hb_daemon_print_stats(const struct hb_daemon *d, FILE *f)
{
	const struct hb_daemon_stats *s = &d->st;

	fprintf(f, "cycles %llu, records %llu, translated %llu, pages added %llu\n",
		(unsigned long long)s->cycles, (unsigned long long)s->in.records,
		(unsigned long long)s->in.translated, (unsigned long long)s->in.pages);
	for (int i = 0; i < _HB_DROP_MAX; i++)
		if (s->in.dropped[i])
			fprintf(f, "dropped %s %llu\n", hb_drop_to_string(i), (unsigned long long)s->in.dropped[i]);
	for (int i = 0; i < _HB_REASON_MAX; i++)
		if (s->decisions[i])
			fprintf(f, "decision %s %llu\n", hb_reason_to_string(i),
				(unsigned long long)s->decisions[i]);
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		if (s->migrated.by_class[i])
			fprintf(f, "migrated %s %llu\n", hb_migrate_class_to_string(i),
				(unsigned long long)s->migrated.by_class[i]);
}

/* ---- libnuma ---- */

int hb_numa_nodes(void *ud, struct hb_numa_node *nodes,
		  uint8_t distance[HB_MAX_NODES][HB_MAX_NODES])
{
	int max;

	memset(nodes, 0, sizeof(*nodes) * HB_MAX_NODES);
	if (numa_available() < 0)
		return -ENOSYS;
	max = numa_max_node();
	for (int n = 0; n <= max && n < HB_MAX_NODES; n++) {
		struct bitmask *cpus = numa_allocate_cpumask();
		long long freeb = 0;

		if (numa_node_size64(n, &freeb) < 0) {
			numa_free_cpumask(cpus);
			continue;
		}
		nodes[n].present = true;
		nodes[n].free_bytes = freeb > 0 ? (uint64_t)freeb : 0;
		nodes[n].has_cpus = numa_node_to_cpus(n, cpus) == 0 && numa_bitmask_weight(cpus) > 0;
		numa_free_cpumask(cpus);
		for (int m = 0; m <= max && m < HB_MAX_NODES; m++)
			distance[n][m] = (uint8_t)numa_distance(n, m);
	}
	return 0;
}

/* ---- for the control socket ---- */

struct event_base *hb_daemon_base(struct hb_daemon *d)
{
	return d->base;
}

void hb_daemon_set_control(struct hb_daemon *d, struct hb_control *c)
{
	d->control = c;
}

void hb_daemon_pause(struct hb_daemon *d, bool paused)
{
	d->paused = paused;
	logf_(d, 6, "%s", paused ? "paused: still gathering, not promoting" : "resumed");
}

static json_object *u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
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

json_object *hb_daemon_status_json(struct hb_daemon *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "state", json_object_new_string(d->paused ? "paused" : "running"));
	json_object_object_add(o, "uptime_s", json_object_new_double((double)(now_ns() - d->started_ns) / 1e9));
	json_object_object_add(o, "cycles", u64(d->st.cycles));
	json_object_object_add(o, "interval_ms", u64(d->cfg.interval_ms));
	json_object_object_add(o, "migrator", json_object_new_string(hb_migrator_describe(d->mig)));
	json_object_object_add(o, "dry_run", json_object_new_boolean(d->cfg.dry_run));
	json_object_object_add(o, "sources", u64(d->nsrc));
	json_object_object_add(o, "table_pages", u64(hb_heat_len(d->heat)));
	json_object_object_add(o, "table_bytes", u64(hb_heat_bytes(d->heat)));
	json_object_object_add(o, "source_nodes", nodes_json(d->source_mask));
	json_object_object_add(o, "last_cycle_ms", json_object_new_double(d->st.last_cycle_ms));
	json_object_object_add(o, "history_entries", u64(hb_history_len(d->history)));
	json_object_object_add(o, "history_bytes", u64(hb_history_bytes(d->history)));
	return o;
}

static json_object *latency_json(const struct hb_latency_hist *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "records", u64(h->count));
	json_object_object_add(o, "p50", u64(hb_latency_quantile(h, 0.50) / 1000));
	json_object_object_add(o, "p99", u64(hb_latency_quantile(h, 0.99) / 1000));
	json_object_object_add(o, "max", u64(h->max_ns / 1000));
	return o;
}

json_object *hb_daemon_stats_json(struct hb_daemon *d)
{
	json_object *o = json_object_new_object(), *x;

	json_object_object_add(o, "cycles", u64(d->st.cycles));
	json_object_object_add(o, "records", u64(d->st.in.records));
	json_object_object_add(o, "translated", u64(d->st.in.translated));
	json_object_object_add(o, "partial", u64(d->st.in.partial));
	json_object_object_add(o, "pages_added", u64(d->st.in.pages));
	json_object_object_add(o, "deferred", u64(d->st.in.deferred));
	json_object_object_add(o, "backlog", u64(hb_ingest_backlog(d->ingest)));
	x = json_object_new_object();
	for (int i = 0; i < _HB_DROP_MAX; i++)
		json_object_object_add(x, hb_drop_to_string(i), u64(d->st.in.dropped[i]));
	json_object_object_add(o, "dropped", x);
	x = json_object_new_object();
	for (int i = 0; i < _HB_DROP_MAX; i++)
		json_object_object_add(x, hb_drop_to_string(i), u64(d->st.in.pages_dropped[i]));
	json_object_object_add(o, "pages_dropped", x);
	x = json_object_new_object();
	for (int i = 0; i < _HB_REASON_MAX; i++)
		json_object_object_add(x, hb_reason_to_string(i), u64(d->st.decisions[i]));
	json_object_object_add(o, "decisions", x);
	x = json_object_new_object();
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		json_object_object_add(x, hb_migrate_class_to_string(i), u64(d->st.migrated.by_class[i]));
	json_object_object_add(o, "migrated", x);
	json_object_object_add(o, "promoted_bytes", u64(d->st.promoted_bytes));
	json_object_object_add(o, "source_errors", u64(d->st.source_errors));
	json_object_object_add(o, "uevents", u64(d->st.uevents));
	json_object_object_add(o, "topology_reloads", u64(d->st.topology_reloads));
	json_object_object_add(o, "topology_reload_failures", u64(d->st.topology_reload_failures));
	json_object_object_add(o, "topology_pages_dropped", u64(d->st.topology_pages_dropped));
	x = json_object_new_object();
	json_object_object_add(x, "record_to_table", latency_json(&d->lat.to_table));
	json_object_object_add(x, "record_to_decision", latency_json(&d->lat.to_decision));
	json_object_object_add(o, "latency_us", x);
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
		json_object_object_add(o, "records", u64(d->src[i].records));
		json_object_object_add(o, "bad_input", u64(d->src[i].bad_input));
		json_object_object_add(o, "consecutive_errors", u64(d->src[i].errors));
		json_object_object_add(o, "disabled", json_object_new_boolean(d->src[i].disabled));
		json_object_array_add(a, o);
	}
	return a;
}

/* In words: why dec's page gets dec's decision now. */
static void explain_reason(const struct hb_daemon *d, const struct hb_decision *dec,
			   uint64_t now, char *buf, size_t size)
{
	double ago = dec->held_since_ns && now > dec->held_since_ns
			     ? (double)(now - dec->held_since_ns) / 1e9 : 0;
	double tokens;

	switch (dec->reason) {
	case HB_REASON_PROMOTE:
		snprintf(buf, size, "heat %g >= threshold %g; node %d has room and tokens",
			 dec->heat, d->pcfg.threshold, dec->target);
		break;
	case HB_REASON_BELOW_THRESHOLD:
		snprintf(buf, size, "heat %g below threshold %g", dec->heat, d->pcfg.threshold);
		break;
	case HB_REASON_HYSTERESIS:
		snprintf(buf, size, "hysteresis: handed to the migrator %.1f s ago (result: %s%d), "
			 "held for hysteresis_ms = %llu", ago, dec->held_result >= 0 ? "node " : "errno ",
			 dec->held_result >= 0 ? dec->held_result : -dec->held_result,
			 (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
		break;
	case HB_REASON_ON_TARGET:
		snprintf(buf, size, "already promoted: the migrator found it on node %d %.1f s ago",
			 dec->held_result, ago);
		break;
	case HB_REASON_REFUSED:
		snprintf(buf, size, "refused by the kernel %.1f s ago: %s (%s); not retried for "
			 "hysteresis_ms = %llu", ago,
			 hb_errno_name(-dec->held_result),
			 strerror(-dec->held_result),
			 (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
		break;
	case HB_REASON_RATE_LIMIT:
		tokens = hb_policy_tokens(d->policy, &d->pcfg, dec->target, now);
		snprintf(buf, size, "rate limited: node %d's bucket holds %.0f bytes, a page needs %llu",
			 dec->target, tokens, (unsigned long long)d->pcfg.page_size);
		break;
	case HB_REASON_WATERMARK:
		snprintf(buf, size, "target below watermark: node %d has %llu MiB free, watermark %llu MiB",
			 dec->target, (unsigned long long)(d->nodes[dec->target].free_bytes >> 20),
			 (unsigned long long)(d->pcfg.watermark_bytes >> 20));
		break;
	case HB_REASON_NOT_SOURCE:
		snprintf(buf, size, "not on a source (CXL) node");
		break;
	case HB_REASON_NO_TARGET:
		snprintf(buf, size, "no target node for node %d", dec->src);
		break;
	default:
		snprintf(buf, size, "%s", hb_reason_to_string(dec->reason));
		break;
	}
}

/*
 * What would happen to this page now, every rule evaluated (top-K aside:
 * it depends on the other pages of a cycle), nothing charged; and its
 * latest history entries.
 */
int hb_daemon_explain(struct hb_daemon *d, uint64_t hpa, json_object **ret, struct hb_err *err)
{
	struct hb_candidate c;
	struct hb_decision dec;
	uint64_t exact = hpa, now = now_ns();
	json_object *o, *h;
	char why[256];
	double tokens;
	int node;

	hpa &= ~(d->pcfg.page_size - 1);
	c = (struct hb_candidate){ .hpa = hpa, .heat = hb_heat_get(d->heat, hpa, &node) };
	c.node = node >= 0 ? node : node_of(d, hpa);
	hb_policy_evaluate(d->policy, &d->pcfg, d->nodes, d->dist, &c, NULL, now, &dec);
	explain_reason(d, &dec, now, why, sizeof(why));
	h = hb_history_find_json(d->history, true, hpa, d->pcfg.page_size, 8, wall_ns());
	if (!h)
		return hb_err_set(err, -ENOMEM, "out of memory");
	o = json_object_new_object();
	json_object_object_add(o, "hpa", hb_json_hex(exact));
	json_object_object_add(o, "page", hb_json_hex(hpa));
	json_object_object_add(o, "node", c.node >= 0 ? json_object_new_int(c.node) : NULL);
	json_object_object_add(o, "heat", json_object_new_double(c.heat));
	json_object_object_add(o, "threshold", json_object_new_double(d->pcfg.threshold));
	json_object_object_add(o, "source_node", json_object_new_boolean(
		c.node >= 0 && c.node < HB_MAX_NODES && d->nodes[c.node].is_source));
	json_object_object_add(o, "target", dec.target >= 0 ? json_object_new_int(dec.target) : NULL);
	json_object_object_add(o, "decision", json_object_new_string(hb_reason_to_string(dec.reason)));
	json_object_object_add(o, "reason", json_object_new_string(why));
	tokens = dec.target >= 0 ? hb_policy_tokens(d->policy, &d->pcfg, dec.target, now) : -1;
	json_object_object_add(o, "rate_limit_tokens_bytes",
			       tokens >= 0 ? json_object_new_double(tokens) : NULL);
	json_object_object_add(o, "history", h);
	*ret = o;
	return 0;
}

int hb_daemon_history(struct hb_daemon *d, bool page_only, uint64_t hpa, size_t last,
		      json_object **ret, struct hb_err *err)
{
	json_object *o, *a = hb_history_find_json(d->history, page_only, hpa, d->pcfg.page_size,
						   last, wall_ns());

	if (!a)
		return hb_err_set(err, -ENOMEM, "out of memory");
	o = json_object_new_object();
	if (page_only)
		json_object_object_add(o, "page", hb_json_hex(hpa & ~(d->pcfg.page_size - 1)));
	json_object_object_add(o, "size", u64(hb_history_size(d->history)));
	json_object_object_add(o, "held", u64(hb_history_len(d->history)));
	json_object_object_add(o, "recorded", u64(hb_history_total(d->history)));
	json_object_object_add(o, "entries", a);
	*ret = o;
	return 0;
}

const struct hb_topology *hb_daemon_topology(const struct hb_daemon *d)
{
	return d->env.topology;
}
