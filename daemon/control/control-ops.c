// SPDX-License-Identifier: MIT
/*
 * The daemon's side of the control socket: the table of callbacks the
 * server (control.c, which knows nothing of struct hb_daemon) answers with.
 */
#include <errno.h>
#include <syslog.h>

#include "control/control.h"
#include "daemon-private.h"

static struct json_object *status(void *ud)
{
	return hb_daemon_status_json(ud);
}

static struct json_object *stats(void *ud)
{
	return hb_daemon_stats_json(ud);
}

static struct json_object *sources(void *ud)
{
	return hb_daemon_sources_json(ud);
}

static void metrics(void *ud, FILE *f)
{
	hb_daemon_metrics(ud, f);
}

static void pause_(void *ud, bool paused)
{
	hb_daemon_pause(ud, paused);
}

static int reload(void *ud, struct json_object **ret, struct hb_err *err)
{
	int r = hb_daemon_reload(ud, err);

	if (r >= 0)
		*ret = hb_daemon_reload_json(ud);
	return r;
}

static const struct hb_topology *topology(void *ud)
{
	return hb_daemon_topology(ud);
}

static int explain(void *ud, uint64_t hpa, struct json_object **ret, struct hb_err *err)
{
	return hb_daemon_explain(ud, hpa, ret, err);
}

static int explain_dpa(void *ud, const char *memdev, uint64_t dpa, struct json_object **ret,
		       struct hb_err *err)
{
	return hb_daemon_explain_dpa(ud, memdev, dpa, ret, err);
}

static int history(void *ud, bool page_only, uint64_t hpa, size_t last, struct json_object **ret,
		   struct hb_err *err)
{
	return hb_daemon_history(ud, page_only, hpa, last, ret, err);
}

static int heat(void *ud, size_t last, struct json_object **ret, struct hb_err *err)
{
	return hb_daemon_heat(ud, last, ret, err);
}

static const struct hb_control_ops control_ops = {
	.status = status,
	.stats = stats,
	.sources = sources,
	.metrics = metrics,
	.pause = pause_,
	.reload = reload,
	.topology = topology,
	.explain = explain,
	.explain_dpa = explain_dpa,
	.history = history,
	.heat = heat,
};

int hb_daemon_listen_control(struct hb_daemon *d)
{
	struct hb_err err = { 0 };
	int r;

	if (!d->cfg.control_socket[0])
		return 0;
	r = hb_control_new(d->base, d->cfg.control_socket, &control_ops, d, &d->control, &err);
	/*
	 * without it the daemon could not be paused, asked or reloaded, and
	 * `hotbridge status` would talk to whatever is there: refused, as an
	 * empty control_socket is (a dead daemon's socket is replaced)
	 */
	if (r < 0)
		hb_dlog(d, LOG_ERR,
			"control socket: %s: run needs its control socket (daemon.control_socket), "
			"not starting",
			err.msg);
	return r;
}

void hb_daemon_close_control(struct hb_daemon *d)
{
	d->control = hb_control_free(d->control);
}
