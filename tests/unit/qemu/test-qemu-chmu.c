// SPDX-License-Identifier: MIT
/*
 * The CHMU device model that tests/qemu/patches/0002 builds into QEMU's
 * cxl-type3 (tests/qemu/chmu/hb-chmu.c), without QEMU: its register layout
 * against the spec's, counting at DPA in units with the range bitmap,
 * request types and down-sampling, epochs, the hotlist ring with its fill
 * and overflow status and interrupts, always-on mode, reset, instances that
 * count on their own; the host cache in front of it (tests/qemu/chmu/hb-llc.c),
 * the bounded epoch end and the bound on counter memory; then hotbridge's
 * CHMU driver (devices/chmu/chmu.c) programming and draining it, the
 * pairing the guest tests run for real.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../../qemu/chmu/hb-chmu.h"
#include "chmu/chmu.h"
#include "devices.h"

#define MS 1000000ULL
#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

/* spec offsets, relative to an instance (CXL r3.2 8.2.8) */
#define I0 0x10ULL
#define CAP0 0x00
#define CAP1 0x08
#define CAP2 0x10
#define CAP3 0x18
#define CONF0 0x40
#define CONF1 0x48
#define CONF2 0x50
#define STATUS 0x60
#define HEAD 0x68
#define TAIL 0x6a

#define C0_INT_OVERFLOW (1ULL << 9)
#define C0_INT_FILL (1ULL << 10)
#define C0_RANDOMIZE (1ULL << 8)
#define C0_ENABLE (1ULL << 16)
#define C0_RESET (1ULL << 17)
#define ST_ENABLED 1ULL
#define ST_OVERFLOW (1ULL << 40)
#define ST_LEVEL (1ULL << 41)

static uint64_t conf0(unsigned int m2s, uint64_t thr)
{
	return m2s | thr << 32;
}

/* unit log2, down-sampling log2, mode, epoch scale and value */
static uint64_t conf1(unsigned int unit, unsigned int ds, unsigned int mode, unsigned int scale,
		      unsigned int val)
{
	return unit | (uint64_t)ds << 32 | (uint64_t)mode << 40 | (uint64_t)scale << 48 |
	       (uint64_t)val << 52;
}

static struct hb_qchmu *dev_new(uint64_t capacity, unsigned int instances, unsigned int hotlist)
{
	struct hb_qchmu_params p;
	struct hb_qchmu *c = NULL;

	hb_qchmu_params_default(&p, capacity);
	p.instances = instances;
	p.hotlist_size = hotlist;
	p.msi_n = 7;
	assert_null(hb_qchmu_check(&p));
	assert_int_equal(hb_qchmu_new(&p, &c), 0);
	return c;
}

static uint64_t inst(const struct hb_qchmu *c, unsigned int i)
{
	return I0 + i * (hb_qchmu_read((struct hb_qchmu *)c, 0x08, 8) & 0xffff);
}

static uint64_t rd(struct hb_qchmu *c, unsigned int i, uint64_t rel)
{
	return hb_qchmu_read(c, inst(c, i) + rel, 8);
}

static void wr(struct hb_qchmu *c, unsigned int i, uint64_t rel, uint64_t v, uint64_t now)
{
	hb_qchmu_write(c, inst(c, i) + rel, v, 8, now);
}

/* whole range tracked, 4 KiB units, 10 ms epochs, reads and writes */
static void program(struct hb_qchmu *c, unsigned int i, uint64_t thr, uint64_t extra0, uint64_t c1,
		    uint64_t now)
{
	uint64_t bm = rd(c, i, CAP2);

	for (uint64_t off = bm; off < rd(c, i, CAP3); off += 8)
		wr(c, i, off, ~0ULL, now);
	wr(c, i, CONF1, c1, now);
	wr(c, i, CONF0, conf0(6, thr) | extra0 | C0_RESET, now);
	wr(c, i, CONF0, conf0(6, thr) | extra0 | C0_ENABLE, now);
	assert_true(rd(c, i, STATUS) & ST_ENABLED);
}

static void touch(struct hb_qchmu *c, uint64_t dpa, unsigned int n, uint64_t now)
{
	for (unsigned int k = 0; k < n; k++)
		hb_qchmu_access(c, dpa, 8, false, now);
}

static uint16_t tail(struct hb_qchmu *c, unsigned int i)
{
	return (uint16_t)hb_qchmu_read(c, inst(c, i) + TAIL, 2);
}

static uint64_t entry(struct hb_qchmu *c, unsigned int i, unsigned int n)
{
	return rd(c, i, rd(c, i, CAP3) + n * 8ULL);
}

static void test_registers_sit_at_the_spec_offsets(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 2, 1024);
	uint64_t cap0 = rd(c, 0, CAP0), cap1 = rd(c, 0, CAP1), len;

	(void)state;
	assert_int_equal(hb_qchmu_read(c, 0x00, 8) & 0xf, 1);         /* version */
	assert_int_equal((hb_qchmu_read(c, 0x00, 8) >> 8) & 0xff, 2); /* instances */
	len = hb_qchmu_read(c, 0x08, 8) & 0xffff;
	/* 512 MiB: two bitmap bits in one word after STATUS/HEAD/TAIL, then 1024 entries */
	assert_int_equal(rd(c, 0, CAP2), 0x70);
	assert_int_equal(rd(c, 0, CAP3), 0x78);
	assert_int_equal(len, 0x78 + 1024 * 8);
	assert_int_equal(hb_qchmu_size(c), 0x10 + 2 * len);
	assert_int_equal(cap0 & 0xf, 7);                       /* MSI/MSI-X message number */
	assert_int_equal((cap0 >> 4) & 3, 3);                  /* overflow and fill interrupts */
	assert_int_equal((cap0 >> 8) & 0x3f, 0x3f);            /* all six request types */
	assert_int_equal(cap0 >> 48, 1024);                    /* hotlist size */
	assert_int_equal(cap1 & 0xffffffff, 0x30);             /* 4 KiB and 8 KiB */
	assert_int_equal((cap1 >> 48) & 3, 3);                 /* epoch and always-on */
	assert_int_equal((rd(c, 0, STATUS) >> 32) & 0xff, 16); /* counter width */
	/* narrow reads see the same bytes */
	assert_int_equal(hb_qchmu_read(c, inst(c, 0) + CAP0 + 6, 2), 1024);
	assert_int_equal(hb_qchmu_read(c, inst(c, 1) + CAP2, 4), 0x70);
	hb_qchmu_free(c);
}

