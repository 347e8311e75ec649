// SPDX-License-Identifier: MIT
/*
 * One batch of moves, promotion's or demotion's: the decisions counted,
 * those that act handed to the migrator on a thread of its own (the moves
 * take seconds under TCG, and records must keep reaching the table), the
 * per-page results folded into the batch's counts and the run's once it
 * has finished. The cycle (cycle.c) and its demotion step (demote-step.c)
 * both call it. Also the batch's arrays (struct hb_cycle_scratch, cycle.h)
 * they share.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <event2/event.h>

#include "daemon-private.h"
#include "control/history-json.h"
#include "cycle/job-thread.h"
#include "util/macro.h"

int hb_cycle_scratch_init(struct hb_cycle_scratch *s)
{
	pthread_mutex_init(&s->serial, NULL);
	s->cand = calloc(MAX_CANDIDATES, sizeof(*s->cand));
	s->dec = calloc(MAX_CANDIDATES, sizeof(*s->dec));
	s->hpa = calloc(MAX_CANDIDATES, sizeof(*s->hpa));
	s->tnode = calloc(MAX_CANDIDATES, sizeof(int));
	s->snode = calloc(MAX_CANDIDATES, sizeof(int));
	s->status = calloc(MAX_CANDIDATES, sizeof(int));
	if (!s->cand || !s->dec || !s->hpa || !s->tnode || !s->snode || !s->status)
		return -ENOMEM;
	/* a cycle with many candidates would fault them in on the loop */
	hb_fault_in(s->cand, MAX_CANDIDATES * sizeof(*s->cand));
	hb_fault_in(s->dec, MAX_CANDIDATES * sizeof(*s->dec));
	hb_fault_in(s->hpa, MAX_CANDIDATES * sizeof(*s->hpa));
	hb_fault_in(s->tnode, MAX_CANDIDATES * sizeof(int));
	hb_fault_in(s->snode, MAX_CANDIDATES * sizeof(int));
	hb_fault_in(s->status, MAX_CANDIDATES * sizeof(int));
	return 0;
}

void hb_cycle_scratch_done(struct hb_cycle_scratch *s)
{
	if (s->ev)
		event_free(s->ev);
	if (s->fold_ev)
		event_free(s->fold_ev);
	s->job = hb_job_thread_free(s->job); /* waits for a batch out */
	pthread_mutex_destroy(&s->serial);
	free(s->cand);
	free(s->dec);
	free(s->hpa);
	free(s->tnode);
	free(s->snode);
	free(s->status);
	*s = (struct hb_cycle_scratch){ 0 };
}

/* the batch, on the batch thread: the migrator and the arrays are its alone */
static void run_batch(void *arg)
{
	struct hb_daemon *d = arg;
	struct hb_cycle_scratch *s = &d->scratch;

	hb_err_clear(&s->err);
	if (s->work)
		s->work(d);
	else
		s->r = hb_migrator_move(d->mig, s->np, s->hpa, s->tnode, s->status, 0, &s->err);
	s->done_ns = hb_now_ns();
}

int hb_daemon_batch_job(struct hb_daemon *d)
{
	if (d->scratch.job)
		return 0;
	return hb_job_thread_new(run_batch, d, &d->scratch.serial, &d->scratch.job);
}

/* the batch (run: anything to run) to the thread when looping, else at once; true: out */
static bool hand_over(struct hb_daemon *d, enum hb_batch_kind kind, uint64_t t0, bool run)
{
	struct hb_cycle_scratch *s = &d->scratch;
	int r;

	s->kind = kind;
	s->t0 = t0;
	s->r = 0;
	s->started_ns = s->done_ns = hb_now_ns();
	s->damon_valid = hb_migrator_damon_stats(d->mig, &s->damon) == 0;
	if (!run)
		return false;
	r = -ENOTCONN;
	if (d->looping && s->ev && (r = hb_job_thread_start(s->job, false)) == 0)
		return true; /* the loop's watch folds it once finished */
	if (d->looping)
		hb_dlog(d, LOG_WARNING, "%s: no thread of its own (%s), on the loop's",
			s->work ? "demotion decision" : "moves", strerror(-r));
	run_batch(d);
	return false;
}

