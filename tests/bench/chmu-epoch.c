// SPDX-License-Identifier: MIT
/*
 * bench-chmu-epoch: what an epoch's end costs the CHMU model
 * (tests/qemu/chmu), which QEMU runs under its big lock (review Q4).
 *
 * For 64 Ki, 1 Mi and 4 Mi hot units (4 KiB each, threshold 1, counts
 * 1..64 from a hash, touched in a shuffled order), the model's epoch end
 * (a heap of the hotlist's room, O(units log room)) against the baseline
 * the model had before: sorting every hot unit by count (qsort of
 * count/unit pairs, O(units log units)), timed in this same run on the
 * same counts. Prints CPU seconds of each and the ratio; checks that the
 * model's hotlist holds exactly the units the sort puts first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../qemu/chmu/hb-chmu.h"

#define MS 1000000ULL
#define HOTLIST 1024
/* spec offsets (CXL r3.2 8.2.8), relative to the first instance */
#define I0 0x10ULL
#define CAP2 0x10
#define CAP3 0x18
#define CONF0 0x40
#define CONF1 0x48
#define TAIL 0x6a

struct unit {
	uint32_t count, unit;
};

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* hotter first; among equals the lower unit, as the model reports */
static int by_heat(const void *a, const void *b)
{
	const struct unit *p = a, *q = b;

	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	return (p->unit > q->unit) - (p->unit < q->unit);
}

static uint64_t rd(struct hb_qchmu *c, uint64_t rel)
{
	return hb_qchmu_read(c, I0 + rel, 8);
}

static void wr(struct hb_qchmu *c, uint64_t rel, uint64_t v)
{
	hb_qchmu_write(c, I0 + rel, v, 8, 0);
}

static int one(uint64_t units)
{
	struct hb_qchmu_params p;
	struct hb_qchmu *c = NULL;
	struct unit *all = malloc(units * sizeof(*all));
	uint32_t *order = malloc(units * sizeof(*order));
	uint64_t x = 88172645463325252ULL, kept, bad = 0;
	double t0, model_s, sort_s;

	if (!all || !order) {
		fprintf(stderr, "bench-chmu-epoch: out of memory for %llu units\n",
			(unsigned long long)units);
		free(all);
		free(order);
		return 1;
	}
	hb_qchmu_params_default(&p, units * 4096);
	p.hotlist_size = HOTLIST;
	p.llc_size = 0; /* count what arrives: no cache model in front */
	if (hb_qchmu_check(&p) || hb_qchmu_new(&p, &c) < 0) {
		fprintf(stderr, "bench-chmu-epoch: model refused %llu units: %s\n",
			(unsigned long long)units, hb_qchmu_check(&p) ? hb_qchmu_check(&p) : "new");
		free(all);
		free(order);
		return 1;
	}
	/* whole range tracked, 4 KiB units, no down-sampling, 100 ms epochs */
	for (uint64_t off = rd(c, CAP2); off < rd(c, CAP3); off += 8)
		wr(c, off, ~0ULL);
	wr(c, CONF1, 12 | 4ULL << 48 | 1ULL << 52);
	wr(c, CONF0, 6 | 1ULL << 32 | 1ULL << 17);
	wr(c, CONF0, 6 | 1ULL << 32 | 1ULL << 16);

	for (uint64_t i = 0; i < units; i++) {
		all[i].unit = (uint32_t)i;
		all[i].count = 1 + (uint32_t)(xorshift(&x) % 64);
		order[i] = (uint32_t)i;
	}
	for (uint64_t i = units - 1; i > 0; i--) {
		uint64_t j = xorshift(&x) % (i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint64_t i = 0; i < units; i++)
		for (uint32_t k = 0; k < all[order[i]].count; k++)
			hb_qchmu_access(c, order[i] * 4096ULL, 8, false, MS);
	free(order);

	t0 = cpu_now();
	hb_qchmu_advance(c, 100 * MS);
	model_s = cpu_now() - t0;
	t0 = cpu_now();
	qsort(all, units, sizeof(*all), by_heat);
	sort_s = cpu_now() - t0;

	kept = hb_qchmu_read(c, I0 + TAIL, 2);
	for (uint64_t i = 0; i < kept; i++) {
		uint64_t e = rd(c, rd(c, CAP3) + i * 8);

		bad += (e >> 16) != all[i].unit || (e & 0xffff) != all[i].count;
	}
	printf("%8llu hot units: epoch end %.4f s CPU, sort of every unit %.4f s (%.1fx the "
	       "model's), %llu kept, %llu differ from the sort's first\n",
	       (unsigned long long)units, model_s, sort_s, model_s > 0 ? sort_s / model_s : 0.0,
	       (unsigned long long)kept, (unsigned long long)bad);
	hb_qchmu_free(c);
	free(all);
	return kept != HOTLIST - 1 || bad;
}

int main(void)
{
	static const uint64_t sizes[] = { 1ULL << 16, 1ULL << 20, 1ULL << 22 };
	int r = 0;

	printf("CHMU model epoch end (heap of %d) against sorting every hot unit, same run\n",
	       HOTLIST - 1);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		r |= one(sizes[i]);
	return r;
}