static void test_epoch_reports_units_at_or_above_threshold_hottest_first(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 64);

	(void)state;
	program(c, 0, 3, 0, conf1(12, 0, 0, 3, 1), 0);
	touch(c, 5 * 4096, 10, 1 * MS);
	touch(c, 2 * 4096 + 64, 3, 2 * MS); /* exactly the threshold counts */
	touch(c, 9 * 4096, 2, 3 * MS);      /* below it */
	touch(c, 7 * 4096, 12, 4 * MS);
	assert_int_equal(tail(c, 0), 0); /* nothing before the epoch ends */
	assert_int_equal(hb_qchmu_advance(c, 10 * MS), 20 * MS);
	assert_int_equal(tail(c, 0), 3);
	/* count in the low 16 bits, the unit index above */
	assert_int_equal(entry(c, 0, 0), 7ULL << 16 | 12);
	assert_int_equal(entry(c, 0, 1), 5ULL << 16 | 10);
	assert_int_equal(entry(c, 0, 2), 2ULL << 16 | 3);
	/* counts start again: unit 9's two and two more stay below 3 */
	touch(c, 9 * 4096, 2, 11 * MS);
	hb_qchmu_advance(c, 20 * MS);
	assert_int_equal(tail(c, 0), 3);
	hb_qchmu_free(c);
}

static void test_unit_size_decides_the_unit_index(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 64);

	(void)state;
	program(c, 0, 2, 0, conf1(13, 0, 0, 3, 1), 0); /* 8 KiB units */
	hb_qchmu_access(c, 0x2000, 8, false, MS);
	hb_qchmu_access(c, 0x3ff8, 8, true, MS);
	hb_qchmu_advance(c, 10 * MS);
	assert_int_equal(tail(c, 0), 1);
	assert_int_equal(entry(c, 0, 0), 1ULL << 16 | 2);
	hb_qchmu_free(c);
}

static void test_range_bitmap_and_request_type_limit_counting(void **state)
{
	struct hb_qchmu *c = dev_new(1 * GIB, 1, 64);
	struct hb_qchmu_counts n;

	(void)state;
	wr(c, 0, rd(c, 0, CAP2), 1ULL << 1, 0); /* only 256..512 MiB */
	wr(c, 0, CONF1, conf1(12, 0, 0, 3, 1), 0);
	wr(c, 0, CONF0, conf0(1, 1) | C0_ENABLE, 0); /* non-TEE reads only */
	assert_true(rd(c, 0, STATUS) & ST_ENABLED);
	hb_qchmu_access(c, 0, 8, false, MS);         /* range not tracked */
	hb_qchmu_access(c, 300 * MIB, 8, true, MS);  /* a write */
	hb_qchmu_access(c, 300 * MIB, 8, false, MS); /* counted */
	hb_qchmu_access(c, 2 * GIB, 8, false, MS);   /* beyond the device */
	hb_qchmu_advance(c, 10 * MS);
	hb_qchmu_counts(c, 0, &n);
	assert_int_equal(n.accesses, 1);
	assert_int_equal(tail(c, 0), 1);
	assert_int_equal(entry(c, 0, 0), (300 * MIB / 4096) << 16 | 1);
	/* the bitmap is frozen while enabled */
	wr(c, 0, rd(c, 0, CAP2), 1ULL, 11 * MS);
	assert_int_equal(rd(c, 0, rd(c, 0, CAP2)), 1ULL << 1);
	hb_qchmu_free(c);
}

static void test_downsampling_counts_one_access_in_factor(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 2, 64);
	struct hb_qchmu_counts n0, n1;

	(void)state;
	program(c, 0, 1, 0, conf1(12, 2, 0, 3, 1), 0);            /* 1 in 4 */
	program(c, 1, 1, C0_RANDOMIZE, conf1(12, 2, 0, 3, 1), 0); /* 1 in 4, at random */
	touch(c, 0, 16, MS);
	touch(c, 4096, 4000, MS);
	hb_qchmu_advance(c, 10 * MS);
	assert_int_equal(entry(c, 0, 0), 1ULL << 16 | 1000);
	assert_int_equal(entry(c, 0, 1), 0ULL << 16 | 4);
	hb_qchmu_counts(c, 0, &n0);
	hb_qchmu_counts(c, 1, &n1);
	assert_int_equal(n0.sampled, 1004);
	assert_int_equal(n1.accesses, 4016);
	/* a fair 1-in-4 over 4016 trials: 1004 +- 5 sigma (27.4) */
	assert_in_range(n1.sampled, 1004 - 137, 1004 + 137);
	hb_qchmu_free(c);
}

static void test_full_hotlist_sets_overflow_without_interrupt_enable(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 4); /* 3 usable slots */
	struct hb_qchmu_counts n;

	(void)state;
	program(c, 0, 1, 0, conf1(12, 0, 0, 3, 1), 0);
	for (unsigned int u = 0; u < 5; u++)
		touch(c, u * 4096ULL, 5 - u, MS);
	hb_qchmu_advance(c, 10 * MS);
	assert_int_equal(tail(c, 0), 3);
	assert_true(rd(c, 0, STATUS) & ST_OVERFLOW);
	assert_false(hb_qchmu_irq_take(c)); /* not enabled: no interrupt */
	hb_qchmu_counts(c, 0, &n);
	assert_int_equal(n.entries, 3);
	assert_int_equal(n.dropped, 2);
	/* the hottest three got in */
	assert_int_equal(entry(c, 0, 0) & 0xffff, 5);
	assert_int_equal(entry(c, 0, 2) & 0xffff, 3);
	/* write 1 to clear; the host consumes, and the next epoch fits again */
	wr(c, 0, STATUS, ST_OVERFLOW, 11 * MS);
	assert_false(rd(c, 0, STATUS) & ST_OVERFLOW);
	hb_qchmu_write(c, inst(c, 0) + HEAD, 3, 2, 11 * MS);
	touch(c, 0, 1, 12 * MS);
	hb_qchmu_advance(c, 20 * MS);
	assert_int_equal(tail(c, 0), 0); /* wrapped */
	assert_false(rd(c, 0, STATUS) & ST_OVERFLOW);
	hb_qchmu_free(c);
}

