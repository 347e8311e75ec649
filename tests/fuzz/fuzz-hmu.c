// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the cxl_hmu PMU's AUX chunks (devices/hmu/aux.c) and
 * format/ specs (devices/hmu/pmu.c). The input is the AUX buffer (so the
 * fixtures of tests/data/hmu seed it as they are) and, as text, a format
 * spec; its length picks the granule and whether a DPA range applies. Every record must lie on the granule inside the
 * range, and the valid part must end on a chunk boundary inside the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hmu/hmu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	const struct hb_hmu_aux_decoder *d;
	size_t n;
};

static int check_emit(void *ud, const struct hb_hot_record *r, size_t n)
{
	struct check *c = ud;

	for (size_t i = 0; i < n; i++) {
		if (r[i].space != HB_SPACE_DPA || r[i].len != 1ULL << c->d->granule_shift ||
		    r[i].addr & (r[i].len - 1) || strcmp(r[i].memdev, "mem0"))
			__builtin_trap();
		if (c->d->dpa_len &&
		    (r[i].addr < c->d->dpa_start || r[i].addr - c->d->dpa_start >= c->d->dpa_len))
			__builtin_trap();
	}
	c->n += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_hmu_aux_decoder d = { .memdev = "mem0" };
	struct hb_hmu_aux_stats st = { 0 };
	struct hb_hot_record out[7];
	struct check c = { .d = &d };
	struct hb_err err = { 0 };
	struct hb_hmu_field f;
	char spec[64];
	size_t used = 0;
	int r;

	d.granule_shift = 8 + size % 56;
	if ((size / 56) & 1) {
		d.dpa_start = 1ULL << 28;
		d.dpa_len = 1ULL << 30;
	}
	r = hb_hmu_aux_decode(&d, data, size, out, 7, check_emit, &c, &st, &used, &err);
	if (used > size || used % 8 || (r == 0) != (used == size) || c.n != st.entries)
		__builtin_trap();
	memcpy(spec, data, size < sizeof(spec) - 1 ? size : sizeof(spec) - 1);
	spec[size < sizeof(spec) - 1 ? size : sizeof(spec) - 1] = '\0';
	if (hb_hmu_format_parse("f", spec, &f, &err) == 0 &&
	    (f.word > 3 || !f.mask || f.width != (unsigned int)__builtin_popcountll(f.mask)))
		__builtin_trap();
	return 0;
}
