// SPDX-License-Identifier: MIT
/*
 * daemon/util's small helpers, one implementation each for every folder:
 * the monotonic clock (clock.c), power-of-two sizes and the hash of the
 * open-addressed tables (util.h), the enum name tables (strtab.h).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "util/strtab.h"
#include "util/util.h"

/* a table with a gap, as designated initialisers leave one */
enum colour { RED, GREEN, UNNAMED, BLUE, _COLOUR_MAX, _COLOUR_INVALID = -EINVAL };

static const char *const colour_names[_COLOUR_MAX] = {
	[RED] = "red",
	[GREEN] = "green",
	[BLUE] = "blue",
};

static HB_STRTAB_TO_STRING(colour_to_string, enum colour, colour_names, NULL) static HB_STRTAB_FROM_STRING(
	colour_from_string, enum colour,
	colour_names) static HB_STRTAB_TO_STRING(colour_or_unknown, enum colour, colour_names,
						 "unknown")

	static uint64_t mono_ns(void)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void test_strtab_round_trips_every_named_value(void **state)
{
	for (int c = 0; c < _COLOUR_MAX; c++) {
		if (c == UNNAMED)
			continue;
		assert_non_null(colour_to_string(c));
		assert_int_equal(colour_from_string(colour_to_string(c)), c);
	}
	assert_string_equal(colour_to_string(BLUE), "blue");
	assert_int_equal(colour_from_string("green"), GREEN);
}

static void test_strtab_refuses_unknown_null_and_out_of_range(void **state)
{
	/* names: unknown, NULL, a prefix, another case */
	assert_int_equal(colour_from_string("purple"), _COLOUR_INVALID);
	assert_int_equal(colour_from_string(NULL), -EINVAL);
	assert_int_equal(colour_from_string("gre"), -EINVAL);
	assert_int_equal(colour_from_string("Red"), -EINVAL);
	assert_int_equal(colour_from_string(""), -EINVAL);
	/* values: the gap, past the end, negative (the _INVALID value itself) */
	assert_null(colour_to_string(UNNAMED));
	assert_null(colour_to_string(_COLOUR_MAX));
	assert_null(colour_to_string((enum colour)1000));
	assert_null(colour_to_string(_COLOUR_INVALID));
	assert_null(colour_to_string((enum colour) - 1));
	/* or the caller's fallback */
	assert_string_equal(colour_or_unknown(UNNAMED), "unknown");
	assert_string_equal(colour_or_unknown(_COLOUR_INVALID), "unknown");
	assert_string_equal(colour_or_unknown(RED), "red");
}

static void test_clock_is_monotonic_in_each_unit(void **state)
{
	struct timespec nap = { .tv_nsec = 20 * 1000000L };
	uint64_t before = mono_ns(), ns = hb_now_ns(), after = mono_ns();
	uint64_t us = hb_now_us(), ms = hb_now_ms();

	/* CLOCK_MONOTONIC itself, not the wall clock */
	assert_true(before <= ns && ns <= after);
	/* the same clock in µs and ms, read a moment later */
	assert_true(us >= ns / 1000 && us - ns / 1000 < 1000000);
	assert_true(ms >= ns / 1000000 && ms - ns / 1000000 < 1000);
	assert_int_equal(nanosleep(&nap, NULL), 0);
	assert_true(hb_now_ns() - ns >= 20000000ULL);
	assert_true(hb_now_us() - us >= 20000ULL);
	assert_true(hb_now_ms() - ms >= 19ULL); /* ms truncates at both ends */
}

static void test_pow2_at_least_rounds_up_to_the_table_size(void **state)
{
	assert_int_equal(hb_pow2_at_least(0, 16), 16);
	assert_int_equal(hb_pow2_at_least(16, 16), 16);
	assert_int_equal(hb_pow2_at_least(17, 16), 32);
	assert_int_equal(hb_pow2_at_least(1, 64), 64);
	assert_int_equal(hb_pow2_at_least(2 * 1000000, 16), 2097152);
	assert_int_equal(hb_pow2_at_least((size_t)1 << 40, 1), (size_t)1 << 40);
	/* nothing fits: 0, never a wrapped or endless loop */
	assert_int_equal(hb_pow2_at_least(SIZE_MAX / 2 + 2, 16), 0);
	assert_int_equal(hb_pow2_at_least(SIZE_MAX, 1), 0);
}

static void test_ilog2_and_is_pow2(void **state)
{
	assert_int_equal(hb_ilog2(1), 0);
	assert_int_equal(hb_ilog2(4095), 11);
	assert_int_equal(hb_ilog2(4096), 12);
	assert_int_equal(hb_ilog2(UINT64_MAX), 63);
	assert_true(hb_is_pow2(1) && hb_is_pow2(1ULL << 63) && hb_is_pow2(4096));
	assert_false(hb_is_pow2(0) || hb_is_pow2(3) || hb_is_pow2(4097));
}

static void test_hash_slot_is_fibonacci_hashing(void **state)
{
	/* pinned: the tables' slots (and so their walk order) stay what they were */
	assert_int_equal(hb_hash_slot(1, 20, 1u << 16), 0x97f4);
	assert_int_equal(hb_hash_slot(0x390000 + 1, 24, 4096), 3871);
	assert_int_equal(hb_hash_slot(12345, 17, 4096), 1900);
	/* the bits from shift up: one more slot bit keeps the lower ones */
	for (uint64_t k = 1; k < 1000; k++)
		assert_int_equal(hb_hash_slot(k, 20, 1024), hb_hash_slot(k, 20, 2048) & 1023);
}

static void test_hash_slot_spreads_consecutive_pages(void **state)
{
	static const unsigned shifts[] = { 17, 20, 24 }; /* pagemap, heat, policy */
	enum { CAP = 8192, KEYS = 4096 };
	unsigned char *used = malloc(CAP);

	assert_non_null(used);
	for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		unsigned collisions = 0;

		memset(used, 0, CAP);
		for (uint64_t k = 1; k <= KEYS; k++) {
			size_t s = hb_hash_slot(k, shifts[i], CAP);

			assert_true(s < CAP);
			collisions += used[s];
			used[s] = 1;
		}
		/* a random hash collides on about 21% of these; shifting alone on all */
		if (collisions > KEYS / 3)
			fail_msg("shift %u: %u of %d keys collide", shifts[i], collisions, KEYS);
	}
	free(used);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strtab_round_trips_every_named_value),
		cmocka_unit_test(test_strtab_refuses_unknown_null_and_out_of_range),
		cmocka_unit_test(test_clock_is_monotonic_in_each_unit),
		cmocka_unit_test(test_pow2_at_least_rounds_up_to_the_table_size),
		cmocka_unit_test(test_ilog2_and_is_pow2),
		cmocka_unit_test(test_hash_slot_is_fibonacci_hashing),
		cmocka_unit_test(test_hash_slot_spreads_consecutive_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