static void test_overflow_and_fill_raise_their_interrupts_once(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 4);

	(void)state;
	wr(c, 0, CONF2, 2, 0);
	program(c, 0, 1, C0_INT_FILL | C0_INT_OVERFLOW, conf1(12, 0, 0, 3, 1), 0);
	touch(c, 0, 1, MS);
	hb_qchmu_advance(c, 10 * MS);
	assert_false(hb_qchmu_irq_take(c)); /* 1 entry, fill level 2 */
	assert_false(rd(c, 0, STATUS) & ST_LEVEL);
	touch(c, 0, 1, 11 * MS);
	hb_qchmu_advance(c, 20 * MS);
	assert_true(rd(c, 0, STATUS) & ST_LEVEL);
	assert_true(hb_qchmu_irq_take(c));
	assert_false(hb_qchmu_irq_take(c));
	touch(c, 0, 1, 21 * MS);
	touch(c, 4096, 1, 21 * MS);
	hb_qchmu_advance(c, 30 * MS); /* one fits, one overflows */
	assert_true(rd(c, 0, STATUS) & ST_OVERFLOW);
	assert_true(hb_qchmu_irq_take(c));
	hb_qchmu_free(c);
}

static void test_reset_clears_ring_status_and_counts(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 4);

	(void)state;
	program(c, 0, 1, 0, conf1(12, 0, 0, 3, 1), 0);
	for (unsigned int u = 0; u < 4; u++)
		touch(c, u * 4096ULL, 1, MS);
	hb_qchmu_advance(c, 10 * MS);
	touch(c, 0, 1, 11 * MS); /* pending in the new epoch */
	wr(c, 0, CONF0, conf0(6, 1) | C0_ENABLE | C0_RESET, 12 * MS);
	assert_int_equal(tail(c, 0), 0);
	assert_int_equal(hb_qchmu_read(c, inst(c, 0) + HEAD, 2), 0);
	assert_false(rd(c, 0, STATUS) & ST_OVERFLOW);
	assert_false(rd(c, 0, CONF0) & C0_RESET); /* the bit does not stick */
	assert_true(rd(c, 0, STATUS) & ST_ENABLED);
	/* the epoch restarted at the reset: nothing ends at 20 ms, the count was cleared */
	assert_int_equal(hb_qchmu_deadline(c), 22 * MS);
	hb_qchmu_advance(c, 22 * MS);
	assert_int_equal(tail(c, 0), 0);
	/* the device's reset disables and clears everything */
	hb_qchmu_reset(c);
	assert_false(rd(c, 0, STATUS) & ST_ENABLED);
	assert_int_equal(rd(c, 0, CONF0), 0);
	assert_int_equal(hb_qchmu_deadline(c), HB_QCHMU_NEVER);
	hb_qchmu_free(c);
}

static void test_unsupported_configuration_stays_disabled(void **state)
{
	static const struct {
		const char *why;
		uint64_t c0, c1;
	} bad[] = {
		{ "256 B units not offered", 6 | 1ULL << 32, 8 | 3ULL << 48 | 1ULL << 52 },
		{ "epoch of 1 ms below the 10 ms minimum", 6 | 1ULL << 32,
		  12 | 2ULL << 48 | 1ULL << 52 },
		{ "epoch of 200 s above the maximum", 6 | 1ULL << 32, 12 | 5ULL << 48 | 200ULL << 52 },
		{ "threshold 0", 6, 12 | 3ULL << 48 | 1ULL << 52 },
		{ "threshold beyond 16-bit counters", 6 | 0x10000ULL << 32,
		  12 | 3ULL << 48 | 1ULL << 52 },
		{ "request type 7", 7 | 1ULL << 32, 12 | 3ULL << 48 | 1ULL << 52 },
		{ "down-sampling factor 64 not offered", 6 | 1ULL << 32,
		  12 | 6ULL << 32 | 3ULL << 48 | 1ULL << 52 },
		{ "reporting mode 2", 6 | 1ULL << 32, 12 | 2ULL << 40 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hb_qchmu *c = dev_new(512 * MIB, 1, 64);

		wr(c, 0, CONF1, bad[i].c1, 0);
		wr(c, 0, CONF0, bad[i].c0 | C0_ENABLE, 0);
		if (rd(c, 0, STATUS) & ST_ENABLED)
			fail_msg("enabled with %s", bad[i].why);
		hb_qchmu_free(c);
	}
}

static void test_configuration_is_frozen_while_enabled(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 64);

	(void)state;
	program(c, 0, 1, 0, conf1(12, 0, 0, 3, 1), 0);
	wr(c, 0, CONF1, conf1(13, 0, 0, 3, 1), MS);
	assert_int_equal(rd(c, 0, CONF1) & 0xffffffff, 12);
	/* a 4-byte write of CONF0's upper half changes the threshold, not ENABLE */
	hb_qchmu_write(c, inst(c, 0) + CONF0 + 4, 4, 4, MS);
	assert_true(rd(c, 0, STATUS) & ST_ENABLED);
	assert_int_equal(rd(c, 0, CONF0) >> 32, 4);
	touch(c, 0, 3, 2 * MS);
	touch(c, 4096, 4, 2 * MS);
	hb_qchmu_advance(c, 10 * MS);
	assert_int_equal(tail(c, 0), 1);
	assert_int_equal(entry(c, 0, 0), 1ULL << 16 | 4);
	/* TAIL is the device's */
	hb_qchmu_write(c, inst(c, 0) + TAIL, 9, 2, 11 * MS);
	assert_int_equal(tail(c, 0), 1);
	hb_qchmu_free(c);
}

