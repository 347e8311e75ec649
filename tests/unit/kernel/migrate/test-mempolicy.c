// SPDX-License-Identifier: MIT
/*
 * Memory policies from numa_maps (kernel/migrate/mempolicy.c): every
 * spelling the kernel prints, read from a real numa_maps
 * (tests/data/numa-maps/), and which of them keep a page off a node.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel.h"

static char *fixture(const char *name)
{
	const char *dir = getenv("HB_TEST_DATA");
	char path[4096];
	char *buf = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/numa-maps/%s", dir ? dir : "tests/data", name);
	assert_int_equal(hb_read_file(path, 1 << 20, &buf, &len), 0);
	return buf;
}

/* the policy of the fixture's VMA at that start address */
static struct hb_mempolicy at(const char *text, uint64_t start)
{
	struct hb_mempolicy p = { .mode = _HB_MPOL_INVALID };

	assert_int_equal(hb_mempolicy_find(text, start, &p), 0);
	return p;
}

/* host-6.18-policies.txt: one 4-page VMA per mbind(2) mode and flag, node 0 */
static void test_mempolicy_parses_every_spelling_of_a_real_numa_maps(void **state)
{
	char *t = fixture("host-6.18-policies.txt");
	struct hb_mempolicy p;
	size_t lines = 0, parsed = 0;

	p = at(t, 0x7fafb81af000);
	assert_int_equal(p.mode, HB_MPOL_BIND);
	assert_int_equal(p.nodes, 1);
	p = at(t, 0x7fafb81b7000);
	assert_int_equal(p.mode, HB_MPOL_INTERLEAVE);
	assert_int_equal(p.nodes, 1);
	p = at(t, 0x7fafb81bf000);
	assert_int_equal(p.mode, HB_MPOL_PREFERRED);
	p = at(t, 0x7fafb81c7000); /* "prefer (many):0" */
	assert_int_equal(p.mode, HB_MPOL_PREFERRED);
	assert_int_equal(p.nodes, 1);
	p = at(t, 0x7fafb81cf000); /* "weighted interleave:0" */
	assert_int_equal(p.mode, HB_MPOL_INTERLEAVE);
	assert_int_equal(p.nodes, 1);
	p = at(t, 0x7fafb81d7000);
	assert_int_equal(p.mode, HB_MPOL_LOCAL);
	p = at(t, 0x7fafb81df000); /* "bind=static:0" */
	assert_int_equal(p.mode, HB_MPOL_BIND);
	assert_false(p.relative);
	assert_int_equal(p.nodes, 1);
	p = at(t, 0x7fafb81e7000); /* "interleave=relative:0" */
	assert_int_equal(p.mode, HB_MPOL_INTERLEAVE);
	assert_true(p.relative);
	p = at(t, 0x7fafb81ef000); /* "bind=balancing:0" */
	assert_int_equal(p.mode, HB_MPOL_BIND);
	assert_int_equal(p.nodes, 1);
	p = at(t, 0x7fafb81f3000);
	assert_int_equal(p.mode, HB_MPOL_DEFAULT);
	/* an address inside a VMA takes that VMA's line */
	p = at(t, 0x7fafb81af000 + 3 * 4096);
	assert_int_equal(p.mode, HB_MPOL_BIND);
	p = at(t, 0x7fafb81b3000 + 4096);
	assert_int_equal(p.mode, HB_MPOL_DEFAULT);
	assert_int_equal(hb_mempolicy_find(t, 0x1000, &p), -ENOENT);

	/* every line of the file parses */
	for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
		uint64_t start;

		lines++;
		parsed += hb_mempolicy_parse_line(line, &start, &p) == 0;
	}
	assert_int_equal(lines, 39);
	assert_int_equal(parsed, lines);
	free(t);
}

