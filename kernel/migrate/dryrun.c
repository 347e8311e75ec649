// SPDX-License-Identifier: MIT
/*
 * dryrun: moves nothing. Each page is reported as if it had moved (status =
 * target node), so the daemon's counters show what a real run would do, and
 * the requests are kept in a ring for `explain` and tests.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernel-private.h"

struct dryrun {
	struct hb_dryrun_record *ring; /* linearised on read */
	size_t cap, len, head;         /* head: index of the oldest */
	struct hb_dryrun_record *view;
};

static int dryrun_open(struct hb_migrator *m, const struct hb_migrator_config *cfg, struct hb_err *err)
{
	struct dryrun *d = calloc(1, sizeof(*d));

	if (!d)
		return hb_err_set(err, -ENOMEM, "out of memory");
	d->cap = cfg->dryrun_keep ? cfg->dryrun_keep : 4096;
	d->ring = calloc(d->cap, sizeof(*d->ring));
	d->view = calloc(d->cap, sizeof(*d->view));
	if (!d->ring || !d->view) {
		free(d->ring);
		free(d->view);
		free(d);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	m->priv = d;
	return 0;
}

static int dryrun_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		       int *status, unsigned int flags, struct hb_err *err)
{
	struct dryrun *d = m->priv;
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t mask = (ps > 0 ? (uint64_t)ps : 4096) - 1;

	(void)err;
	for (size_t i = 0; i < n; i++) {
		struct hb_dryrun_record rec = { .hpa = hpa[i], .node = nodes[i], .flags = flags };

		status[i] = (hpa[i] & mask) ? -EINVAL : nodes[i];
		if (d->len < d->cap) {
			d->ring[(d->head + d->len) % d->cap] = rec;
			d->len++;
		} else {
			d->ring[d->head] = rec;
			d->head = (d->head + 1) % d->cap;
		}
	}
	return 0;
}

static void dryrun_close(struct hb_migrator *m)
{
	struct dryrun *d = m->priv;

	free(d->ring);
	free(d->view);
	free(d);
}

size_t hb_migrator_dryrun_records(const struct hb_migrator *m, const struct hb_dryrun_record **ret)
{
	struct dryrun *d;

	if (m->kind != HB_MIGRATOR_DRYRUN) {
		*ret = NULL;
		return 0;
	}
	d = m->priv;
	for (size_t i = 0; i < d->len; i++)
		d->view[i] = d->ring[(d->head + i) % d->cap];
	*ret = d->view;
	return d->len;
}

const struct hb_migrator_backend hb_migrator_dryrun = {
	.name = "dryrun",
	.open = dryrun_open,
	.move = dryrun_move,
	.close = dryrun_close,
};
