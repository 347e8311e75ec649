// SPDX-License-Identifier: MIT
/*
 * The cxl-hmu source without its PMU (no kernel we run carries one): AUX
 * buffers built from the RFC driver's documented layout (tests/data/hmu,
 * tests/tools/mkhmuaux.py, and built here), hostile ones among them; the
 * perf ring read over ordinary memory; format/ specs; the event's config
 * words encoded from a fake sysfs tree (tests/data/sysfs/cxl-hmu) and
 * from trees made here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <linux/perf_event.h>

#include "devices.h"
#include "hmu/hmu.h"

#define MIB (1ULL << 20)

struct sink {
	struct hb_hot_record r[256];
	size_t n, calls;
	int fail;
};

static int sink_emit(void *ud, const struct hb_hot_record *r, size_t n)
{
	struct sink *s = ud;

	s->calls++;
	if (s->fail)
		return s->fail;
	assert_true(s->n + n <= HB_ARRAY_SIZE(s->r));
	memcpy(s->r + s->n, r, n * sizeof(*r));
	s->n += n;
	return 0;
}

static size_t load(const char *rel, uint8_t *buf, size_t size)
{
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/hmu/%s", getenv("HB_TEST_DATA"), rel);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

/* one chunk as the driver writes it, appended at buf + *len */
static void put_chunk(uint8_t *buf, size_t *len, uint64_t hdr0, uint64_t magic, const uint64_t *e,
		      size_t n)
{
	memcpy(buf + *len, &hdr0, 8);
	memcpy(buf + *len + 8, &magic, 8);
	memcpy(buf + *len + 16, e, n * 8);
	*len += 16 + n * 8;
}

static const struct hb_hmu_aux_decoder dec4k = { .memdev = "mem0", .granule_shift = 12 };

static int decode(const struct hb_hmu_aux_decoder *d, const uint8_t *buf, size_t len,
		  struct sink *s, struct hb_hmu_aux_stats *st, size_t *used, struct hb_err *err)
{
	struct hb_hot_record out[4];

	return hb_hmu_aux_decode(d, buf, len, out, HB_ARRAY_SIZE(out), sink_emit, s, st, used, err);
}

static void test_hmu_aux_decodes_the_documented_example(void **state)
{
	static const uint64_t counts[] = { 0x283, 0x364, 0x366, 0x33c, 0x343, 0x2ff, 0x30d, 0x31a };
	struct hb_hmu_aux_stats st = { 0 };
	struct hb_err err = { 0 };
	struct sink s = { 0 };
	uint8_t buf[4096];
	size_t len = load("rfc-example.bin", buf, sizeof(buf)), used;

	(void)state;
	assert_int_equal(decode(&dec4k, buf, len, &s, &st, &used, &err), 0);
	assert_int_equal(used, len);
	assert_int_equal(s.n, 8);
	assert_int_equal(s.calls, 2); /* batches of 4 */
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(s.r[i].space, HB_SPACE_DPA);
		assert_string_equal(s.r[i].memdev, "mem0");
		assert_int_equal(s.r[i].addr, i * 4096);
		assert_int_equal(s.r[i].len, 4096);
		assert_int_equal(s.r[i].count, counts[i]);
	}
	assert_int_equal(st.chunks, 1);
	assert_int_equal(st.entries, 8);
}

/*
 * Issue 42: entries whose DPA lies past the memdev (garbled: two 4-byte
 * halves put back wrongly) are dropped and counted apart from the
 * programmed range's out_of_range; without a capacity they became records.
 */
static void test_hmu_aux_entries_past_the_capacity_are_counted_apart(void **state)
{
	struct hb_hmu_aux_decoder d = dec4k;
	struct hb_hmu_aux_stats st = { 0 };
	struct hb_err err = { 0 };
	struct sink s = { 0 };
	uint8_t buf[4096];
	size_t len = load("swapped-halves.bin", buf, sizeof(buf));

	(void)state;
	d.capacity = 512 * MIB;
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), 0);
	assert_int_equal(s.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(s.r[i].addr, i * 4096);
	assert_int_equal(st.entries, 4);
	assert_int_equal(st.beyond_capacity, 4);
	assert_int_equal(st.out_of_range, 0);
	/* a programmed range below the capacity: its misses stay out_of_range */
	memset(&st, 0, sizeof(st));
	s.n = 0;
	d.dpa_start = 256 * MIB;
	d.dpa_len = 256 * MIB;
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(st.out_of_range, 4);
	assert_int_equal(st.beyond_capacity, 4);
	/* no capacity known: only a DPA past 2^64 is impossible */
	memset(&st, 0, sizeof(st));
	s.n = 0;
	d = dec4k;
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), 0);
	assert_int_equal(s.n, 8);
	assert_true(s.r[4].addr >= (1ULL << 44));
	assert_int_equal(st.beyond_capacity, 0);
}