static void test_mempolicy_node_lists_and_bad_lines(void **state)
{
	struct hb_mempolicy p;
	uint64_t start;

	assert_int_equal(hb_mempolicy_parse_line("7f00 bind:0-2,5,7-8 anon=1 N1=1", &start, &p), 0);
	assert_int_equal(start, 0x7f00);
	assert_int_equal(p.nodes, 0x1a7);
	assert_false(p.beyond);
	assert_int_equal(hb_mempolicy_parse_line("1000 interleave:3,70 anon=1", &start, &p), 0);
	assert_int_equal(p.nodes, 1u << 3);
	assert_true(p.beyond);
	assert_int_equal(hb_mempolicy_parse_line("1000 bind=static|balancing:1", &start, &p), 0);
	assert_int_equal(p.mode, HB_MPOL_BIND);
	assert_int_equal(p.nodes, 2);
	assert_int_equal(hb_mempolicy_parse_line("1000 default", &start, &p), 0);
	assert_int_equal(hb_mempolicy_parse_line("1000 bindx:1 anon=1", &start, &p), -EINVAL);
	assert_int_equal(hb_mempolicy_parse_line("1000 bind:2-1 anon=1", &start, &p), -EINVAL);
	assert_int_equal(hb_mempolicy_parse_line("1000 bind: anon=1", &start, &p), -EINVAL);
	assert_int_equal(hb_mempolicy_parse_line("1000 bind:1x anon=1", &start, &p), -EINVAL);
	assert_int_equal(hb_mempolicy_parse_line("zz bind:1", &start, &p), -EINVAL);
	assert_int_equal(hb_mempolicy_parse_line("", &start, &p), -EINVAL);
	assert_string_equal(hb_mempolicy_mode_to_string(HB_MPOL_BIND), "bind");
	assert_null(hb_mempolicy_mode_to_string(_HB_MPOL_MAX));
}

/* the rule (the kernel's too): a policy that names nodes keeps a page on them */
static void test_mempolicy_excludes_what_a_policy_naming_nodes_leaves_out(void **state)
{
	char *t = fixture("host-6.18-policies.txt");
	static const struct {
		uint64_t start;
		bool off_node1; /* target node 1, which the list (node 0) lacks */
	} want[] = {
		{ 0x7fafb81af000, true },  /* bind:0 */
		{ 0x7fafb81b7000, true },  /* interleave:0 */
		{ 0x7fafb81bf000, true },  /* prefer:0: names node 0 only */
		{ 0x7fafb81c7000, true },  /* prefer (many):0 */
		{ 0x7fafb81cf000, true },  /* weighted interleave:0 */
		{ 0x7fafb81d7000, false }, /* local */
		{ 0x7fafb81df000, true },  /* bind=static:0 */
		{ 0x7fafb81e7000, false }, /* interleave=relative:0: renumbered in the cpuset */
		{ 0x7fafb81ef000, true },  /* bind=balancing:0 */
		{ 0x7fafb81f3000, false }, /* default */
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct hb_mempolicy p = at(t, want[i].start);

		assert_false(hb_mempolicy_excludes(&p, 0)); /* node 0 is in every list */
		if (hb_mempolicy_excludes(&p, 1) != want[i].off_node1)
			fail_msg("VMA %#llx (%s): excludes node 1 should be %d",
				 (unsigned long long)want[i].start,
				 hb_mempolicy_mode_to_string(p.mode), want[i].off_node1);
		assert_false(hb_mempolicy_excludes(&p, 64)); /* beyond what a mask holds */
		assert_false(hb_mempolicy_excludes(&p, -1));
	}
	free(t);
}

/* guest-6.12-bind1.txt: the guest's CXL-bound pages (issue 42's case) */
static void test_mempolicy_a_guest_binding_to_the_cxl_node_keeps_pages_off_dram(void **state)
{
	char *t = fixture("guest-6.12-bind1.txt");
	struct hb_mempolicy p;
	uint64_t start = strtoull(t, NULL, 16);

	assert_int_equal(hb_mempolicy_find(t, start + 63 * 4096, &p), 0);
	assert_int_equal(p.mode, HB_MPOL_BIND);
	assert_int_equal(p.nodes, 1u << 1);
	assert_true(hb_mempolicy_excludes(&p, 0));
	assert_false(hb_mempolicy_excludes(&p, 1));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mempolicy_parses_every_spelling_of_a_real_numa_maps),
		cmocka_unit_test(test_mempolicy_node_lists_and_bad_lines),
		cmocka_unit_test(test_mempolicy_excludes_what_a_policy_naming_nodes_leaves_out),
		cmocka_unit_test(test_mempolicy_a_guest_binding_to_the_cxl_node_keeps_pages_off_dram),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
