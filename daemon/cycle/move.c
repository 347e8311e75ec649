// SPDX-License-Identifier: MIT
/*
 * One batch of moves, promotion's or demotion's: the decisions counted,
 * those that act handed to the migrator, the per-page results folded
 * into the batch's counts and the run's. The cycle (cycle.c) and its
 * demotion step (demote-step.c) both call it. Also the batch's arrays
 * (struct hb_cycle_scratch, cycle.h) they share.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <syslog.h>

#include "daemon-private.h"
#include "control/history-json.h"
#include "util/macro.h"

int hb_cycle_scratch_init(struct hb_cycle_scratch *s)
{
	s->cand = calloc(MAX_CANDIDATES, sizeof(*s->cand));
	s->dec = calloc(MAX_CANDIDATES, sizeof(*s->dec));
	s->hpa = calloc(MAX_CANDIDATES, sizeof(*s->hpa));
	s->tnode = calloc(MAX_CANDIDATES, sizeof(int));
	s->snode = calloc(MAX_CANDIDATES, sizeof(int));
	s->status = calloc(MAX_CANDIDATES, sizeof(int));
	if (!s->cand || !s->dec || !s->hpa || !s->tnode || !s->snode || !s->status)
		return -ENOMEM;
	return 0;
}

void hb_cycle_scratch_done(struct hb_cycle_scratch *s)
{
	free(s->cand);
	free(s->dec);
	free(s->hpa);
	free(s->tnode);
	free(s->snode);
	free(s->status);
	*s = (struct hb_cycle_scratch){ 0 };
}

size_t hb_daemon_move(struct hb_daemon *d, size_t n, enum hb_reason acted, const char *what,
		      struct hb_migrate_counts *ret_counts, struct hb_migrate_counts *total,
		      uint64_t *freed)
{
	struct hb_err err = { 0 };
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		/* the policy and the demoter give every decision one of the reasons */
		assert((unsigned int)d->scratch.dec[i].reason < _HB_REASON_MAX);
		d->st.decisions[d->scratch.dec[i].reason]++;
		if (d->scratch.dec[i].reason != acted)
			continue;
		d->scratch.hpa[np] = d->scratch.dec[i].hpa;
		d->scratch.tnode[np] = d->scratch.dec[i].target;
		d->scratch.snode[np] = d->scratch.dec[i].src;
		np++;
	}
	if (!np)
		return 0;
	if (hb_migrator_move(d->mig, np, d->scratch.hpa, d->scratch.tnode, d->scratch.status, 0,
			     &err) < 0)
		hb_dlog(d, LOG_ERR, "%s of %zu pages failed: %s", what, np, err.msg);
	hb_migrate_fold(ret_counts, np, d->scratch.status, d->scratch.tnode, d->scratch.snode);
	for (size_t i = 0; freed && i < np; i++) {
		if (d->scratch.status[i] != -ENOENT)
			continue;
		ret_counts->by_class[hb_migrate_classify(-ENOENT, d->scratch.tnode[i],
							 d->scratch.snode[i])]--;
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
	hb_history_record(d->history, &(struct hb_history_cycle){
					      .time_ns = hb_wall_ns(),
					      .topology = hb_platform_topology(d->env.platform),
					      .dec = d->scratch.dec,
					      .n = n,
					      .status = d->scratch.status,
					      .np = np });
}
