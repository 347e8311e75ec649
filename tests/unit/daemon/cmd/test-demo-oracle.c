// SPDX-License-Identifier: MIT
/*
 * daemon/cmd/demo-oracle.c: the demo's clairvoyant policy. Hand-worked
 * scenarios prove each limit it is held to (the promotion bucket, DRAM's
 * room, the demotion rate), that it reads the next cycle's hot set but
 * never demotes a page of the current one for it, and that only scored
 * cycles enter its mean; a long random run proves its set of pages on DRAM
 * loses and duplicates nothing through thousands of demotions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cmd/demo-oracle.h"

#define PG(n) (0x390000000ULL + (uint64_t)(n)*4096)

static const uint64_t A = PG(1), B = PG(2), C = PG(3), D = PG(4);

static void test_oracle_refuses_limits_that_mean_nothing(void **state)
{
	struct hb_demo_oracle o;

	(void)state;
	assert_int_equal(hb_demo_oracle_init(&o, 0, 1, 1, 1), -EINVAL);
	assert_int_equal(hb_demo_oracle_init(&o, 8, 0, 1, 1), -EINVAL);
	assert_int_equal(hb_demo_oracle_init(&o, 8, 2, 1, 1), -EINVAL); /* depth < rate */
	assert_int_equal(hb_demo_oracle_init(&o, 8, 1, 1, -1), -EINVAL);
}

static void test_oracle_promotes_no_more_than_its_bucket(void **state)
{
	const uint64_t hot[] = { A, B, C, D };
	struct hb_demo_oracle o;

	(void)state;
	assert_int_equal(hb_demo_oracle_init(&o, 10, 2, 2, 2), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, hot, 4, true), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, hot, 4, true), 0);
	assert_int_equal(hb_demo_oracle_finish(&o), 0);
	/* two pages a cycle: half the set after the first, all after the second */
	assert_int_equal(o.scored, 2);
	assert_float_equal(o.last_recall, 1.0, 1e-9);
	assert_float_equal(hb_demo_oracle_recall(&o), 0.75, 1e-9);
	assert_int_equal(o.promoted, 4);
	assert_int_equal(o.demoted, 0);
	hb_demo_oracle_done(&o);
}

static void test_oracle_spends_what_is_left_on_the_next_hot_set(void **state)
{
	const uint64_t now[] = { A, B }, next[] = { C, D };
	struct hb_demo_oracle o;

	(void)state;
	assert_int_equal(hb_demo_oracle_init(&o, 10, 4, 4, 0), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, now, 2, true), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, next, 2, true), 0);
	assert_int_equal(hb_demo_oracle_finish(&o), 0);
	/* C and D went with A and B in the first cycle: the move costs no recall */
	assert_float_equal(hb_demo_oracle_recall(&o), 1.0, 1e-9);
	assert_int_equal(o.promoted, 4);
	hb_demo_oracle_done(&o);
}

static void test_oracle_demotes_no_faster_than_its_rate_when_dram_is_full(void **state)
{
	const uint64_t first[] = { A, B }, moved[] = { C, D };
	struct hb_demo_oracle o;

	(void)state;
	assert_int_equal(hb_demo_oracle_init(&o, 2, 2, 2, 1), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, first, 2, true), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, moved, 2, true), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, moved, 2, true), 0);
	assert_int_equal(hb_demo_oracle_finish(&o), 0);
	/*
	 * cycle 1: A, B fill the room (nothing left for C, D); cycle 2: one
	 * demotion a cycle, so C in and D not (0.5); cycle 3: D in (1)
	 */
	assert_float_equal(hb_demo_oracle_recall(&o), (1 + 0.5 + 1) / 3.0, 1e-9);
	assert_int_equal(o.promoted, 4);
	assert_int_equal(o.demoted, 2);
	assert_int_equal(o.placed.len, 2);
	hb_demo_oracle_done(&o);
}

