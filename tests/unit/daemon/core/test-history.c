// SPDX-License-Identifier: MIT
/*
 * The decision history ring: sizes outside HB_HISTORY_MIN..MAX are refused
 * with a message naming the range; when full the newest entry overwrites
 * the oldest of its half (promotions, refusals), so refusals never push out
 * promotions, and lookups answer newest first across both; a lookup by page finds every
 * address of the page and nothing else, also across the wrap; max bounds
 * the answer; the memory is the ring, fixed at creation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core.h"

#define PAGE 4096ULL

static struct hb_history_entry entry(uint64_t hpa, uint64_t t)
{
	return (struct hb_history_entry){
		.time_ns = t, .hpa = hpa, .src = 2, .target = 0, .reason = HB_REASON_PROMOTE, .result = 0
	};
}

static void test_history_size_limits_are_checked(void **state)
{
	struct hb_history *h = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_history_new(HB_HISTORY_MIN - 1, &h, &err), -EINVAL);
	assert_null(h);
	assert_non_null(strstr(err.msg, "history size 15: want 16..1048576 entries"));
	assert_int_equal(hb_history_new(HB_HISTORY_MAX + 1, &h, &err), -EINVAL);
	assert_null(h);
	assert_int_equal(hb_history_new(HB_HISTORY_MIN, &h, &err), 0);
	assert_int_equal(hb_history_size(h), HB_HISTORY_MIN);
	assert_int_equal(hb_history_len(h), 0);
	assert_true(hb_history_bytes(h) >= HB_HISTORY_MIN * 64);
	h = hb_history_free(h);
	assert_null(h);
}

static void add(struct hb_history *h, uint64_t hpa, uint64_t t, enum hb_reason reason)
{
	struct hb_history_entry e = entry(hpa, t);

	e.reason = (uint8_t)reason;
	if (reason != HB_REASON_PROMOTE)
		e.result = HB_HISTORY_NO_RESULT;
	hb_history_add(h, &e);
}

static void test_history_wraps_keeping_the_newest(void **state)
{
	const struct hb_history_entry *out[64];
	struct hb_history *h = NULL;
	size_t before;

	assert_int_equal(hb_history_new(16, &h, NULL), 0);
	before = hb_history_bytes(h);
	/* 8 entries for promotions, 8 for refusals */
	for (uint64_t i = 0; i < 40; i++)
		add(h, i * PAGE, i, HB_REASON_PROMOTE);
	assert_int_equal(hb_history_len(h), 8);
	assert_int_equal(hb_history_total(h), 40);
	for (uint64_t i = 40; i < 80; i++)
		add(h, i * PAGE, i, HB_REASON_RATE_LIMIT);
	assert_int_equal(hb_history_len(h), 16);
	assert_int_equal(hb_history_total(h), 80);
	assert_int_equal(hb_history_bytes(h), before); /* fixed memory */
	assert_int_equal(hb_history_find(h, false, 0, PAGE, out, 64), 16);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(out[i]->time_ns, 79 - i);     /* newest first: 79 .. 72 */
		assert_int_equal(out[8 + i]->time_ns, 39 - i); /* then 39 .. 32 */
	}
	/* --last N */
	assert_int_equal(hb_history_find(h, false, 0, PAGE, out, 3), 3);
	assert_int_equal(out[2]->time_ns, 77);
	/* overwritten pages are gone */
	assert_int_equal(hb_history_find(h, true, 5 * PAGE, PAGE, out, 64), 0);
	assert_int_equal(hb_history_find(h, true, 45 * PAGE, PAGE, out, 64), 0);
	hb_history_free(h);
}

