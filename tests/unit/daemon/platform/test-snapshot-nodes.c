// SPDX-License-Identifier: MIT
/*
 * A snapshot taken on another host names NUMA nodes this one may lack:
 * hb_topology_absent_nodes() finds exactly those (against a fake sysfs
 * with node0 and node2), each once; a live topology is never checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "platform/snapshot-nodes.h"

static const char *data_dir(void)
{
	const char *dir = getenv("HB_TEST_DATA");

	return dir ? dir : "tests/data";
}

static void test_snapshot_nodes_absent_from_this_host_are_named_once(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	char path[2048], root[2048], nodes[64];

	(void)state;
	snprintf(path, sizeof(path), "%s/snapshots/x2-vvv-nodes-2-9.json", data_dir());
	snprintf(root, sizeof(root), "%s/sysfs/cxl-x2-online", data_dir());
	if (hb_topology_load_json_file(path, NULL, &t, &err) < 0)
		fail_msg("%s", err.msg);
	/* node2 exists in the fake sysfs, node9 does not */
	assert_int_equal(hb_topology_absent_nodes(t, root, nodes, sizeof(nodes)), 1);
	assert_string_equal(nodes, "9");
	/* a root without node directories: both, in memdev order */
	assert_int_equal(hb_topology_absent_nodes(t, data_dir(), nodes, sizeof(nodes)), 2);
	assert_string_equal(nodes, "2, 9");
}

static void test_snapshot_nodes_unknown_nodes_are_not_absent(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	char path[2048], nodes[64];

	(void)state;
	/* cxl list prints no numa_node where the kernel does not know it */
	snprintf(path, sizeof(path), "%s/snapshots/x2-vvv-notes.json", data_dir());
	if (hb_topology_load_json_file(path, NULL, &t, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(hb_topology_absent_nodes(t, data_dir(), nodes, sizeof(nodes)), 0);
	assert_string_equal(nodes, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_nodes_absent_from_this_host_are_named_once),
		cmocka_unit_test(test_snapshot_nodes_unknown_nodes_are_not_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
