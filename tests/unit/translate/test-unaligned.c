// SPDX-License-Identifier: MIT
/*
 * 3/6/12-way windows, aligned and not (Linux 7.0 handles region bases not
 * a multiple of ways * 256 MiB): hotbridge's closed form against vectors
 * from tests/tools/unaligned-model.py, which follows the kernel's steps
 * (slot search, restore_parent) instead. Both directions: DPA -> HPA, and
 * HPA -> (position, DPA) back to the same line.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "translate.h"

#define SZ_256M (256ull << 20)

static void test_unaligned_mod3_model_vectors_both_ways(void **state)
{
	const char *dir = getenv("HB_TEST_DATA");
	char path[4096], line[256];
	unsigned long n = 0, unaligned = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/interleave/unaligned-mod3.vectors",
		 dir ? dir : "tests/data");
	f = fopen(path, "re");
	if (!f)
		fail_msg("%s: %m", path);
	while (fgets(line, sizeof(line), f)) {
		struct hb_interleave il;
		struct hb_interleave_params p = { .arith = HB_ARITH_MODULO };
		unsigned hw, ways, hg, rg, pos, got_pos;
		uint64_t base, off, hpa, got_off;
		struct hb_err err = { 0 };

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%u %u %u %u %" SCNx64 " %u %" SCNx64 " %" SCNx64, &hw, &ways, &hg,
			   &rg, &base, &pos, &off, &hpa) != 8)
			fail_msg("%s: bad line %s", path, line);
		p.base = base;
		p.size = ways * SZ_256M;
		p.ways = ways;
		p.gran = rg;
		p.root_ways = hw;
		p.root_gran = hg;
		if (hb_interleave_init(&il, &p, &err) < 0)
			fail_msg("%s: %s", line, err.msg);
		unaligned += il.unaligned;
		if (hb_interleave_to_hpa(&il, pos, off) != hpa)
			fail_msg("DPA->HPA %s: got %#" PRIx64, line,
				 hb_interleave_to_hpa(&il, pos, off));
		hb_interleave_to_dpa(&il, hpa, &got_pos, &got_off);
		if (got_pos != pos || got_off != off)
			fail_msg("HPA->DPA %s: got pos %u off %#" PRIx64, line, got_pos, got_off);
		n++;
	}
	fclose(f);
	assert_true(n > 2000);
	assert_true(unaligned > n / 2); /* 3 of each 4 bases are unaligned */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unaligned_mod3_model_vectors_both_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
