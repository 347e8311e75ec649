// SPDX-License-Identifier: MIT
/*
 * One cycle: poll the sources, demote (demote-step.c), decide (core/
 * policy), migrate, fold the per-page results into counters, hold or back
 * off, record, decay.
 */
#include <errno.h>
#include <syslog.h>

#include "daemon-private.h"
#include "ingest/ingest.h"
#include "util/macro.h"

int hb_daemon_cycle(struct hb_daemon *d)
{
	uint64_t t0 = hb_daemon_clock(d), started = hb_now_ns(), took;
	struct hb_daemon_stats before = d->st;
	struct hb_migrate_counts mc = { 0 };
	size_t n, np;

	/*
	 * 1. sources (fd-driven ones were fed by the loop already); none while
	 * the ingestion backlog is being worked off: it holds what they sent
	 */
	hb_daemon_poll_sources(d);
	/* 2. demote what went cold where DRAM runs short, then decide (not while paused) */
	hb_daemon_refresh_nodes(d);
	if (d->dm.placed && !d->paused) {
		uint64_t s0 = hb_now_ns();

		hb_daemon_demote_step(d, t0);
		hb_latency_hist_add(&d->lat.demote, hb_now_ns() - s0);
		hb_daemon_refresh_nodes(d);
	}
	n = d->paused ? 0 :
			hb_heat_collect(d->heat, d->pcfg.threshold, d->scratch.cand, MAX_CANDIDATES);
	n = hb_daemon_drop_quarantined(d, d->scratch.cand, n); /* poisoned pages never move */
	hb_policy_decide(d->policy, &d->pcfg, d->nodes, d->dist, d->scratch.cand, n, t0,
			 d->scratch.dec);
	if (!d->paused)
		hb_latency_decide(&d->lat, hb_now_ns());
	/* 3. migrate */
	np = hb_daemon_move(d, n, HB_REASON_PROMOTE, "migration", &mc, &d->st.migrated, NULL);
	for (size_t i = 0; i < np; i++) {
		enum hb_migrate_class c =
			hb_migrate_classify(d->scratch.status[i], d->scratch.tnode[i],
					    d->scratch.snode[i]);

		if (c == HB_MIGRATE_MOVED) {
			d->st.promoted_bytes += d->pcfg.page_size;
			d->st.promoted_pages_by_node[d->scratch.tnode[i]]++;
			hb_daemon_demote_placed(d, d->scratch.hpa[i], d->scratch.snode[i],
						d->scratch.tnode[i], t0);
		}
		if (c == HB_MIGRATE_BACKOFF)
			d->backoff_until[d->scratch.tnode[i]] =
				t0 + 10 * d->cfg.interval_ms * 1000000ULL;
		if (c != HB_MIGRATE_RETRY)
			hb_heat_forget(d->heat, d->scratch.hpa[i]);
		if (c != HB_MIGRATE_RETRY || d->pcfg.hysteresis_ns)
			hb_policy_hold_outcome(d->policy, &d->pcfg, d->scratch.hpa[i], t0,
					       c == HB_MIGRATE_ALREADY ? HB_HOLD_ON_TARGET :
					       c == HB_MIGRATE_BACKOFF || c == HB_MIGRATE_DROP ?
									 HB_HOLD_REFUSED :
									 HB_HOLD_MOVED,
					       d->scratch.status[i]);
	}
	hb_daemon_record_step(d, n, np);
	/* 4. decay, report */
	hb_heat_tick(d->heat);
	d->st.cycles++;
	took = hb_now_ns() - started;
	d->st.last_cycle_ms = (double)took / 1e6;
	hb_latency_hist_add(&d->lat.cycle, took);
	d->st.cycle_ms_total += d->st.last_cycle_ms;
	if (d->cfg.metrics_textfile[0])
		hb_daemon_write_textfile(d);
	/*
	 * records taken since the previous line, whether a poll in this cycle or
	 * an fd callback between cycles submitted them; dropped: those of all
	 * records that ended with none of their pages in the table; bad input
	 * is not records (daemon/README.md, "One cycle")
	 */
	if (!d->env.quiet)
		hb_dlog(d, LOG_INFO,
			"cycle %llu: %llu records (%llu dropped), %llu bad input, "
			"%zu hot pages, %zu to promote: "
			"%llu moved, %llu already there, %llu retry, %llu backoff, %llu dropped; "
			"%llu rate-limited, %llu below watermark; table %zu pages; %.1f ms",
			(unsigned long long)d->st.cycles,
			(unsigned long long)(d->st.in.records - d->logged_in.records),
			(unsigned long long)(d->st.in.dropped_records - d->logged_in.dropped_records),
			(unsigned long long)(d->st.in.bad_input - d->logged_in.bad_input), n, np,
			(unsigned long long)mc.by_class[HB_MIGRATE_MOVED],
			(unsigned long long)mc.by_class[HB_MIGRATE_ALREADY],
			(unsigned long long)mc.by_class[HB_MIGRATE_RETRY],
			(unsigned long long)mc.by_class[HB_MIGRATE_BACKOFF],
			(unsigned long long)mc.by_class[HB_MIGRATE_DROP],
			(unsigned long long)(d->st.decisions[HB_REASON_RATE_LIMIT] -
					     before.decisions[HB_REASON_RATE_LIMIT]),
			(unsigned long long)(d->st.decisions[HB_REASON_WATERMARK] -
					     before.decisions[HB_REASON_WATERMARK]),
			hb_heat_len(d->heat), d->st.last_cycle_ms);
	d->logged_in = d->st.in;
	return 0;
}
