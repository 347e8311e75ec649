// SPDX-License-Identifier: MIT
/*
 * The CHMU driver against the emulated CHMU: capability decoding,
 * programming refusals, hotlist ring wrap and overflow, counter widths,
 * unit sizes from 4 KiB to 256 MiB, always-on mode, a hostile device, and
 * the recall of the hottest units on a Zipf workload against the
 * emulator's ground truth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "chmu/chmu.h"
#include "chmu/regs.h"
#include "emul/emul.h"
#include "devices.h"

#define MS 1000000ULL
#define GIB (1ULL << 30)

struct rig {
	struct hb_chmu_emul *emu;
	struct hb_chmu *drv;
	struct hb_regwin win;
	struct hb_err err;
};

static void rig_open(struct rig *r, const struct hb_chmu_emul_params *p)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(hb_chmu_emul_new(p, &r->emu, &r->err), 0);
	hb_chmu_emul_window(r->emu, &r->win);
	assert_int_equal(hb_chmu_open(&r->win, 0, "mem0", &r->drv, &r->err), 0);
}

static void rig_close(struct rig *r)
{
	hb_chmu_free(r->drv);
	hb_chmu_emul_free(r->emu);
}

static const struct hb_chmu_range whole = { 0, GIB };

static struct hb_chmu_config cfg_default(void)
{
	return (struct hb_chmu_config){
		.unit_size = 4096,
		.epoch_ns = 100 * MS,
		.threshold = 1,
		.ds_factor = 1,
		.mode = HB_CHMU_MODE_EPOCH,
		.ranges = &whole,
		.nranges = 1,
	};
}

/* QEMU's capabilities, but with down-sampling factor 1 allowed too */
static struct hb_chmu_emul_params params(void)
{
	struct hb_chmu_emul_params p;

	hb_chmu_emul_params_default(&p);
	p.ds_factors |= 1;
	return p;
}

static void test_chmu_decodes_the_capabilities(void **state)
{
	struct hb_chmu_emul_params p;
	const struct hb_chmu_caps *k;
	struct rig r;
	char buf[64];

	hb_chmu_emul_params_default(&p);
	rig_open(&r, &p);
	k = hb_chmu_caps(r.drv);
	assert_int_equal(k->version, 1);
	assert_int_equal(k->instances, 1);
	assert_int_equal(k->hotlist_size, 1024);
	assert_int_equal(k->unit_sizes, 0x30);
	assert_int_equal(k->ds_factors, 0x20);
	assert_int_equal(k->min_epoch_ns, 100 * MS);
	assert_int_equal(k->max_epoch_ns, 100000 * MS);
	assert_int_equal(k->counter_width, 16);
	assert_true(k->epoch_based);
	assert_false(k->always_on);
	assert_int_equal(k->m2s, 0x3f);
	assert_int_equal(k->range_off, 0x70);
	assert_int_equal(k->hotlist_off, 0x78);
	hb_chmu_format_sizes(k->unit_sizes, 8, buf, sizeof(buf));
	assert_string_equal(buf, "4096,8192");
	rig_close(&r);
}

static void expect_refusal(struct rig *r, const struct hb_chmu_config *c, const char *needle)
{
	int ret = hb_chmu_configure(r->drv, c, &r->err);

	if (ret != -EINVAL)
		fail_msg("configure returned %d, not -EINVAL, where '%s' was expected", ret, needle);
	if (!strstr(r->err.msg, needle))
		fail_msg("'%s' does not contain '%s'", r->err.msg, needle);
}

static void test_chmu_refuses_what_the_capabilities_do_not_allow(void **state)
{
	struct hb_chmu_emul_params p;
	struct hb_chmu_config c;
	struct hb_chmu_range far = { 20 * GIB, 4096 };
	struct rig r;

	hb_chmu_emul_params_default(&p); /* ds 32 only, epoch mode only */
	rig_open(&r, &p);
	c = cfg_default(), c.ds_factor = 32;
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	c.unit_size = 16384;
	expect_refusal(&r, &c, "unit size 16384 not supported (allowed: 4096,8192)");
	c = cfg_default();
	expect_refusal(&r, &c, "down-sampling factor 1 not supported (allowed: 32)");
	c = cfg_default(), c.ds_factor = 32, c.epoch_ns = 50 * MS;
	expect_refusal(&r, &c, "epoch 50000000 ns not supported (allowed: 100000000..100000000000");
	c.epoch_ns = 100 * MS + 1;
	expect_refusal(&r, &c, "epoch 100000001 ns");
	c = cfg_default(), c.ds_factor = 32, c.mode = HB_CHMU_MODE_ALWAYS_ON;
	expect_refusal(&r, &c, "always-on mode not supported");
	c = cfg_default(), c.ds_factor = 32, c.threshold = 0;
	expect_refusal(&r, &c, "at least 1");
	c.threshold = 70000;
	expect_refusal(&r, &c, "exceeds the 16-bit counters (max 65535)");
	c = cfg_default(), c.ds_factor = 32, c.ranges = &far;
	expect_refusal(&r, &c, "beyond the 16 GiB");
	c.nranges = 0;
	expect_refusal(&r, &c, "no DPA ranges");
	c = cfg_default(), c.ds_factor = 32, c.fill_threshold = 1024;
	expect_refusal(&r, &c, "fill threshold 1024");
	rig_close(&r);
}

