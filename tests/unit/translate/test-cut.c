// SPDX-License-Identifier: MIT
/*
 * hb_topology_dpa_piece(): a DPA range cut where its HPA stops being
 * contiguous, on the real `cxl list -vvv` 2-way region (4 KiB granules,
 * 256 MiB per memdev; tests/data/snapshots/README.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "translate.h"

#define GRAN 0x1000ull
#define DEC_SIZE 0x10000000ull

static int setup(void **state)
{
	const char *dir = getenv("HB_TEST_DATA");
	struct hb_topology *t = NULL;
	char path[4096];

	snprintf(path, sizeof(path), "%s/snapshots/x2-vvv-notes.json", dir ? dir : "tests/data");
	if (hb_topology_load_json_file(path, NULL, &t, NULL) < 0)
		return -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	hb_topology_free(*state);
	return 0;
}

/* a piece starting mid-granule ends at the granule's end, and is contiguous */
static void test_cut_stops_at_the_granule_end(void **state)
{
	const struct hb_topology *t = *state;
	int md = hb_topology_find_memdev(t, "mem1");
	struct hb_xlat x, last;
	uint64_t n;

	assert_int_equal(hb_topology_dpa_piece(t, md, 0x5123, 0x10000, &x, &n, NULL), 0);
	assert_int_equal(x.hpa, 0x39000B123ull);
	assert_int_equal(n, GRAN - 0x123);
	assert_int_equal(hb_topology_dpa_to_hpa(t, md, 0x5123 + n - 1, &last, NULL), 0);
	assert_int_equal(last.hpa, x.hpa + n - 1);
}

/* shorter than what is left of the granule: the whole range */
static void test_cut_short_range_is_one_piece(void **state)
{
	const struct hb_topology *t = *state;
	int md = hb_topology_find_memdev(t, "mem0");
	struct hb_xlat x;
	uint64_t n;

	assert_int_equal(hb_topology_dpa_piece(t, md, 0x2010, 0x20, &x, &n, NULL), 0);
	assert_int_equal(n, 0x20);
	assert_int_equal(x.dpa, 0x2010);
}

/*
 * Pieces cover the range exactly, one per granule touched, and each next
 * piece's HPA jumps over the other memdev's granule (2 ways).
 */
static void test_cut_pieces_cover_the_range(void **state)
{
	const struct hb_topology *t = *state;
	int md = hb_topology_find_memdev(t, "mem0");
	uint64_t dpa = 0x800, end = 0x800 + 3 * GRAN, prev_hpa = 0, n;
	unsigned pieces = 0;
	struct hb_xlat x;

	while (dpa < end) {
		assert_int_equal(hb_topology_dpa_piece(t, md, dpa, end - dpa, &x, &n, NULL), 0);
		assert_true(n > 0 && n <= GRAN);
		if (pieces)
			assert_int_equal(x.hpa, prev_hpa + GRAN); /* skips mem1's granule */
		prev_hpa = x.hpa + n;
		dpa += n;
		pieces++;
	}
	assert_int_equal(dpa, end);
	assert_int_equal(pieces, 4);
}

/* the last piece stops at the decoder's end; past it is unmapped */
static void test_cut_stops_at_the_decoder_end(void **state)
{
	const struct hb_topology *t = *state;
	int md = hb_topology_find_memdev(t, "mem1");
	struct hb_err err = { 0 };
	struct hb_xlat x;
	uint64_t n = 7;

	assert_int_equal(hb_topology_dpa_piece(t, md, DEC_SIZE - 0x100, 1ull << 40, &x, &n, NULL), 0);
	assert_int_equal(n, 0x100);
	n = 7;
	assert_int_equal(hb_topology_dpa_piece(t, md, DEC_SIZE, 0x1000, &x, &n, &err), HB_E_UNMAPPED);
	assert_non_null(strstr(err.msg, "mem1"));
	assert_int_equal(n, 7); /* untouched on failure */
}

static void test_cut_zero_length_is_refused(void **state)
{
	const struct hb_topology *t = *state;
	struct hb_err err = { 0 };
	struct hb_xlat x;
	uint64_t n;

	assert_int_equal(hb_topology_dpa_piece(t, hb_topology_find_memdev(t, "mem0"), 0x1000, 0, &x,
					       &n, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "zero length"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_stops_at_the_granule_end),
		cmocka_unit_test(test_cut_short_range_is_one_piece),
		cmocka_unit_test(test_cut_pieces_cover_the_range),
		cmocka_unit_test(test_cut_stops_at_the_decoder_end),
		cmocka_unit_test(test_cut_zero_length_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