static void test_hmu_aux_counter_width_is_per_chunk(void **state)
{
	struct hb_hmu_aux_stats st = { 0 };
	struct hb_err err = { 0 };
	struct sink s = { 0 };
	uint8_t buf[4096];
	size_t len = load("two-chunks.bin", buf, sizeof(buf));

	(void)state;
	assert_int_equal(decode(&dec4k, buf, len, &s, &st, NULL, &err), 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.r[2].addr, 2 * 4096);
	assert_int_equal(s.r[2].count, 0x366);
	assert_int_equal(s.r[3].addr, 0x100 * 4096); /* width 8: unit above bit 8 */
	assert_int_equal(s.r[3].count, 7);
	assert_int_equal(s.r[4].addr, 0x101 * 4096);
	assert_int_equal(s.r[4].count, 255);
	assert_int_equal(st.chunks, 2);
}

/* a hostile buffer: the chunks before the bad one are taken, none of it or after */
static void expect_hostile(const char *fixture, const char *needle, size_t good)
{
	struct hb_hmu_aux_stats st = { 0 };
	struct hb_err err = { 0 };
	struct sink s = { 0 };
	uint8_t buf[4096];
	size_t len = load(fixture, buf, sizeof(buf)), used = 99;

	assert_int_equal(decode(&dec4k, buf, len, &s, &st, &used, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, needle));
	assert_int_equal(s.n, good);
	assert_int_equal(used, good ? 16 + good * 8 : 0);
	assert_int_equal(st.bad_chunks, 1);
}

static void test_hmu_aux_hostile_buffers_are_refused(void **state)
{
	(void)state;
	expect_hostile("bad-magic.bin", "byte 32: magic 0xdeadbeee", 2);
	expect_hostile("count-past-end.bin", "byte 32: 65535 entries", 2);
	expect_hostile("reserved-bits.bin", "reserved bits", 0);
	expect_hostile("width-zero.bin", "counter width 0", 0);
}

static void test_hmu_aux_bounds_built_here(void **state)
{
	uint64_t e[2] = { (5ULL << 63) | 1, 3 }, big[1] = { ~0ULL };
	struct hb_hmu_aux_decoder d = dec4k;
	struct hb_hmu_aux_stats st = { 0 };
	struct hb_err err = { 0 };
	struct sink s = { 0 };
	uint8_t buf[256];
	size_t len = 0;

	(void)state;
	/* a header cut short after a valid chunk */
	put_chunk(buf, &len, (16u << 16) | 1, HB_HMU_AUX_MAGIC, e + 1, 1);
	assert_int_equal(decode(&d, buf, len + 8, &s, &st, NULL, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "byte 24: 8 bytes left"));
	assert_int_equal(s.n, 1);
	/* one entry more than there is, after a valid chunk */
	s.n = 0;
	put_chunk(buf, &len, (16u << 16) | 3, HB_HMU_AUX_MAGIC, e, 2);
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "byte 24: 3 entries (24 bytes) but 16 bytes follow"));
	assert_int_equal(s.n, 1);
	/* width 64, no entries, a 32-bit magic in the upper half */
	len = 0;
	put_chunk(buf, &len, (64u << 16) | 1, HB_HMU_AUX_MAGIC, e, 1);
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "counter width 64"));
	len = 0;
	put_chunk(buf, &len, 16u << 16, HB_HMU_AUX_MAGIC, e, 0);
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "no entries"));
	len = 0;
	put_chunk(buf, &len, (16u << 16) | 1, HB_HMU_AUX_MAGIC << 32, e, 1);
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), -EBADMSG);
	/* units whose DPA would overflow 64 bits: beyond any device, counted apart */
	s.n = 0;
	memset(&st, 0, sizeof(st));
	len = 0;
	put_chunk(buf, &len, (1u << 16) | 1, HB_HMU_AUX_MAGIC, big, 1);
	put_chunk(buf, &len, (1u << 16) | 2, HB_HMU_AUX_MAGIC, e, 2);
	d.dpa_start = 0;
	d.dpa_len = 256 * MIB;
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), 0);
	assert_int_equal(s.n, 1); /* e[1] = 3: unit 1, count 1 */
	assert_int_equal(s.r[0].addr, 4096);
	assert_int_equal(s.r[0].count, 1);
	assert_int_equal(st.out_of_range, 0);
	assert_int_equal(st.beyond_capacity, 2);
	/* a consumer that refuses stops the decoding with its error */
	s.fail = -EIO;
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), -EIO);
	/* a granule below 256 bytes is the caller's mistake */
	d.granule_shift = 7;
	assert_int_equal(decode(&d, buf, len, &s, &st, NULL, &err), -EINVAL);
}

/* ---- the perf ring, over ordinary memory ---- */

struct fake_ring {
	struct perf_event_mmap_page meta;
	uint8_t data[256], aux[128], scratch[128];
	struct hb_hmu_ring ring;
	struct hb_hmu_aux_stats st;
	struct hb_hmu_ring_stats rst;
	struct hb_hot_record out[8];
	struct hb_err err;
	struct sink s;
};

static int fake_drain(struct fake_ring *f)
{
	return hb_hmu_ring_drain(&f->ring, &dec4k, f->out, HB_ARRAY_SIZE(f->out), sink_emit, &f->s,
				 &f->st, &f->rst, &f->err);
}

static void fake_init(struct fake_ring *f)
{
	memset(f, 0, sizeof(*f));
	f->ring = (struct hb_hmu_ring){ .meta = &f->meta,
					.data = f->data,
					.data_size = sizeof(f->data),
					.aux = f->aux,
					.aux_size = sizeof(f->aux),
					.scratch = f->scratch };
}