bool hb_daemon_move_start(struct hb_daemon *d, size_t n, enum hb_reason acted,
			  enum hb_batch_kind kind, uint64_t t0)
{
	struct hb_cycle_scratch *s = &d->scratch;
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		/* the policy and the demoter give every decision one of the reasons */
		assert((unsigned int)s->dec[i].reason < _HB_REASON_MAX);
		d->st.decisions[s->dec[i].reason]++;
		if (s->dec[i].reason != acted)
			continue;
		s->hpa[np] = s->dec[i].hpa;
		s->tnode[np] = s->dec[i].target;
		s->snode[np] = s->dec[i].src;
		np++;
	}
	s->n = n;
	s->np = np;
	s->work = NULL;
	return hand_over(d, kind, t0, np != 0);
}

bool hb_daemon_job_start(struct hb_daemon *d, enum hb_batch_kind kind,
			 void (*work)(struct hb_daemon *d), uint64_t t0)
{
	struct hb_cycle_scratch *s = &d->scratch;

	s->n = s->np = 0;
	s->work = work;
	return hand_over(d, kind, t0, true);
}

bool hb_daemon_batch_out(const struct hb_daemon *d)
{
	return d->scratch.kind != HB_BATCH_NONE || d->scratch.folding != HB_BATCH_NONE;
}

enum hb_batch_kind hb_daemon_batch_take(struct hb_daemon *d)
{
	struct hb_cycle_scratch *s = &d->scratch;
	enum hb_batch_kind kind = s->kind;

	if (kind == HB_BATCH_NONE)
		return kind;
	/* one that ran on the thread is taken; one finished at once never ran there */
	if (s->job && hb_job_thread_pending(s->job) && !hb_job_thread_take(s->job))
		return HB_BATCH_NONE; /* still running */
	if (s->np)
		hb_latency_hist_add(&d->lat.batch, s->done_ns - s->started_ns);
	s->kind = HB_BATCH_NONE;
	return kind;
}

void hb_daemon_batch_wait(struct hb_daemon *d)
{
	if (d->scratch.job)
		hb_job_thread_wait(d->scratch.job);
}

int hb_daemon_damon_stats(const struct hb_daemon *d, struct hb_damon_stats *ret)
{
	if (d->scratch.kind != HB_BATCH_NONE) {
		if (!d->scratch.damon_valid)
			return -EINVAL;
		*ret = d->scratch.damon;
		return 0;
	}
	return d->mig ? hb_migrator_damon_stats(d->mig, ret) : -EINVAL;
}

size_t hb_daemon_move_fold(struct hb_daemon *d, const char *what,
			   struct hb_migrate_counts *ret_counts, struct hb_migrate_counts *total,
			   uint64_t *freed)
{
	struct hb_cycle_scratch *s = &d->scratch;
	size_t np = s->np;

	if (!np)
		return 0;
	if (s->r < 0)
		hb_dlog(d, LOG_ERR, "%s of %zu pages failed: %s", what, np, s->err.msg);
	hb_migrate_fold(ret_counts, np, s->status, s->tnode, s->snode);
	for (size_t i = 0; freed && i < np; i++) {
		if (s->status[i] != -ENOENT)
			continue;
		ret_counts->by_class[hb_migrate_classify(-ENOENT, s->tnode[i], s->snode[i])]--;
		ret_counts->by_errno[ENOENT]--;
		(*freed)++;
	}
	for (int k = 0; k < _HB_MIGRATE_CLASS_MAX; k++)
		total->by_class[k] += ret_counts->by_class[k];
	for (size_t k = 0; k < HB_ARRAY_SIZE(ret_counts->by_errno); k++)
		total->by_errno[k] += ret_counts->by_errno[k];
	return np;
}

void hb_daemon_record_step(struct hb_daemon *d, size_t n, size_t np)
{
	uint64_t s0 = hb_now_ns();

	hb_history_record(d->history, &(struct hb_history_cycle){
					      .time_ns = hb_wall_ns(),
					      .topology = hb_platform_topology(d->env.platform),
					      .dec = d->scratch.dec,
					      .n = n,
					      .status = d->scratch.status,
					      .np = np,
					      .min_epochs = d->pcfg.min_epochs });
	hb_latency_hist_add(&d->lat.history, hb_now_ns() - s0);
}
