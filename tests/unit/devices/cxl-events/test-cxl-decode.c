// SPDX-License-Identifier: MIT
/*
 * The CXL trace-event decoder over the format files of tests/data/tracefs:
 * raw records are built field by field at the offsets their format names
 * (found with libtraceevent, the way the kernel lays them out), decoded,
 * and checked; then hostile records (truncated, strings out of bounds or
 * without NUL, unknown ids) and formats (missing fields, both spellings of
 * the region, duplicates) are refused with a message naming what was wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <traceevent/event-parse.h>

#include "cxl-events/cxl-events.h"

#define FIXTURES "tracefs/6.12"

/* tests/data/<dir>/<file> */
static char *slurp_in(const char *dir, const char *file, size_t *len)
{
	char path[4096];
	char *buf = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/%s/%s", getenv("HB_TEST_DATA"), dir, file);
	r = hb_read_file(path, 1 << 20, &buf, len);
	assert_int_equal(r, 0);
	return buf;
}

/* a format file of tests/data/tracefs/6.12 */
static char *slurp(const char *name, size_t *len)
{
	char file[256];

	snprintf(file, sizeof(file), "%s.format", name);
	return slurp_in(FIXTURES, file, len);
}

static void add(struct hb_cxl_decoder *dec, const char *name)
{
	struct hb_err err = { 0 };
	size_t len;
	char *fmt = slurp(name, &len);
	int r = hb_cxl_decoder_add_format(dec, fmt, len, &err);

	if (r < 0)
		fail_msg("%s: %s", name, err.msg);
	free(fmt);
}

static struct hb_cxl_decoder *all_formats(void)
{
	struct hb_cxl_decoder *dec;

	assert_int_equal(hb_cxl_decoder_new(&dec), 0);
	for (int k = 0; k < HB_CXL_KIND_MAX; k++)
		add(dec, hb_cxl_kind_event(k));
	return dec;
}

/* A raw record of one event, built from its format (an independent parse). */
struct builder {
	struct tep_handle *tep;
	struct tep_event *ev;
	uint8_t buf[512];
	size_t len, dyn; /* record length; where the next string goes */
};

static void build(struct builder *b, const char *name)
{
	size_t len;
	char *fmt = slurp(name, &len);

	memset(b, 0, sizeof(*b));
	b->tep = tep_alloc();
	assert_non_null(b->tep);
	assert_int_equal(tep_parse_format(b->tep, &b->ev, fmt, len, "cxl"), 0);
	free(fmt);
	/* the fixed part ends after the last field */
	for (struct tep_format_field *f = b->ev->format.fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > b->len)
			b->len = (size_t)(f->offset + f->size);
	b->dyn = b->len;
	memcpy(b->buf, &(uint16_t){ (uint16_t)b->ev->id }, 2);
}

static struct tep_format_field *field(struct builder *b, const char *name)
{
	struct tep_format_field *f = tep_find_field(b->ev, name);

	if (!f)
		fail_msg("%s has no field %s", b->ev->name, name);
	return f;
}

static void set_num(struct builder *b, const char *name, uint64_t v)
{
	struct tep_format_field *f = field(b, name);

	memcpy(b->buf + f->offset, &v, (size_t)f->size); /* little-endian host */
}

static void set_str(struct builder *b, const char *name, const char *s)
{
	struct tep_format_field *f = field(b, name);
	size_t n = strlen(s) + 1;
	uint32_t loc = (uint32_t)b->dyn | (uint32_t)n << 16;

	memcpy(b->buf + f->offset, &loc, 4);
	memcpy(b->buf + b->dyn, s, n);
	b->dyn += n;
	b->len = b->dyn;
}

static void builder_done(struct builder *b)
{
	tep_free(b->tep);
}

static void media(struct builder *b, const char *event)
{
	build(b, event);
	set_str(b, "memdev", "mem3");
	set_str(b, "host", "0000:0d:00.0");
	set_num(b, "dpa", 0x12340);
	set_num(b, "dpa_flags", 0x2);
	set_num(b, "descriptor", HB_CXL_DESC_UNCORRECTABLE);
	set_num(b, "type", 0);
	set_num(b, "transaction_type", 1);
	set_num(b, "hpa", 0x390012340ull);
	set_str(b, "region_name", "region7");
	memset(b->buf + field(b, "region_uuid")->offset, 0xab, 16);
}

