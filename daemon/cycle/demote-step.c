// SPDX-License-Identifier: MIT
/*
 * The cycle's demotion step (before promotion, so that what it frees is
 * promoted into): on a live host, take the census of a window of each
 * promotion target's frames (the placed pages there: coldness.h says why);
 * ask the coldness source which placed pages stayed idle since the last
 * cycle and mark them all idle again; decide (core/demote.c);
 * move the demotions to the CXL node; fold the results. A demotion that
 * fails with EBUSY/EAGAIN or ENOMEM rests its DRAM node for 10 cycles, for
 * promotion as for demotion: nothing spins on a node that cannot give room.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "daemon-private.h"
#include "cycle/idle-worker.h"

void hb_daemon_demote_config(struct hb_daemon *d)
{
	const struct hb_coldness *c = &d->env.coldness;

	if (c->ops && c->ops->sample)
		c->ops->sample(c->priv, (d->cfg.demote_track_mb << 20) / d->pcfg.page_size);
	d->dm.dcfg = (struct hb_demote_config){
		.goal_bytes = (d->cfg.watermark_mb + d->cfg.demote_room_mb) << 20,
		.rate_pages = (double)d->cfg.demote_rate_pages,
		.cxl_floor_bytes = d->cfg.demote_cxl_floor_mb << 20,
		.cxl_node = (int)d->cfg.demote_cxl_node,
		.cold_cycles = (unsigned int)d->cfg.demote_cold_cycles,
		.hysteresis_ns = d->cfg.hysteresis_ms * 1000000ULL,
		.page_size = d->pcfg.page_size,
	};
}

int hb_daemon_demote_check(const struct hb_daemon *d, const struct hb_config *c, struct hb_err *err)
{
	if (!c->demote_enabled || !d->env.coldness.ops || !d->env.coldness.ops->census ||
	    c->demote_cxl_node >= 0)
		return 0;
	return hb_err_set(err, -EINVAL,
			  "demote.cxl_node = -1: on a live host name the CXL node "
			  "demoted pages go to (a DRAM page frame does not say where its page came "
			  "from)");
}

int hb_daemon_demote_new(struct hb_daemon *d, struct hb_err *err)
{
	int r;

	if (!d->cfg.demote_enabled)
		return 0;
	if (!d->env.coldness.ops)
		return hb_err_set(err, -EOPNOTSUPP,
				  "demote.enabled = true: no coldness source (which "
				  "pages on DRAM went cold) was given to the daemon");
	if ((r = hb_daemon_demote_check(d, &d->cfg, err)) < 0)
		return r;
	hb_daemon_demote_config(d);
	if ((r = hb_placed_new(d->cfg.max_entries, d->pcfg.page_size, &d->dm.placed, err)) < 0 ||
	    (r = hb_demoter_new(&d->dm.demoter, err)) < 0)
		return r;
	hb_policy_set_placed(d->policy, d->dm.placed);
	return 0;
}

static bool census_node(const struct hb_daemon *d, int t);

/*
 * Room in the placed table for every frame the census will track, made
 * before the loop runs: grown by doubling as the first pass filled it, the
 * table was rehashed whole on the loop three times (27-77 ms each under
 * TCG). At most the table's budget; a failure leaves it to grow.
 */
static void reserve_placed(struct hb_daemon *d)
{
	const struct hb_coldness *c = &d->env.coldness;
	uint64_t frames = 0;

	if (!c->ops->pass_frames)
		return;
	for (int t = 0; t < HB_MAX_NODES; t++)
		if (census_node(d, t))
			frames += c->ops->pass_frames(c->priv, t);
	if (hb_placed_reserve(d->dm.placed, frames < SIZE_MAX ? (size_t)frames : SIZE_MAX) < 0)
		hb_dlog(d, LOG_DEBUG, "placed pages: no room made for %llu frames, grown as filled",
			(unsigned long long)frames);
}