static size_t drain_all(struct rig *r, struct hb_hot_record *out, size_t max)
{
	size_t n = 0, got;

	do {
		assert_int_equal(hb_chmu_drain(r->drv, out + n, max - n > 7 ? 7 : max - n, &got,
					       &r->err),
				 0);
		n += got;
	} while (got && n < max);
	return n;
}

static void test_chmu_ring_wraps_and_partial_drains_lose_nothing(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_hot_record rec[64];
	uint64_t seen = 0;
	struct rig r;

	p.hotlist_size = 16;
	rig_open(&r, &p);
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	for (int epoch = 0; epoch < 6; epoch++) {
		size_t n;

		for (int u = 0; u < 10; u++)
			hb_chmu_emul_access(r.emu, (uint64_t)(epoch * 10 + u) * 4096 + 100,
					    (uint64_t)u + 1);
		hb_chmu_emul_advance(r.emu, 100 * MS);
		n = drain_all(&r, rec, 64);
		assert_int_equal(n, 10);
		for (size_t i = 0; i < n; i++) {
			uint64_t unit = rec[i].addr / 4096;

			assert_string_equal(rec[i].memdev, "mem0");
			assert_int_equal(rec[i].space, HB_SPACE_DPA);
			assert_int_equal(rec[i].len, 4096);
			assert_int_equal(unit / 10, epoch);
			assert_int_equal(rec[i].count, unit % 10 + 1);
			seen |= 1ULL << unit;
		}
	}
	/* 60 entries through a 16-slot ring: it wrapped three times */
	assert_int_equal(seen, (1ULL << 60) - 1);
	assert_int_equal(hb_chmu_stats(r.drv)->overflows, 0);
	assert_int_equal(hb_chmu_stats(r.drv)->entries, 60);
	rig_close(&r);
}

static void test_chmu_overflow_is_reported_and_counted(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_hot_record rec[64];
	struct rig r;
	size_t n;

	p.hotlist_size = 16;
	rig_open(&r, &p);
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	for (int u = 0; u < 40; u++)
		hb_chmu_emul_access(r.emu, (uint64_t)u * 4096, 3);
	hb_chmu_emul_advance(r.emu, 100 * MS);
	n = drain_all(&r, rec, 64);
	assert_int_equal(n, 15); /* one slot stays empty */
	assert_int_equal(hb_chmu_stats(r.drv)->overflows, 1);
	assert_true(hb_chmu_stats(r.drv)->fill_events >= 1);
	/* the status was cleared: a quiet epoch adds no overflow */
	hb_chmu_emul_advance(r.emu, 100 * MS);
	n = drain_all(&r, rec, 64);
	assert_int_equal(n, 0);
	assert_int_equal(hb_chmu_stats(r.drv)->overflows, 1);
	rig_close(&r);
}

static void test_chmu_counter_widths_8_16_32(void **state)
{
	static const unsigned int widths[] = { 8, 16, 32 };

	for (size_t i = 0; i < 3; i++) {
		struct hb_chmu_emul_params p = params();
		struct hb_chmu_config c = cfg_default();
		struct hb_hot_record rec[4];
		uint64_t max = (1ULL << widths[i]) - 1;
		struct rig r;
		size_t n;

		p.counter_width = widths[i];
		rig_open(&r, &p);
		assert_int_equal(hb_chmu_caps(r.drv)->counter_width, widths[i]);
		assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
		/* the last unit of 1 GiB: the index needs 18 bits above the count */
		hb_chmu_emul_access(r.emu, GIB - 4096, 300);
		hb_chmu_emul_access(r.emu, 5 * 4096, 7);
		hb_chmu_emul_advance(r.emu, 100 * MS);
		assert_int_equal(hb_chmu_drain(r.drv, rec, 4, &n, &r.err), 0);
		assert_int_equal(n, 2);
		for (size_t k = 0; k < n; k++) {
			if (rec[k].addr == GIB - 4096)
				assert_int_equal(rec[k].count, 300 > max ? max : 300);
			else
				assert_true(rec[k].addr == 5 * 4096 && rec[k].count == 7);
		}
		rig_close(&r);
	}
}

/*
 * review S2: a register image whose STATUS counter width depends on the
 * unit size programmed, as the RFC driver allows ("Only after granual is
 * set can the width be known"): `before` bits until CONF1 is written, the
 * emulator's own width after (it writes its entries at that width), or
 * `now` when set (a width that changes later).
 */
struct late_width {
	struct hb_regwin inner, win;
	unsigned int before, now;
	bool unit_programmed;
};