static void test_cxl_decode_media_events(void **state)
{
	struct hb_cxl_decoder *dec = all_formats();
	const char *events[] = { "cxl_general_media", "cxl_dram" };

	for (int i = 0; i < 2; i++) {
		struct hb_err err = { 0 };
		struct hb_cxl_record r;
		struct hb_device_event ev;
		struct builder b;

		media(&b, events[i]);
		if (hb_cxl_decode(dec, b.buf, b.len, &r, &err) < 0)
			fail_msg("%s: %s", events[i], err.msg);
		assert_int_equal(r.kind, i == 0 ? HB_CXL_GENERAL_MEDIA : HB_CXL_DRAM);
		assert_string_equal(r.memdev, "mem3");
		assert_string_equal(r.host, "0000:0d:00.0");
		assert_string_equal(r.region, "region7");
		assert_int_equal(r.dpa, 0x12340);
		assert_int_equal(r.hpa, 0x390012340ull);
		assert_int_equal(r.dpa_flags, 2);
		assert_int_equal(r.transaction_type, 1);
		assert_int_equal(r.dpa_length, 64);
		assert_int_equal(r.uuid[0], 0xab);
		assert_int_equal(r.uuid[15], 0xab);
		hb_cxl_record_to_event(&r, &ev);
		assert_int_equal(ev.kind, HB_EVENT_MEDIA);
		assert_int_equal(ev.flags, HB_EVENT_F_UNCORRECTABLE);
		assert_int_equal(ev.dpa, 0x12340);
		assert_int_equal(ev.len, 64);
		assert_int_equal(ev.hpa, 0x390012340ull);
		assert_string_equal(ev.memdev, "mem3");
		builder_done(&b);
	}
	hb_cxl_decoder_free(dec);
}

