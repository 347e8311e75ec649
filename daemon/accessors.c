// SPDX-License-Identifier: MIT
/*
 * What the commands and the stages read of a running daemon (daemon.h):
 * its counters, migrator and topology, and pause. Apart from the
 * lifecycle (daemon.c), so the control socket's callbacks and explain,
 * which daemon.c sets up, do not call back into it.
 */
#include <stdbool.h>
#include <syslog.h>

#include "daemon-private.h"
#include "pause-state.h"

const struct hb_daemon_stats *hb_daemon_stats(const struct hb_daemon *d)
{
	return &d->st;
}

struct hb_migrator *hb_daemon_migrator(struct hb_daemon *d)
{
	return d->mig;
}

void hb_daemon_pause(struct hb_daemon *d, bool paused)
{
	struct hb_err err = { 0 };

	d->paused = paused;
	d->paused_kept = false;
	if (hb_pause_state_write(d->env.pause_state_aside ? "" : d->cfg.pause_state, paused, &err) < 0)
		hb_dlog(d, LOG_WARNING, "%s: a restart will %s", err.msg,
			paused ? "not be paused" : "be paused again");
	/*
	 * a batch still moving pages waits to finish and is folded now: once
	 * paused, nothing moves and no counter changes
	 */
	if (paused)
		hb_daemon_batch_settle(d);
	hb_dlog(d, LOG_INFO, "%s", paused ? "paused: still gathering, not promoting" : "resumed");
}

const struct hb_topology *hb_daemon_topology(const struct hb_daemon *d)
{
	return hb_platform_topology(d->env.platform);
}