static int lw_read(void *priv, uint64_t off, unsigned int width, uint64_t *val)
{
	struct late_width *l = priv;
	int r = l->inner.read(l->inner.priv, off, width, val);
	unsigned int w = !l->unit_programmed ? l->before : l->now;

	if (r == 0 && off == CHMU_INST0 + CHMU_STATUS && w)
		*val = (*val & ~STATUS_SET_COUNTER_WIDTH(0xff)) | STATUS_SET_COUNTER_WIDTH(w);
	return r;
}

static int lw_write(void *priv, uint64_t off, unsigned int width, uint64_t val)
{
	struct late_width *l = priv;

	if (off == CHMU_INST0 + CHMU_CONF1)
		l->unit_programmed = true;
	return l->inner.write(l->inner.priv, off, width, val);
}

static void late_width_open(struct rig *r, struct late_width *l, unsigned int device_width,
			    unsigned int before)
{
	struct hb_chmu_emul_params p = params();

	memset(r, 0, sizeof(*r));
	memset(l, 0, sizeof(*l));
	p.counter_width = device_width;
	assert_int_equal(hb_chmu_emul_new(&p, &r->emu, &r->err), 0);
	hb_chmu_emul_window(r->emu, &l->inner);
	l->before = before;
	l->win = (struct hb_regwin){
		.read = lw_read, .write = lw_write, .priv = l, .size = l->inner.size
	};
	assert_int_equal(hb_chmu_open(&l->win, 0, "mem0", &r->drv, &r->err), 0);
	assert_int_equal(hb_chmu_caps(r->drv)->counter_width, before);
}

static void test_chmu_decodes_with_the_counter_width_read_after_configure(void **state)
{
	struct hb_chmu_config c = cfg_default();
	struct hb_hot_record rec[4];
	struct late_width l;
	struct rig r;
	size_t n;

	late_width_open(&r, &l, 20, 16);
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	hb_chmu_emul_access(r.emu, 0x5000, 3);
	hb_chmu_emul_access(r.emu, 0x20000000, 5);
	hb_chmu_emul_advance(r.emu, 100 * MS);
	assert_int_equal(hb_chmu_drain(r.drv, rec, 4, &n, &r.err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rec[0].addr, 0x5000); /* decoded at 16 bits: 0x50000 */
	assert_int_equal(rec[0].count, 3);
	assert_int_equal(rec[1].addr, 0x20000000);
	assert_int_equal(rec[1].count, 5);
	assert_int_equal(hb_chmu_caps(r.drv)->counter_width, 20);
	/* a threshold the 16-bit width of the open would refuse fits the 20 bits of 4 KiB units */
	c.threshold = 70000;
	if (hb_chmu_configure(r.drv, &c, &r.err) != 0)
		fail_msg("%s", r.err.msg);
	rig_close(&r);

	/* narrower once the unit is programmed: the threshold is checked against that */
	late_width_open(&r, &l, 8, 20);
	c.threshold = 1000;
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), -EINVAL);
	assert_non_null(strstr(r.err.msg, "threshold 1000 exceeds the 8-bit counters (max 255) of "
					  "unit size 4096"));
	rig_close(&r);
}