static void test_cxl_decode_poison_and_overflow(void **state)
{
	struct hb_cxl_decoder *dec = all_formats();
	struct hb_err err = { 0 };
	struct hb_cxl_record r;
	struct hb_device_event ev;
	struct builder b;

	build(&b, "cxl_poison");
	set_str(&b, "memdev", "mem0");
	set_str(&b, "host", "cxl_mem.0");
	set_num(&b, "trace_type", HB_CXL_POISON_INJECT);
	set_str(&b, "region", "");
	set_num(&b, "hpa", UINT64_MAX);
	set_num(&b, "dpa", 0x40000000);
	set_num(&b, "dpa_length", 64);
	set_num(&b, "source", 3);
	if (hb_cxl_decode(dec, b.buf, b.len, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(r.kind, HB_CXL_POISON);
	assert_string_equal(r.region, "");
	assert_int_equal(r.hpa, UINT64_MAX);
	assert_int_equal(r.dpa, 0x40000000);
	assert_int_equal(r.dpa_length, 64);
	assert_int_equal(r.source, 3);
	hb_cxl_record_to_event(&r, &ev);
	assert_int_equal(ev.kind, HB_EVENT_POISON);
	assert_int_equal(ev.flags, 0);
	assert_int_equal(ev.hpa, HB_ADDR_NONE);
	set_num(&b, "trace_type", HB_CXL_POISON_CLEAR);
	assert_int_equal(hb_cxl_decode(dec, b.buf, b.len, &r, &err), 0);
	hb_cxl_record_to_event(&r, &ev);
	assert_int_equal(ev.flags, HB_EVENT_F_CLEARED);
	builder_done(&b);

	build(&b, "cxl_overflow");
	set_str(&b, "memdev", "mem1");
	set_str(&b, "host", "0000:0e:00.0");
	set_num(&b, "count", 513);
	set_num(&b, "first_ts", 100);
	set_num(&b, "last_ts", 200);
	if (hb_cxl_decode(dec, b.buf, b.len, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(r.kind, HB_CXL_OVERFLOW);
	assert_int_equal(r.count, 513);
	assert_int_equal(r.first_ts, 100);
	assert_int_equal(r.last_ts, 200);
	hb_cxl_record_to_event(&r, &ev);
	assert_int_equal(ev.kind, HB_EVENT_OVERFLOW);
	assert_int_equal(ev.count, 513);
	builder_done(&b);
	hb_cxl_decoder_free(dec);
}

static void expect_bad(const struct hb_cxl_decoder *dec, const uint8_t *buf, size_t len,
		       const char *needle)
{
	struct hb_err err = { 0 };
	struct hb_cxl_record r;

	assert_int_equal(hb_cxl_decode(dec, buf, len, &r, &err), -EBADMSG);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
}

static void test_cxl_decode_refuses_hostile_records(void **state)
{
	struct hb_cxl_decoder *dec = all_formats();
	struct builder b;
	uint32_t loc;
	size_t hpa_end;

	media(&b, "cxl_general_media");
	hpa_end = (size_t)(field(&b, "hpa")->offset + 8);
	/* cut inside the fixed part: the first field past the end is named */
	expect_bad(dec, b.buf, hpa_end - 1, "ends before field 'hpa'");
	expect_bad(dec, b.buf, 1, "has no event type");
	/* the strings' bytes cut off */
	expect_bad(dec, b.buf, b.len - 1, "field 'region_name' points at");
	/* a string without its NUL */
	b.buf[b.len - 1] = 'x';
	expect_bad(dec, b.buf, b.len, "field 'region_name' has no NUL");
	b.buf[b.len - 1] = 0;
	/* a memdev longer than a memdev name */
	memcpy(&loc, b.buf + field(&b, "memdev")->offset, 4);
	loc = (loc & 0xffff) | 40u << 16;
	memset(b.buf + (loc & 0xffff), 'm', 39);
	b.buf[(loc & 0xffff) + 39] = 0;
	memcpy(b.buf + field(&b, "memdev")->offset, &loc, 4);
	expect_bad(dec, b.buf, (loc & 0xffff) + 40,
		   "field 'memdev' is 39 bytes long, at most 15 fit");
	builder_done(&b);

	media(&b, "cxl_general_media");
	/* an empty memdev or one with a slash is no device name */
	memcpy(&loc, b.buf + field(&b, "memdev")->offset, 4);
	b.buf[(loc & 0xffff) + 2] = '/';
	expect_bad(dec, b.buf, b.len, "memdev 'me/3' is not a device name");
	/* an event id of no added format */
	memcpy(b.buf, &(uint16_t){ 9999 }, 2);
	expect_bad(dec, b.buf, b.len, "event id 9999");
	builder_done(&b);
	hb_cxl_decoder_free(dec);
}

static int add_edited(struct hb_cxl_decoder *dec, const char *name, const char *from,
		      const char *to, struct hb_err *err)
{
	size_t len;
	char *fmt = slurp(name, &len), *at = strstr(fmt, from), *out;
	int r;

	assert_non_null(at);
	out = calloc(1, len + strlen(to) + 1);
	memcpy(out, fmt, (size_t)(at - fmt));
	strcat(out, to);
	strcat(out, at + strlen(from));
	r = hb_cxl_decoder_add_format(dec, out, strlen(out), err);
	free(out);
	free(fmt);
	return r;
}

static void test_cxl_decode_formats(void **state)
{
	struct hb_cxl_decoder *dec;
	struct hb_err err = { 0 };
	struct hb_cxl_record r;
	struct builder b;

	/* `region` (older kernels' spelling) for `region_name` */
	assert_int_equal(hb_cxl_decoder_new(&dec), 0);
	assert_false(hb_cxl_decoder_has(dec, HB_CXL_GENERAL_MEDIA));
	assert_int_equal(add_edited(dec, "cxl_general_media", " region_name;", " region;", &err), 0);
	assert_true(hb_cxl_decoder_has(dec, HB_CXL_GENERAL_MEDIA));
	media(&b, "cxl_general_media");
	assert_int_equal(hb_cxl_decode(dec, b.buf, b.len, &r, &err), 0);
	assert_string_equal(r.region, "region7");
	builder_done(&b);
	/* twice */
	add(dec, "cxl_dram");
	assert_int_equal(add_edited(dec, "cxl_dram", "u64 hpa;", "u64 hpa;", &err), -EEXIST);
	assert_non_null(strstr(err.msg, "cxl_dram: added twice"));
	hb_cxl_decoder_free(dec);

	/* a needed field missing, or of the wrong shape */
	assert_int_equal(hb_cxl_decoder_new(&dec), 0);
	assert_int_equal(add_edited(dec, "cxl_poison", "u64 dpa;", "u64 dpx;", &err), -EINVAL);
	assert_string_equal(err.msg, "format of cxl_poison: no field 'dpa'");
	assert_int_equal(add_edited(dec, "cxl_overflow", "__data_loc char[] memdev;", "u32 memdev;",
				    &err),
			 -EINVAL);
	assert_string_equal(err.msg, "format of cxl_overflow: field 'memdev' is not a dynamic "
				     "string (__data_loc)");
	/* an event we do not decode */
	assert_int_equal(add_edited(dec, "cxl_overflow", "name: cxl_overflow", "name: cxl_other",
				    &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "cxl_other: not an event hotbridge decodes"));
	/* not a format at all */
	assert_int_equal(hb_cxl_decoder_add_format(dec, "garbage", 7, &err), -EINVAL);
	assert_int_equal(hb_cxl_decode(dec, "12345678", 8, &r, &err), -ENOENT);
	hb_cxl_decoder_free(dec);
}

struct walked {
	struct hb_cxl_record rec[8];
	int ngood, nbad;
	char bad[HB_ERR_MSG_MAX];
};

static void on_walk(void *ud, const struct hb_cxl_record *rec, const struct hb_err *bad)
{
	struct walked *w = ud;

	if (rec && w->ngood < 8)
		w->rec[w->ngood++] = *rec;
	if (bad && !w->nbad++)
		snprintf(w->bad, sizeof(w->bad), "%s", bad->msg);
}

/* one event into a ring-buffer page: the kernel's header, then the data */
static size_t put_event(uint8_t *page, size_t at, const void *data, size_t len)
{
	size_t padded = (len + 3) & ~(size_t)3;
	uint32_t hdr;

	if (padded <= 28 * 4) {
		hdr = (uint32_t)(padded / 4); /* type_len, time delta 0 */
		memcpy(page + at, &hdr, 4);
		memcpy(page + at + 4, data, len);
		return at + 4 + padded;
	}
	hdr = 0; /* type_len 0: length follows */
	memcpy(page + at, &hdr, 4);
	memcpy(page + at + 4, &(uint32_t){ (uint32_t)padded + 4 }, 4);
	memcpy(page + at + 8, data, len);
	return at + 8 + padded;
}

static void test_cxl_ring_walks_a_page(void **state)
{
	struct hb_cxl_decoder *dec = all_formats();
	struct hb_cxl_ring *ring;
	uint8_t page[4096] = { 0 }, junk[4] = { 0xff, 0xff, 0, 0 };
	struct walked w = { 0 };
	struct builder b;
	size_t at = 16;
	uint64_t commit;

	assert_int_equal(hb_cxl_ring_new(&ring), 0);
	build(&b, "cxl_overflow");
	set_str(&b, "memdev", "mem1");
	set_str(&b, "host", "h");
	set_num(&b, "count", 9);
	at = put_event(page, at, b.buf, b.len); /* small: type_len */
	builder_done(&b);
	at = put_event(page, at, junk, sizeof(junk)); /* an id of no format */
	media(&b, "cxl_dram");
	at = put_event(page, at, b.buf, b.len); /* large: length word */
	builder_done(&b);
	commit = at - 16;
	memcpy(page, &(uint64_t){ 1000 }, 8);
	memcpy(page + 8, &commit, 8);
	assert_int_equal(hb_cxl_ring_walk(ring, dec, page, sizeof(page), on_walk, &w), 3);
	assert_int_equal(w.ngood, 2);
	assert_int_equal(w.rec[0].kind, HB_CXL_OVERFLOW);
	assert_int_equal(w.rec[0].count, 9);
	assert_string_equal(w.rec[0].memdev, "mem1");
	assert_int_equal(w.rec[1].kind, HB_CXL_DRAM);
	assert_int_equal(w.rec[1].hpa, 0x390012340ull);
	assert_int_equal(w.nbad, 1);
	assert_non_null(strstr(w.bad, "event id 65535"));
	/* a page shorter than its commit says */
	assert_int_equal(hb_cxl_ring_walk(ring, dec, page, (size_t)commit, on_walk, &w), -EBADMSG);
	assert_int_equal(hb_cxl_ring_walk(ring, dec, page, 8, on_walk, &w), -EBADMSG);
	hb_cxl_ring_free(ring);
	hb_cxl_decoder_free(dec);
}

/*
 * The events of tests/data/tracefs/6.12/cxltest, captured in the cxl_test
 * guest: one trace_pipe_raw page and the format files of the same boot.
 * The expected fields are the kernel's own rendering of the same events
 * (trace.txt, the instance's `trace`), in the same order.
 */
#define CAPTURED "tracefs/6.12/cxltest"

static const struct captured {
	enum hb_cxl_kind kind;
	const char *memdev, *host, *region;
	uint64_t dpa, hpa, dpa_length;
	uint8_t descriptor, trace_type;
	uint16_t count;
	uint64_t first_ts, last_ts;
} captured[] = {
	{ HB_CXL_POISON, "mem0", "cxl_mem.0", "region0", 0x10000, 0xf010020000ULL, 0x40, 0, 1, 0, 0,
	  0 },
	{ HB_CXL_POISON, "mem0", "cxl_mem.0", "region0", 0x20040, 0xf010040040ULL, 0x40, 0, 1, 0, 0,
	  0 },
	{ HB_CXL_POISON, "mem3", "cxl_mem.2", "region2", 0x40001000, 0xf0d0002000ULL, 0x40, 0, 1, 0,
	  0, 0 },
	{ HB_CXL_POISON, "mem4", "cxl_mem.6", "region2", 0x40003000, 0xf0d0006100ULL, 0x40, 0, 1, 0,
	  0, 0 },
	{ HB_CXL_POISON, "mem5", "cxl_mem.3", "", 0x5000, 0xffffffffffffffffULL, 0x40, 0, 1, 0, 0, 0 },
	{ HB_CXL_DRAM, "mem0", "cxl_mem.0", "region0", 0x8000, 0xf010010000ULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_OVERFLOW, "mem0", "cxl_mem.0", "", 0, 0, 0, 0, 0, 0, 1796483341990965264ULL,
	  1796483345990966827ULL },
	{ HB_CXL_DRAM, "mem0", "cxl_mem.0", "region0", 0x8000, 0xf010010000ULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_GENERAL_MEDIA, "mem0", "cxl_mem.0", "region0", 0x2000, 0xf010004000ULL, 64, 1, 0,
	  0, 0, 0 },
	{ HB_CXL_DRAM, "mem0", "cxl_mem.0", "region0", 0x8000, 0xf010010000ULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_GENERAL_MEDIA, "mem0", "cxl_mem.0", "region0", 0x2000, 0xf010004000ULL, 64, 1, 0,
	  0, 0, 0 },
	{ HB_CXL_DRAM, "mem2", "cxl_mem.4", "region0", 0x8000, 0xf010011000ULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_OVERFLOW, "mem2", "cxl_mem.4", "", 0, 0, 0, 0, 0, 0, 1796483341995541373ULL,
	  1796483345995541904ULL },
	{ HB_CXL_DRAM, "mem2", "cxl_mem.4", "region0", 0x8000, 0xf010011000ULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_GENERAL_MEDIA, "mem2", "cxl_mem.4", "region0", 0x2000, 0xf010005000ULL, 64, 1, 0,
	  0, 0, 0 },
	{ HB_CXL_DRAM, "mem2", "cxl_mem.4", "region0", 0x8000, 0xf010011000ULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_GENERAL_MEDIA, "mem2", "cxl_mem.4", "region0", 0x2000, 0xf010005000ULL, 64, 1, 0,
	  0, 0, 0 },
	{ HB_CXL_DRAM, "mem3", "cxl_mem.2", "", 0x8000, 0xffffffffffffffffULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_OVERFLOW, "mem3", "cxl_mem.2", "", 0, 0, 0, 0, 0, 0, 1796483341996178413ULL,
	  1796483345996178613ULL },
	{ HB_CXL_DRAM, "mem3", "cxl_mem.2", "", 0x8000, 0xffffffffffffffffULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_GENERAL_MEDIA, "mem3", "cxl_mem.2", "", 0x2000, 0xffffffffffffffffULL, 64, 1, 0, 0,
	  0, 0 },
	{ HB_CXL_DRAM, "mem3", "cxl_mem.2", "", 0x8000, 0xffffffffffffffffULL, 64, 2, 0, 0, 0, 0 },
	{ HB_CXL_GENERAL_MEDIA, "mem3", "cxl_mem.2", "", 0x2000, 0xffffffffffffffffULL, 64, 1, 0, 0,
	  0, 0 },
};

struct all_walked {
	struct hb_cxl_record rec[64];
	size_t n, nbad;
};

static void on_captured(void *ud, const struct hb_cxl_record *rec, const struct hb_err *bad)
{
	struct all_walked *w = ud;

	if (bad) {
		print_error("undecodable: %s\n", bad->msg);
		w->nbad++;
	} else if (w->n < 64) {
		w->rec[w->n++] = *rec;
	}
}

static void test_cxl_ring_captured_page(void **state)
{
	struct hb_cxl_decoder *dec;
	struct hb_cxl_ring *ring;
	struct all_walked w = { 0 };
	size_t len, n = sizeof(captured) / sizeof(captured[0]);
	char *page;

	assert_int_equal(hb_cxl_decoder_new(&dec), 0);
	for (int k = 0; k < HB_CXL_KIND_MAX; k++) {
		struct hb_err err = { 0 };
		char file[256];
		char *fmt;

		snprintf(file, sizeof(file), "%s.format", hb_cxl_kind_event(k));
		fmt = slurp_in(CAPTURED, file, &len);
		if (hb_cxl_decoder_add_format(dec, fmt, len, &err) < 0)
			fail_msg("%s: %s", file, err.msg);
		free(fmt);
	}
	page = slurp_in(CAPTURED, "cpu0.page", &len);
	assert_int_equal(len, 4096);
	assert_int_equal(hb_cxl_ring_new(&ring), 0);
	assert_int_equal(hb_cxl_ring_walk(ring, dec, page, len, on_captured, &w), (int)n);
	assert_int_equal(w.nbad, 0);
	assert_int_equal(w.n, n);
	for (size_t i = 0; i < n; i++) {
		const struct captured *c = &captured[i];
		const struct hb_cxl_record *r = &w.rec[i];

		assert_int_equal(r->kind, c->kind);
		assert_string_equal(r->memdev, c->memdev);
		assert_string_equal(r->host, c->host);
		assert_string_equal(r->region, c->region);
		assert_int_equal(r->dpa, c->dpa);
		assert_int_equal(r->hpa, c->kind == HB_CXL_OVERFLOW ? HB_ADDR_NONE : c->hpa);
		assert_int_equal(r->dpa_length, c->dpa_length);
		assert_int_equal(r->descriptor, c->descriptor);
		assert_int_equal(r->trace_type, c->trace_type);
		assert_int_equal(r->count, c->count);
		assert_int_equal(r->first_ts, c->first_ts);
		assert_int_equal(r->last_ts, c->last_ts);
	}
	free(page);
	hb_cxl_ring_free(ring);
	hb_cxl_decoder_free(dec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxl_decode_media_events),
		cmocka_unit_test(test_cxl_decode_poison_and_overflow),
		cmocka_unit_test(test_cxl_decode_refuses_hostile_records),
		cmocka_unit_test(test_cxl_decode_formats),
		cmocka_unit_test(test_cxl_ring_walks_a_page),
		cmocka_unit_test(test_cxl_ring_captured_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