int hb_daemon_demote_check_mover(struct hb_daemon *d, struct hb_err *err)
{
	const struct hb_coldness_ops *ops = d->env.coldness.ops;
	enum hb_migrator_kind k;
	uint64_t mask = 0;

	if (!d->dm.placed || !ops->census)
		return 0;
	reserve_placed(d);
	k = hb_migrator_kind(d->mig);
	if (ops->damon) {
		/* its kdamond is the migrator's to make (kernel.h); dryrun logs */
		struct hb_err why = { 0 };
		int r = hb_damon_monitor_kdamond(d->mig, &why);

		if (r < 0)
			return hb_err_set(err, r, "demote.enabled = true: %s", why.msg);
		for (int t = 0; t < HB_MAX_NODES; t++)
			if (census_node(d, t))
				mask |= 1ULL << t;
		return ops->start(d->env.coldness.priv, r, mask, err);
	}
	if (k == HB_MIGRATOR_PHYS || k == HB_MIGRATOR_DRYRUN)
		return 0;
	return hb_err_set(err, -EOPNOTSUPP,
			  "demote.enabled = true: a live host demotes by page frame "
			  "with move_phys_pages (migrate.backend = phys), not with %s",
			  hb_migrator_kind_to_string(k));
}

void hb_daemon_demote_free(struct hb_daemon *d)
{
	d->dm.placed = hb_placed_free(d->dm.placed);
	d->dm.demoter = hb_demoter_free(d->dm.demoter);
	free(d->dm.pfn);
	free(d->dm.idle);
	free(d->dm.census);
	d->dm.idle_worker = hb_idle_worker_free(d->dm.idle_worker);
	d->dm.pfn = d->dm.census = NULL;
	d->dm.idle = NULL;
	d->dm.pfn_cap = d->dm.census_cap = 0;
}

const struct hb_placed *hb_daemon_placed(const struct hb_daemon *d)
{
	return d->dm.placed;
}

void hb_daemon_demote_placed(struct hb_daemon *d, uint64_t hpa, int src, int node, uint64_t t0)
{
	/* live hosts: the census finds the new frame, the old address is no use */
	if (d->dm.placed && !d->env.coldness.ops->census &&
	    hb_placed_add(d->dm.placed, hpa, src, node, t0) < 0)
		hb_dlog(d, LOG_DEBUG, "placed pages: table full, 0x%llx not tracked",
			(unsigned long long)hpa);
}

static bool census_node(const struct hb_daemon *d, int t)
{
	const struct hb_numa_node *n = &d->nodes[t];

	if (!n->present || n->is_source)
		return false;
	return d->pcfg.target_node >= 0 ? t == d->pcfg.target_node : n->has_cpus;
}

/*
 * node t's window [win->first, win->end) holds the movable frames pfn[0..n)
 * (ascending): placed follows, at a hash lookup a frame of the window
 */
static int census_apply(struct hb_daemon *d, int t, const struct hb_census_window *win,
			const uint64_t *pfn, size_t n, uint64_t t0)
{
	uint64_t ps = d->pcfg.page_size;
	size_t i = 0;
	int r = 0;

	for (uint64_t f = win->first; f < win->end; f++) {
		const struct hb_placed_page *e = hb_placed_find(d->dm.placed, f * ps);

		if (i < n && pfn[i] == f) {
			i++;
			if (!e && r == 0)
				r = hb_placed_add(d->dm.placed, f * ps, d->dm.dcfg.cxl_node, t, t0);
		} else if (e && e->node == t) {
			hb_placed_remove(d->dm.placed, f * ps);
		}
	}
	if (r == -ENOSPC) {
		hb_dlog(d, LOG_DEBUG,
			"placed pages: table full, node %d's census from PFN 0x%llx "
			"not tracked",
			t, (unsigned long long)win->first);
		r = 0;
	}
	return r;
}

/*
 * Live hosts: idle tracking costs the kernel an rmap walk per frame, so it
 * runs only while a promotion target is within demote.room_mb of its goal
 * (the idle counts are ready by the time it falls below), or a tenant is
 * over its budget.
 */