/* a width that changes while enabled: nothing is decoded with either, nothing is lost */
static void test_chmu_drain_refuses_a_counter_width_that_changes(void **state)
{
	struct hb_chmu_config c = cfg_default();
	struct hb_hot_record rec[4];
	struct late_width l;
	struct rig r;
	size_t n = 99;

	late_width_open(&r, &l, 20, 20);
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	hb_chmu_emul_access(r.emu, 0x5000, 3);
	hb_chmu_emul_advance(r.emu, 100 * MS);
	l.now = 16;
	assert_int_equal(hb_chmu_drain(r.drv, rec, 4, &n, &r.err), -EPROTO);
	assert_int_equal(n, 0);
	assert_non_null(strstr(r.err.msg, "counter width changed from 20 to 16 bits"));
	l.now = 0; /* back: the entry is still there (HEAD did not move) */
	assert_int_equal(hb_chmu_drain(r.drv, rec, 4, &n, &r.err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rec[0].addr, 0x5000);
	rig_close(&r);
}

static void test_chmu_unit_sizes_4k_to_256m(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct rig r;

	p.unit_sizes = ((1u << 21) - 1) & ~((1u << 4) - 1); /* 4 KiB (bit 4) .. 256 MiB (bit 20) */
	rig_open(&r, &p);
	for (unsigned int shift = 12; shift <= 28; shift++) {
		struct hb_chmu_config c = cfg_default();
		struct hb_hot_record rec[4];
		uint64_t unit = 1ULL << shift, dpa = 0x2345678 + 3 * (1ULL << 28) / 2;
		size_t n;

		c.unit_size = unit;
		assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
		assert_int_equal(hb_chmu_emul_unit_size(r.emu), unit);
		hb_chmu_emul_access(r.emu, dpa, 2);
		hb_chmu_emul_advance(r.emu, 100 * MS);
		assert_int_equal(hb_chmu_drain(r.drv, rec, 4, &n, &r.err), 0);
		assert_int_equal(n, 1);
		assert_int_equal(rec[0].addr, dpa & ~(unit - 1));
		assert_int_equal(rec[0].len, unit);
		assert_int_equal(rec[0].count, 2);
	}
	rig_close(&r);
}

static void test_chmu_always_on_reports_each_threshold_crossing(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_hot_record rec[8];
	struct rig r;
	size_t n;

	p.always_on = true;
	p.epoch_based = false;
	rig_open(&r, &p);
	c.mode = HB_CHMU_MODE_ALWAYS_ON;
	c.threshold = 10;
	expect_refusal(&r,
		       &(struct hb_chmu_config){ .unit_size = 4096,
						 .epoch_ns = 100 * MS,
						 .threshold = 1,
						 .ds_factor = 1,
						 .mode = HB_CHMU_MODE_EPOCH,
						 .ranges = &whole,
						 .nranges = 1 },
		       "epoch mode not supported");
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	hb_chmu_emul_access(r.emu, 0x1000, 25); /* crosses 10 twice */
	hb_chmu_emul_access(r.emu, 0x9000, 9);  /* never */
	assert_int_equal(hb_chmu_drain(r.drv, rec, 8, &n, &r.err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rec[0].addr, 0x1000);
	assert_int_equal(rec[0].count, 10);
	assert_int_equal(rec[1].count, 10);
	rig_close(&r);
}

static void test_chmu_tracks_only_the_programmed_ranges(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_chmu_range half = { 256ULL << 20, 128ULL << 20 };
	struct hb_hot_record rec[8];
	struct rig r;
	size_t n;

	rig_open(&r, &p);
	c.ranges = &half;
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	hb_chmu_emul_access(r.emu, 0x1000, 5);                  /* granule 0: untracked */
	hb_chmu_emul_access(r.emu, (256ULL << 20) + 0x1000, 5); /* in the range */
	hb_chmu_emul_access(r.emu, (448ULL << 20), 5);          /* granule 1, past the range */
	hb_chmu_emul_advance(r.emu, 100 * MS);
	assert_int_equal(hb_chmu_drain(r.drv, rec, 8, &n, &r.err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rec[0].addr, (256ULL << 20) + 0x1000);
	assert_int_equal(hb_chmu_stats(r.drv)->out_of_range, 1);
	rig_close(&r);
}

static void test_chmu_hostile_device_is_refused_not_trusted(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_chmu_emul *emu;
	struct hb_hot_record rec[4];
	struct hb_regwin w;
	struct hb_chmu *drv = NULL;
	struct hb_err err = { 0 };
	size_t n;

	p.bad_counter_width = 64;
	assert_int_equal(hb_chmu_emul_new(&p, &emu, &err), 0);
	hb_chmu_emul_window(emu, &w);
	assert_int_equal(hb_chmu_open(&w, 0, "mem0", &drv, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "counter width 64"));
	assert_int_equal(hb_chmu_open(&w, 1, "mem0", &drv, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "no instance 1"));
	hb_chmu_emul_free(emu);

	p = params();
	p.bad_head_tail = true;
	assert_int_equal(hb_chmu_emul_new(&p, &emu, &err), 0);
	hb_chmu_emul_window(emu, &w);
	assert_int_equal(hb_chmu_open(&w, 0, "mem0", &drv, &err), 0);
	assert_int_equal(hb_chmu_configure(drv, &c, &err), 0);
	assert_int_equal(hb_chmu_drain(drv, rec, 4, &n, &err), -EIO);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "outside a ring of 1024"));
	hb_chmu_free(drv);
	hb_chmu_emul_free(emu);
}

struct unit_count {
	uint64_t unit, count;
};

static int by_count_desc(const void *a, const void *b)
{
	const struct unit_count *x = a, *y = b;

	return x->count < y->count ? 1 :
	       x->count > y->count ? -1 :
				     (x->unit > y->unit) - (x->unit < y->unit);
}

static void zipf_recall(uint32_t ds, uint32_t threshold)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_workload_params wp = { .kind = HB_WORKLOAD_ZIPF,
					 .base = 0,
					 .size = 256ULL << 20,
					 .granule = 4096,
					 .skew = 1.1,
					 .seed = 7 };
	struct hb_workload *w;
	const uint64_t *truth;
	struct hb_hot_record *rec = calloc(1024, sizeof(*rec));
	struct unit_count *drv, *tru;
	size_t nunits, top = 100, hits = 0;
	struct rig r;

	rig_open(&r, &p);
	c.threshold = threshold;
	c.ds_factor = ds;
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	assert_int_equal(hb_workload_new(&wp, &w, &r.err), 0);
	nunits = hb_chmu_emul_truth(r.emu, &truth);
	drv = calloc(nunits, sizeof(*drv));
	tru = calloc(nunits, sizeof(*tru));
	for (size_t u = 0; u < nunits; u++)
		drv[u].unit = tru[u].unit = u;
	for (int epoch = 0; epoch < 10; epoch++) {
		size_t n;

		for (int i = 0; i < 200000; i++)
			hb_chmu_emul_access(r.emu, hb_workload_next(w), 1);
		hb_chmu_emul_advance(r.emu, 100 * MS);
		do {
			assert_int_equal(hb_chmu_drain(r.drv, rec, 1024, &n, &r.err), 0);
			for (size_t i = 0; i < n; i++)
				drv[rec[i].addr / 4096].count += rec[i].count;
		} while (n);
	}
	for (size_t u = 0; u < nunits; u++)
		tru[u].count = truth[u];
	qsort(drv, nunits, sizeof(*drv), by_count_desc);
	qsort(tru, nunits, sizeof(*tru), by_count_desc);
	for (size_t i = 0; i < top; i++)
		for (size_t j = 0; j < top; j++)
			hits += drv[i].unit == tru[j].unit;
	print_message("# Zipf 1.1, 2M accesses, down-sampling %u, threshold %u: recall of the top "
		      "%zu units %.3f (overflows %llu)\n",
		      ds, threshold, top, (double)hits / (double)top,
		      (unsigned long long)hb_chmu_stats(r.drv)->overflows);
	assert_true(hits >= 95);
	assert_int_equal(hb_chmu_stats(r.drv)->overflows, 0);
	free(rec);
	free(drv);
	free(tru);
	hb_workload_free(w);
	rig_close(&r);
}