/* writes bytes into a ring at pos, wrapping */
static void ring_put(uint8_t *ring, size_t size, uint64_t pos, const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ring[(pos + i) % size] = ((const uint8_t *)src)[i];
}

/*
 * A data-ring record as the kernel writes it for this event: the header,
 * then the type's own u64 fields and nothing after them (sample_id_all is
 * 0: no sample_id), so each type has its own size
 * (include/uapi/linux/perf_event.h).
 */
static uint16_t data_record(struct fake_ring *f, uint32_t type, const uint64_t *v, size_t nv)
{
	struct perf_event_header h = { type, 0, (uint16_t)(sizeof(h) + nv * sizeof(*v)) };

	ring_put(f->data, sizeof(f->data), f->meta.data_head, &h, sizeof(h));
	ring_put(f->data, sizeof(f->data), f->meta.data_head + sizeof(h), v, nv * sizeof(*v));
	f->meta.data_head += h.size;
	return h.size;
}

/* {header, aux_offset, aux_size, flags}: 32 bytes */
static void aux_record(struct fake_ring *f, uint64_t offset, uint64_t size, uint64_t flags)
{
	assert_int_equal(data_record(f, PERF_RECORD_AUX, (uint64_t[]){ offset, size, flags }, 3), 32);
}

/* {header, id, lost}: 24 bytes */
static void lost_record(struct fake_ring *f, uint64_t id, uint64_t lost)
{
	assert_int_equal(data_record(f, PERF_RECORD_LOST, (uint64_t[]){ id, lost }, 2), 24);
}

static void test_hmu_ring_unwraps_the_aux_area(void **state)
{
	uint64_t e[3] = { (1ULL << 16) | 9, (2ULL << 16) | 8, (3ULL << 16) | 7 };
	struct fake_ring f;
	uint8_t chunk[64];
	size_t len = 0;

	(void)state;
	fake_init(&f);
	put_chunk(chunk, &len, (16u << 16) | 3, HB_HMU_AUX_MAGIC, e, 3);
	/* the chunk starts 20 bytes before the end of the 128-byte area */
	f.meta.aux_tail = f.meta.aux_head = 1000 * 128 + 108;
	ring_put(f.aux, 128, f.meta.aux_head, chunk, len);
	f.meta.aux_head += len;
	aux_record(&f, 108, len, 0);
	aux_record(&f, 0, 0, PERF_AUX_FLAG_TRUNCATED);
	lost_record(&f, 1, 5);
	assert_int_equal(fake_drain(&f), 0);
	assert_int_equal(f.s.n, 3);
	assert_int_equal(f.s.r[2].addr, 3 * 4096);
	assert_int_equal(f.s.r[2].count, 7);
	assert_int_equal(f.meta.aux_tail, f.meta.aux_head);
	assert_int_equal(f.meta.data_tail, f.meta.data_head);
	assert_int_equal(f.rst.truncated, 1);
	assert_int_equal(f.rst.lost, 5);
	assert_int_equal(f.rst.aux_bytes, len);
	/* nothing new: nothing taken */
	assert_int_equal(fake_drain(&f), 0);
	assert_int_equal(f.s.n, 3);
}

/* our driver's PERF_AUX_FLAG_PARTIAL (entries it dropped) is counted apart */
static void test_hmu_ring_counts_partial_aux_writes(void **state)
{
	uint64_t e = (1ULL << 16) | 9;
	struct fake_ring f;
	uint8_t chunk[64];
	size_t len = 0;

	(void)state;
	fake_init(&f);
	put_chunk(chunk, &len, (16u << 16) | 1, HB_HMU_AUX_MAGIC, &e, 1);
	ring_put(f.aux, 128, f.meta.aux_head, chunk, len);
	f.meta.aux_head += len;
	aux_record(&f, 0, len, PERF_AUX_FLAG_PARTIAL);
	aux_record(&f, len, 0, PERF_AUX_FLAG_PARTIAL);
	aux_record(&f, len, 0, 0);
	assert_int_equal(fake_drain(&f), 0);
	assert_int_equal(f.s.n, 1);
	assert_int_equal(f.rst.partial, 2);
	assert_int_equal(f.rst.truncated, 0);
	assert_int_equal(f.rst.lost, 0);
}

/*
 * review U1: the kernel's PERF_RECORD_LOST is 24 bytes for this event;
 * every one is counted, one wrapping the data ring's end too, and so is
 * PERF_RECORD_LOST_SAMPLES ({header, lost}: 16 bytes).
 */
static void test_hmu_ring_counts_kernel_sized_lost_records(void **state)
{
	struct fake_ring f;

	(void)state;
	fake_init(&f);
	/* the second LOST starts 16 bytes before the 256-byte ring's end */
	f.meta.data_tail = f.meta.data_head = 7 * 256 + 216;
	lost_record(&f, 1, 5);
	lost_record(&f, 1, 7);
	assert_int_equal(data_record(&f, PERF_RECORD_LOST_SAMPLES, (uint64_t[]){ 2 }, 1), 16);
	assert_int_equal(fake_drain(&f), 0);
	assert_int_equal(f.rst.lost, 14);
	assert_int_equal(f.meta.data_tail, f.meta.data_head);
	/* a LOST that stops after id (16 bytes) lost nothing anyone can count */
	assert_int_equal(data_record(&f, PERF_RECORD_LOST, (uint64_t[]){ 1 }, 1), 16);
	assert_int_equal(fake_drain(&f), 0);
	assert_int_equal(f.rst.lost, 14);
}