static void test_always_on_reports_each_threshold_crossing(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 64);

	(void)state;
	program(c, 0, 4, C0_INT_FILL, conf1(12, 0, 1, 0, 0), 0);
	wr(c, 0, CONF2, 1, 0); /* frozen: enabled already */
	touch(c, 3 * 4096, 9, MS);
	assert_int_equal(tail(c, 0), 2); /* 4 and 8, no epoch needed */
	assert_int_equal(entry(c, 0, 0), 3ULL << 16 | 4);
	assert_int_equal(hb_qchmu_deadline(c), HB_QCHMU_NEVER);
	assert_false(hb_qchmu_irq_take(c));
	hb_qchmu_free(c);
}

static void test_instances_count_on_their_own(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 2, 64);

	(void)state;
	program(c, 0, 5, 0, conf1(12, 0, 0, 3, 1), 0); /* 10 ms, threshold 5 */
	program(c, 1, 2, 0, conf1(13, 0, 0, 3, 3), 0); /* 30 ms, 8 KiB, threshold 2 */
	touch(c, 0, 3, MS);
	touch(c, 4096, 6, MS);
	assert_int_equal(hb_qchmu_advance(c, 10 * MS), 20 * MS);
	assert_int_equal(tail(c, 0), 1);
	assert_int_equal(tail(c, 1), 0);
	assert_int_equal(hb_qchmu_advance(c, 30 * MS), 30 * MS + 10 * MS);
	assert_int_equal(tail(c, 1), 1);
	assert_int_equal(entry(c, 1, 0), 0ULL << 16 | 9); /* both 4 KiB units in one 8 KiB */
	hb_qchmu_free(c);
}

static void test_epochs_missed_while_stopped_end_once(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 64);
	struct hb_qchmu_counts n;

	(void)state;
	program(c, 0, 1, 0, conf1(12, 0, 0, 3, 1), 0);
	touch(c, 0, 1, MS);
	assert_int_equal(hb_qchmu_advance(c, 1005 * MS), 1010 * MS);
	hb_qchmu_counts(c, 0, &n);
	assert_int_equal(n.epochs, 1);
	assert_int_equal(tail(c, 0), 1);
	hb_qchmu_free(c);
}

static void test_parameters_are_checked_with_reasons(void **state)
{
	struct hb_qchmu_params p;

	(void)state;
	hb_qchmu_params_default(&p, 100 * MIB);
	assert_non_null(strstr(hb_qchmu_check(&p), "256 MiB"));
	hb_qchmu_params_default(&p, 512 * MIB);
	p.hotlist_size = 9000;
	assert_non_null(strstr(hb_qchmu_check(&p), "chmu-hotlist-size"));
	hb_qchmu_params_default(&p, 512 * MIB);
	p.instances = 9;
	assert_non_null(strstr(hb_qchmu_check(&p), "chmu-instances"));
	hb_qchmu_params_default(&p, 512 * MIB);
	p.ds_factors = 0;
	assert_non_null(strstr(hb_qchmu_check(&p), "chmu-ds-factors"));
	hb_qchmu_params_default(&p, 512 * MIB);
	p.access_types = 0;
	assert_non_null(strstr(hb_qchmu_check(&p), "chmu-access-types"));
	p.access_types = 0x40;
	assert_non_null(strstr(hb_qchmu_check(&p), "chmu-access-types"));
	/* the upstream RFC's model: non-TEE requests only, down-sampling by 32 only */
	hb_qchmu_params_default(&p, 512 * MIB);
	p.access_types = 0x7;
	p.ds_factors = 0x20;
	assert_null(hb_qchmu_check(&p));
	hb_qchmu_params_default(&p, 512 * MIB);
	assert_null(hb_qchmu_check(&p));
}

/* ---- hotbridge's driver over the model ---- */

static void test_always_on_reset_clears_the_counts(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 64);

	(void)state;
	program(c, 0, 10, 0, conf1(12, 0, 1, 0, 0), 0);
	touch(c, 0, 5, MS);
	wr(c, 0, CONF0, conf0(6, 10) | C0_ENABLE | C0_RESET, 2 * MS);
	assert_true(rd(c, 0, STATUS) & ST_ENABLED);
	touch(c, 0, 5, 3 * MS);
	/* 5 after the reset: below 10, nothing reported */
	assert_int_equal(tail(c, 0), 0);
	touch(c, 0, 5, 4 * MS);
	assert_int_equal(tail(c, 0), 1);
	assert_int_equal(entry(c, 0, 0), 10);
	hb_qchmu_free(c);
}

static struct hb_qchmu *dev_llc(uint64_t capacity, uint64_t llc_size, unsigned int ways)
{
	struct hb_qchmu_params p;
	struct hb_qchmu *c = NULL;

	hb_qchmu_params_default(&p, capacity);
	p.llc_size = llc_size;
	p.llc_ways = ways;
	assert_null(hb_qchmu_check(&p));
	assert_int_equal(hb_qchmu_new(&p, &c), 0);
	return c;
}

/* n CPU accesses of 8 bytes, line after line from dpa */
static void cpu_lines(struct hb_qchmu *c, uint64_t dpa, unsigned int lines, bool write, uint64_t now)
{
	for (unsigned int l = 0; l < lines; l++)
		hb_qchmu_cpu_access(c, dpa + l * 64ULL, 8, write, now);
}

