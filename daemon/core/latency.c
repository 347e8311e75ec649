// SPDX-License-Identifier: MIT
/* Record latency histograms (core.h). */
#include "core.h"

static size_t bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < 16)
		return (size_t)v;
	e = hb_ilog2(v); /* 4..63 */
	return (size_t)(e - 3u) * 16u + ((v >> (e - 4u)) & 15u);
}

uint64_t hb_latency_bucket_top(size_t b)
{
	unsigned int e;

	if (b < 16)
		return b;
	e = (unsigned int)(b / 16u) + 3u;
	return ((16ull + (b % 16u) + 1u) << (e - 4u)) - 1u;
}

static void hist_add(struct hb_latency_hist *h, uint64_t v, uint64_t n)
{
	h->bucket[bucket_of(v)] += n;
	h->count += n;
	h->sum_ns += (double)v * (double)n;
	if (v > h->max_ns)
		h->max_ns = v;
}

void hb_latency_hist_add(struct hb_latency_hist *h, uint64_t v_ns)
{
	hist_add(h, v_ns, 1);
}

void hb_latency_note(struct hb_latency *l, uint64_t made_ns, uint64_t n, uint64_t now_ns)
{
	if (!n)
		return;
	if (made_ns > now_ns) /* another clock, or a source ahead of us */
		made_ns = now_ns;
	hist_add(&l->to_table, now_ns - made_ns, n);
	if (l->nruns && l->run_ts[l->nruns - 1] == made_ns) {
		l->run_n[l->nruns - 1] += n;
		return;
	}
	if (l->nruns == HB_LATENCY_RUNS) {
		/* merge pairs: the older stamp of each */
		for (size_t i = 0; i < HB_LATENCY_RUNS / 2; i++) {
			uint64_t a = l->run_ts[2 * i], b = l->run_ts[2 * i + 1];

			l->run_ts[i] = a < b ? a : b;
			l->run_n[i] = l->run_n[2 * i] + l->run_n[2 * i + 1];
		}
		l->nruns = HB_LATENCY_RUNS / 2;
	}
	l->run_ts[l->nruns] = made_ns;
	l->run_n[l->nruns++] = n;
}

void hb_latency_decide(struct hb_latency *l, uint64_t now_ns)
{
	for (size_t i = 0; i < l->nruns; i++)
		hist_add(&l->to_decision, now_ns > l->run_ts[i] ? now_ns - l->run_ts[i] : 0,
			 l->run_n[i]);
	l->nruns = 0;
}

uint64_t hb_latency_quantile(const struct hb_latency_hist *h, double q)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	want = (uint64_t)(q * (double)h->count + 0.5);
	if (want < 1)
		want = 1;
	for (size_t b = 0; b < HB_LATENCY_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= want)
			return hb_latency_bucket_top(b) < h->max_ns ? hb_latency_bucket_top(b) :
								      h->max_ns;
	}
	return h->max_ns;
}
