// SPDX-License-Identifier: MIT
/* Ingestion's set-up and its backlog (ingest.h); one record's way is in ingest-record.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest-private.h"
#include "util/macro.h"
#include "util/strtab.h"

static const char *const drop_names[_HB_DROP_MAX] = {
	[HB_DROP_UNKNOWN_MEMDEV] = "unknown_memdev",
	[HB_DROP_UNMAPPED] = "unmapped",
	[HB_DROP_NO_NODE] = "no_node",
	[HB_DROP_BAD_RECORD] = "bad_record",
	[HB_DROP_NOT_SOURCE] = "not_source",
	[HB_DROP_BACKLOG_FULL] = "backlog_full",
	[HB_DROP_STALE] = "stale",
};

HB_STRTAB_TO_STRING(hb_drop_to_string, enum hb_drop, drop_names, NULL)

int hb_ingest_new(const struct hb_ingest_env *env, struct hb_ingest **ret, struct hb_err *err)
{
	struct hb_ingest *in;

	if (!env->heat || !env->node_of)
		return hb_err_set(err, -EINVAL, "ingest: a table and a node lookup are needed");
	in = calloc(1, sizeof(*in));
	if (!in)
		return hb_err_set(err, -ENOMEM, "out of memory");
	in->env = *env;
	in->page_mask = (env->page_size ? env->page_size : 4096) - 1;
	in->st = env->stats ? env->stats : &in->own;
	in->qfull = env->backlog ? env->backlog : HB_INGEST_BACKLOG_DEFAULT;
	if (in->qfull < HB_INGEST_BACKLOG_MIN)
		in->qfull = HB_INGEST_BACKLOG_MIN;
	in->qmax = in->qfull + HB_HOST_BACKLOG_HEADROOM;
	*ret = in;
	return 0;
}

struct hb_ingest *hb_ingest_free(struct hb_ingest *in)
{
	if (!in)
		return NULL;
	free(in->spans);
	free(in->q);
	free(in);
	return NULL;
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

int hb_ingest_set_topology(struct hb_ingest *in, const struct hb_topology *t, uint64_t source_mask,
			   uint64_t node_step)
{
	size_t nr = t ? hb_topology_nr_regions(t) : 0, n = 0;
	struct span *s = calloc(nr ? nr : 1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	in->cxl_bytes = 0;
	for (size_t i = 0; i < nr; i++) {
		const struct hb_region *r = hb_topology_region(t, i);

		if (!r->committed || !r->hpa_size)
			continue;
		s[n++] = (struct span){ .base = r->hpa_base, .end = r->hpa_base + r->hpa_size };
		in->cxl_bytes += r->hpa_size;
	}
	qsort(s, n, sizeof(*s), span_cmp);
	free(in->spans);
	in->spans = s;
	in->nspans = n;
	in->topo = t;
	in->source_mask = source_mask;
	in->node_step = node_step > in->page_mask ? node_step : in->page_mask + 1;
	in->nb_base = in->nb_end = 0; /* forget the last lookups */
	in->mdc_len = in->mdc_next = 0;
	in->gen++;
	return 0;
}

/* ---- the backlog ---- */

static struct work *q_at(struct hb_ingest *in, size_t i)
{
	return &in->q[(in->qhead + i) % in->qcap];
}

static int q_push(struct hb_ingest *in, const struct work *w)
{
	if (in->qlen == in->qcap) {
		size_t cap = in->qcap ? in->qcap * 2 : BACKLOG_MIN;
		struct work *q;

		if (in->qcap >= in->qmax)
			return -ENOBUFS;
		if (cap > in->qmax)
			cap = in->qmax;
		q = malloc(cap * sizeof(*q));
		if (!q)
			return -ENOBUFS;
		for (size_t i = 0; i < in->qlen; i++)
			q[i] = *q_at(in, i);
		free(in->q);
		in->q = q;
		in->qcap = cap;
		in->qhead = 0;
	}
	in->q[(in->qhead + in->qlen++) % in->qcap] = *w;
	in->st->deferred++;
	return 0;
}