static void test_chmu_zipf_top_units_recalled(void **state)
{
	zipf_recall(1, 16);
	zipf_recall(32, 2); /* QEMU's only factor */
}

static uint64_t host_overflows;
static size_t host_records;

static int count_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	host_records += n;
	return 0;
}

static void count_overflow(struct hb_host *h, uint64_t n)
{
	host_overflows += n;
}

static void quiet_log(struct hb_host *h, int prio, const char *fmt, ...)
{
}

/* one epoch of 40 hot units into a 16-entry hotlist, drained through a host */
static void overflow_epoch(struct rig *r, const struct hb_host_ops *ops)
{
	struct hb_hot_record buf[4];

	for (int u = 0; u < 40; u++)
		hb_chmu_emul_access(r->emu, (uint64_t)u * 4096, 3);
	hb_chmu_emul_advance(r->emu, 100 * MS);
	assert_int_equal(hb_chmu_drain_submit(r->drv, buf, HB_ARRAY_SIZE(buf), ops, NULL, NULL,
					      NULL, &r->err),
			 0);
}

/* the sources' drain tells an ABI 1.3 host of every overflow, and a 1.2 host nothing */
static void test_chmu_overflow_reaches_the_host_count_overflow(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_host_ops ops = {
		.abi_major = HB_DEVICE_ABI_MAJOR,
		.abi_minor = HB_DEVICE_ABI_MINOR,
		.size = sizeof(ops),
		.log = quiet_log,
		.submit = count_submit,
		.count_overflow = count_overflow,
	};
	struct rig r;

	p.hotlist_size = 16;
	rig_open(&r, &p);
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	host_overflows = host_records = 0;
	overflow_epoch(&r, &ops);
	assert_int_equal(host_records, 15);
	assert_int_equal(host_overflows, 1);
	overflow_epoch(&r, &ops);
	assert_int_equal(host_overflows, 2);
	assert_int_equal(hb_chmu_stats(r.drv)->overflows, 2);
	/* a quiet epoch: no overflow, nothing counted */
	{
		struct hb_hot_record buf[4];

		hb_chmu_emul_advance(r.emu, 100 * MS);
		assert_int_equal(hb_chmu_drain_submit(r.drv, buf, 4, &ops, NULL, NULL, NULL, &r.err),
				 0);
		assert_int_equal(host_overflows, 2);
	}
	/* a 1.2 host: its table ends before count_overflow, which is never read */
	ops.abi_minor = 2;
	ops.size = offsetof(struct hb_host_ops, count_overflow);
	ops.count_overflow = NULL; /* the test crashes if called anyway */
	overflow_epoch(&r, &ops);
	assert_int_equal(host_overflows, 2);
	assert_int_equal(hb_chmu_stats(r.drv)->overflows, 3);
	rig_close(&r);
}

/* the chmu source's /proc/iomem check after a drain (review C1): it refuses */
static int claimed_after(void *arg, size_t n, struct hb_err *err)
{
	*(size_t *)arg = n;
	return hb_err_set(err, -EBUSY, "claimed during the drain");
}

/* a batch the check after the drain refuses never reaches the host */
static void test_chmu_drain_drops_a_batch_the_after_check_refuses(void **state)
{
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	struct hb_host_ops ops = {
		.abi_major = HB_DEVICE_ABI_MAJOR,
		.abi_minor = HB_DEVICE_ABI_MINOR,
		.size = sizeof(ops),
		.log = quiet_log,
		.submit = count_submit,
		.count_overflow = count_overflow,
	};
	struct hb_hot_record buf[8];
	size_t seen = 0;
	struct rig r;

	rig_open(&r, &p);
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	for (int u = 0; u < 3; u++)
		hb_chmu_emul_access(r.emu, (uint64_t)u * 4096, 3);
	hb_chmu_emul_advance(r.emu, 100 * MS);
	host_records = 0;
	assert_int_equal(hb_chmu_drain_submit(r.drv, buf, HB_ARRAY_SIZE(buf), &ops, NULL,
					      claimed_after, &seen, &r.err),
			 -EBUSY);
	assert_int_equal(seen, 3);
	assert_int_equal(host_records, 0);
	assert_string_equal(r.err.msg, "claimed during the drain");
	rig_close(&r);
}

