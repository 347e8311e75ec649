// SPDX-License-Identifier: MIT
/*
 * The source host: what a source (built-in or plugin) is given to live in
 * the daemon's loop (log, fd watches, one-shot timers, submit, count_bad,
 * submit_event, count_overflow),
 * and opening, polling, disabling and closing the configured sources.
 */
#define _GNU_SOURCE /* POLLRDHUP */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <event2/event.h>

#include "conf/conf-check.h"
#include "daemon-private.h"
#include "ingest/ingest.h"
#include "util/macro.h"

/* a plugin a source uses that takes longer to load in a child is refused */
#define PLUGIN_INSPECT_MS 5000

HB_PRINTF(3, 4)
static void host_log(struct hb_host *h, int prio, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	struct hb_log_fields f = { .source = h->src->name,
				   .memdev = h->src->memdev[0] ? h->src->memdev : NULL,
				   .hpa = HB_LOG_NO_ADDR,
				   .dpa = HB_LOG_NO_ADDR };

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hb_dlogf(h->d, prio, &f, "source %s: %s", h->src->name, msg);
}

/*
 * HB_FD_HUP: libevent folds a hang-up into "readable", so ask the fd
 * itself (POLLHUP: a pipe's writers or both socket ends are gone;
 * POLLRDHUP: the socket peer shut down its writing side).
 */
static uint32_t fd_hup(evutil_socket_t fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP)) ? HB_FD_HUP : 0;
}

/*
 * A source without a poll that watches no fd and has no timer armed any
 * more (the cxl-hmu source once its perf event hung up, a plugin that
 * closed its fd at end-of-file) can never report again: say so once and
 * count it disabled, so that sources, status and the metrics do not call
 * it healthy (trial42 #5). A built-in one is closed now: a PMU that went
 * away stays registered, its name taken, while an event of it is open, so
 * the device's new PMU could not take the name when the device is back;
 * hb_daemon_reopen_stopped_sources() opens it again.
 */
static void check_stopped(struct hb_daemon *d, struct source *s)
{
	bool builtin;

	if (!s || s->disabled || (s->ops->caps & HB_DEV_CAP_POLL) || s->nwatch || s->ntimer)
		return;
	builtin = !strcmp(s->origin, "built-in");
	s->disabled = true;
	s->stopped = builtin;
	if (builtin) {
		s->ops->close(s->priv);
		s->priv = NULL;
	}
	hb_dlog(d, LOG_ERR,
		"source %s: it watches no fd and has no poll or timer left: stopped, it reports "
		"nothing until %s; disabled",
		s->name,
		builtin ? "its device is back (closed; a topology rebuild opens it again)" :
			  "hotbridge restarts");
}

static void on_fd(evutil_socket_t fd, short what, void *arg)
{
	struct watch *w = arg;
	struct source *s = w->src; /* the callback may unwatch: w is then free for reuse */
	struct hb_daemon *d = w->d;

	hb_daemon_turn_begin(d);
	w->cb(w->priv, (int)fd,
	      ((what & EV_READ) ? HB_FD_READ : 0) | ((what & EV_WRITE) ? HB_FD_WRITE : 0) |
		      fd_hup(fd));
	check_stopped(d, s);
	hb_daemon_turn_end(d);
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
		w->src = h->src;
		w->fd = fd;
		w->cb = cb;
		w->priv = priv;
		w->ev = event_new(d->base, fd,
				  EV_PERSIST | ((events & HB_FD_READ) ? EV_READ : 0) |
					  ((events & HB_FD_WRITE) ? EV_WRITE : 0),
				  on_fd, w);
		if (!w->ev || (!d->intake.throttled && event_add(w->ev, NULL) < 0)) {
			if (w->ev)
				event_free(w->ev);
			w->ev = NULL;
			return -ENOMEM;
		}
		if (w->src)
			w->src->nwatch++;
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
			if (w->src && w->src->nwatch)
				w->src->nwatch--;
			return 0;
		}
	}
	return -ENOENT;
}

