// SPDX-License-Identifier: MIT
/*
 * Access generators for the emulated CHMU: uniform, Zipf (rank k drawn
 * with probability proportional to 1/k^s), and a Zipf whose hot set moves.
 * Ranks are scattered over the span by a fixed bijection (k * p + shift)
 * mod n, so the hottest items are not simply the lowest addresses.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emul.h"
#include "util/util.h"

struct hb_workload {
	struct hb_workload_params p;
	uint64_t n, mult, shift, rng;
	unsigned int epochs;
	double *cdf; /* Zipf: cumulative, normalised */
};

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static uint64_t next_rand(struct hb_workload *w)
{
	/* xorshift64* */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545F4914F6CDD1DULL;
}

int hb_workload_new(const struct hb_workload_params *p, struct hb_workload **ret, struct hb_err *err)
{
	struct hb_workload *w;

	if (!p->granule || p->size < p->granule)
		return hb_err_set(err, -EINVAL,
				  "workload: span of %llu bytes holds no %llu-byte item",
				  (unsigned long long)p->size, (unsigned long long)p->granule);
	if (p->kind != HB_WORKLOAD_UNIFORM && !(p->skew > 0 && p->skew < 10))
		return hb_err_set(err, -EINVAL, "workload: Zipf skew %g not in (0, 10)", p->skew);
	if (p->size / p->granule > (64u << 20))
		return hb_err_set(err, -E2BIG, "workload: more than 64 Mi items");
	w = calloc(1, sizeof(*w));
	if (!w)
		return hb_err_set(err, -ENOMEM, "out of memory");
	w->p = *p;
	w->n = p->size / p->granule;
	w->rng = p->seed ? p->seed : 0x9E3779B97F4A7C15ULL;
	for (w->mult = 2654435761ULL % w->n; w->n > 1 && gcd(w->mult, w->n) != 1;)
		w->mult = (w->mult + 1) % w->n ? (w->mult + 1) % w->n : 1;
	if (w->n == 1 || !w->mult)
		w->mult = 1;
	if (p->kind != HB_WORKLOAD_UNIFORM) {
		double sum = 0;

		w->cdf = malloc(w->n * sizeof(*w->cdf));
		if (!w->cdf) {
			free(w);
			return hb_err_set(err, -ENOMEM, "out of memory");
		}
		for (uint64_t k = 0; k < w->n; k++) {
			sum += 1.0 / pow((double)(k + 1), p->skew);
			w->cdf[k] = sum;
		}
		for (uint64_t k = 0; k < w->n; k++)
			w->cdf[k] /= sum;
	}
	*ret = w;
	return 0;
}

struct hb_workload *hb_workload_free(struct hb_workload *w)
{
	if (w) {
		free(w->cdf);
		free(w);
	}
	return NULL;
}

uint64_t hb_workload_next(struct hb_workload *w)
{
	uint64_t k, lo = 0, hi;
	double u;

	if (w->p.kind == HB_WORKLOAD_UNIFORM)
		return w->p.base + (next_rand(w) % w->n) * w->p.granule;
	u = (double)(next_rand(w) >> 11) / 9007199254740992.0;
	for (hi = w->n - 1; lo < hi;) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (w->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = (unsigned __int128)lo * w->mult % w->n;
	k = (k + w->shift) % w->n;
	return w->p.base + k * w->p.granule;
}

void hb_workload_epoch(struct hb_workload *w)
{
	if (w->p.kind != HB_WORKLOAD_MOVING || !w->p.move_every)
		return;
	if (++w->epochs % w->p.move_every == 0)
		w->shift = (w->shift + w->n / 8 + 1) % w->n;
}

int hb_workload_kind_from_string(const char *s, double *ret_skew)
{
	if (!strcmp(s, "uniform"))
		return HB_WORKLOAD_UNIFORM;
	if (!strncmp(s, "zipf:", 5) || !strncmp(s, "moving:", 7)) {
		double skew;

		/* util.h's one number grammar (no "01.5", hex, inf or blanks) */
		if (hb_parse_double(strchr(s, ':') + 1, &skew) < 0 || !(skew > 0 && skew < 10))
			return -EINVAL;
		*ret_skew = skew;
		return s[0] == 'z' ? HB_WORKLOAD_ZIPF : HB_WORKLOAD_MOVING;
	}
	return -EINVAL;
}