static void test_hmu_ring_refuses_what_cannot_be(void **state)
{
	uint64_t e = (1ULL << 16) | 9;
	struct fake_ring f;
	uint8_t chunk[64];
	size_t len = 0;

	(void)state;
	fake_init(&f);
	/* a head past the whole area: nothing read, the tail moves on */
	f.meta.aux_head = 129;
	assert_int_equal(fake_drain(&f), -EIO);
	assert_non_null(strstr(f.err.msg, "AUX head 129"));
	assert_int_equal(f.meta.aux_tail, 129);
	/* a bad chunk after a good one: the good one taken, the rest skipped once */
	put_chunk(chunk, &len, (16u << 16) | 1, HB_HMU_AUX_MAGIC, &e, 1);
	put_chunk(chunk, &len, (16u << 16) | 1, 0x1234, &e, 1);
	ring_put(f.aux, 128, f.meta.aux_head, chunk, len);
	f.meta.aux_head += len;
	assert_int_equal(fake_drain(&f), -EBADMSG);
	assert_int_equal(f.s.n, 1);
	assert_int_equal(f.rst.bad_bytes, 128 + 24);
	assert_int_equal(f.meta.aux_tail, f.meta.aux_head);
	/* a data record of 4 bytes */
	f.meta.data_head = 8;
	ring_put(f.data, sizeof(f.data), 0, &(struct perf_event_header){ 2, 0, 4 }, 8);
	assert_int_equal(fake_drain(&f), -EIO);
	assert_non_null(strstr(f.err.msg, "record of 4 bytes"));
	assert_int_equal(f.meta.data_tail, 8);
}

/* ---- format/ and the event's config words ---- */

static void test_hmu_format_specs(void **state)
{
	static const char *const bad[] = { "confg:0-7",      "config:7-0", "config:64",
					   "config:0-3,2-5", "config:",    "config:1-2x",
					   "config4:0",      "0-7",        "config:-3",
					   "config:0-" };
	struct hb_hmu_field f;
	struct hb_err err = { 0 };

	(void)state;
	assert_int_equal(hb_hmu_format_parse("a", "config:0-7\n", &f, &err), 0);
	assert_int_equal(f.word, 0);
	assert_int_equal(f.mask, 0xff);
	assert_int_equal(f.width, 8);
	assert_int_equal(hb_hmu_format_parse("b", "config1:32-63", &f, &err), 0);
	assert_int_equal(f.word, 1);
	assert_int_equal(f.mask, 0xffffffff00000000ULL);
	assert_int_equal(hb_hmu_format_parse("c", "config2:5", &f, &err), 0);
	assert_int_equal(f.mask, 1u << 5);
	assert_int_equal(hb_hmu_format_parse("d", "config:0-63", &f, &err), 0);
	assert_int_equal(f.mask, ~0ULL);
	assert_int_equal(f.width, 64);
	assert_int_equal(hb_hmu_format_parse("e", "config:0,8-11", &f, &err), 0);
	assert_int_equal(f.mask, 0xf01);
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		hb_err_clear(&err);
		assert_int_equal(hb_hmu_format_parse("x", bad[i], &f, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "format x"));
	}
}

static void test_hmu_config_follows_split_fields(void **state)
{
	struct hb_hmu_pmu p = { .name = "cxl_hmu_memT" };
	uint64_t c[HB_HMU_CONFIG_WORDS] = { 0 };
	struct hb_err err = { 0 };

	(void)state;
	assert_int_equal(hb_hmu_format_parse("f", "config2:0-1,40-41", &p.fields[0], &err), 0);
	p.nfields = 1;
	assert_int_equal(hb_hmu_config_set(&p, "f", 0xb, c, &err), 0); /* 10 11 */
	assert_int_equal(c[2], (3ULL) | (2ULL << 40));
	assert_int_equal(hb_hmu_config_set(&p, "f", 0x10, c, &err), -ERANGE);
	assert_non_null(strstr(err.msg, "f=16 does not fit the 4 bits"));
	assert_int_equal(hb_hmu_config_set(&p, "g", 1, c, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no format field 'g'"));
}

static char fixture_root[1024];

static const char *rfc_root(void)
{
	snprintf(fixture_root, sizeof(fixture_root), "%s/sysfs/cxl-hmu", getenv("HB_TEST_DATA"));
	return fixture_root;
}

static void test_hmu_encodes_the_event_from_the_fake_tree(void **state)
{
	const char *p1[] = { NULL },
		   *p2[] = { "dpa_range=0x10000000+0x20000000",
			     "unit=8192",
			     "threshold=1024",
			     "ds=32",
			     "epoch_ms=1500",
			     "access=w",
			     NULL },
		   *p3[] = { "mode=always-on", NULL };
	struct hb_dev_info info = { .size = sizeof(info), .name = "h", .params = p1 };
	uint64_t c[HB_HMU_CONFIG_WORDS], pages;
	struct hb_hmu_aux_decoder d;
	struct hb_err err = { 0 };
	struct hb_hmu_pmu pmu;

	(void)state;
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err), 0);
	assert_string_equal(pmu.name, "cxl_hmu_mem0.0.0");
	assert_int_equal(pmu.type, 42);
	assert_int_equal(pmu.nfields, 10);
	/* epoch mode, access 6 (all R+W) at 2-9, scale 4 (100 ms) at 10-13, x1 at 14-25 */
	assert_int_equal(c[0], (6ULL << 2) | (4ULL << 10) | (1ULL << 14));
	assert_int_equal(c[1], 16 | (12ULL << 32)); /* threshold 16, 4 KiB */
	assert_int_equal(c[2], 0);                  /* everything the CHMU tracks */
	assert_string_equal(d.memdev, "mem0");      /* from the PMU's name */
	assert_int_equal(d.granule_shift, 12);
	assert_int_equal(pages, 16);

	info.params = p2;
	info.memdev = "mem0"; /* the PMU's own: taken */
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err), 0);
	/* access 5, 1.5 s = scale 4 (100 ms) x 15, ds log2 32 = 5 at 27-34 */
	assert_int_equal(c[0], (5ULL << 2) | (4ULL << 10) | (15ULL << 14) | (5ULL << 27));
	assert_int_equal(c[1], 1024 | (13ULL << 32));
	assert_int_equal(c[2], 1 | (2ULL << 32)); /* 256 MiB units */
	assert_string_equal(d.memdev, "mem0");
	assert_int_equal(d.dpa_start, 256 * MIB);
	assert_int_equal(d.dpa_len, 512 * MIB);

	info.params = p3;
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err), 0);
	assert_int_equal(c[0], 1 | (6ULL << 2)); /* always-on: no epoch */
}