struct timer_arg {
	struct hb_daemon *d;
	struct source *src;
	struct event *ev;
	void (*cb)(void *priv);
	void *priv;
};

static void on_timer_once(evutil_socket_t fd, short what, void *arg)
{
	struct timer_arg *t = arg;
	struct hb_daemon *d = t->d;

	event_free(t->ev);
	if (t->src && t->src->ntimer)
		t->src->ntimer--;
	hb_daemon_turn_begin(d);
	t->cb(t->priv);
	check_stopped(d, t->src);
	hb_daemon_turn_end(d);
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
	t->src = h->src;
	t->cb = cb;
	t->priv = priv;
	t->ev = evtimer_new(h->d->base, on_timer_once, t);
	if (!t->ev || evtimer_add(t->ev, &tv) < 0) {
		if (t->ev)
			event_free(t->ev);
		free(t);
		return -ENOMEM;
	}
	if (t->src)
		t->src->ntimer++;
	return 0;
}

static int host_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	int ret;

	h->src->records += n;
	h->d->intake.submitting = h->src;
	ret = hb_ingest_submit_from(h->d->intake.ingest, r, n, (int)(h->src - h->d->src),
				    h->d->intake.turn_deadline);
	if (ret == -ENOBUFS && !h->d->intake.full_logged) {
		/* once until the backlog drains, not once per submit */
		h->d->intake.full_logged = true;
		hb_dlog(h->d, LOG_WARNING,
			"source %s: the ingestion backlog is full (%llu records and %u more "
			"it took while telling the sources to stop): records dropped, "
			"counted in backlog_full (the source does not stop reading when told)",
			h->src->name, (unsigned long long)h->d->cfg.backlog,
			HB_HOST_BACKLOG_HEADROOM);
	}
	return ret;
}

/* ABI 1.4: the source stops reading while the backlog is full, goes on when it drains */
static int host_backlog_full(struct hb_host *h)
{
	if (!hb_ingest_backlog_full(h->d->intake.ingest))
		return 0;
	h->src->pushed_back = true;
	h->d->intake.pushed_back = true;
	return 1;
}

/* input a source could not parse: not records, so counted on its own */
static void host_count_bad(struct hb_host *h, uint64_t n)
{
	h->src->bad_input += n;
	h->d->st.in.bad_input += n;
}

/* a media event (ABI 1.2): cross-checked, poison kept out (media-events.c) */
static int host_submit_event(struct hb_host *h, const struct hb_device_event *ev)
{
	int r = hb_daemon_media_event(h->d, ev);

	if (r == 0)
		h->src->events++;
	return r;
}

/* the device dropped hotness the source did not take in time (ABI 1.3) */
static void host_count_overflow(struct hb_host *h, uint64_t n)
{
	h->src->overflows += n;
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
	.submit_event = host_submit_event,
	.count_overflow = host_count_overflow,
	.backlog_full = host_backlog_full,
};

/*
 * The source of type `type`: a built-in, or a plugin's ops: its proxy's
 * (run out of process) when isolated, else the ops loaded here (NULL when
 * it was not loaded in process).
 */
static const struct hb_device_ops *find_source(struct hb_daemon *d, const char *type, bool isolated,
					       struct hb_plugin **ret_plugin, const char **origin)
{
	const struct hb_device_ops *ops = hb_builtin_find(type);

	*origin = "built-in";
	*ret_plugin = NULL;
	if (ops)
		return ops;
	for (size_t i = 0; i < d->plugins.n; i++) {
		struct hb_plugin *p = &d->plugins.v[i];

		if (strcmp(p->name, type))
			continue;
		*origin = p->path;
		*ret_plugin = p;
		return isolated ? hb_plugin_proxy_ops(p) : p->ops;
	}
	return NULL;
}

