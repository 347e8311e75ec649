// SPDX-License-Identifier: MIT
/*
 * Ingestion glue: what sources submit goes through ingest.c (record ->
 * translation -> table) in slices of INGEST_SLICE_NS per loop turn; a
 * backlog left over pauses the sources' fds until it is worked off.
 */
#include <errno.h>
#include <stdio.h>
#include <syslog.h>

#include <event2/event.h>

#include "daemon-private.h"
#include "ingest/ingest.h"

/*
 * Around every callback into a source: its records get one slice of
 * ingestion; a backlog left behind pauses the sources' fds (the kernel's
 * buffers hold what they have, and writers feel the back-pressure) until
 * on_drain() has worked it off, one slice per loop turn.
 */
void hb_daemon_turn_begin(struct hb_daemon *d)
{
	d->intake.turn_deadline = d->looping ? hb_now_ns() + INGEST_SLICE_NS : 0;
}

static void throttle(struct hb_daemon *d, bool on)
{
	if (d->intake.throttled == on)
		return;
	d->intake.throttled = on;
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

	(void)evtimer_add(d->intake.drain_ev, &now);
}

void hb_daemon_turn_end(struct hb_daemon *d)
{
	if (!hb_ingest_backlog(d->intake.ingest))
		return;
	if (!d->looping) {
		(void)hb_ingest_drain(d->intake.ingest, 0);
		return;
	}
	throttle(d, true);
	drain_later(d);
}

static void on_drain(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval now = { 0, 0 };
	struct hb_daemon *d = arg;

	if (hb_ingest_drain(d->intake.ingest, hb_now_ns() + INGEST_SLICE_NS)) {
		drain_later(d);
		return;
	}
	throttle(d, false);
	d->intake.full_logged = false;
	/* the sources told to stop reading go on at once, not at their next poll */
	if (d->intake.pushed_back && d->intake.resume_ev)
		(void)evtimer_add(d->intake.resume_ev, &now);
}

int hb_daemon_node_of(struct hb_daemon *d, uint64_t hpa)
{
	return hb_platform_node_of(d->env.platform, hpa);
}

int hb_daemon_node_of_ud(void *ud, uint64_t hpa)
{
	return hb_daemon_node_of(ud, hpa);
}

/* bad records: once per burst, not once per record */
static void ingest_report(void *ud, const char *msg)
{
	struct hb_daemon *d = ud;
	const struct source *src = d->intake.submitting;
	struct hb_log_fields f = { .source = src ? src->name : NULL,
				   .memdev = src && src->memdev[0] ? src->memdev : NULL,
				   .hpa = HB_LOG_NO_ADDR,
				   .dpa = HB_LOG_NO_ADDR };

	hb_dlogf(d, LOG_WARNING, &f, "source %s: %s", src ? src->name : "?", msg);
}

/* what ingestion checks records against: the regions, source nodes, blocks */
int hb_daemon_set_ingest_topology(struct hb_daemon *d)
{
	return hb_ingest_set_topology(d->intake.ingest, hb_platform_topology(d->env.platform),
				      d->source_mask, hb_platform_node_step(d->env.platform));
}

/* The ingestion stage over the table, with the current topology, and its drain timer. */
int hb_daemon_intake_new(struct hb_daemon *d, struct hb_err *err)
{
	struct hb_ingest_env ie = {
		.heat = d->heat,
		.lat = &d->lat,
		.stats = &d->st.in,
		.page_size = d->pcfg.page_size,
		.node_of = hb_daemon_node_of_ud,
		.ud = d,
		.report = ingest_report,
		.report_ud = d,
		.backlog = d->cfg.backlog,
	};
	int r;

	if ((r = hb_ingest_new(&ie, &d->intake.ingest, err)) < 0 ||
	    (r = hb_daemon_set_ingest_topology(d)) < 0)
		return r;
	d->intake.drain_ev = evtimer_new(d->base, on_drain, d);
	if (!d->intake.drain_ev)
		return hb_err_set(err, -ENOMEM, "out of memory");
	return 0;
}