/* issue 42: the AUX decoder bounds entries by the memdev: capacity=, else its sysfs sizes */
static void test_hmu_capacity_from_the_parameter_or_the_memdev(void **state)
{
	const char *none[] = { NULL }, *given[] = { "capacity=0x40000000", NULL },
		   *bad[] = { "capacity=1000", NULL };
	struct hb_dev_info info = { .size = sizeof(info), .name = "h", .params = none };
	uint64_t c[HB_HMU_CONFIG_WORDS], pages;
	struct hb_hmu_aux_decoder d;
	struct hb_err err = { 0 };
	struct hb_hmu_pmu pmu;

	(void)state;
	/* mem0's ram/size + pmem/size in the tree: 256 MiB each */
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err), 0);
	assert_int_equal(d.capacity, 512 * MIB);
	info.params = given;
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err), 0);
	assert_int_equal(d.capacity, 1024 * MIB);
	info.params = bad;
	assert_int_equal(hb_source_cxl_hmu_check(&info, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "capacity=1000"));
}

/* a PMU that takes only the request types and factors of its masks */
struct fake_pmu {
	const struct hb_hmu_pmu *pmu;
	unsigned int access_mask; /* bit code - 1 */
	uint32_t ds_mask;         /* bit log2 factor */
	int other;                /* 0, or what every open returns */
	unsigned int opens, probes;
};

static int fake_open(void *ud, const uint64_t config[HB_HMU_CONFIG_WORDS], bool probe)
{
	struct fake_pmu *f = ud;
	const struct hb_hmu_field *a = hb_hmu_pmu_field(f->pmu, "access_type");
	const struct hb_hmu_field *ds = hb_hmu_pmu_field(f->pmu, "downsampling_factor");
	uint64_t av = (config[a->word] & a->mask) >> __builtin_ctzll(a->mask);
	uint64_t dv = (config[ds->word] & ds->mask) >> __builtin_ctzll(ds->mask);

	f->opens++;
	f->probes += probe;
	if (f->other)
		return f->other;
	if (av < 1 || av > 6 || !((f->access_mask >> (av - 1)) & 1) || dv > 15 ||
	    !((f->ds_mask >> dv) & 1))
		return -EINVAL;
	return probe ? 0 : 77;
}

static int negotiate(const char *const *params, struct fake_pmu *f, struct hb_hmu_request *q,
		     struct hb_err *err)
{
	struct hb_dev_info info = { .size = sizeof(info), .name = "h", .params = params };
	uint64_t c[HB_HMU_CONFIG_WORDS], pages;
	static struct hb_hmu_pmu pmu;
	struct hb_hmu_aux_decoder d;
	struct hb_hmu_request want;

	memset(err, 0, sizeof(*err));
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, err), 0);
	assert_int_equal(hb_hmu_request_from_params(&info, &want, &pages, err), 0);
	f->pmu = &pmu;
	f->opens = f->probes = 0;
	return hb_hmu_negotiate(&pmu, &want, c, fake_open, f, q, err);
}

/*
 * Issue 42: a device that tracks only non-TEE requests (codes 1-3, the RFC's
 * QEMU model) and down-samples only by 32 refuses hotbridge's defaults
 * (access 6, ds 1) with EINVAL: unsaid, the source takes what the PMU does;
 * said, it is refused naming what the device takes.
 */