/* isolate= is the daemon's, not the plugin's parameter: taken out of params */
static void take_isolate(const char **params)
{
	size_t k = 0;

	for (size_t i = 0; params[i]; i++)
		if (strncmp(params[i], "isolate=", 8))
			params[k++] = params[i];
	params[k] = NULL;
}

struct load_refusals {
	struct hb_daemon *d;
	struct hb_plugin_refusal v[HB_MAX_SOURCES];
	size_t n;
};

/* logged once with its path; kept by NAME for the source that wanted it */
static void plugin_refused(void *ud, const char *path, const char *why)
{
	struct load_refusals *lr = ud;

	hb_dlog(lr->d, LOG_WARNING, "plugin %s refused: %s", path, hb_plugin_refusal_why(path, why));
	if (lr->n < HB_ARRAY_SIZE(lr->v) && hb_plugin_refusal_note(&lr->v[lr->n], path, why) == 0)
		lr->n++;
}

static const char *refusal_of(const struct load_refusals *lr, const char *type)
{
	for (size_t i = 0; i < lr->n; i++)
		if (!strcmp(lr->v[i].name, type))
			return lr->v[i].why;
	return NULL;
}

static void on_resume(evutil_socket_t fd, short what, void *arg);

int hb_daemon_open_sources(struct hb_daemon *d)
{
	const char *want[HB_MAX_SOURCES + 1];
	struct load_refusals *lr = calloc(1, sizeof(*lr));
	struct hb_err err = { 0 };
	size_t nwant = 0;

	if (!lr)
		return -ENOMEM;
	lr->d = d;
	d->intake.resume_ev = evtimer_new(d->base, on_resume, d);
	if (!d->intake.resume_ev) {
		free(lr);
		return -ENOMEM;
	}
	/* only the plugins a source names are looked at: no other plugin's code
	 * runs. A plugin runs out of process (hotbridge-plugin-host) unless a
	 * source says isolate = no: only then is it loaded here, tried in a
	 * child first, so one that crashes while loading is refused instead of
	 * killing the daemon */
	for (size_t i = 0; i < d->cfg.nsources; i++)
		if (!hb_builtin_find(d->cfg.sources[i].type))
			want[nwant++] = d->cfg.sources[i].type;
	want[nwant] = NULL;
	if (nwant && d->cfg.plugin_dir[0] &&
	    hb_plugins_scan(d->cfg.plugin_dir, 0, &d->plugins, plugin_refused, lr, &err) < 0 &&
	    err.code != -ENOENT)
		hb_dlog(d, LOG_WARNING, "plugins: %s, ignoring", err.msg);
	for (size_t i = 0; i < d->plugins.n; i++) {
		struct hb_plugin *p = &d->plugins.v[i];
		struct hb_plugin_desc desc;
		struct hb_err why = { 0 };
		bool want_it = false;

		for (size_t k = 0; k < nwant && !want_it; k++)
			want_it = !strcmp(want[k], p->name);
		if (!want_it || !hb_config_plugin_in_process(&d->cfg, p->name))
			continue;
		if (hb_plugin_inspect(p, PLUGIN_INSPECT_MS, &desc, &why) < 0 ||
		    hb_plugin_open(p, &why) < 0)
			plugin_refused(lr, p->path, why.msg);
	}
	for (size_t i = 0; i < d->cfg.nsources; i++) {
		const struct hb_source_config *sc = &d->cfg.sources[i];
		struct source *s = &d->src[d->nsrc];
		struct hb_plugin *plugin;
		const char *origin;
		int isolate = 1;

		*s = (struct source){ 0 };
		if (!hb_builtin_find(sc->type)) {
			isolate = hb_source_isolate((const char *const *)sc->params);
			if (isolate < 0) {
				hb_dlog(d, LOG_ERR,
					"%s: [source %s]: isolate: want yes or no, skipping it",
					sc->where, sc->name);
				continue;
			}
		}
		s->ops = find_source(d, sc->type, isolate, &plugin, &origin);
		if (!s->ops && refusal_of(lr, sc->type)) {
			hb_dlog(d, LOG_ERR,
				"%s: [source %s]: plugin %s was refused (%s), skipping it",
				sc->where, sc->name, sc->type, refusal_of(lr, sc->type));
			continue;
		}
		if (!s->ops) {
			hb_dlog(d, LOG_ERR,
				"%s: [source %s]: no source of type '%s' (built-in or plugin), "
				"skipping it",
				sc->where, sc->name, sc->type);
			continue;
		}
		snprintf(s->origin, sizeof(s->origin), "%s", origin);
		snprintf(s->name, sizeof(s->name), "%s", sc->name);
		if (hb_source_memdev(hb_platform_topology(d->env.platform), sc, s->memdev,
				     sizeof(s->memdev), &err) < 0) {
			hb_dlog(d, LOG_ERR, "%s; skipping it", err.msg);
			continue;
		}
		if (s->memdev[0] && !sc->memdev[0])
			hb_dlog(d, LOG_INFO, "source %s: memdev %s, the memdev of PCI function %s",
				sc->name, s->memdev, sc->pci);
		if (s->memdev[0] &&
		    hb_topology_find_memdev(hb_platform_topology(d->env.platform), s->memdev) < 0)
			hb_dlog(d, LOG_WARNING,
				"%s: [source %s]: memdev %s is not in the CXL topology: "
				"its records are dropped (unknown_memdev) until it appears",
				sc->where, sc->name, s->memdev);
		snprintf(s->pci, sizeof(s->pci), "%s", sc->pci);
		if (hb_source_open_params(hb_platform_topology(d->env.platform), sc, s->memdev,
					  s->params, s->added, sizeof(s->added), &err) < 0) {
			hb_dlog(d, LOG_ERR, "%s; going on without it", err.msg);
			continue;
		}
		s->info = (struct hb_dev_info){ .size = sizeof(s->info),
						.name = s->name,
						.memdev = s->memdev[0] ? s->memdev : NULL,
						.pci_bdf = s->pci[0] ? s->pci : NULL,
						.params = s->params };
		s->host = (struct hb_host){ .d = d, .src = s };
		if (plugin) {
			take_isolate(s->params);
			s->isolated = isolate;
		}
		if (s->isolated) {
			struct hb_proxy_limits lim = { .mem_limit = d->cfg.plugin_memory_limit,
						       .hang_ms = (uint32_t)d->cfg.plugin_hang_ms,
						       .owner = 0 };

			if (hb_plugin_proxy_open(plugin, &lim, &host_ops, &s->host, &s->info,
						 &s->priv, &err) < 0) {
				hb_dlog(d, LOG_ERR, "%s: source %s: %s; going on without it",
					sc->where, s->name, err.msg);
				continue;
			}
		} else if (hb_source_open(s->ops, s->origin, &host_ops, &s->host, &s->info,
					  &s->priv, &err) < 0) {
			hb_dlog(d, LOG_ERR, "%s: %s; going on without it", sc->where, err.msg);
			continue;
		}
		hb_dlog(d, LOG_INFO, "source %s: %s (%s) open%s", s->name, s->ops->name, s->origin,
			s->isolated ? " in hotbridge-plugin-host" : "");
		d->nsrc++;
	}
	free(lr);
	return 0;
}