static void test_cache_hits_never_reach_the_device(void **state)
{
	/* 64 KiB, 16 ways: 1024 lines */
	struct hb_qchmu *c = dev_llc(512 * MIB, 64 * 1024, 16);
	uint64_t rd_n, wr_n;

	(void)state;
	program(c, 0, 3, 0, conf1(12, 0, 0, 3, 1), 0);
	/* a line read 100 times: one fill */
	for (unsigned int k = 0; k < 100; k++)
		hb_qchmu_cpu_access(c, 4096, 8, false, MS);
	hb_qchmu_served(c, &rd_n, &wr_n);
	assert_int_equal(rd_n, 1);
	assert_int_equal(wr_n, 0);
	/* a store to an absent line arrives as a read; its later stores as nothing */
	for (unsigned int k = 0; k < 8; k++)
		hb_qchmu_cpu_access(c, 8192 + 8 * k, 8, true, MS);
	hb_qchmu_served(c, &rd_n, &wr_n);
	assert_int_equal(rd_n, 2);
	assert_int_equal(wr_n, 0);
	/* an access across two lines is two lines */
	hb_qchmu_cpu_access(c, 12288 + 60, 8, false, MS);
	hb_qchmu_served(c, &rd_n, &wr_n);
	assert_int_equal(rd_n, 4);
	/* 4096 other lines read twice over flush the cache: the dirty line comes back as a write */
	cpu_lines(c, 256 * MIB, 4096, false, 2 * MS);
	cpu_lines(c, 256 * MIB, 4096, false, 3 * MS);
	hb_qchmu_served(c, &rd_n, &wr_n);
	assert_int_equal(rd_n, 4 + 8192);
	assert_int_equal(wr_n, 1);
	/*
	 * threshold 3 in 4 KiB units: units 1, 2 (fill and write-back) and 3 (two lines) stay
	 * below it; the 4096 streaming lines (256 KiB: 64 units) missed twice each, 128 per unit
	 */
	hb_qchmu_advance(c, 10 * MS);
	assert_int_equal(tail(c, 0), 64);
	for (unsigned int i = 0; i < 64; i++)
		assert_int_equal(entry(c, 0, i), (256 * MIB / 4096 + i) << 16 | 128);
	hb_qchmu_free(c);
}

static void test_a_cache_resident_set_is_not_hot_a_missing_one_is(void **state)
{
	/* 32 KiB: a set of 8 pages x 8 lines stays, a set of 256 pages x 8 lines misses */
	struct hb_qchmu *c = dev_llc(512 * MIB, 32 * 1024, 16);
	uint64_t small = 0, big = 64 * MIB;

	(void)state;
	program(c, 0, 32, 0, conf1(12, 0, 0, 3, 1), 0);
	for (unsigned int pass = 0; pass < 20; pass++)
		for (unsigned int pg = 0; pg < 256; pg++) {
			for (unsigned int l = 0; l < 8; l++)
				hb_qchmu_cpu_access(c, big + pg * 4096ULL + l * 512, 8, false, MS);
			/* the small set, 32 times as often per page as the big one */
			if (pg % 8 == 0)
				for (unsigned int s = 0; s < 8; s++)
					for (unsigned int l = 0; l < 8; l++)
						hb_qchmu_cpu_access(c, small + s * 4096ULL + l * 512,
								    8, false, MS);
		}
	hb_qchmu_advance(c, 10 * MS);
	/* every page of the big set (20 passes x 8 misses = 160) and none of the small one */
	assert_int_equal(tail(c, 0), 256);
	for (unsigned int i = 0; i < 256; i++) {
		uint64_t e = entry(c, 0, i);

		assert_true((e >> 16) * 4096 >= big);
		assert_int_equal(e & 0xffff, 160);
	}
	hb_qchmu_free(c);
}

static void test_epoch_end_takes_the_hottest_that_fit(void **state)
{
	/* 8 entries: 7 free slots */
	struct hb_qchmu *c = dev_new(512 * MIB, 1, 8);
	struct hb_qchmu_counts n;

	(void)state;
	program(c, 0, 3, 0, conf1(12, 0, 0, 3, 1), 0);
	/* 100 units, unit u touched 3 + (u * 37) % 100 times: all distinct, all hot */
	for (unsigned int u = 0; u < 100; u++)
		touch(c, u * 4096ULL, 3 + (u * 37) % 100, MS);
	touch(c, 100 * 4096ULL, 102, MS); /* ties with unit 27 (3 + 99): the lower unit first */
	hb_qchmu_advance(c, 10 * MS);
	assert_int_equal(tail(c, 0), 7);
	assert_int_equal(entry(c, 0, 0), 27ULL << 16 | 102);
	assert_int_equal(entry(c, 0, 1), 100ULL << 16 | 102);
	for (unsigned int i = 2; i < 7; i++) {
		uint64_t e = entry(c, 0, i);
		uint64_t u = e >> 16;

		assert_int_equal(e & 0xffff, 102 - (i - 1));
		assert_int_equal(3 + (u * 37) % 100, 102 - (i - 1));
	}
	hb_qchmu_counts(c, 0, &n);
	assert_int_equal(n.dropped, 101 - 7);
	assert_true(rd(c, 0, STATUS) & ST_OVERFLOW);
	hb_qchmu_free(c);
}

/*
 * The review's Q4 case: the epoch end of 4M hot units keeps the 1023 that
 * fit, lowest units first among equals. Its CPU time is printed, not bound:
 * speed belongs in benchmarks (0.12-0.15 s here, where the sort of every hot
 * unit the model had took 4.5 s; a checker runs it many times slower).
 * The bench chmu-epoch (tests/bench/chmu-epoch.c) sets it against a sort
 * of every hot unit in the same run.
 */
static void test_epoch_end_of_4m_hot_units_keeps_the_ones_that_fit(void **state)
{
	/* the review's case: 16 GiB at 4 KiB, threshold 1, every unit touched in random order */
	struct hb_qchmu *c = dev_new(16 * GIB, 1, 1024);
	uint64_t units = 16 * GIB / 4096, x = 88172645463325252ULL;
	struct timespec t0, t1;
	uint32_t *order;
	double s;

	(void)state;
	program(c, 0, 1, 0, conf1(12, 0, 0, 4, 1), 0); /* 100 ms */
	order = malloc(units * sizeof(*order));
	assert_non_null(order);
	for (uint64_t i = 0; i < units; i++)
		order[i] = (uint32_t)i;
	for (uint64_t i = units - 1; i > 0; i--) { /* Fisher-Yates, xorshift64 */
		uint64_t j;
		uint32_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint64_t i = 0; i < units; i++)
		touch(c, order[i] * 4096ULL, 1, MS);
	free(order);
	/* CPU time: the machine's load does not count */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	hb_qchmu_advance(c, 100 * MS);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("end_epoch of %llu hot units: %.3f s of CPU\n", (unsigned long long)units, s);
	assert_int_equal(tail(c, 0), 1023);
	/* all alike: the lowest units first */
	assert_int_equal(entry(c, 0, 0), 1);
	assert_int_equal(entry(c, 0, 1022), 1022ULL << 16 | 1);
	hb_qchmu_free(c);
}