static void test_hmu_negotiates_access_and_ds_the_device_takes(void **state)
{
	struct fake_pmu rfc = { .access_mask = 0x7, .ds_mask = 1u << 5 };
	struct fake_pmu ours = { .access_mask = 0x3f, .ds_mask = 0x3f };
	struct hb_hmu_request q;
	struct hb_err err;

	(void)state;
	/* nothing said: r is refused, nontee-r taken (reads first); ds 1..16 refused, 32 taken */
	assert_int_equal(negotiate((const char *[]){ NULL }, &rfc, &q, &err), 77);
	assert_int_equal(q.access_type, 1);
	assert_int_equal(q.ds_shift, 5);
	assert_int_equal(rfc.probes, 0);
	/* a device that takes the defaults opens at the first try */
	assert_int_equal(negotiate((const char *[]){ NULL }, &ours, &q, &err), 77);
	assert_int_equal(q.access_type, 4);
	assert_int_equal(q.ds_shift, 0);
	assert_int_equal(ours.opens, 1);
	/* said: kept, the other negotiated */
	assert_int_equal(negotiate((const char *[]){ "access=nontee-r", NULL }, &rfc, &q, &err), 77);
	assert_int_equal(q.access_type, 1);
	assert_int_equal(q.ds_shift, 5);
	assert_int_equal(negotiate((const char *[]){ "access=2", "ds=32", NULL }, &rfc, &q, &err),
			 77);
	assert_int_equal(q.access_type, 2);
	/* said and refused: named, with what the device takes */
	assert_int_equal(negotiate((const char *[]){ "access=rw", NULL }, &rfc, &q, &err), -EINVAL);
	if (!strstr(err.msg, "access=rw (code 6)") ||
	    !strstr(err.msg, "takes nontee-r (1), nontee-w (2), nontee-rw (3)"))
		fail_msg("%s", err.msg);
	assert_int_equal(negotiate((const char *[]){ "ds=1", NULL }, &rfc, &q, &err), -EINVAL);
	if (!strstr(err.msg, "ds=1:") || !strstr(err.msg, "takes 32"))
		fail_msg("%s", err.msg);
	/* nothing helps: another parameter is refused; every try was a probe or an open */
	rfc.ds_mask = 0;
	assert_int_equal(negotiate((const char *[]){ NULL }, &rfc, &q, &err), -EINVAL);
	if (!strstr(err.msg, "whatever the request type and down-sampling factor"))
		fail_msg("%s", err.msg);
	/* 6 x 16 opens, then 6 x 16 probes per request type and 16 x 6 per factor */
	assert_int_equal(rfc.opens, 96 + 96 + 96);
	assert_int_equal(rfc.probes, 96 + 96);
	/* another error (busy, not permitted) is the caller's to name, at once */
	rfc.other = -EBUSY;
	assert_int_equal(negotiate((const char *[]){ NULL }, &rfc, &q, &err), -EBUSY);
	assert_int_equal(rfc.opens, 1);
	assert_string_equal(err.msg, "");
}

static void expect_prepare(const char *root, const char *const *params, int code, const char *needle)
{
	struct hb_dev_info info = { .size = sizeof(info), .name = "h", .params = params };
	uint64_t c[HB_HMU_CONFIG_WORDS], pages;
	struct hb_hmu_aux_decoder d;
	struct hb_err err = { 0 };
	struct hb_hmu_pmu pmu;

	assert_int_equal(hb_hmu_source_prepare(root, &info, &pmu, c, &d, &pages, &err), code);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' not in '%s'", needle, err.msg);
}

static void test_hmu_bad_parameters_are_named(void **state)
{
	(void)state;
	expect_prepare(rfc_root(), (const char *[]){ "dpa_range=0x1000+0x10000000", NULL }, -EINVAL,
		       "not on 256 MiB");
	expect_prepare(rfc_root(), (const char *[]){ "unit=4000", NULL }, -EINVAL, "unit=4000");
	expect_prepare(rfc_root(), (const char *[]){ "unit=128", NULL }, -EINVAL, "unit=128");
	expect_prepare(rfc_root(), (const char *[]){ "ds=3", NULL }, -EINVAL, "ds=3");
	expect_prepare(rfc_root(), (const char *[]){ "epoch_ms=0", NULL }, -EINVAL, "epoch_ms=0");
	expect_prepare(rfc_root(), (const char *[]){ "epoch_ms=4096000", NULL }, -EINVAL,
		       "epoch_ms=4096000");
	expect_prepare(rfc_root(),
		       (const char *[]){ "dpa_range=0xfffffffff0000000+0x20000000", NULL }, -EINVAL,
		       "past the end of the address space");
	expect_prepare(rfc_root(), (const char *[]){ "unit=1099511627776", NULL }, -EINVAL,
		       "unit=1099511627776");
	expect_prepare(rfc_root(), (const char *[]){ "ds=65536", NULL }, -EINVAL, "ds=65536");
	expect_prepare(rfc_root(), (const char *[]){ "threshold=0", NULL }, -EINVAL, "threshold=0");
	expect_prepare(rfc_root(), (const char *[]){ "mode=sometimes", NULL }, -EINVAL, "mode=");
	expect_prepare(rfc_root(), (const char *[]){ "access=x", NULL }, -EINVAL, "access=x");
	expect_prepare(rfc_root(), (const char *[]){ "access=7", NULL }, -EINVAL,
		       "one of nontee-r, nontee-w, nontee-rw");
	expect_prepare(rfc_root(), (const char *[]){ "capacity=0", NULL }, -EINVAL, "capacity=0");
	expect_prepare(rfc_root(), (const char *[]){ "aux_pages=3", NULL }, -EINVAL, "aux_pages=3");
	expect_prepare(rfc_root(), (const char *[]){ "colour=red", NULL }, -EINVAL, "colour");
	expect_prepare(rfc_root(), (const char *[]){ "pmu=cpu", NULL }, -EINVAL, "not a cxl_hmu_");
	expect_prepare(rfc_root(), (const char *[]){ "pmu=cxl_hmu_mem9.0.0", NULL }, -ENOENT,
		       "no such PMU");
	expect_prepare(rfc_root(), (const char *[]){ "threshold=0x100000000", NULL }, -EINVAL,
		       "threshold=4294967296");
}