/* Every open source closed, its watches freed, the plugins unloaded. */
void hb_daemon_close_sources(struct hb_daemon *d)
{
	for (size_t i = 0; i < d->nsrc; i++)
		if (d->src[i].priv) /* NULL: stopped and closed */
			d->src[i].ops->close(d->src[i].priv);
	for (int i = 0; i < MAX_WATCHES; i++)
		if (d->watch[i].ev)
			event_free(d->watch[i].ev);
	if (d->intake.resume_ev)
		event_free(d->intake.resume_ev);
	d->intake.resume_ev = NULL;
	hb_plugin_set_done(&d->plugins);
}

static void poll_one(struct hb_daemon *d, struct source *s)
{
	int r;

	s->pushed_back = false;
	hb_daemon_turn_begin(d);
	r = s->ops->poll(s->priv);
	hb_daemon_turn_end(d);
	if (r < 0) {
		d->st.source_errors++;
		if (++s->errors == SOURCE_MAX_ERRORS) {
			s->disabled = true;
			hb_dlog(d, LOG_ERR, "source %s: %d polls failed (last: %s); disabled",
				s->name, SOURCE_MAX_ERRORS, strerror(-r));
		}
	} else {
		s->errors = 0;
	}
}

/*
 * The polled sources, each once; one failing SOURCE_MAX_ERRORS times in a
 * row is disabled. A poll that leaves an ingestion backlog ends the round
 * (the loop works the backlog off first), so each round starts after the
 * source polled last: else a source whose poll always overruns its slice
 * would starve every source after it.
 */