/* ---- the hardware source over a BAR image: discovery + mmap + driver ---- */

static struct hb_hot_record hw_got[16];
static size_t hw_ngot;
static char hw_log[512];

static int hw_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	for (size_t i = 0; i < n && hw_ngot < 16; i++)
		hw_got[hw_ngot++] = r[i];
	return 0;
}

static void hw_logf(struct hb_host *h, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hw_log, sizeof(hw_log), fmt, ap);
	va_end(ap);
}

static void test_chmu_hardware_source_maps_the_bar_it_discovers(void **state)
{
	static const struct hb_host_ops host = {
		.abi_major = 1, .size = sizeof(host), .log = hw_logf, .submit = hw_submit
	};
	const struct hb_device_ops *ops = &hb_source_chmu_test;
	struct hb_chmu_emul_params p = params();
	struct hb_chmu_config c = cfg_default();
	char root[] = "/tmp/hb-test-bar-XXXXXX", path[512], dump[512], sysroot[300];
	const char *prm[] = { dump,        sysroot, "dpa_ranges=0x0+0x40000000",
			      "unit=4096", "ds=1",  "threshold=1",
			      NULL };
	struct hb_dev_info info = { .size = sizeof(info),
				    .name = "cxl0",
				    .memdev = "mem0",
				    .pci_bdf = "0000:0d:00.0",
				    .params = prm };
	uint8_t *img = calloc(1, 1u << 20);
	struct rig r;
	void *priv;
	FILE *f;

	/* a device state: the emulator, programmed, with three hot units waiting */
	rig_open(&r, &p);
	assert_int_equal(hb_chmu_configure(r.drv, &c, &r.err), 0);
	hb_chmu_emul_access(r.emu, 0x5000, 3);
	hb_chmu_emul_access(r.emu, 0x9000, 4);
	hb_chmu_emul_access(r.emu, 0x20000000, 5);
	hb_chmu_emul_advance(r.emu, 100 * MS);
	for (uint64_t off = 0; off + 8 <= r.win.size; off += 8) {
		uint64_t v = 0, h16 = 0, t16 = 0;

		if ((off - 0x10) % 0x10000 == 0x68 || off == 0x10 + 0x68) {
			r.win.read(r.win.priv, off, 2, &h16);
			r.win.read(r.win.priv, off + 2, 2, &t16);
			v = h16 | t16 << 16;
		} else {
			r.win.read(r.win.priv, off, 8, &v);
		}
		memcpy(img + off, &v, 8);
	}
	rig_close(&r);

	/* the BAR: resource2 of 0000:0d:00.0 holds it at 0x10000 (the dump's CHMU block) */
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "mkdir -p %s/sys/bus/pci/devices/0000:0d:00.0", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:0d:00.0/resource2", root);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0x10000, SEEK_SET), 0);
	assert_int_equal(fwrite(img, 1, 1u << 20, f), 1u << 20);
	fclose(f);
	snprintf(dump, sizeof(dump), "pci_dump=%s/pci/qemu72-cxl-type3-chmu.lspci",
		 getenv("HB_TEST_DATA"));
	snprintf(sysroot, sizeof(sysroot), "sysfs_root=%s", root);

	hw_ngot = 0;
	assert_non_null(ops);
	if (ops->open(&host, NULL, &info, &priv) != 0)
		fail_msg("open: %s", hw_log);
	assert_int_equal(ops->poll(priv), 0);
	assert_int_equal(hw_ngot, 3);
	assert_int_equal(hw_got[0].addr, 0x5000);
	assert_int_equal(hw_got[1].count, 4);
	assert_int_equal(hw_got[2].addr, 0x20000000);
	assert_string_equal(hw_got[2].memdev, "mem0");
	ops->close(priv);

	/* the same function in QEMU 7.2's real config space has no CHMU block */
	snprintf(dump, sizeof(dump), "pci_dump=%s/pci/qemu72-cxl-type3.lspci",
		 getenv("HB_TEST_DATA"));
	assert_int_equal(ops->open(&host, NULL, &info, &priv), -ENODEV);
	assert_non_null(strstr(hw_log, "without a CHMU register block"));
	/* defect 21: a PCI address with no device at all says so; the host names the source */
	info.pci_bdf = "0000:0e:00.0";
	assert_int_equal(ops->open(&host, NULL, &info, &priv), -ENODEV);
	assert_string_equal(hw_log, "chmu: no PCI device 0000:0e:00.0");
	info.pci_bdf = "0000:0d:00.0";
	prm[2] = "unit=4096";
	assert_int_equal(ops->open(&host, NULL, &info, &priv), -EINVAL);
	assert_non_null(strstr(hw_log, "dpa_ranges= is required"));
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
	free(img);
}

/* ---- issue 42: entries past the memdev's capacity ---- */

