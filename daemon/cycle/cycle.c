// SPDX-License-Identifier: MIT
/*
 * One cycle: poll the sources, demote (demote-step.c), decide (core/
 * policy), migrate, fold the per-page results into counters, hold or back
 * off, record, decay. In the event loop the moves run off its thread
 * (move.c): the promotion after a demotion is decided when the demotion's
 * batch is folded, and the cycle's line waits for its promotion's fold.
 */
#include <errno.h>
#include <string.h>
#include <syslog.h>

#include <event2/event.h>

#include "daemon-private.h"
#include "cycle/job-thread.h"
#include "ingest/ingest.h"
#include "util/macro.h"

/*
 * A fold works on a batch's pages for at most this long a turn of the
 * loop, as ingestion does (intake.h): under TCG a fold of 12 288 pages
 * held the loop 0.6-0.7 s in one piece.
 */
#define FOLD_SLICE_NS (5ULL * 1000 * 1000)

/*
 * An idle cycle's line is left out, and a line says so at most this often
 * (newuser r4 D34: 86 400 identical lines a day at the default interval)
 */
#define IDLE_LINE_NS (600ULL * 1000 * 1000 * 1000)

/* nothing came, went or was hot since the last line: every figure of the line 0 */
static bool line_idle(const struct hb_daemon *d)
{
	const struct hb_migrate_counts *mc = &d->scratch.line.mc;

	if (d->st.in.records != d->logged_in.records ||
	    d->st.in.dropped_records != d->logged_in.dropped_records ||
	    d->st.in.bad_input != d->logged_in.bad_input || d->scratch.line.n ||
	    d->scratch.line.np || d->scratch.line.rate_limited || d->scratch.line.watermark)
		return false;
	for (int i = 0; i < _HB_MIGRATE_CLASS_MAX; i++)
		if (mc->by_class[i])
			return false;
	return true;
}

/*
 * The cycle line (daemon/docs/cycle.md, "One cycle"): its promotion's figures,
 * d->scratch.line. The first cycle has one, then only those that did
 * something; idle ones are summed up in one line every 10 minutes.
 */
static void cycle_line(struct hb_daemon *d)
{
	const struct hb_migrate_counts *mc = &d->scratch.line.mc;
	uint64_t now = hb_daemon_clock(d); /* a simulation's idle lines come on its time */
	char policy[64] = "";

	d->scratch.line.deferred = false;
	/* only when there are some: the line stays as it was without them */
	if (mc->by_class[HB_MIGRATE_POLICY])
		snprintf(policy, sizeof(policy), ", %llu refused by memory policy",
			 (unsigned long long)mc->by_class[HB_MIGRATE_POLICY]);
	if (d->scratch.line.cycle > 1 && line_idle(d)) {
		if (!d->idle_from)
			d->idle_from = d->scratch.line.cycle;
		if (now - d->line_ns < IDLE_LINE_NS)
			return;
		if (!d->env.quiet)
			hb_dlog(d, LOG_INFO,
				"cycles %llu-%llu idle: no records, nothing hot; table %zu pages",
				(unsigned long long)d->idle_from,
				(unsigned long long)d->scratch.line.cycle, hb_heat_len(d->heat));
		d->idle_from = 0;
		d->line_ns = now;
		return;
	}
	d->idle_from = 0;
	d->line_ns = now;
	/*
	 * records taken since the previous line, whether a poll in this cycle or
	 * an fd callback between cycles submitted them; dropped: those of all
	 * records that ended with none of their pages in the table; bad input
	 * is not records (daemon/docs/cycle.md, "One cycle")
	 */
	if (!d->env.quiet)
		hb_dlog(d, LOG_INFO,
			"cycle %llu: %llu records (%llu dropped), %llu bad input, "
			"%zu hot pages, %zu to promote: "
			"%llu moved, %llu already there, %llu retry, %llu backoff, %llu dropped%s; "
			"%llu rate-limited, %llu below watermark; table %zu pages; %.1f ms",
			(unsigned long long)d->scratch.line.cycle,
			(unsigned long long)(d->st.in.records - d->logged_in.records),
			(unsigned long long)(d->st.in.dropped_records - d->logged_in.dropped_records),
			(unsigned long long)(d->st.in.bad_input - d->logged_in.bad_input),
			d->scratch.line.n, d->scratch.line.np,
			(unsigned long long)mc->by_class[HB_MIGRATE_MOVED],
			(unsigned long long)mc->by_class[HB_MIGRATE_ALREADY],
			(unsigned long long)mc->by_class[HB_MIGRATE_RETRY],
			(unsigned long long)mc->by_class[HB_MIGRATE_BACKOFF],
			(unsigned long long)mc->by_class[HB_MIGRATE_DROP], policy,
			(unsigned long long)d->scratch.line.rate_limited,
			(unsigned long long)d->scratch.line.watermark, hb_heat_len(d->heat),
			d->scratch.line.ms);
	d->logged_in = d->st.in;
}

