// SPDX-License-Identifier: MIT
/*
 * One batch of moves, promotion's or demotion's: the decisions counted,
 * those that act handed to the migrator, the per-page results folded
 * into the batch's counts and the run's. The cycle (cycle.c) and its
 * demotion step (demote-step.c) both call it.
 */
#include <assert.h>
#include <errno.h>
#include <syslog.h>

#include "daemon-private.h"
#include "util/macro.h"

size_t hb_daemon_move(struct hb_daemon *d, size_t n, enum hb_reason acted, const char *what,
		      struct hb_migrate_counts *ret_counts, struct hb_migrate_counts *total,
		      uint64_t *freed)
{
	struct hb_err err = { 0 };
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		/* the policy and the demoter give every decision one of the reasons */
		assert((unsigned int)d->dec[i].reason < _HB_REASON_MAX);
		d->st.decisions[d->dec[i].reason]++;
		if (d->dec[i].reason != acted)
			continue;
		d->hpa[np] = d->dec[i].hpa;
		d->tnode[np] = d->dec[i].target;
		d->snode[np] = d->dec[i].src;
		np++;
	}
	if (!np)
		return 0;
	if (hb_migrator_move(d->mig, np, d->hpa, d->tnode, d->status, 0, &err) < 0)
		hb_dlog(d, LOG_ERR, "%s of %zu pages failed: %s", what, np, err.msg);
	hb_migrate_fold(ret_counts, np, d->status, d->tnode, d->snode);
	for (size_t i = 0; freed && i < np; i++) {
		if (d->status[i] != -ENOENT)
			continue;
		ret_counts->by_class[hb_migrate_classify(-ENOENT, d->tnode[i], d->snode[i])]--;
		ret_counts->by_errno[ENOENT]--;
		(*freed)++;
	}
	for (int k = 0; k < _HB_MIGRATE_CLASS_MAX; k++)
		total->by_class[k] += ret_counts->by_class[k];
	for (size_t k = 0; k < HB_ARRAY_SIZE(ret_counts->by_errno); k++)
		total->by_errno[k] += ret_counts->by_errno[k];
	return np;
}