/* a tree made here: root/sys/bus/event_source/devices/<pmu>/{type,format/...} */
static void mkpmu(const char *root, const char *pmu, const char *type, const char *const *fmt)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/sys/bus/event_source/devices/%s/format", root, pmu);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/type", root, pmu);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", type);
	fclose(f);
	for (; fmt && *fmt; fmt += 2) {
		snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/format/%s", root,
			 pmu, fmt[0]);
		assert_non_null(f = fopen(path, "w"));
		fprintf(f, "%s\n", fmt[1]);
		fclose(f);
	}
}

static void test_hmu_trees_that_do_not_serve(void **state)
{
	static const char *const moved[] = { "epoch_type",
					     "config:0-1",
					     "access_type",
					     "config:40-47",
					     "epoch_scale",
					     "config:10-13",
					     "epoch_multiplier",
					     "config:14-25",
					     "downsampling_factor",
					     "config:27-34",
					     "hotness_threshold",
					     "config1:0-31",
					     "hotness_granual",
					     "config1:32-63",
					     "range_base",
					     "config2:0-31",
					     "range_size",
					     "config2:32-63",
					     NULL };
	static const char *const narrow[] = { "epoch_type", "config:0-1",        "access_type",
					      "config:2-9", "hotness_threshold", "config1:0-3",
					      NULL };
	char root[] = "/tmp/hb-test-hmu-XXXXXX", cmd[1100], why[256], first[64];
	const char *none[] = { NULL };
	struct hb_dev_info info = { .size = sizeof(info), .params = none };
	uint64_t c[HB_HMU_CONFIG_WORDS], pages;
	struct hb_hmu_aux_decoder d;
	struct hb_err err = { 0 };
	struct hb_hmu_pmu pmu;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(hb_hmu_available(root, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "CONFIG_CXL_HMU"));
	expect_prepare(root, none, -ENODEV, "no cxl_hmu_* PMU");

	/* a driver that moved access_type: followed */
	mkpmu(root, "cxl_hmu_mem3.0.1", "17", moved);
	assert_int_equal(hb_hmu_available(root, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "cxl_hmu_mem3.0.1"));
	assert_int_equal(hb_hmu_source_prepare(root, &info, &pmu, c, &d, &pages, &err), 0);
	assert_int_equal(pmu.type, 17);
	assert_int_equal(c[0], (6ULL << 40) | (4ULL << 10) | (1ULL << 14));
	assert_string_equal(d.memdev, "mem3");
	/* a memdev sysfs does not list: unknown, entries bounded by 2^64 only */
	assert_int_equal(d.capacity, 0);

	/* a second PMU: which one must be said; this one lacks fields and narrows another */
	mkpmu(root, "cxl_hmu_mem4.0.0", "18", narrow);
	assert_int_equal(hb_hmu_pmu_find(root, first, sizeof(first)), 2);
	expect_prepare(root, none, -EINVAL, "2 CHMU PMUs");
	expect_prepare(root, (const char *[]){ "pmu=cxl_hmu_mem4.0.0", NULL }, -ERANGE,
		       "hotness_threshold=16 does not fit the 4 bits");
	expect_prepare(root, (const char *[]){ "pmu=cxl_hmu_mem4.0.0", "threshold=8", NULL },
		       -ENOENT, "no format field 'hotness_granual'");

	/* a bad format file and a bad type are named */
	mkpmu(root, "cxl_hmu_mem5.0.0", "18", (const char *[]){ "x", "config:9-1", NULL });
	expect_prepare(root, (const char *[]){ "pmu=cxl_hmu_mem5.0.0", NULL }, -EINVAL,
		       "format x: bit range 9-1");
	mkpmu(root, "cxl_hmu_mem6.0.0", "lots", NULL);
	expect_prepare(root, (const char *[]){ "pmu=cxl_hmu_mem6.0.0", NULL }, -EINVAL,
		       "cxl_hmu_mem6.0.0/type: not a number");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/*
 * trial42 #1: the records are submitted under the source's memdev, so a
 * memdev = (or pci ='s memdev) other than the PMU's would promote one
 * device's hot DPAs on another. Refused by the start-up check and by open,
 * with pmu= given or the only PMU taken.
 */
static void test_hmu_refuses_another_memdev_than_the_pmus(void **state)
{
	const char *named[] = { "pmu=cxl_hmu_mem0.0.0", NULL }, *none[] = { NULL };
	struct hb_dev_info info = { .size = sizeof(info), .name = "h", .memdev = "mem1" };
	uint64_t c[HB_HMU_CONFIG_WORDS], pages;
	struct hb_hmu_aux_decoder d;
	struct hb_err err = { 0 };
	struct hb_hmu_pmu pmu;

	(void)state;
	info.params = named;
	assert_int_equal(hb_source_cxl_hmu_check(&info, &err), -EINVAL);
	if (!strstr(err.msg, "PMU cxl_hmu_mem0.0.0 is mem0's CHMU, but the source's memdev is mem1"))
		fail_msg("%s", err.msg);
	err = (struct hb_err){ 0 };
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "wrong memdev"));
	/* no pmu=: the check cannot know the PMU; open takes the only one and refuses */
	info.params = none;
	err = (struct hb_err){ 0 };
	assert_int_equal(hb_source_cxl_hmu_check(&info, &err), 0);
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "is mem0's CHMU"));
	/* the PMU's own memdev, or none said: taken */
	info.memdev = "mem0";
	assert_int_equal(hb_source_cxl_hmu_check(&info, &err), 0);
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err), 0);
	assert_string_equal(d.memdev, "mem0");
	info.memdev = NULL;
	info.params = named;
	assert_int_equal(hb_hmu_source_prepare(rfc_root(), &info, &pmu, c, &d, &pages, &err), 0);
	assert_string_equal(d.memdev, "mem0");
}