static void test_enable_past_the_counter_budget_is_refused(void **state)
{
	/* 64 GiB, the default 64 MiB budget: 4 KiB units would take 128 MiB */
	struct hb_qchmu *c = dev_new(64 * GIB, 2, 64);

	(void)state;
	wr(c, 0, CONF1, conf1(12, 0, 0, 3, 1), 0);
	wr(c, 0, CONF0, conf0(6, 1) | C0_ENABLE, 0);
	assert_false(rd(c, 0, STATUS) & ST_ENABLED);
	wr(c, 0, CONF0, 0, 0);
	/* 8 KiB units: 8 M units, 64 MiB, the whole budget */
	program(c, 0, 1, 0, conf1(13, 0, 0, 3, 1), 0);
	/* the second instance finds none left, even in always-on mode (4 bytes a unit) */
	wr(c, 1, CONF1, conf1(13, 0, 1, 0, 0), 0);
	wr(c, 1, CONF0, conf0(6, 1) | C0_ENABLE, 0);
	assert_false(rd(c, 1, STATUS) & ST_ENABLED);
	/* the first disabled gives it back */
	wr(c, 0, CONF0, 0, MS);
	wr(c, 1, CONF0, 0, MS);
	wr(c, 1, CONF0, conf0(6, 1) | C0_ENABLE, MS);
	assert_true(rd(c, 1, STATUS) & ST_ENABLED);
	hb_qchmu_free(c);
}

static int win_read(void *priv, uint64_t off, unsigned int width, uint64_t *val)
{
	*val = hb_qchmu_read(priv, off, width);
	return 0;
}

static uint64_t win_now;

static int win_write(void *priv, uint64_t off, unsigned int width, uint64_t val)
{
	hb_qchmu_write(priv, off, val, width, win_now);
	return 0;
}

static void test_driver_programs_and_drains_the_model(void **state)
{
	struct hb_qchmu *c = dev_new(512 * MIB, 2, 256);
	struct hb_regwin w = { win_read, win_write, c, 0 };
	static const struct hb_chmu_range r = { 0, 512 * MIB };
	struct hb_chmu_config cfg = {
		.unit_size = 4096,
		.epoch_ns = 100 * MS,
		.threshold = 8,
		.ds_factor = 1,
		.mode = HB_CHMU_MODE_EPOCH,
		.ranges = &r,
		.nranges = 1,
	};
	struct hb_hot_record rec[64];
	struct hb_chmu *drv = NULL;
	struct hb_err err = { 0 };
	size_t n = 0;

	(void)state;
	w.size = hb_qchmu_size(c);
	assert_int_equal(hb_chmu_open(&w, 1, "mem0", &drv, &err), 0);
	assert_int_equal(hb_chmu_caps(drv)->instances, 2);
	assert_int_equal(hb_chmu_caps(drv)->hotlist_size, 256);
	assert_int_equal(hb_chmu_caps(drv)->counter_width, 16);
	assert_int_equal(hb_chmu_caps(drv)->min_epoch_ns, 10 * MS);
	assert_int_equal(hb_chmu_caps(drv)->max_epoch_ns, 100000 * MS);
	assert_int_equal(hb_chmu_configure(drv, &cfg, &err), 0);
	/* instance 1 counts; instance 0 was never enabled */
	for (unsigned int u = 0; u < 20; u++)
		touch(c, 64 * MIB + u * 4096ULL, u < 10 ? 50 : 3, 10 * MS);
	hb_qchmu_advance(c, 100 * MS);
	assert_int_equal(hb_chmu_drain(drv, rec, 64, &n, &err), 0);
	assert_int_equal(n, 10);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(rec[i].memdev, "mem0");
		assert_int_equal(rec[i].len, 4096);
		assert_int_equal(rec[i].count, 50);
		assert_in_range(rec[i].addr, 64 * MIB, 64 * MIB + 9 * 4096);
	}
	assert_false(rd(c, 0, STATUS) & ST_ENABLED);
	/* drained: HEAD caught up with TAIL */
	assert_int_equal(hb_qchmu_read(c, inst(c, 1) + HEAD, 2), tail(c, 1));
	hb_chmu_free(drv);
	hb_qchmu_free(c);
}

#define ST_OP(v) (((v) >> 16) & 0xffff)