static void test_oracle_never_demotes_a_current_hot_page_for_the_next(void **state)
{
	const uint64_t now[] = { A, B }, next[] = { C };
	struct hb_demo_oracle o;

	(void)state;
	assert_int_equal(hb_demo_oracle_init(&o, 2, 4, 4, 4), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, now, 2, true), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, next, 1, true), 0);
	assert_float_equal(o.last_recall, 1.0, 1e-9); /* cycle 1 kept A and B */
	assert_int_equal(o.promoted, 2);
	assert_int_equal(hb_demo_oracle_finish(&o), 0);
	assert_int_equal(o.promoted, 3);
	assert_int_equal(o.demoted, 1);
	assert_float_equal(hb_demo_oracle_recall(&o), 1.0, 1e-9);
	hb_demo_oracle_done(&o);
}

static void test_oracle_mean_takes_only_scored_cycles(void **state)
{
	const uint64_t hot[] = { A, B, C, D };
	struct hb_demo_oracle o;

	(void)state;
	assert_int_equal(hb_demo_oracle_init(&o, 10, 2, 2, 0), 0);
	assert_int_equal(hb_demo_oracle_cycle(&o, hot, 4, false), 0); /* 0.5, not scored */
	assert_int_equal(hb_demo_oracle_cycle(&o, hot, 4, true), 0);
	assert_int_equal(hb_demo_oracle_finish(&o), 0);
	assert_int_equal(o.scored, 1);
	assert_float_equal(hb_demo_oracle_recall(&o), 1.0, 1e-9);
	hb_demo_oracle_done(&o);
}

/* a small LCG: the same run everywhere */
static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static void test_oracle_set_survives_thousands_of_demotions(void **state)
{
	enum { ROOM = 50, CYCLES = 400 };
	uint64_t sets[2][ROOM], seed = 7;
	struct hb_demo_oracle o;

	(void)state;
	/* room for one set: every cycle demotes the last set to place the next */
	assert_int_equal(hb_demo_oracle_init(&o, ROOM, 1000, 1000, 1000), 0);
	for (int c = 0; c < CYCLES; c++) {
		uint64_t *s = sets[c % 2];

		/* distinct pages from a small range: many collide in the set's slots */
		for (int i = 0; i < ROOM; i++) {
			s[i] = PG(1 + (uint64_t)c * ROOM + (uint64_t)i +
				  (next_rand(&seed) % 3) * 100000);
		}
		assert_int_equal(hb_demo_oracle_cycle(&o, s, ROOM, true), 0);
	}
	assert_int_equal(hb_demo_oracle_finish(&o), 0);
	assert_int_equal(o.scored, CYCLES);
	assert_float_equal(hb_demo_oracle_recall(&o), 1.0, 1e-9);
	assert_int_equal(o.demoted, (CYCLES - 1) * ROOM);
	assert_int_equal(o.placed.len, ROOM);
	/* the slots hold exactly the last cycle's pages, each once */
	{
		const uint64_t *last = sets[(CYCLES - 1) % 2];
		size_t found = 0, members = 0;

		for (size_t i = 0; i <= o.placed.mask; i++) {
			if (!o.placed.slot[i])
				continue;
			members++;
			for (int j = 0; j < ROOM; j++)
				found += o.placed.slot[i] == last[j];
		}
		assert_int_equal(members, ROOM);
		assert_int_equal(found, ROOM);
	}
	hb_demo_oracle_done(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_refuses_limits_that_mean_nothing),
		cmocka_unit_test(test_oracle_promotes_no_more_than_its_bucket),
		cmocka_unit_test(test_oracle_spends_what_is_left_on_the_next_hot_set),
		cmocka_unit_test(test_oracle_demotes_no_faster_than_its_rate_when_dram_is_full),
		cmocka_unit_test(test_oracle_never_demotes_a_current_hot_page_for_the_next),
		cmocka_unit_test(test_oracle_mean_takes_only_scored_cycles),
		cmocka_unit_test(test_oracle_set_survives_thousands_of_demotions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