static bool worth_tracking(const struct hb_daemon *d)
{
	uint64_t near = d->dm.dcfg.goal_bytes + (d->cfg.demote_room_mb << 20);

	/* a tenant over its budget gives back pages whatever the room */
	if (!d->env.coldness.ops->census || hb_daemon_tenants_any_over(d))
		return true;
	for (int t = 0; t < HB_MAX_NODES; t++)
		if (census_node(d, t) && d->nodes[t].free_bytes < near)
			return true;
	return false;
}

/*
 * Live hosts: a cycle's census gets demote.step_ms, in windows of at most
 * these many frames of each node; a window is done once begun, and every
 * cycle does at least one a node, so the census goes on whatever the
 * budget. (Per-frame idle checks run off the loop: idle-worker.h.) Under
 * TCG a window of 4096 frames took up to 30 ms to follow, past the whole
 * budget; one of 1024 takes 7-14 ms.
 */
#define CENSUS_CHUNK 1024

/*
 * The census reads another sample of node t (a node larger than
 * demote.track_mb: kernel.h's hb_frames_sample()): the frames tracked so
 * far there leave, so that what is tracked stays the sample's size.
 */
static void new_sample(struct hb_daemon *d, int t, uint64_t sample)
{
	struct hb_placed_page *e;
	uint64_t *gone = NULL;
	size_t n = 0, cap = 0, cur = 0;

	d->dm.census_sample[t] = sample;
	while ((e = hb_placed_next(d->dm.placed, &cur))) {
		if (e->node != t)
			continue;
		if (n == cap) {
			uint64_t *g = realloc(gone, (cap = cap ? cap * 2 : 1024) * sizeof(*g));

			if (!g)
				break; /* what stays is dropped by a later census */
			gone = g;
		}
		gone[n++] = hb_placed_hpa(d->dm.placed, e);
	}
	for (size_t i = 0; i < n; i++)
		hb_placed_remove(d->dm.placed, gone[i]);
	free(gone);
	d->st.census_samples++;
}

/*
 * Live hosts: the census of the next windows of each promotion target's
 * frames, at least one window a node each step and, past that, until the
 * step's census time reaches demote.step_ms; until (0: none) ends the
 * slice first, after a window at least: -EINPROGRESS, the next call goes
 * on where this one stopped.
 */