static uint64_t img_bad;
static unsigned int img_warnings;

static void img_count_bad(struct hb_host *h, uint64_t n)
{
	img_bad += n;
}

static void img_logf(struct hb_host *h, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hw_log, sizeof(hw_log), fmt, ap);
	va_end(ap);
	img_warnings += prio == HB_LOG_WARNING && strstr(hw_log, "past the memdev's capacity");
}

/*
 * A register image (tests/data/chmu-img/beyond-capacity.bin) whose hotlist
 * holds four real entries and the same four garbled: with the memdev's
 * capacity the source submits the four, drops the others as bad input of
 * their own (not the range's out_of_range) and says why once, however
 * many drains bring more.
 */
static void test_chmu_source_counts_entries_past_the_capacity_apart(void **state)
{
	struct hb_host_ops host = { .abi_major = HB_DEVICE_ABI_MAJOR,
				    .abi_minor = HB_DEVICE_ABI_MINOR,
				    .size = sizeof(host),
				    .log = img_logf,
				    .submit = hw_submit,
				    .count_bad = img_count_bad };
	const struct hb_device_ops *ops = &hb_source_chmu_test;
	char root[] = "/tmp/hb-test-img-XXXXXX", path[512], dump[512], sysroot[300];
	const char *prm[] = { dump,   sysroot,       "dpa_ranges=0x0+0x20000000", "unit=4096",
			      "ds=1", "threshold=1", "capacity=0x20000000",       NULL };
	struct hb_dev_info info = { .size = sizeof(info),
				    .name = "cxl0",
				    .memdev = "mem0",
				    .pci_bdf = "0000:0d:00.0",
				    .params = prm };
	uint8_t *img = calloc(1, 1u << 20);
	const uint16_t head0 = 0;
	size_t len;
	void *priv;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/chmu-img/beyond-capacity.bin", getenv("HB_TEST_DATA"));
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(img, 1, 1u << 20, f);
	fclose(f);
	assert_int_equal(len, 0x10 + 0x78 + 16 * 8);
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "mkdir -p %s/sys/bus/pci/devices/0000:0d:00.0", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:0d:00.0/resource2", root);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0x10000, SEEK_SET), 0);
	assert_int_equal(fwrite(img, 1, 1u << 20, f), 1u << 20);
	fclose(f);
	snprintf(dump, sizeof(dump), "pci_dump=%s/pci/qemu72-cxl-type3-chmu.lspci",
		 getenv("HB_TEST_DATA"));
	snprintf(sysroot, sizeof(sysroot), "sysfs_root=%s", root);

	hw_ngot = 0;
	img_bad = 0;
	img_warnings = 0;
	if (ops->open(&host, NULL, &info, &priv) != 0)
		fail_msg("open: %s", hw_log);
	assert_int_equal(ops->poll(priv), 0);
	assert_int_equal(hw_ngot, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(hw_got[i].addr, (i + 1) * 4096);
		assert_int_equal(hw_got[i].count, 0x101 + i);
	}
	assert_int_equal(img_bad, 4);
	assert_int_equal(img_warnings, 1);
	if (!strstr(hw_log, "4 hotlist entries name a DPA past the memdev's capacity (0x20000000") ||
	    !strstr(hw_log, "width other than 8 bytes"))
		fail_msg("%s", hw_log);
	/* the device brings them again (HEAD back to 0): counted, not said again */
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0x10000 + 0x10 + 0x68, SEEK_SET), 0);
	assert_int_equal(fwrite(&head0, 2, 1, f), 1);
	fclose(f);
	assert_int_equal(ops->poll(priv), 0);
	assert_int_equal(hw_ngot, 8);
	assert_int_equal(img_bad, 8);
	assert_int_equal(img_warnings, 1);
	ops->close(priv);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
	free(img);
}

/*
 * The daemon's "chmu" takes no test hooks: pci_dump= and sysfs_root= are
 * refused by name before anything is read; only hb_source_chmu_test (test
 * binaries) takes them.
 */
static void test_chmu_daemon_source_refuses_the_test_hooks(void **state)
{
	static const struct hb_host_ops host = {
		.abi_major = 1, .size = sizeof(host), .log = hw_logf, .submit = hw_submit
	};
	const struct hb_device_ops *ops = hb_builtin_find("chmu");
	const char *hooks[] = { "pci_dump=/nonexistent.lspci", "sysfs_root=/nonexistent" };
	const char *const *listed = hb_builtin_params("chmu");
	void *priv = NULL;

	assert_non_null(ops);
	assert_ptr_not_equal(ops, &hb_source_chmu_test);
	for (size_t i = 0; i < 2; i++) {
		const char *prm[] = { "dpa_ranges=0x0+0x40000000", hooks[i], NULL };
		struct hb_dev_info info = {
			.size = sizeof(info), .name = "cxl0", .pci_bdf = "0000:0d:00.0", .params = prm
		};
		char want[64];

		hw_log[0] = '\0';
		assert_int_equal(ops->open(&host, NULL, &info, &priv), -EINVAL);
		snprintf(want, sizeof(want), "%.*s= is a test-only parameter",
			 (int)(strchr(hooks[i], '=') - hooks[i]), hooks[i]);
		if (!strstr(hw_log, want))
			fail_msg("'%s' not in '%s'", want, hw_log);
	}
	/* nor are they among the parameters check-config accepts */
	for (; *listed; listed++)
		assert_true(strcmp(*listed, "pci_dump") && strcmp(*listed, "sysfs_root"));
	assert_non_null(hb_builtin_test_params("chmu"));
	assert_null(hb_builtin_test_params("replay"));
}

