// SPDX-License-Identifier: MIT
/* hotbridge demo's score: pages on DRAM against the current hot set (demo-score.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "demo-score.h"
#include "devices.h"
#include "kernel.h"

struct hot {
	uint64_t hpa, count;
};

static int by_count(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->hpa < y->hpa ? -1 : x->hpa > y->hpa;
}

static int snapshot(struct hb_demo_score *s, struct hb_daemon *d)
{
	size_t slot = (size_t)(s->cycles % (s->window + 1));

	for (int m = 0; m < 2; m++) {
		const uint64_t *truth;
		char name[8] = "mem0";
		void *priv;
		size_t n;

		name[3] = (char)('0' + m);
		priv = hb_daemon_emul_chmu_of(d, name);
		if (!priv || !(n = hb_source_emul_truth(priv, &truth, &s->unit)))
			return -ENOENT;
		if (!s->snap[m]) {
			s->snap[m] = calloc((s->window + 1) * n, sizeof(*s->snap[m]));
			if (!s->snap[m])
				return -ENOMEM;
			s->nunits[m] = n;
		}
		for (size_t u = 0; u < n && u < s->nunits[m]; u++) /* mod 2^32: deltas fit */
			s->snap[m][slot * s->nunits[m] + u] = (uint32_t)truth[u];
	}
	return 0;
}

/* the hot set of the last window cycles (sorted, hottest first) into h; how many */
static size_t hot_set(const struct hb_demo_score *s, const struct hb_topology *t, struct hot *h)
{
	size_t now = (size_t)(s->cycles % (s->window + 1));
	size_t then = (size_t)((s->cycles + 1) % (s->window + 1)); /* window cycles ago */
	uint64_t total = 0, acc = 0;
	size_t n = 0, k;

	for (int m = 0; m < 2; m++) {
		const uint32_t *a = s->snap[m] + then * s->nunits[m];
		const uint32_t *b = s->snap[m] + now * s->nunits[m];

		for (size_t u = 0; u < s->nunits[m]; u++) {
			uint32_t c = b[u] - a[u];
			struct hb_xlat x;

			if (!c || hb_topology_dpa_to_hpa(t, m, u * s->unit, &x, NULL) < 0)
				continue;
			h[n++] = (struct hot){ x.hpa & ~4095ULL, c };
			total += c;
		}
	}
	qsort(h, n, sizeof(*h), by_count);
	for (k = 0; k < n && acc * 10 < total * 8; k++)
		acc += h[k].count;
	return k;
}

static int by_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* the promotions since the last cycle against this cycle's hot set (sorted HPAs) */
static void score_promotions(struct hb_demo_score *s, struct hb_daemon *d, const uint64_t *hot,
			     size_t nhot)
{
	const struct hb_dryrun_record *rec;
	size_t n = hb_migrator_dryrun_records(hb_daemon_migrator(d), &rec);

	for (size_t i = s->records_seen; i < n; i++) {
		if (rec[i].node == s->cxl_node)
			continue; /* a demotion */
		s->promoted++;
		s->promoted_hot += bsearch(&rec[i].hpa, hot, nhot, sizeof(*hot), by_u64) != NULL;
	}
	s->records_seen = n;
}

int hb_demo_score_cycle(struct hb_demo_score *s, struct hb_daemon *d, const struct hb_topology *t,
			uint64_t from)
{
	const struct hb_placed *placed = hb_daemon_placed(d);
	struct hb_demo_figures f = { 0 };
	uint64_t *hpas;
	struct hot *h;
	bool scored;
	int r;

	s->cycles++;
	if ((r = snapshot(s, d)) < 0)
		return r;
	h = malloc((s->nunits[0] + s->nunits[1]) * sizeof(*h));
	hpas = malloc((s->nunits[0] + s->nunits[1] + 1) * sizeof(*hpas));
	if (!h || !hpas) {
		free(h);
		free(hpas);
		return -ENOMEM;
	}
	f.hot = hot_set(s, t, h);
	scored = s->cycles >= from && s->cycles > s->window && placed;
	for (size_t i = 0; i < f.hot; i++)
		hpas[i] = h[i].hpa;
	if (s->oracle.room > 0 && (r = hb_demo_oracle_cycle(&s->oracle, hpas, f.hot, scored)) < 0) {
		free(h);
		free(hpas);
		return r;
	}
	qsort(hpas, f.hot, sizeof(*hpas), by_u64);
	score_promotions(s, d, hpas, f.hot);
	free(hpas);
	if (!scored) {
		free(h);
		return 0;
	}
	f.on_dram = hb_placed_len(placed);
	for (size_t i = 0; i < f.hot; i++)
		f.hits += hb_placed_find(placed, h[i].hpa) != NULL;
	free(h);
	f.precision = f.on_dram ? (double)f.hits / (double)f.on_dram : 0;
	f.recall = f.hot ? (double)f.hits / (double)f.hot : 0;
	s->last = f;
	s->sum_precision += f.precision;
	s->sum_recall += f.recall;
	s->scored++;
	return 0;
}

int hb_demo_score_finish(struct hb_demo_score *s)
{
	return s->oracle.room > 0 ? hb_demo_oracle_finish(&s->oracle) : 0;
}

void hb_demo_score_done(struct hb_demo_score *s)
{
	hb_demo_oracle_done(&s->oracle);
	for (int m = 0; m < 2; m++) {
		free(s->snap[m]);
		s->snap[m] = NULL;
	}
}