/* the test options: operations that take time, an instance without the fill interrupt */
static void test_operations_take_time_and_fill_irq_can_be_absent(void **state)
{
	struct hb_qchmu_params p;
	struct hb_qchmu *c = NULL;
	uint64_t c1 = conf1(12, 0, 0, 3, 1);

	(void)state;
	hb_qchmu_params_default(&p, 512 * MIB);
	p.instances = 2;
	p.msi_n = 7;
	p.op_ns = 2 * MS;
	p.no_fill_irq = 2;
	assert_null(hb_qchmu_check(&p));
	assert_int_equal(hb_qchmu_new(&p, &c), 0);
	assert_true(rd(c, 0, CAP0) & (1ULL << 5));
	assert_false(rd(c, 1, CAP0) & (1ULL << 5));
	for (uint64_t off = rd(c, 1, CAP2); off < rd(c, 1, CAP3); off += 8)
		wr(c, 1, off, ~0ULL, 0);
	wr(c, 1, CONF1, c1, 0);
	wr(c, 1, CONF0, conf0(6, 1) | C0_RESET, 0);
	assert_int_equal(ST_OP(rd(c, 1, STATUS)), 3);
	/* writes during the reset are dropped */
	wr(c, 1, CONF1, conf1(13, 0, 0, 3, 1), MS);
	wr(c, 1, CONF0, conf0(6, 1) | C0_ENABLE, MS);
	assert_int_equal(rd(c, 1, CONF1), c1);
	hb_qchmu_advance(c, 2 * MS);
	assert_int_equal(rd(c, 1, STATUS) & (ST_ENABLED | 0xffff0000ULL), 0);
	/* enable: in progress, then enabled; no fill interrupt to turn on */
	wr(c, 1, CONF0, conf0(6, 1) | C0_ENABLE | C0_INT_FILL | C0_INT_OVERFLOW, 2 * MS);
	assert_int_equal(ST_OP(rd(c, 1, STATUS)), 1);
	assert_false(rd(c, 1, STATUS) & ST_ENABLED);
	assert_int_equal(rd(c, 1, CONF0) & (C0_INT_FILL | C0_INT_OVERFLOW), C0_INT_OVERFLOW);
	hb_qchmu_advance(c, 4 * MS);
	assert_int_equal(rd(c, 1, STATUS) & (ST_ENABLED | 0xffff0000ULL), ST_ENABLED);
	/* disable: still enabled while in progress */
	wr(c, 1, CONF0, conf0(6, 1), 4 * MS);
	assert_int_equal(rd(c, 1, STATUS) & (ST_ENABLED | 0xffff0000ULL), ST_ENABLED | 2ULL << 16);
	hb_qchmu_advance(c, 6 * MS);
	assert_int_equal(rd(c, 1, STATUS) & (ST_ENABLED | 0xffff0000ULL), 0);
	hb_qchmu_free(c);
}

/* each STATUS read is 1 ms later: operations complete while the driver polls */
static int slow_read(void *priv, uint64_t off, unsigned int width, uint64_t *val)
{
	win_now += MS;
	hb_qchmu_advance(priv, win_now);
	*val = hb_qchmu_read(priv, off, width);
	return 0;
}

/* review K3: devices/chmu waits out each enable, disable and reset */
static void test_driver_waits_out_operations_in_progress(void **state)
{
	struct hb_qchmu_params p;
	struct hb_qchmu *c = NULL;
	struct hb_regwin w = { slow_read, win_write, NULL, 0 };
	static const struct hb_chmu_range r = { 0, 512 * MIB };
	struct hb_chmu_config cfg = {
		.unit_size = 4096,
		.epoch_ns = 100 * MS,
		.threshold = 8,
		.ds_factor = 1,
		.mode = HB_CHMU_MODE_EPOCH,
		.ranges = &r,
		.nranges = 1,
	};
	struct hb_chmu *drv = NULL;
	struct hb_err err = { 0 };

	(void)state;
	hb_qchmu_params_default(&p, 512 * MIB);
	p.msi_n = 7;
	p.op_ns = 5 * MS;
	assert_int_equal(hb_qchmu_new(&p, &c), 0);
	w.priv = c;
	w.size = hb_qchmu_size(c);
	win_now = 0;
	assert_int_equal(hb_chmu_open(&w, 0, "mem0", &drv, &err), 0);
	assert_int_equal(hb_chmu_configure(drv, &cfg, &err), 0);
	assert_true(rd(c, 0, STATUS) & ST_ENABLED);
	assert_int_equal(hb_chmu_disable(drv, &err), 0);
	assert_false(rd(c, 0, STATUS) & (ST_ENABLED | 0xffff0000ULL));
	hb_chmu_free(drv);
	hb_qchmu_free(c);
	win_now = 0;
}

/*
 * Issue 42: the model as the upstream RFC's (chmu-access-types=0x7: non-TEE
 * requests only; chmu-ds-factors=0x20: 32 only). The model refuses to
 * enable with a code it does not advertise; the driver takes nontee-r (reads
 * first) and factor 32 when told nothing, and refuses rw naming what the device tracks.
 */