static void test_hmu_is_a_builtin_source(void **state)
{
	const struct hb_device_ops *ops = hb_builtin_find("cxl-hmu");
	struct hb_err err = { 0 };

	(void)state;
	assert_non_null(ops);
	assert_int_equal(hb_device_ops_check(ops, "built-in", &err), 0);
	assert_true(ops->caps & HB_DEV_CAP_FD);
	assert_false(ops->caps & HB_DEV_CAP_POLL);
	assert_ptr_equal(hb_builtin_params("cxl-hmu"), hb_source_cxl_hmu_params);
}

static char open_log[512];

static void open_logf(struct hb_host *h, int prio, const char *fmt, ...)
{
	va_list ap;

	(void)h;
	(void)prio;
	va_start(ap, fmt);
	vsnprintf(open_log, sizeof(open_log), fmt, ap);
	va_end(ap);
}

/* this host has no CHMU PMU: open refuses, saying so, before any perf call */
static void test_hmu_open_here_says_why_not(void **state)
{
	static const struct hb_host_ops host = { .abi_major = HB_DEVICE_ABI_MAJOR,
						 .abi_minor = HB_DEVICE_ABI_MINOR,
						 .size = sizeof(host),
						 .log = open_logf };
	const char *none[] = { NULL }, *typo[] = { "treshold=3", NULL };
	struct hb_dev_info info = { .size = sizeof(info), .name = "hmu0", .params = none };
	struct hb_err err = { 0 };
	void *priv = NULL;
	char why[256];

	(void)state;
	if (hb_hmu_available("", why, sizeof(why)))
		skip(); /* a kernel with the RFC driver: not this test's host */
	assert_int_equal(hb_source_open(&hb_source_cxl_hmu, "built-in", &host, NULL, &info, &priv,
					&err),
			 -ENODEV);
	assert_null(priv);
	assert_non_null(strstr(open_log, "hmu0: cxl-hmu: no cxl_hmu_* PMU"));
	assert_non_null(strstr(err.msg, "open of 'hmu0' failed"));
	info.params = typo;
	assert_int_equal(hb_source_open(&hb_source_cxl_hmu, "built-in", &host, NULL, &info, &priv,
					&err),
			 -EINVAL);
	assert_non_null(strstr(open_log, "treshold"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hmu_aux_decodes_the_documented_example),
		cmocka_unit_test(test_hmu_aux_counter_width_is_per_chunk),
		cmocka_unit_test(test_hmu_aux_entries_past_the_capacity_are_counted_apart),
		cmocka_unit_test(test_hmu_aux_hostile_buffers_are_refused),
		cmocka_unit_test(test_hmu_aux_bounds_built_here),
		cmocka_unit_test(test_hmu_ring_unwraps_the_aux_area),
		cmocka_unit_test(test_hmu_ring_counts_partial_aux_writes),
		cmocka_unit_test(test_hmu_ring_counts_kernel_sized_lost_records),
		cmocka_unit_test(test_hmu_ring_refuses_what_cannot_be),
		cmocka_unit_test(test_hmu_format_specs),
		cmocka_unit_test(test_hmu_config_follows_split_fields),
		cmocka_unit_test(test_hmu_encodes_the_event_from_the_fake_tree),
		cmocka_unit_test(test_hmu_bad_parameters_are_named),
		cmocka_unit_test(test_hmu_capacity_from_the_parameter_or_the_memdev),
		cmocka_unit_test(test_hmu_refuses_another_memdev_than_the_pmus),
		cmocka_unit_test(test_hmu_negotiates_access_and_ds_the_device_takes),
		cmocka_unit_test(test_hmu_trees_that_do_not_serve),
		cmocka_unit_test(test_hmu_is_a_builtin_source),
		cmocka_unit_test(test_hmu_open_here_says_why_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
