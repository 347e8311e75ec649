// SPDX-License-Identifier: MIT
/*
 * The nodes as the cycle sees them: the platform's facts, each source
 * node marked, and a DRAM node resting after ENOMEM read as full. The
 * cycle and a topology rebuild (platform/topology-watch.c) both refresh
 * them.
 */
#include "daemon-private.h"

int hb_daemon_refresh_nodes(struct hb_daemon *d)
{
	int r = hb_platform_nodes(d->env.platform, d->nodes, d->dist);
	uint64_t now = hb_daemon_clock(d);

	for (int n = 0; n < HB_MAX_NODES; n++) {
		d->nodes[n].is_source = d->nodes[n].present && (d->source_mask >> n) & 1;
		if (now < d->backoff_until[n])
			d->nodes[n].free_bytes = 0; /* the watermark rule holds it off */
	}
	return r;
}
