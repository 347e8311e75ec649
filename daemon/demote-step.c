// SPDX-License-Identifier: MIT
/*
 * The cycle's demotion step (before promotion, so that what it frees is
 * promoted into): ask the coldness source which placed pages stayed idle
 * since the last cycle and mark them all idle again; decide (core/demote.c);
 * move the demotions to the CXL node; fold the results. A demotion that
 * fails with EBUSY/EAGAIN or ENOMEM rests its DRAM node for 10 cycles, for
 * promotion as for demotion: nothing spins on a node that cannot give room.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "daemon-private.h"
#include "history-json.h"

void hb_daemon_demote_config(struct hb_daemon *d)
{
	d->dcfg = (struct hb_demote_config){
		.goal_bytes = (d->cfg.watermark_mb + d->cfg.demote_room_mb) << 20,
		.rate_pages = (double)d->cfg.demote_rate_pages,
		.cxl_floor_bytes = d->cfg.demote_cxl_floor_mb << 20,
		.cxl_node = (int)d->cfg.demote_cxl_node,
		.cold_cycles = (unsigned int)d->cfg.demote_cold_cycles,
		.hysteresis_ns = d->cfg.hysteresis_ms * 1000000ULL,
		.page_size = d->pcfg.page_size,
	};
}

int hb_daemon_demote_new(struct hb_daemon *d, struct hb_err *err)
{
	int r;

	if (!d->cfg.demote_enabled)
		return 0;
	if (!d->env.coldness.ops)
		return hb_err_set(err, -EOPNOTSUPP, "demote.enabled = true: this host has no coldness "
				  "source (which promoted pages went cold); only the emulated host "
				  "has one so far");
	hb_daemon_demote_config(d);
	if ((r = hb_placed_new(d->cfg.max_entries, d->pcfg.page_size, &d->placed, err)) < 0 ||
	    (r = hb_demoter_new(&d->demoter, err)) < 0)
		return r;
	hb_policy_set_placed(d->policy, d->placed);
	return 0;
}

void hb_daemon_demote_free(struct hb_daemon *d)
{
	d->placed = hb_placed_free(d->placed);
	d->demoter = hb_demoter_free(d->demoter);
	free(d->pfn);
	free(d->idle);
	d->pfn = NULL;
	d->idle = NULL;
}

const struct hb_placed *hb_daemon_placed(const struct hb_daemon *d)
{
	return d->placed;
}

void hb_daemon_demote_placed(struct hb_daemon *d, uint64_t hpa, int src, int node, uint64_t t0)
{
	if (d->placed && hb_placed_add(d->placed, hpa, src, node, t0) < 0)
		hb_dlog(d, LOG_DEBUG, "placed pages: table full, %#llx not tracked",
			(unsigned long long)hpa);
}

/* Idle counts from the coldness source, then every placed page marked idle again. */
static int refresh_coldness(struct hb_daemon *d)
{
	const struct hb_coldness *c = &d->env.coldness;
	size_t n = hb_placed_len(d->placed), k = 0, cur = 0;
	struct hb_placed_page *e;
	int r;

	if (!n)
		return 0;
	if (n > d->pfn_cap) {
		uint64_t *pfn = realloc(d->pfn, n * sizeof(*pfn));
		uint8_t *idle = pfn ? realloc(d->idle, n) : NULL;

		if (pfn)
			d->pfn = pfn;
		if (!idle)
			return -ENOMEM;
		d->idle = idle;
		d->pfn_cap = n;
	}
	while ((e = hb_placed_next(d->placed, &cur)))
		if (e->marked)
			d->pfn[k++] = hb_placed_hpa(d->placed, e) / d->pcfg.page_size;
	if (k && (r = c->ops->check_idle(c->priv, k, d->pfn, d->idle)) < 0)
		return r;
	k = cur = 0;
	while ((e = hb_placed_next(d->placed, &cur)))
		if (e->marked)
			e->idle = d->idle[k++] ? (uint16_t)(e->idle < UINT16_MAX ? e->idle + 1 : e->idle)
					       : 0;
	k = cur = 0;
	while ((e = hb_placed_next(d->placed, &cur))) {
		d->pfn[k++] = hb_placed_hpa(d->placed, e) / d->pcfg.page_size;
		e->marked = true;
	}
	return c->ops->mark_idle(c->priv, k, d->pfn);
}

void hb_daemon_demote_step(struct hb_daemon *d, uint64_t t0)
{
	struct hb_migrate_counts mc = { 0 };
	uint64_t mask = 0, rest = t0 + 10 * d->cfg.interval_ms * 1000000ULL;
	size_t n, np;
	int r;

	if (!d->placed || d->paused)
		return;
	if ((r = refresh_coldness(d)) < 0) {
		d->st.coldness_errors++;
		hb_dlog(d, LOG_WARNING, "coldness (%s): %s, no demotion this cycle",
			d->env.coldness.ops->name, strerror(-r));
		return;
	}
	for (int t = 0; t < HB_MAX_NODES; t++)
		if (t0 >= d->demote_backoff_until[t])
			mask |= 1ULL << t;
	n = hb_demote_decide(d->demoter, &d->dcfg, d->nodes, d->placed, mask, t0, d->dec,
			     MAX_CANDIDATES);
	np = hb_daemon_move(d, n, HB_REASON_DEMOTE, "demotion", &mc, &d->st.demoted);
	for (size_t i = 0; i < np; i++) {
		enum hb_migrate_class c = hb_migrate_classify(d->status[i], d->tnode[i], d->snode[i]);

		switch (c) {
		case HB_MIGRATE_MOVED:
		case HB_MIGRATE_ALREADY:
			if (c == HB_MIGRATE_MOVED) {
				d->st.demoted_bytes += d->pcfg.page_size;
				d->st.demoted_pages_by_node[d->tnode[i]]++;
			}
			hb_placed_remove(d->placed, d->hpa[i]);
			hb_policy_hold_outcome(d->policy, &d->pcfg, d->hpa[i], t0, HB_HOLD_DEMOTED,
					       d->status[i]);
			break;
		case HB_MIGRATE_RETRY:
		case HB_MIGRATE_BACKOFF:
			/* the node cannot give room now: neither direction spins on it */
			if (d->demote_backoff_until[d->snode[i]] < rest)
				d->st.demote_backoffs++;
			d->demote_backoff_until[d->snode[i]] = rest;
			d->backoff_until[d->snode[i]] = rest;
			break;
		default:
			/* not ours to move (or it went elsewhere): no longer tracked */
			hb_placed_remove(d->placed, d->hpa[i]);
			break;
		}
	}
	hb_history_record(d->history, &(struct hb_history_cycle){
		.time_ns = wall_ns(), .topology = hb_platform_topology(d->env.platform), .dec = d->dec,
		.n = n, .status = d->status, .np = np });
	if (np && !d->env.quiet)
		hb_dlog(d, LOG_INFO, "demotion: %zu pages: %llu moved, %llu retry, %llu backoff, "
			"%llu dropped; %zu placed on DRAM", np,
			(unsigned long long)mc.by_class[HB_MIGRATE_MOVED],
			(unsigned long long)mc.by_class[HB_MIGRATE_RETRY],
			(unsigned long long)mc.by_class[HB_MIGRATE_BACKOFF],
			(unsigned long long)mc.by_class[HB_MIGRATE_DROP], hb_placed_len(d->placed));
}