/*
 * The promotion's decision, on the batch thread when looping: the
 * candidates sorted, then the policy, which it reads (its holds and
 * buckets change on the loop only at a fold and a take); the input the
 * cycle copied
 */
static void promote_job(struct hb_daemon *d)
{
	struct hb_cycle_scratch *s = &d->scratch;
	uint64_t s0 = hb_now_ns();

	hb_candidates_sort(s->cand, s->pd.n);
	hb_policy_select(d->policy, &s->pd.cfg, s->pd.nodes, s->pd.dist, s->cand, s->pd.n, s->t0,
			 s->dec, &s->pd.spent);
	s->pd.took_ns = hb_now_ns() - s0;
}

/*
 * A topology rebuild ran while the decision was out: it dropped from the
 * table the pages of regions that left the topology (cxl disable-memdev
 * --force or cxl_pci unbound under online memory: the blocks stay online,
 * undecoded) and of nodes gone. The decision was made on the candidates
 * gathered before it: those no longer in the table are not handed over,
 * and spend nothing.
 */
static void refuse_dropped(struct hb_daemon *d, struct hb_decision *dec, size_t n,
			   struct hb_policy_spent *spent)
{
	size_t late = 0;

	for (size_t i = 0; i < n; i++) {
		int node;

		if (dec[i].reason != HB_REASON_PROMOTE)
			continue;
		(void)hb_heat_get(d->heat, dec[i].hpa, &node);
		if (node >= 0)
			continue;
		dec[i].reason = HB_REASON_NOT_SOURCE;
		spent->promoted--;
		spent->bytes[dec[i].target] -= d->pcfg.page_size;
		late++;
	}
	if (late)
		hb_dlog(d, LOG_NOTICE,
			"the topology changed while a promotion was decided: %zu of its pages, "
			"dropped by the rebuild, are not moved",
			late);
}

/* the promotion decided: charged, counted, its batch handed over (out, or run at once) */
static void promote_decided(struct hb_daemon *d)
{
	struct hb_cycle_scratch *s = &d->scratch;
	size_t n;

	if (d->st.topology_reloads != s->pd.reloads)
		refuse_dropped(d, s->dec, s->pd.n, &s->pd.spent);

	/* before charging: refusals spend nothing */
	n = hb_daemon_refuse_quarantined(d, s->dec, s->pd.n, s->cand + s->pd.n, s->pd.nq,
					 &s->pd.spent);
	hb_daemon_tenants_filter(d, n);
	hb_policy_charge(d->policy, &s->pd.cfg, &s->pd.spent, s->t0);
	if (!d->paused)
		hb_latency_decide(&d->lat, hb_now_ns());
	hb_latency_hist_add(&d->lat.decide, s->pd.gather_ns + s->pd.took_ns);
	/* the line's figures before the batch goes out: its fold may print the line */
	memset(d->st.last_decisions, 0, sizeof(d->st.last_decisions));
	for (size_t i = 0; i < n; i++)
		d->st.last_decisions[s->dec[i].reason]++;
	s->line.rate_limited = d->st.last_decisions[HB_REASON_RATE_LIMIT];
	s->line.watermark = d->st.last_decisions[HB_REASON_WATERMARK];
	hb_daemon_move_start(d, n, HB_REASON_PROMOTE, HB_BATCH_PROMOTE, s->t0);
}