static void test_driver_takes_what_a_non_tee_only_model_advertises(void **state)
{
	struct hb_qchmu_params p;
	struct hb_qchmu *c = NULL;
	struct hb_regwin w = { win_read, win_write, NULL, 0 };
	static const struct hb_chmu_range r = { 0, 512 * MIB };
	struct hb_chmu_config cfg = {
		.unit_size = 4096,
		.epoch_ns = 100 * MS,
		.threshold = 1,
		.ds_factor = 32,
		.mode = HB_CHMU_MODE_EPOCH,
		.ranges = &r,
		.nranges = 1,
	};
	struct hb_hot_record rec[8];
	struct hb_chmu *drv = NULL;
	struct hb_err err = { 0 };
	size_t n = 0;

	(void)state;
	hb_qchmu_params_default(&p, 512 * MIB);
	p.access_types = 0x7;
	p.ds_factors = 0x20;
	assert_null(hb_qchmu_check(&p));
	assert_int_equal(hb_qchmu_new(&p, &c), 0);
	/* CAP0 [13:8]: codes 1-3 */
	assert_int_equal((rd(c, 0, CAP0) >> 8) & 0x3f, 0x7);
	/* the model itself stays disabled when asked for all requests (6) */
	wr(c, 0, CONF1, conf1(12, 5, 0, 4, 1), 0);
	wr(c, 0, CONF0, conf0(6, 1) | C0_ENABLE, 0);
	assert_false(rd(c, 0, STATUS) & ST_ENABLED);
	wr(c, 0, CONF0, conf0(6, 1), 0);

	w.priv = c;
	w.size = hb_qchmu_size(c);
	assert_int_equal(hb_chmu_open(&w, 0, "mem0", &drv, &err), 0);
	cfg.m2s = 6;
	assert_int_equal(hb_chmu_configure(drv, &cfg, &err), -EINVAL);
	if (!strstr(err.msg, "access type rw (code 6) not tracked") ||
	    !strstr(err.msg, "nontee-r (1), nontee-w (2), nontee-rw (3)"))
		fail_msg("%s", err.msg);
	cfg.m2s = 0;
	cfg.ds_factor = 1;
	assert_int_equal(hb_chmu_configure(drv, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "allowed: 32"));
	cfg.ds_factor = 32;
	assert_int_equal(hb_chmu_configure(drv, &cfg, &err), 0);
	assert_int_equal(rd(c, 0, CONF0) & 0xff, 1); /* nontee-r */
	assert_true(rd(c, 0, STATUS) & ST_ENABLED);
	/* it counts: 64 reads of one unit, one in 32 sampled */
	for (unsigned int i = 0; i < 64; i++)
		hb_qchmu_access(c, 0x3000, 8, false, 10 * MS);
	hb_qchmu_advance(c, 100 * MS);
	assert_int_equal(hb_chmu_drain(drv, rec, 8, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rec[0].addr, 0x3000);
	assert_int_equal(rec[0].count, 2);
	hb_chmu_free(drv);
	hb_qchmu_free(c);
}

/*
 * Issue 41: a buffer written before the CHMU was programmed sits dirty in
 * the host cache; the workload's misses evict it once the count has begun,
 * and each dirty line arrives as a write. Told no access=, the driver
 * counts reads (rules.c): those cold pages are not reported, the pages the
 * workload reads are. Under rw (the default before) each written page had
 * 64 writes, past the threshold of 32, and was reported hot.
 */
static void test_driver_default_leaves_write_backs_of_an_earlier_fill_out(void **state)
{
	/* 64 KiB, 16 ways: 1024 lines, the fill's 8 pages take half */
	struct hb_qchmu *c = dev_llc(512 * MIB, 64 * 1024, 16);
	struct hb_regwin w = { win_read, win_write, c, 0 };
	static const struct hb_chmu_range r = { 0, 512 * MIB };
	struct hb_chmu_config cfg = {
		.unit_size = 4096,
		.epoch_ns = 100 * MS,
		.threshold = 32,
		.ds_factor = 1,
		.mode = HB_CHMU_MODE_EPOCH,
		.ranges = &r,
		.nranges = 1,
	};
	const uint64_t fill = 16 * MIB, hot = 128 * MIB;
	struct hb_hot_record rec[256];
	struct hb_chmu *drv = NULL;
	struct hb_err err = { 0 };
	uint64_t rd0, wr0, rd1, wr1;
	size_t n = 0;

	(void)state;
	/* the fill, before anything counts: 8 pages, every line stored to */
	cpu_lines(c, fill, 8 * 64, true, MS);
	hb_qchmu_served(c, &rd0, &wr0);
	assert_int_equal(wr0, 0); /* all of it dirty in the cache */
	w.size = hb_qchmu_size(c);
	assert_int_equal(hb_chmu_open(&w, 0, "mem0", &drv, &err), 0);
	assert_int_equal(hb_chmu_configure(drv, &cfg, &err), 0);
	/* the workload: 64 pages read whole, twice; 4096 lines flush the cache */
	cpu_lines(c, hot, 64 * 64, false, 10 * MS);
	cpu_lines(c, hot, 64 * 64, false, 20 * MS);
	hb_qchmu_served(c, &rd1, &wr1);
	assert_int_equal(wr1 - wr0, 8 * 64); /* the fill came back as writes, in the epoch */
	assert_int_equal(rd1 - rd0, 2 * 64 * 64);
	hb_qchmu_advance(c, 100 * MS);
	assert_int_equal(hb_chmu_drain(drv, rec, 256, &n, &err), 0);
	assert_int_equal(n, 64);
	for (size_t i = 0; i < n; i++) {
		if (rec[i].addr < hot || rec[i].addr >= hot + 64 * 4096)
			fail_msg("page 0x%llx reported hot (count %llu): not read in the epoch",
				 (unsigned long long)rec[i].addr, (unsigned long long)rec[i].count);
		assert_int_equal(rec[i].count, 128);
	}
	assert_int_equal(rd(c, 0, CONF0) & 0xff, 4); /* r: all reads */
	hb_chmu_free(drv);
	hb_qchmu_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers_sit_at_the_spec_offsets),
		cmocka_unit_test(test_epoch_reports_units_at_or_above_threshold_hottest_first),
		cmocka_unit_test(test_unit_size_decides_the_unit_index),
		cmocka_unit_test(test_range_bitmap_and_request_type_limit_counting),
		cmocka_unit_test(test_downsampling_counts_one_access_in_factor),
		cmocka_unit_test(test_full_hotlist_sets_overflow_without_interrupt_enable),
		cmocka_unit_test(test_overflow_and_fill_raise_their_interrupts_once),
		cmocka_unit_test(test_reset_clears_ring_status_and_counts),
		cmocka_unit_test(test_unsupported_configuration_stays_disabled),
		cmocka_unit_test(test_configuration_is_frozen_while_enabled),
		cmocka_unit_test(test_always_on_reports_each_threshold_crossing),
		cmocka_unit_test(test_instances_count_on_their_own),
		cmocka_unit_test(test_epochs_missed_while_stopped_end_once),
		cmocka_unit_test(test_parameters_are_checked_with_reasons),
		cmocka_unit_test(test_always_on_reset_clears_the_counts),
		cmocka_unit_test(test_cache_hits_never_reach_the_device),
		cmocka_unit_test(test_a_cache_resident_set_is_not_hot_a_missing_one_is),
		cmocka_unit_test(test_epoch_end_takes_the_hottest_that_fit),
		cmocka_unit_test(test_epoch_end_of_4m_hot_units_keeps_the_ones_that_fit),
		cmocka_unit_test(test_enable_past_the_counter_budget_is_refused),
		cmocka_unit_test(test_driver_programs_and_drains_the_model),
		cmocka_unit_test(test_driver_takes_what_a_non_tee_only_model_advertises),
		cmocka_unit_test(test_driver_default_leaves_write_backs_of_an_earlier_fill_out),
		cmocka_unit_test(test_operations_take_time_and_fill_irq_can_be_absent),
		cmocka_unit_test(test_driver_waits_out_operations_in_progress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
