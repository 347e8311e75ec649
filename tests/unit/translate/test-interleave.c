// SPDX-License-Identifier: MIT
/*
 * Interleave arithmetic against hand-derived vectors (every way count,
 * granularities 256 B..16 KiB, modulo, XOR, unaligned MOD3), vectors from
 * ndctl's test/cxl-translate.sh, and properties over random layouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "translate.h"

struct vec {
	unsigned ways, gran, pos;
	uint64_t base, dpa_off, hpa;
};

static void init(struct hb_interleave *il, uint64_t base, unsigned ways, unsigned gran,
		 unsigned root_ways, enum hb_arith arith, const uint64_t *maps, unsigned nmaps)
{
	struct hb_interleave_params p = {
		.base = base,
		.size = 48ull * (256ull << 20),
		.ways = ways,
		.gran = gran,
		.root_ways = root_ways,
		.root_gran = gran,
		.arith = arith,
		.xormaps = maps,
		.nr_xormaps = nmaps,
	};
	struct hb_err err = { 0 };

	assert_int_equal(hb_interleave_init(il, &p, &err), 0);
}

static void check_both_ways(const struct hb_interleave *il, unsigned pos, uint64_t off, uint64_t hpa)
{
	unsigned rpos;
	uint64_t roff;

	assert_int_equal(hb_interleave_to_hpa(il, pos, off), hpa);
	hb_interleave_to_dpa(il, hpa, &rpos, &roff);
	assert_int_equal(rpos, pos);
	assert_int_equal(roff, off);
}

/* libcxl notes 2.7, each derived by hand: V1..V8 */
static void test_interleave_modulo_hand_vectors(void **state)
{
	static const struct vec v[] = {
		{ 1, 256, 0, 0x390000000ull, 0x1234, 0x390001234ull },
		{ 2, 4096, 1, 0x390000000ull, 0x5123, 0x39000B123ull },
		{ 4, 256, 2, 0x400000000ull, 0xA7F, 0x400002A7Full },
		{ 3, 256, 2, 0x300000000ull, 0x1234, 0x300003834ull },
		{ 6, 1024, 5, 0x600000000ull, 0x2C10, 0x600011C10ull },
		{ 12, 16384, 7, 0xC00000000ull, 0x123456, 0xC00D9F456ull },
		{ 16, 512, 15, 0x1000000000ull, 0x3FF, 0x1000003FFFull },
		{ 8, 2048, 3, 0x2000000000ull, 0x3FFFFFFF, 0x21FFFFDFFFull },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct hb_interleave il;

		init(&il, v[i].base, v[i].ways, v[i].gran, 1, HB_ARITH_MODULO, NULL, 0);
		check_both_ways(&il, v[i].pos, v[i].dpa_off, v[i].hpa);
	}
}

static const uint64_t maps[] = { 0x2020900, 0x4041200, 0x1010400, 0x800 };

/* X1: modulo alone would give position 1 the chunk at 0x800 */
static void test_interleave_xor_flips_position_bit(void **state)
{
	struct hb_interleave il;

	init(&il, 0x400000000ull, 2, 256, 2, HB_ARITH_XOR, maps, 1);
	check_both_ways(&il, 0, 0x400, 0x400000900ull);
}

/* ndctl test/cxl-translate.sh rows "dpa pos r_eiw r_eig hb_ways xor expect",
 * base 0, maps as above; X2 and X3 were also derived by hand. */
static void test_interleave_xor_ndctl_vectors(void **state)
{
	static const struct {
		uint64_t dpa;
		unsigned pos, ways, hbw;
		uint64_t hpa;
	} v[] = {
		{ 544, 0, 4, 4, 2336 },
		{ 32, 8, 12, 12, 2336 },
		{ 443953523, 0, 4, 4, 1775813747 },
		{ 344295715, 7, 8, 4, 2754367011ull },
		{ 231458716, 7, 12, 12, 2777503900ull },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct hb_interleave_params p = {
			.base = 0,
			.size = 192ull << 30,
			.ways = v[i].ways,
			.gran = 256,
			.root_ways = v[i].hbw,
			.root_gran = 256,
			.arith = HB_ARITH_XOR,
			.xormaps = maps,
			.nr_xormaps = 4,
		};
		struct hb_interleave il;

		assert_int_equal(hb_interleave_init(&il, &p, NULL), 0);
		check_both_ways(&il, v[i].pos, v[i].dpa, v[i].hpa);
	}
}

/* ndctl's 12-way XOR sample at DPA 512, positions 0..11 */
static void test_interleave_xor_12way_sample_row(void **state)
{
	static const uint64_t expect[12] = { 6912, 6656, 6400, 6144, 7936, 7680,
					     7424, 7168, 8192, 8448, 8704, 8960 };
	struct hb_interleave_params p = {
		.base = 0,
		.size = 12ull << 30,
		.ways = 12,
		.gran = 256,
		.root_ways = 12,
		.root_gran = 256,
		.arith = HB_ARITH_XOR,
		.xormaps = maps,
		.nr_xormaps = 4,
	};
	struct hb_interleave il;

	assert_int_equal(hb_interleave_init(&il, &p, NULL), 0);
	for (unsigned pos = 0; pos < 12; pos++)
		check_both_ways(&il, pos, 512, expect[pos]);
}