static void promote_start(struct hb_daemon *d, uint64_t t0)
{
	struct hb_cycle_scratch *s = &d->scratch;
	uint64_t s0 = hb_now_ns();
	size_t n;

	/* gathered here (records go on changing the table); sorted and decided off the loop */
	n = d->paused ? 0 : hb_heat_gather(d->heat, d->pcfg.threshold, s->cand, MAX_CANDIDATES);
	s->pd.n = hb_daemon_drop_quarantined(d, s->cand, n); /* poisoned pages never move */
	s->pd.nq = n - s->pd.n;
	memcpy(s->pd.nodes, d->nodes, sizeof(s->pd.nodes));
	memcpy(s->pd.dist, d->dist, sizeof(s->pd.dist));
	s->pd.cfg = d->pcfg;
	s->pd.reloads = d->st.topology_reloads;
	s->pd.took_ns = 0;
	s->pd.gather_ns = hb_now_ns() - s0;
	if (s->pd.n) {
		hb_daemon_job_start(d, HB_BATCH_PROMOTE_DECIDE, promote_job, t0);
	} else {
		s->t0 = t0;
		promote_job(d);
		promote_decided(d);
	}
	hb_daemon_batch_done(d, true); /* unless it is out */
}

/*
 * The bytes and pages by node of a batch, counted at its take with its
 * classes (hb_daemon_move_fold()): every counter changes at once, though
 * the fold's work on the pages goes a slice at a time
 */
static void count_moved(struct hb_daemon *d, enum hb_batch_kind kind)
{
	const struct hb_cycle_scratch *s = &d->scratch;

	for (size_t i = 0; i < s->np; i++) {
		if (hb_migrate_classify(s->status[i], s->tnode[i], s->snode[i]) != HB_MIGRATE_MOVED)
			continue;
		if (kind == HB_BATCH_DEMOTE) {
			d->st.demoted_bytes += d->pcfg.page_size;
			d->st.demoted_pages_by_node[s->tnode[i]]++;
		} else {
			d->st.promoted_bytes += d->pcfg.page_size;
			d->st.promoted_pages_by_node[s->tnode[i]]++;
		}
	}
}

/* the promotion batch's fold, from fold_next until until (0: no limit); true once over */
static bool promote_fold(struct hb_daemon *d, uint64_t until)
{
	struct hb_cycle_scratch *s = &d->scratch;
	uint64_t t0 = s->t0;
	size_t np = s->np;

	for (size_t i = s->fold_next; i < np; i++) {
		enum hb_migrate_class c;

		if (hb_fold_pause(s, i, until))
			return false;
		c = hb_migrate_classify(s->status[i], s->tnode[i], s->snode[i]);
		if (c == HB_MIGRATE_MOVED)
			hb_daemon_demote_placed(d, s->hpa[i], s->snode[i], s->tnode[i], t0);
		/*
		 * budgets count what may be on DRAM now: a page whose outcome
		 * the backend could not tell (damon's -ENODATA: the batch did
		 * not settle in time, and its bytes were applied all the same)
		 * counts too, else a loaded host passes its tenants' budgets
		 */
		if (c == HB_MIGRATE_MOVED || s->status[i] == -ENODATA)
			hb_daemon_tenants_moved(d, i);
		if (c == HB_MIGRATE_BACKOFF)
			d->backoff_until[s->tnode[i]] = t0 + 10 * d->cfg.interval_ms * 1000000ULL;
		if (c != HB_MIGRATE_RETRY)
			hb_heat_forget(d->heat, s->hpa[i]);
		if (c != HB_MIGRATE_RETRY || d->pcfg.hysteresis_ns)
			hb_policy_hold_outcome(d->policy, &d->pcfg, s->hpa[i], t0,
					       c == HB_MIGRATE_ALREADY ? HB_HOLD_ON_TARGET :
					       c == HB_MIGRATE_BACKOFF || c == HB_MIGRATE_DROP ||
							       c == HB_MIGRATE_POLICY ?
									 HB_HOLD_REFUSED :
									 HB_HOLD_MOVED,
					       s->status[i]);
	}
	s->fold_next = np;
	hb_daemon_record_step(d, s->n, np);
	s->line.n = s->n;
	s->line.np = np;
	s->line.mc = s->fold_mc;
	if (s->line.deferred)
		cycle_line(d); /* its cycle ended while the batch was out */
	return true;
}

