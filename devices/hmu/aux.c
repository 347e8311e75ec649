// SPDX-License-Identifier: MIT
/*
 * The cxl_hmu PMU's AUX data: chunks of a 16-byte header and 8-byte
 * hotlist entries (hmu.h has the layout), decoded into DPA records. The
 * buffer comes from the kernel, but the layout is an unmerged RFC's and a
 * broken driver or device could write anything: every count is checked
 * against the bytes that are there before one entry is read, and a bad
 * chunk ends the decoding with nothing of it submitted.
 */
#include <errno.h>
#include <string.h>

#include "hmu.h"

#define HDR_ENTRIES(h) ((h)&0xffffu)
#define HDR_WIDTH(h) (((h) >> 16) & 0xffu)
#define HDR_RESERVED(h) ((h) >> 24)

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v)); /* the CPU's order, as the kernel wrote it */
	return v;
}

/* checks the chunk header at buf[off]; its entry count in *ret */
static int chunk_check(const uint8_t *buf, size_t len, size_t off, uint64_t *ret_n,
		       unsigned int *ret_width, struct hb_err *err)
{
	uint64_t h0, h1, n;

	if (len - off < HB_HMU_AUX_HEADER_SIZE)
		return hb_err_set(err, -EBADMSG,
				  "cxl-hmu AUX byte %zu: %zu bytes left, a chunk "
				  "header needs %u",
				  off, len - off, HB_HMU_AUX_HEADER_SIZE);
	h0 = get_u64(buf + off);
	h1 = get_u64(buf + off + 8);
	if (h1 != HB_HMU_AUX_MAGIC)
		return hb_err_set(err, -EBADMSG,
				  "cxl-hmu AUX byte %zu: magic 0x%llx, expected 0x%llx", off,
				  (unsigned long long)h1, HB_HMU_AUX_MAGIC);
	if (HDR_RESERVED(h0))
		return hb_err_set(err, -EBADMSG,
				  "cxl-hmu AUX byte %zu: header 0x%llx has reserved "
				  "bits 63:24 set",
				  off, (unsigned long long)h0);
	if (HDR_WIDTH(h0) < 1 || HDR_WIDTH(h0) > 63)
		return hb_err_set(err, -EBADMSG,
				  "cxl-hmu AUX byte %zu: counter width %u (must be "
				  "1..63)",
				  off, (unsigned int)HDR_WIDTH(h0));
	n = HDR_ENTRIES(h0);
	if (!n)
		return hb_err_set(err, -EBADMSG, "cxl-hmu AUX byte %zu: a chunk of no entries", off);
	/* n <= 65535, so n * 8 cannot overflow */
	if (n * HB_HMU_AUX_ENTRY_SIZE > len - off - HB_HMU_AUX_HEADER_SIZE)
		return hb_err_set(err, -EBADMSG,
				  "cxl-hmu AUX byte %zu: %llu entries (%llu bytes) "
				  "but %zu bytes follow the header",
				  off, (unsigned long long)n,
				  (unsigned long long)(n * HB_HMU_AUX_ENTRY_SIZE),
				  len - off - HB_HMU_AUX_HEADER_SIZE);
	*ret_n = n;
	*ret_width = (unsigned int)HDR_WIDTH(h0);
	return 0;
}

enum entry_fate { ENTRY_OK, ENTRY_OUT_OF_RANGE, ENTRY_BEYOND_CAPACITY };

/* the record of one entry, or why there is none */
static enum entry_fate entry_record(const struct hb_hmu_aux_decoder *d, uint64_t e,
				    unsigned int width, struct hb_hot_record *r)
{
	uint64_t unit = e >> width, dpa;

	/* no device has such a DPA: the entry is garbled (the width read, the unit) */
	if (unit > (UINT64_MAX >> d->granule_shift))
		return ENTRY_BEYOND_CAPACITY;
	dpa = unit << d->granule_shift;
	if (d->capacity && dpa >= d->capacity)
		return ENTRY_BEYOND_CAPACITY;
	if (d->dpa_len && (dpa < d->dpa_start || dpa - d->dpa_start >= d->dpa_len))
		return ENTRY_OUT_OF_RANGE;
	*r = (struct hb_hot_record){
		.space = HB_SPACE_DPA,
		.addr = dpa,
		.len = 1ULL << d->granule_shift,
		.count = e & ((1ULL << width) - 1),
	};
	memcpy(r->memdev, d->memdev, sizeof(r->memdev));
	return ENTRY_OK;
}

int hb_hmu_aux_decode(const struct hb_hmu_aux_decoder *d, const uint8_t *buf, size_t len,
		      struct hb_hot_record *out, size_t max, hb_hmu_emit_fn emit, void *ud,
		      struct hb_hmu_aux_stats *st, size_t *ret_used, struct hb_err *err)
{
	size_t off = 0;
	int r = 0;

	if (ret_used)
		*ret_used = 0;
	if (d->granule_shift < 8 || d->granule_shift > 63 || !max)
		return hb_err_set(err, -EINVAL,
				  "cxl-hmu: granule 2^%u bytes or a batch of %zu "
				  "records cannot be decoded into",
				  d->granule_shift, max);
	while (off < len) {
		unsigned int width = 0;
		size_t n = 0;
		uint64_t cnt = 0;

		r = chunk_check(buf, len, off, &cnt, &width, err);
		if (r < 0) {
			st->bad_chunks++;
			break;
		}
		off += HB_HMU_AUX_HEADER_SIZE;
		for (uint64_t i = 0; i < cnt; i++, off += HB_HMU_AUX_ENTRY_SIZE) {
			enum entry_fate f = entry_record(d, get_u64(buf + off), width, &out[n]);

			if (f != ENTRY_OK) {
				if (f == ENTRY_BEYOND_CAPACITY)
					st->beyond_capacity++;
				else
					st->out_of_range++;
				continue;
			}
			st->entries++;
			if (++n == max) {
				if ((r = emit(ud, out, n)) < 0)
					return hb_err_set(err, r, "cxl-hmu: records not taken");
				n = 0;
			}
		}
		if (n && (r = emit(ud, out, n)) < 0)
			return hb_err_set(err, r, "cxl-hmu: records not taken");
		st->chunks++;
		if (ret_used)
			*ret_used = off;
	}
	return r;
}