static void report_burst(struct hb_ingest *in)
{
	char msg[256];

	if (!in->burst_bad)
		return;
	if (in->env.report) {
		snprintf(msg, sizeof(msg),
			 "%" PRIu64 " bad record(s), counted in bad_record; "
			 "the first: %s",
			 in->burst_bad, in->burst_first);
		in->env.report(in->env.report_ud, msg);
	}
	in->burst_bad = 0;
}

size_t hb_ingest_drain(struct hb_ingest *in, uint64_t deadline_ns)
{
	unsigned int steps = 0;

	while (in->qlen) {
		struct work *w = q_at(in, 0);

		if (!hb_ingest_work(in, w, deadline_ns, &steps))
			break;
		hb_ingest_flush(in);
		hb_ingest_finish(in, w, hb_now_ns());
		in->qhead = (in->qhead + 1) % in->qcap;
		in->qlen--;
	}
	hb_ingest_flush(in);
	report_burst(in);
	return in->qlen;
}

int hb_ingest_submit(struct hb_ingest *in, const struct hb_hot_record *r, size_t n,
		     uint64_t deadline_ns)
{
	return hb_ingest_submit_from(in, r, n, -1, deadline_ns);
}

int hb_ingest_submit_from(struct hb_ingest *in, const struct hb_hot_record *r, size_t n, int src,
			  uint64_t deadline_ns)
{
	uint64_t now = hb_now_ns(), lost = 0, unworked = 0;
	unsigned int steps = 0;
	size_t i = 0;

	in->st->records += n;
	for (; i < n && !in->qlen; i++) {
		struct work w = { .r = r[i], .seen_ns = now, .src = src };

		if (!hb_ingest_work(in, &w, deadline_ns, &steps)) {
			if (q_push(in, &w) < 0) {
				/* its rest is lost; what it did so far counts as for any record */
				lost++;
				hb_ingest_drop_pages(in, &w, HB_DROP_BACKLOG_FULL, w.r.addr + w.off,
						     w.r.len - w.off);
				hb_ingest_finish(in, &w, now);
			}
			i++;
			break;
		}
		hb_ingest_finish(in, &w, now);
	}
	hb_ingest_flush(in);
	for (; i < n; i++) {
		struct work w = { .r = r[i], .seen_ns = now, .src = src };

		if (q_push(in, &w) < 0) {
			lost++;
			unworked++;
			if (r[i].len && r[i].addr + r[i].len >= r[i].addr)
				hb_ingest_drop_pages(in, &w, HB_DROP_BACKLOG_FULL, r[i].addr,
						     r[i].len);
		}
	}
	in->st->dropped[HB_DROP_BACKLOG_FULL] += unworked;
	in->st->dropped_records += unworked;
	report_burst(in);
	return lost ? -ENOBUFS : 0;
}

void hb_ingest_moved_onto(struct hb_ingest *in, int node, uint64_t now_ns)
{
	if (node >= 0 && node < (int)HB_ARRAY_SIZE(in->moved_onto) && in->moved_onto[node] < now_ns)
		in->moved_onto[node] = now_ns;
}

void hb_ingest_moving_onto(struct hb_ingest *in, int node, bool moving)
{
	if (node < 0 || node >= (int)HB_ARRAY_SIZE(in->moved_onto))
		return;
	if (moving)
		in->moving_onto |= 1ULL << node;
	else
		in->moving_onto &= ~(1ULL << node);
}

size_t hb_ingest_backlog(const struct hb_ingest *in)
{
	return in->qlen;
}

bool hb_ingest_backlog_full(const struct hb_ingest *in)
{
	return in->qlen >= in->qfull;
}

const struct hb_ingest_stats *hb_ingest_stats(const struct hb_ingest *in)
{
	return in->st;
}