/* U1: 3-way window at 17 x 256 MiB rotates host-bridge slots by 2 */
static void test_interleave_unaligned_mod3_rotates(void **state)
{
	struct hb_interleave il;
	struct hb_interleave_params p = {
		.base = 0x110000000ull,
		.size = 768ull << 20,
		.ways = 3,
		.gran = 256,
		.root_ways = 3,
		.root_gran = 256,
	};

	assert_int_equal(hb_interleave_init(&il, &p, NULL), 0);
	assert_true(il.unaligned);
	check_both_ways(&il, 1, 0, 0x110000200ull);
	check_both_ways(&il, 1, 0x1234, 0x110003834ull);
}

static void test_interleave_rejects_illegal(void **state)
{
	static const unsigned bad_ways[] = { 0, 5, 7, 9, 10, 24, 32 };
	static const unsigned bad_gran[] = { 0, 128, 384, 32768 };
	struct hb_interleave il;
	struct hb_err err = { 0 };

	for (size_t i = 0; i < sizeof(bad_ways) / sizeof(bad_ways[0]); i++) {
		struct hb_interleave_params p = {
			.base = 0, .size = 48ull << 30, .ways = bad_ways[i], .gran = 256
		};

		assert_int_equal(hb_interleave_init(&il, &p, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "ways"));
	}
	for (size_t i = 0; i < sizeof(bad_gran) / sizeof(bad_gran[0]); i++) {
		struct hb_interleave_params p = {
			.base = 0, .size = 1ull << 30, .ways = 2, .gran = bad_gran[i]
		};

		assert_int_equal(hb_interleave_init(&il, &p, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "granularity"));
	}
	{
		/* XOR window without enough maps */
		struct hb_interleave_params p = { .base = 0,
						  .size = 1ull << 30,
						  .ways = 4,
						  .gran = 256,
						  .root_ways = 4,
						  .arith = HB_ARITH_XOR,
						  .xormaps = maps,
						  .nr_xormaps = 1 };

		assert_int_equal(hb_interleave_init(&il, &p, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "XOR maps"));
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Property: for random legal layouts (every ways, granularity, modulo and
 * XOR, aligned and unaligned 3/6/12 windows), DPA -> HPA -> DPA is the
 * identity, every HPA lies in the region, and the first W*G*4 DPAs of all
 * positions land on distinct HPAs covering the span exactly.
 */
static void test_interleave_random_roundtrip_and_injective(void **state)
{
	static const unsigned ways[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
	uint64_t seed = 0x9E3779B97F4A7C15ull;

	for (int iter = 0; iter < 400; iter++) {
		unsigned w = ways[rnd(&seed) % 8], g = 256u << (rnd(&seed) % 7);
		unsigned hw = w, hg = g;
		struct hb_interleave_params p = { 0 };
		struct hb_interleave il;
		uint64_t per = ((rnd(&seed) % 4) + 1) * (256ull << 20);
		uint64_t span, *seen;
		bool xor_ = rnd(&seed) % 3 == 0;

		/* root ways: a divisor of w that keeps the 3-factor where it exists */
		if (w > 1 && rnd(&seed) % 2) {
			hw = (w % 3 == 0) ? 3 : w / 2;
			if (rnd(&seed) % 2 && g > 256)
				hg = g / 2;
		}
		p.ways = w;
		p.gran = g;
		p.root_ways = hw;
		p.root_gran = hg;
		p.size = per * w;
		p.base = (rnd(&seed) % 1024 + 1) * (256ull << 20);
		if (xor_) {
			p.arith = HB_ARITH_XOR;
			p.xormaps = maps;
			p.nr_xormaps = 4;
			p.base = (rnd(&seed) % 64 + 1) * (256ull << 20) * 16;
		}
		if (hb_interleave_init(&il, &p, NULL) < 0) {
			/* only the non-injective unaligned case may be refused */
			assert_true(hw % 3 == 0 && hg == g && w / hw > 1);
			continue;
		}
		for (int k = 0; k < 200; k++) {
			unsigned pos = (unsigned)(rnd(&seed) % w), rpos;
			uint64_t off = rnd(&seed) % per, roff;
			uint64_t hpa = hb_interleave_to_hpa(&il, pos, off);

			assert_true(hpa >= p.base && hpa < p.base + p.size);
			hb_interleave_to_dpa(&il, hpa, &rpos, &roff);
			assert_int_equal(rpos, pos);
			assert_int_equal(roff, off);
		}
		span = (uint64_t)w * g * 4;
		seen = calloc(span / 64 + 1, sizeof(*seen));
		assert_non_null(seen);
		for (unsigned pos = 0; pos < w; pos++)
			for (uint64_t off = 0; off < (uint64_t)g * 4; off += 64) {
				uint64_t rel = hb_interleave_to_hpa(&il, pos, off) - p.base;

				if (rel >= span)
					continue; /* rotated or XOR'd beyond the first span */
				assert_int_equal(rel % 64, 0);
				assert_false(seen[rel / 64 / 64] & (1ull << (rel / 64 % 64)));
				seen[rel / 64 / 64] |= 1ull << (rel / 64 % 64);
			}
		free(seen);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleave_modulo_hand_vectors),
		cmocka_unit_test(test_interleave_xor_flips_position_bit),
		cmocka_unit_test(test_interleave_xor_ndctl_vectors),
		cmocka_unit_test(test_interleave_xor_12way_sample_row),
		cmocka_unit_test(test_interleave_unaligned_mod3_rotates),
		cmocka_unit_test(test_interleave_rejects_illegal),
		cmocka_unit_test(test_interleave_random_roundtrip_and_injective),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