/*
 * The loop's turn that folds: a batch that finished (its thread's eventfd),
 * or the next slice of a fold (a zero-timeout timer)
 */
static void on_fold(evutil_socket_t fd, short what, void *arg)
{
	struct hb_daemon *d = arg;
	uint64_t s0 = hb_now_ns();

	(void)fd;
	(void)what;
	hb_daemon_batch_done(d, true);
	hb_latency_hist_add(&d->lat.fold, hb_now_ns() - s0);
}

/* the next slice of the work being folded at the loop's next turn (a zero-timeout timer) */
static bool next_slice(struct hb_daemon *d)
{
	static const struct timeval now = { 0, 0 };
	struct hb_cycle_scratch *s = &d->scratch;

	if (!s->fold_ev)
		s->fold_ev = evtimer_new(d->base, on_fold, d);
	return s->fold_ev && evtimer_add(s->fold_ev, &now) == 0;
}

static void batch_done(struct hb_daemon *d, bool chain, bool sliced);

/*
 * The demotion step's next slice (demote-step.c); once it is over, its
 * decision (taken when the batch thread has made it), or the promotion
 * when there is none. Without chain (the loop ended; a pause) the step
 * is left where it is: the next cycle's begins anew.
 */
static void prep_slice(struct hb_daemon *d, bool chain, uint64_t until)
{
	struct hb_cycle_scratch *s = &d->scratch;
	int r;

	if (!chain) {
		s->folding = HB_BATCH_NONE;
		return;
	}
	if ((r = hb_daemon_demote_prep(d, until)) == -EINPROGRESS) {
		if (next_slice(d))
			return;
		r = hb_daemon_demote_prep(d, 0); /* no timer: the rest at once */
	}
	s->folding = HB_BATCH_NONE;
	if (r > 0)
		batch_done(d, chain, until != 0); /* unless it is out */
	else
		promote_start(d, d->dm.step.t0);
}

/* as hb_daemon_batch_done(), in slices or (sliced false) all at once */
static void batch_done(struct hb_daemon *d, bool chain, bool sliced)
{
	struct hb_cycle_scratch *s = &d->scratch;
	uint64_t until = sliced ? hb_now_ns() + FOLD_SLICE_NS : 0;
	enum hb_batch_kind kind;
	bool over;

	if (s->folding == HB_BATCH_NONE) {
		/* a batch that finished: its counts at once, its pages a slice at a time */
		s->folding = hb_daemon_batch_take(d);
		if (s->folding == HB_BATCH_NONE)
			return;
		if (s->folding == HB_BATCH_DEMOTE_DECIDE || s->folding == HB_BATCH_PROMOTE_DECIDE) {
			/* a step decided: its batch (none when settled: nothing moves) */
			kind = s->folding;
			s->folding = HB_BATCH_NONE;
			if (!chain)
				return;
			if (kind == HB_BATCH_DEMOTE_DECIDE)
				hb_daemon_move_start(d, hb_daemon_demote_decided(d),
						     HB_REASON_DEMOTE, HB_BATCH_DEMOTE, s->t0);
			else
				promote_decided(d);
			batch_done(d, chain, sliced); /* unless it is out */
			return;
		}
		s->fold_next = 0;
		s->fold_mc = (struct hb_migrate_counts){ 0 };
		s->fold_freed = d->st.demoted_freed;
		if (s->folding == HB_BATCH_DEMOTE) {
			hb_daemon_move_fold(d, "demotion", &s->fold_mc, &d->st.demoted,
					    &d->st.demoted_freed);
			s->fold_freed = d->st.demoted_freed - s->fold_freed;
		} else {
			hb_daemon_move_fold(d, "migration", &s->fold_mc, &d->st.migrated, NULL);
		}
		count_moved(d, s->folding);
	}
	kind = s->folding;
	if (kind == HB_BATCH_DEMOTE_PREP) {
		prep_slice(d, chain, until);
		return;
	}
	over = kind == HB_BATCH_DEMOTE ? hb_daemon_demote_fold(d, until) : promote_fold(d, until);
	if (!over) {
		if (next_slice(d))
			return;
		/* no timer: the rest at once */
		(void)(kind == HB_BATCH_DEMOTE ? hb_daemon_demote_fold(d, 0) : promote_fold(d, 0));
	}
	s->folding = HB_BATCH_NONE;
	if (kind == HB_BATCH_DEMOTE && chain) {
		hb_daemon_refresh_nodes(d);
		promote_start(d, s->t0);
	}
}