void hb_daemon_poll_sources(struct hb_daemon *d)
{
	size_t start = d->poll_next;

	for (size_t k = 0; k < d->nsrc && !hb_ingest_backlog(d->intake.ingest); k++) {
		size_t i = (start + k) % d->nsrc;
		struct source *s = &d->src[i];

		if (s->disabled || !(s->ops->caps & HB_DEV_CAP_POLL))
			continue;
		d->poll_next = (i + 1) % d->nsrc;
		poll_one(d, s);
	}
}

/*
 * The backlog a source was told was full is worked off: its poll runs now,
 * not at the next cycle (a followed file goes on reading where it stopped;
 * fd-driven input comes through its watch again). A poll that fills the
 * backlog again ends the round; the rest wait for the next drain.
 */
static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	struct hb_daemon *d = arg;

	d->intake.pushed_back = false;
	for (size_t i = 0; i < d->nsrc; i++) {
		struct source *s = &d->src[i];

		if (!s->pushed_back)
			continue;
		if (hb_ingest_backlog(d->intake.ingest)) {
			d->intake.pushed_back = true; /* the next drain comes back here */
			break;
		}
		if (!s->disabled && (s->ops->caps & HB_DEV_CAP_POLL))
			poll_one(d, s);
		else
			s->pushed_back = false;
	}
}

/*
 * After a topology rebuild: each built-in source that stopped and was
 * closed (the cxl-hmu source once its PMU went away with cxl_pci unbound) is
 * opened again as the config made it; a PMU back under the same name is
 * taken up, one still gone leaves the source stopped until the next rebuild.
 * A source disabled by failing polls, and a plugin, stay so.
 */
void hb_daemon_reopen_stopped_sources(struct hb_daemon *d)
{
	for (size_t i = 0; i < d->nsrc; i++) {
		struct source *s = &d->src[i];
		struct hb_err err = { 0 };
		void *priv;

		if (!s->stopped)
			continue;
		if (hb_source_open(s->ops, s->origin, &host_ops, &s->host, &s->info, &priv, &err) <
		    0) {
			hb_dlog(d, LOG_INFO, "source %s: still stopped: %s", s->name, err.msg);
			continue;
		}
		s->priv = priv;
		s->stopped = false;
		s->disabled = false;
		s->errors = 0;
		hb_dlog(d, LOG_NOTICE, "source %s: open again after the topology change", s->name);
	}
}

void *hb_daemon_source_priv(struct hb_daemon *d, const char *name)
{
	for (size_t i = 0; i < d->nsrc; i++)
		if (!strcmp(d->src[i].name, name))
			return d->src[i].priv;
	return NULL;
}

void *hb_daemon_emul_chmu_of(struct hb_daemon *d, const char *memdev)
{
	for (size_t i = 0; i < d->nsrc; i++)
		if (!d->src[i].disabled && !strcmp(d->src[i].memdev, memdev) &&
		    !strcmp(d->src[i].ops->name, "emul-chmu"))
			return d->src[i].priv;
	return NULL;
}