static int take_census(struct hb_daemon *d, uint64_t until)
{
	const struct hb_coldness *c = &d->env.coldness;
	struct hb_demote_prep *st = &d->dm.step;
	uint64_t max = (d->cfg.demote_scan_mb << 20) / d->pcfg.page_size;
	uint64_t budget = d->cfg.demote_step_ms * 1000000ULL, s0 = hb_now_ns();
	size_t chunk = (size_t)(max < CENSUS_CHUNK ? max : CENSUS_CHUNK);
	struct hb_err err = { 0 };
	bool read = false; /* a window in this slice: each reads one at least */

	if (!c->ops->census)
		return 0;
	if (chunk > d->dm.census_cap) {
		uint64_t *p = realloc(d->dm.census, chunk * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->dm.census = p;
		d->dm.census_cap = chunk;
	}
	for (; st->node < HB_MAX_NODES; st->node++, st->seen = 0, st->node_done = false) {
		int t = st->node;

		if (!census_node(d, t))
			continue;
		while (!st->node_done) {
			size_t want = (size_t)(max - st->seen < chunk ? max - st->seen : chunk);
			struct hb_census_window win;
			long n;
			int r;

			if (st->seen) {
				uint64_t now = hb_now_ns();

				if (st->census_ns + (now - s0) >= budget)
					break;
				if (read && until && now > until)
					return -EINPROGRESS;
			}
			n = c->ops->census(c->priv, t, want, d->dm.census, &win, &err);
			if (n == -ENOENT)
				break; /* no online memory block: nothing to demote */
			if (n < 0) {
				hb_dlog(d, LOG_WARNING, "%s", err.msg);
				return (int)n;
			}
			if (win.sample != d->dm.census_sample[t])
				new_sample(d, t, win.sample);
			if ((r = census_apply(d, t, &win, d->dm.census, (size_t)n, st->t0)) < 0)
				return r;
			d->st.census_frames += win.end - win.first;
			st->seen += win.end - win.first;
			read = true;
			st->node_done = win.pass_done || st->seen >= max;
		}
	}
	return 0;
}

/* the idle counts of e (checked) from idle; a frame in use starts its time again */
static void fold_idle(struct hb_daemon *d, struct hb_placed_page *e, bool idle, uint64_t t0)
{
	if (idle) {
		e->idle = (uint16_t)(e->idle < UINT16_MAX ? e->idle + 1 : e->idle);
	} else {
		e->idle = 0;
		if (d->env.coldness.ops->census)
			e->since_ns = t0;
	}
}

static int coldness_buffers(struct hb_daemon *d, size_t n)
{
	uint64_t *pfn;
	uint8_t *idle;

	if (n <= d->dm.pfn_cap)
		return 0;
	pfn = realloc(d->dm.pfn, n * sizeof(*pfn));
	if (pfn)
		d->dm.pfn = pfn;
	idle = pfn ? realloc(d->dm.idle, n) : NULL;
	if (!idle)
		return -ENOMEM;
	d->dm.idle = idle;
	d->dm.pfn_cap = n;
	return 0;
}

/*
 * Idle counts from the coldness source, then every placed page marked idle
 * again: all at once.
 */
static int refresh_all(struct hb_daemon *d, uint64_t t0)
{
	const struct hb_coldness *c = &d->env.coldness;
	size_t n = hb_placed_len(d->dm.placed), k = 0, cur = 0;
	struct hb_placed_page *e;
	int r;

	if (!n)
		return 0;
	if ((r = coldness_buffers(d, n)) < 0)
		return r;
	while ((e = hb_placed_next(d->dm.placed, &cur)))
		if (e->marked)
			d->dm.pfn[k++] = hb_placed_hpa(d->dm.placed, e) / d->pcfg.page_size;
	if (k && (r = c->ops->check_idle(c->priv, k, d->dm.pfn, d->dm.idle)) < 0)
		return r == -EAGAIN ? 0 : r;
	d->st.idle_checked += k;
	k = cur = 0;
	while ((e = hb_placed_next(d->dm.placed, &cur)))
		if (e->marked)
			fold_idle(d, e, d->dm.idle[k++], t0);
	k = cur = 0;
	while ((e = hb_placed_next(d->dm.placed, &cur))) {
		d->dm.pfn[k++] = hb_placed_hpa(d->dm.placed, e) / d->pcfg.page_size;
		e->marked = true;
	}
	return c->ops->mark_idle(c->priv, k, d->dm.pfn);
}

/*
 * A finished idle round's answers (coldness() below starts the rounds),
 * until the machine clock passes until (0: no limit), checked every
 * FOLD_EVERY answers: -EINPROGRESS, the next call goes on from there;
 * -ENODATA when no round has finished.
 */
static int fold_round(struct hb_daemon *d, uint64_t t0, uint64_t until)
{
	struct hb_idle_round *rd = &d->dm.round;
	struct hb_placed_page *e;
	uint64_t took, cpu;
	size_t first;

	if (!rd->open) {
		int r = hb_idle_worker_take(d->dm.idle_worker, &rd->n, &rd->pfn, &rd->was,
					    &rd->idle, &took, &cpu);

		if (r == -ENODATA)
			return r;
		/*
		 * the next round after a pause: the thread keeps
		 * demote.idle_cpu_pct of a CPU (by its CPU time: DAMON's rounds
		 * mostly wait for the kdamond)
		 */
		d->dm.idle_next_ns = hb_now_ns() + cpu * (100 - d->cfg.demote_idle_cpu_pct) /
							   d->cfg.demote_idle_cpu_pct;
		if (r == -EAGAIN)
			return 0; /* nothing new yet (DAMON's readings are spaced): nothing checked, nothing marked */
		if (r < 0)
			return r;
		d->st.idle_rounds++;
		d->st.idle_round_us += took / 1000;
		rd->open = true;
		rd->next = 0;
	}
	first = rd->next;
	for (size_t i = first; i < rd->n; i++) {
		/* the answers of every placed page, a slice of the loop's turn at a time */
		if (until && i != first && i % FOLD_EVERY == 0 && hb_now_ns() > until) {
			rd->next = i;
			return -EINPROGRESS;
		}
		d->st.idle_checked += rd->was[i];
		if (!(e = hb_placed_get(d->dm.placed, rd->pfn[i] * d->pcfg.page_size)))
			continue;
		if (rd->was[i] && e->marked)
			fold_idle(d, e, rd->idle[i], t0);
		e->marked = true;
	}
	rd->open = false;
	return 0;
}

/* the step's phases (struct hb_demote_prep) */
enum { STEP_CENSUS, STEP_FOLD, STEP_ROUND, STEP_DECIDE };

/*
 * The next round's frames, every placed page, copied to the worker's
 * arrays: the walk visits every slot of the table (reserved at twice the
 * node's frames: 13-24 ms under TCG whatever it held), so it looks at the
 * clock every ROUND_EVERY slots. Nothing changes the table between two
 * slices of a step but the step's census, which came before.
 */
#define ROUND_EVERY 8192

static int copy_round(struct hb_daemon *d, uint64_t until)
{
	struct hb_demote_prep *st = &d->dm.step;
	size_t check = st->cursor + ROUND_EVERY;
	struct hb_placed_page *e;

	while (st->k < st->n && (e = hb_placed_next(d->dm.placed, &st->cursor))) {
		st->pfn[st->k] = hb_placed_hpa(d->dm.placed, e) / d->pcfg.page_size;
		st->marked[st->k++] = e->marked;
		if (until && st->cursor >= check) {
			if (hb_now_ns() > until)
				return -EINPROGRESS;
			check = st->cursor + ROUND_EVERY;
		}
	}
	return 0;
}

/*
 * The coldness phases: for a source whose checks cost the kernel per frame
 * (idle-worker.h), rounds over every placed page on the worker's thread:
 * a finished round's answers folded in (they count for the pages still
 * placed; pages placed since are in the next round), then the next round
 * started; in one piece on the loop otherwise (refresh_all()). Looping,
 * the worker's rounds keep demote.idle_cpu_pct of a CPU; one cycle at a
 * time (--once, the tests), the round runs at once and is folded.
 */
static int coldness(struct hb_daemon *d, uint64_t until)
{
	struct hb_demote_prep *st = &d->dm.step;
	int r;

	if (!d->env.coldness.ops->off_loop) {
		st->phase = STEP_DECIDE;
		return refresh_all(d, st->t0);
	}
	if (st->phase == STEP_FOLD) {
		/* DAMON sysfs serves one command at a time: a round and a batch of moves take turns */
		if (!d->dm.idle_worker &&
		    (r = hb_idle_worker_new(&d->env.coldness,
					    d->env.coldness.ops->damon ? &d->scratch.serial : NULL,
					    &d->dm.idle_worker)) < 0)
			return r;
		if (hb_idle_worker_busy(d->dm.idle_worker)) {
			st->phase = STEP_DECIDE;
			return 0;
		}
		if ((r = fold_round(d, st->t0, until)) == -EINPROGRESS)
			return r;
		if (r < 0 && r != -ENODATA)
			return r;
		st->phase = STEP_DECIDE;
		if ((d->looping && hb_now_ns() < d->dm.idle_next_ns) ||
		    !(st->n = hb_placed_len(d->dm.placed)))
			return 0;
		r = hb_idle_worker_prepare(d->dm.idle_worker, st->n, &st->pfn, &st->marked);
		if (r < 0)
			return r;
		st->phase = STEP_ROUND;
		st->k = st->cursor = 0;
	}
	if ((r = copy_round(d, until)) < 0)
		return r;
	st->phase = STEP_DECIDE;
	if ((r = hb_idle_worker_start(d->dm.idle_worker, !d->looping)) < 0)
		return r;
	return d->looping ? 0 : fold_round(d, st->t0, 0);
}

/* ns of work added to a total and its longest, in us */
static void add_max(uint64_t *total_us, uint64_t *max_us, uint64_t ns)
{
	*total_us += ns / 1000;
	if (ns / 1000 > *max_us)
		*max_us = ns / 1000;
}

/*
 * The decision, on the batch thread: it reads the placed pages (no step
 * changes them while a batch is out) and the demoter's buckets (charged on
 * the loop, at the take), and the input the step copied.
 */
static void decide_job(struct hb_daemon *d)
{
	uint64_t s0 = hb_now_ns();

	d->dm.decision.n = hb_demote_select(d->dm.demoter, &d->dm.decision.cfg, d->dm.decision.nodes,
					    d->dm.placed, d->dm.decision.mask, d->scratch.t0,
					    d->scratch.dec, MAX_CANDIDATES, &d->dm.decision.spent);
	d->dm.decision.took_ns = hb_now_ns() - s0;
}

int hb_daemon_demote_prep(struct hb_daemon *d, uint64_t until)
{
	struct hb_demote_prep *st = &d->dm.step;
	uint64_t s0 = hb_now_ns(), s1, mask = 0;
	int r = 0;

	if (st->phase == STEP_CENSUS) {
		r = take_census(d, until);
		s1 = hb_now_ns();
		st->census_ns += s1 - s0;
		if (r == 0) {
			add_max(&d->st.demote_census_us, &d->st.demote_census_max_us, st->census_ns);
			st->phase = STEP_FOLD;
		}
	}
	if (r == 0 && st->phase != STEP_DECIDE) {
		s1 = hb_now_ns();
		r = coldness(d, until);
		st->coldness_ns += hb_now_ns() - s1;
		if (r == 0)
			add_max(&d->st.demote_coldness_us, &d->st.demote_coldness_max_us,
				st->coldness_ns);
	}
	st->loop_ns += hb_now_ns() - s0;
	if (r == -EINPROGRESS)
		return r;
	hb_latency_hist_add(&d->lat.demote, st->loop_ns);
	if (r < 0) {
		d->st.coldness_errors++;
		hb_dlog(d, LOG_WARNING, "coldness (%s): %s, no demotion this cycle",
			d->env.coldness.ops->name, strerror(-r));
		return 0;
	}
	for (int t = 0; t < HB_MAX_NODES; t++)
		if (st->t0 >= d->dm.backoff_until[t])
			mask |= 1ULL << t;
	/* the decision's input as it is now: a reload or a refresh may change d's meanwhile */
	memcpy(d->dm.decision.nodes, d->nodes, sizeof(d->dm.decision.nodes));
	d->dm.decision.cfg = d->dm.dcfg;
	d->dm.decision.mask = mask;
	d->dm.decision.n = 0;
	hb_daemon_tenants_mark_over(d);
	hb_daemon_job_start(d, HB_BATCH_DEMOTE_DECIDE, decide_job, st->t0);
	return 1;
}

bool hb_daemon_demote_step(struct hb_daemon *d, uint64_t t0)
{
	if (!d->dm.placed || d->paused || !worth_tracking(d))
		return false;
	d->dm.step = (struct hb_demote_prep){ .phase = STEP_CENSUS, .t0 = t0 };
	if (!d->looping)
		return hb_daemon_demote_prep(d, 0) == 1;
	/* its slices: hb_daemon_batch_done() */
	d->scratch.folding = HB_BATCH_DEMOTE_PREP;
	return true;
}

size_t hb_daemon_demote_decided(struct hb_daemon *d)
{
	size_t n = d->dm.decision.n;

	hb_demoter_charge(d->dm.demoter, &d->dm.decision.cfg, &d->dm.decision.spent, d->scratch.t0);
	add_max(&d->st.demote_decide_us, &d->st.demote_decide_max_us, d->dm.decision.took_ns);
	/*
	 * records read while the batch is out may name a frame a demoted page
	 * is taking: none for the CXL node is taken until it is folded
	 */
	for (size_t i = 0; i < n; i++)
		if (d->scratch.dec[i].reason == HB_REASON_DEMOTE)
			hb_ingest_moving_onto(d->intake.ingest, d->scratch.dec[i].target, true);
	hb_daemon_tenants_demote_owners(d, n);
	return n;
}

bool hb_daemon_demote_fold(struct hb_daemon *d, uint64_t until)
{
	struct hb_cycle_scratch *s = &d->scratch;
	uint64_t t0 = s->t0, rest = t0 + 10 * d->cfg.interval_ms * 1000000ULL;
	size_t np = s->np;
	char policy[64] = "";

	/*
	 * -ENOENT: the frame held a process's page at the census and holds
	 * none now (freed, or unmapped, since): gone, not a failed demotion
	 * (counted at the take, hb_daemon_batch_done())
	 */
	if (s->fold_next == 0)
		d->st.demote_move_us += (s->done_ns - s->started_ns) / 1000;
	for (size_t i = s->fold_next; i < np; i++) {
		enum hb_migrate_class c;

		if (hb_fold_pause(s, i, until))
			return false;
		c = hb_migrate_classify(s->status[i], s->tnode[i], s->snode[i]);

		/* records older than the batch's end may name the frame a page went to */
		hb_ingest_moving_onto(d->intake.ingest, d->scratch.tnode[i], false);
		switch (c) {
		case HB_MIGRATE_MOVED:
		case HB_MIGRATE_ALREADY:
			/* the records' clock, not the rule clock: the stale rule compares with it */
			if (c == HB_MIGRATE_MOVED) {
				hb_ingest_moved_onto(d->intake.ingest, d->scratch.tnode[i],
						     d->scratch.done_ns);
				hb_daemon_tenants_demoted(d, i);
			}
			hb_placed_remove(d->dm.placed, d->scratch.hpa[i]);
			hb_policy_hold_outcome(d->policy, &d->pcfg, d->scratch.hpa[i], t0,
					       HB_HOLD_DEMOTED, d->scratch.status[i]);
			break;
		case HB_MIGRATE_RETRY:
		case HB_MIGRATE_BACKOFF:
			/* the node cannot give room now: neither direction spins on it */
			if (d->dm.backoff_until[d->scratch.snode[i]] < rest)
				d->st.demote_backoffs++;
			d->dm.backoff_until[d->scratch.snode[i]] = rest;
			d->backoff_until[d->scratch.snode[i]] = rest;
			break;
		default:
			/* not ours to move (or it went elsewhere): no longer tracked */
			hb_placed_remove(d->dm.placed, d->scratch.hpa[i]);
			break;
		}
	}
	s->fold_next = np;
	hb_daemon_record_step(d, s->n, np);
	/* only when there are some: the line stays as it was without them */
	if (s->fold_mc.by_class[HB_MIGRATE_POLICY])
		snprintf(policy, sizeof(policy), ", %llu refused by memory policy",
			 (unsigned long long)s->fold_mc.by_class[HB_MIGRATE_POLICY]);
	if (np && !d->env.quiet)
		hb_dlog(d, LOG_INFO,
			"demotion: %zu pages: %llu moved, %llu retry, %llu backoff, "
			"%llu dropped%s, %llu freed before the move; %zu placed on DRAM",
			np, (unsigned long long)s->fold_mc.by_class[HB_MIGRATE_MOVED],
			(unsigned long long)s->fold_mc.by_class[HB_MIGRATE_RETRY],
			(unsigned long long)s->fold_mc.by_class[HB_MIGRATE_BACKOFF],
			(unsigned long long)s->fold_mc.by_class[HB_MIGRATE_DROP], policy,
			(unsigned long long)s->fold_freed, hb_placed_len(d->dm.placed));
	return true;
}
