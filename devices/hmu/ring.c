// SPDX-License-Identifier: MIT
/*
 * Reading a perf event's shared buffers (perf_event_open(2), "the mmap
 * layout"): the kernel advances aux_head and data_head, we read up to
 * them (after an acquire load) and hand the bytes back by storing
 * aux_tail and data_tail (a release store). The AUX area is not in
 * overwrite mode (the RFC driver refuses it), so the kernel never writes
 * past our tail. Nothing here makes a system call: the tests run it over
 * ordinary memory.
 */
#include <errno.h>
#include <string.h>

#include <linux/perf_event.h>

#include "hmu.h"

/* copies n bytes at ring offset pos (mod size, a power of two) into dst */
static void ring_copy(uint8_t *dst, const uint8_t *ring, size_t size, uint64_t pos, size_t n)
{
	size_t at = (size_t)(pos & (size - 1)), first = n < size - at ? n : size - at;

	memcpy(dst, ring + at, first);
	memcpy(dst + first, ring, n - first);
}

/* the data ring's records: what was lost, truncated or left with gaps */
static int data_walk(struct hb_hmu_ring *rg, struct perf_event_mmap_page *m,
		     struct hb_hmu_ring_stats *rst, struct hb_err *err)
{
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), tail = m->data_tail;
	int r = 0;

	if (head - tail > rg->data_size)
		r = hb_err_set(err, -EIO,
			       "cxl-hmu: data ring head %llu is more than %zu bytes past "
			       "tail %llu",
			       (unsigned long long)head, rg->data_size, (unsigned long long)tail);
	while (r == 0 && tail != head) {
		struct perf_event_header h;
		uint64_t body[3] = { 0, 0, 0 };

		if (head - tail < sizeof(h)) {
			r = hb_err_set(err, -EIO, "cxl-hmu: data ring: %llu bytes, not a record",
				       (unsigned long long)(head - tail));
			break;
		}
		ring_copy((uint8_t *)&h, rg->data, rg->data_size, tail, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			r = hb_err_set(err, -EIO,
				       "cxl-hmu: data ring record of %u bytes at %llu "
				       "(%llu published)",
				       h.size, (unsigned long long)tail,
				       (unsigned long long)(head - tail));
			break;
		}
		/*
		 * Each record's own size, as the kernel writes it (the layouts in
		 * include/uapi/linux/perf_event.h; sample_id_all is 0, so no
		 * sample_id follows): AUX {header, aux_offset, aux_size, flags}
		 * is 32 bytes, LOST {header, id, lost} 24, LOST_SAMPLES {header,
		 * lost} 16. What a record lacks of body reads as 0.
		 */
		ring_copy((uint8_t *)body, rg->data, rg->data_size, tail + sizeof(h),
			  h.size - sizeof(h) < sizeof(body) ? h.size - sizeof(h) : sizeof(body));
		if (h.type == PERF_RECORD_AUX &&
		    (body[2] & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION)))
			rst->truncated++;
		/* gaps: our driver drops what its AUX area cannot hold, and says so */
		if (h.type == PERF_RECORD_AUX && (body[2] & PERF_AUX_FLAG_PARTIAL))
			rst->partial++;
		else if (h.type == PERF_RECORD_LOST)
			rst->lost += body[1];
		else if (h.type == PERF_RECORD_LOST_SAMPLES)
			rst->lost += body[0];
		tail += h.size;
	}
	__atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
	return r;
}

int hb_hmu_ring_drain(struct hb_hmu_ring *rg, const struct hb_hmu_aux_decoder *d,
		      struct hb_hot_record *out, size_t max, hb_hmu_emit_fn emit, void *ud,
		      struct hb_hmu_aux_stats *st, struct hb_hmu_ring_stats *rst, struct hb_err *err)
{
	struct perf_event_mmap_page *m = rg->meta;
	uint64_t head = __atomic_load_n(&m->aux_head, __ATOMIC_ACQUIRE), tail = m->aux_tail;
	size_t n = (size_t)(head - tail), used = 0;
	struct hb_err derr = { 0 };
	int r = 0, rd;

	rst->drains++;
	if (head - tail > rg->aux_size) {
		r = hb_err_set(err, -EIO,
			       "cxl-hmu: AUX head %llu is more than %zu bytes past tail "
			       "%llu",
			       (unsigned long long)head, rg->aux_size, (unsigned long long)tail);
		rst->bad_bytes += rg->aux_size;
	} else if (n) {
		ring_copy(rg->scratch, rg->aux, rg->aux_size, tail, n);
		r = hb_hmu_aux_decode(d, rg->scratch, n, out, max, emit, ud, st, &used, err);
		rst->aux_bytes += used;
		rst->bad_bytes += n - used;
	}
	__atomic_store_n(&m->aux_tail, head, __ATOMIC_RELEASE);
	rd = data_walk(rg, m, rst, r < 0 ? &derr : err);
	return r < 0 ? r : rd;
}