void hb_daemon_batch_done(struct hb_daemon *d, bool chain)
{
	batch_done(d, chain, d->looping);
}

int hb_daemon_batch_watch(struct hb_daemon *d)
{
	int r;

	if ((r = hb_daemon_batch_job(d)) < 0)
		return r;
	if (d->scratch.ev)
		return 0;
	d->scratch.ev = event_new(d->base, hb_job_thread_fd(d->scratch.job), EV_READ | EV_PERSIST,
				  on_fold, d);
	if (!d->scratch.ev || event_add(d->scratch.ev, NULL) < 0)
		return -ENOMEM;
	return 0;
}

void hb_daemon_batch_settle(struct hb_daemon *d)
{
	hb_daemon_batch_wait(d);
	batch_done(d, false, false);
}

int hb_daemon_cycle(struct hb_daemon *d)
{
	uint64_t t0 = hb_daemon_clock(d), started = hb_now_ns(), took;
	bool decided = false;

	/*
	 * 1. sources (fd-driven ones were fed by the loop already); none while
	 * the ingestion backlog is being worked off: it holds what they sent
	 */
	hb_daemon_poll_sources(d);
	/* a batch that finished and was not folded yet (the loop's watch does it too) */
	hb_daemon_batch_done(d, true);
	/*
	 * 2. demote what went cold where DRAM runs short, then decide (not
	 * while paused) and migrate; neither while a batch of moves is out:
	 * the next cycle decides with its results
	 */
	if (!hb_daemon_batch_out(d)) {
		bool demoting = false;

		decided = true;
		memset(&d->scratch.line, 0, sizeof(d->scratch.line));
		hb_daemon_refresh_nodes(d);
		if (d->dm.placed && !d->paused) {
			/* the census and coldness in slices, the decision on the batch thread, its moves there */
			demoting = hb_daemon_demote_step(d, t0);
			if (demoting)
				hb_daemon_batch_done(d, true); /* unless it is out */
		}
		/* 3. migrate (after a demotion, once it is folded: hb_daemon_batch_done()) */
		if (!demoting)
			promote_start(d, t0);
	}
	/* 4. decay, report */
	hb_heat_tick(d->heat);
	d->st.cycles++;
	took = hb_now_ns() - started;
	d->st.last_cycle_ms = (double)took / 1e6;
	hb_latency_hist_add(&d->lat.cycle, took);
	d->st.cycle_ms_total += d->st.last_cycle_ms;
	if (d->cfg.metrics_textfile[0])
		hb_daemon_write_textfile(d);
	if (decided) {
		/* a cycle that decided has its line, at once or once its batch is folded */
		d->scratch.line.cycle = d->st.cycles;
		d->scratch.line.ms = d->st.last_cycle_ms;
		if (hb_daemon_batch_out(d))
			d->scratch.line.deferred = true;
		else
			cycle_line(d);
	}
	return 0;
}