static void test_history_refusals_never_push_out_promotions(void **state)
{
	const struct hb_history_entry *out[64];
	struct hb_history *h = NULL;

	assert_int_equal(hb_history_new(16, &h, NULL), 0);
	add(h, 0x390001000, 0, HB_REASON_PROMOTE);
	for (uint64_t i = 1; i <= 1000; i++)
		add(h, 0x390002000 + (i % 3) * PAGE, i, HB_REASON_RATE_LIMIT);
	assert_int_equal(hb_history_find(h, true, 0x390001000, PAGE, out, 64), 1);
	assert_int_equal(out[0]->reason, HB_REASON_PROMOTE);
	assert_int_equal(out[0]->result, 0);
	/* all of it: the 8 newest refusals, then the promotion */
	assert_int_equal(hb_history_find(h, false, 0, PAGE, out, 64), 9);
	assert_int_equal(out[0]->time_ns, 1000);
	assert_int_equal(out[7]->time_ns, 993);
	assert_int_equal(out[8]->time_ns, 0);
	/* in one cycle (equal times), the promotion comes first */
	add(h, 0x390009000, 1000, HB_REASON_PROMOTE);
	assert_int_equal(hb_history_find(h, false, 0, PAGE, out, 2), 2);
	assert_int_equal(out[0]->hpa, 0x390009000);
	assert_int_equal(out[1]->time_ns, 1000);
	hb_history_free(h);
}

static void test_history_lookup_by_page(void **state)
{
	const struct hb_history_entry *out[64];
	struct hb_history *h = NULL;

	assert_int_equal(hb_history_new(32, &h, NULL), 0);
	/* an empty ring answers nothing */
	assert_int_equal(hb_history_find(h, true, 0x390000000, PAGE, out, 64), 0);
	assert_int_equal(hb_history_find(h, false, 0, PAGE, out, 64), 0);
	for (uint64_t i = 0; i < 50; i++) {
		/* page 0x390001000 promoted every 10th entry, refusals elsewhere */
		if (i % 10) {
			add(h, 0x3a0000000 + i * PAGE, i, HB_REASON_RATE_LIMIT);
		} else {
			struct hb_history_entry e = entry(0x390001000, i);

			e.result = -(int)(i / 10);
			hb_history_add(h, &e);
		}
	}
	/* the page's 5 promotions (0 .. 40) are kept: newest first */
	assert_int_equal(hb_history_find(h, true, 0x390001abc, PAGE, out, 64), 5);
	assert_int_equal(out[0]->time_ns, 40);
	assert_int_equal(out[0]->result, -4);
	assert_int_equal(out[4]->time_ns, 0);
	assert_int_equal(hb_history_find(h, true, 0x390001000, PAGE, out, 1), 1);
	assert_int_equal(out[0]->time_ns, 40);
	/* the neighbouring pages are not it */
	assert_int_equal(hb_history_find(h, true, 0x390000fff, PAGE, out, 64), 0);
	assert_int_equal(hb_history_find(h, true, 0x390002000, PAGE, out, 64), 0);
	hb_history_free(h);
}

static void test_history_maximum_size_is_allocated_once(void **state)
{
	const struct hb_history_entry *out[4];
	struct hb_history *h = NULL;

	assert_int_equal(hb_history_new(HB_HISTORY_MAX, &h, NULL), 0);
	assert_true(hb_history_bytes(h) >= (size_t)HB_HISTORY_MAX * 64);
	for (uint64_t i = 0; i < HB_HISTORY_MAX + 5ULL; i++)
		add(h, i * PAGE, i, i % 2 ? HB_REASON_PROMOTE : HB_REASON_NOT_TOP_K);
	assert_int_equal(hb_history_len(h), HB_HISTORY_MAX);
	assert_int_equal(hb_history_find(h, false, 0, PAGE, out, 4), 4);
	assert_int_equal(out[0]->time_ns, HB_HISTORY_MAX + 4ULL);
	assert_int_equal(out[3]->time_ns, HB_HISTORY_MAX + 1ULL);
	/* each half keeps its newest 524288: times 5 .. */
	assert_int_equal(hb_history_find(h, true, 3 * PAGE, PAGE, out, 4), 0);
	assert_int_equal(hb_history_find(h, true, 4 * PAGE, PAGE, out, 4), 0);
	assert_int_equal(hb_history_find(h, true, 5 * PAGE, PAGE, out, 4), 1);
	assert_int_equal(hb_history_find(h, true, 6 * PAGE, PAGE, out, 4), 1);
	hb_history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_size_limits_are_checked),
		cmocka_unit_test(test_history_wraps_keeping_the_newest),
		cmocka_unit_test(test_history_refusals_never_push_out_promotions),
		cmocka_unit_test(test_history_lookup_by_page),
		cmocka_unit_test(test_history_maximum_size_is_allocated_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