/*
 * trial42: a DPA range past the memdev's capacity (known from capacity=,
 * which the daemon fills from the topology) is a range the device counts
 * nothing in: the source would run and never report. Refused by the
 * start-up check, for chmu's dpa_ranges as for cxl-hmu's dpa_range.
 */
static void test_chmu_ranges_past_the_capacity_are_refused(void **state)
{
	static const struct {
		const char *type, *range;
		int want;
	} cases[] = {
		{ "chmu", "dpa_ranges=0x40000000+0x10000000", -EINVAL }, /* all past 512 MiB */
		{ "chmu", "dpa_ranges=0x0+0x10000000,0x10000000+0x20000000", -EINVAL }, /* its end */
		{ "chmu", "dpa_ranges=0x0+0x20000000", 0 }, /* all of it */
		{ "cxl-hmu", "dpa_range=0x40000000+0x10000000", -EINVAL },
		{ "cxl-hmu", "dpa_range=0x10000000+0x10000000", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int known = 0; known < 2; known++) {
			const char *prm[] = { cases[i].range, known ? "capacity=0x20000000" : NULL,
					      NULL };
			struct hb_dev_info info = { .size = sizeof(info),
						    .name = "c",
						    .memdev = "mem0",
						    .pci_bdf = "0000:0d:00.0",
						    .params = prm };
			struct hb_err err = { 0 };
			int r = !strcmp(cases[i].type, "chmu") ?
					hb_source_chmu_check(&info, &err) :
					hb_builtin_check("cxl-hmu", &info, &err);

			/* unknown capacity: nothing to hold the range against */
			if (r != (known ? cases[i].want : 0))
				fail_msg("%s %s, capacity %s: %d (%s)", cases[i].type,
					 cases[i].range, known ? "known" : "unknown", r, err.msg);
			if (r &&
			    !strstr(err.msg, "runs past the memdev's capacity (0x20000000 bytes)"))
				fail_msg("%s", err.msg);
		}
	}
}

/* trial42 #4: access= takes the code as every integer parameter is written */
static void test_chmu_access_code_in_decimal_or_hex(void **state)
{
	static const struct {
		const char *s;
		int r;
		unsigned int code;
	} cases[] = { { "rw", 0, 6 },        { "nontee-r", 0, 1 }, { "6", 0, 6 },
		      { "0x6", 0, 6 },       { "0X3", 0, 3 },      { "06", -EINVAL, 0 },
		      { "0x7", -EINVAL, 0 }, { "0", -EINVAL, 0 },  { "tee-rw", -EINVAL, 0 } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hb_err err = { 0 };
		unsigned int code = 99;
		int r = hb_chmu_parse_access("chmu", cases[i].s, &code, &err);

		if (r != cases[i].r || code != cases[i].code)
			fail_msg("access=%s: %d, code %u (%s)", cases[i].s, r, code, err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chmu_decodes_the_capabilities),
		cmocka_unit_test(test_chmu_refuses_what_the_capabilities_do_not_allow),
		cmocka_unit_test(test_chmu_ring_wraps_and_partial_drains_lose_nothing),
		cmocka_unit_test(test_chmu_overflow_is_reported_and_counted),
		cmocka_unit_test(test_chmu_overflow_reaches_the_host_count_overflow),
		cmocka_unit_test(test_chmu_drain_drops_a_batch_the_after_check_refuses),
		cmocka_unit_test(test_chmu_counter_widths_8_16_32),
		cmocka_unit_test(test_chmu_decodes_with_the_counter_width_read_after_configure),
		cmocka_unit_test(test_chmu_drain_refuses_a_counter_width_that_changes),
		cmocka_unit_test(test_chmu_unit_sizes_4k_to_256m),
		cmocka_unit_test(test_chmu_always_on_reports_each_threshold_crossing),
		cmocka_unit_test(test_chmu_tracks_only_the_programmed_ranges),
		cmocka_unit_test(test_chmu_hostile_device_is_refused_not_trusted),
		cmocka_unit_test(test_chmu_zipf_top_units_recalled),
		cmocka_unit_test(test_chmu_hardware_source_maps_the_bar_it_discovers),
		cmocka_unit_test(test_chmu_source_counts_entries_past_the_capacity_apart),
		cmocka_unit_test(test_chmu_daemon_source_refuses_the_test_hooks),
		cmocka_unit_test(test_chmu_ranges_past_the_capacity_are_refused),
		cmocka_unit_test(test_chmu_access_code_in_decimal_or_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
