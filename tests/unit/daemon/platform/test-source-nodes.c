// SPDX-License-Identifier: MIT
/*
 * The source-node rule (daemon/platform/source-nodes.h) over fixture trees: a node
 * is a source node only when it is on this host, has no CPUs and all its
 * memory lies in one of this host's CXL windows. The windows come from a
 * /proc/iomem image (tests/data/iomem) and a CEDT, the node map from a
 * sysfs tree (tests/data/sysfs); CPUs are given per case, as libnuma would.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf/conf-check.h"
#include "platform/source-nodes.h"
#include "translate.h"

static const char *data_dir(void)
{
	const char *dir = getenv("HB_TEST_DATA");

	return dir ? dir : "tests/data";
}

static void data_path(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", data_dir(), rel);
}

/* the nodes of tree whose memory lies in iomem's (and cedt's) CXL windows */
static uint64_t window_nodes(const char *tree, const char *iomem, const char *cedt,
			     struct hb_node_map **ret_map)
{
	struct hb_cxl_windows w;
	struct hb_err err = { 0 };
	char root[2048], ipath[2048], cpath[2048];

	data_path(root, sizeof(root), tree);
	data_path(ipath, sizeof(ipath), iomem);
	if (cedt)
		data_path(cpath, sizeof(cpath), cedt);
	if (hb_node_map_load(root, ret_map, &err) < 0)
		fail_msg("%s", err.msg);
	if (hb_cxl_windows_load(ipath, -1, cedt ? cpath : NULL, &w, &err) < 0)
		fail_msg("%s", err.msg);
	return hb_node_map_window_nodes(*ret_map, &w);
}

/* node 0 DRAM with CPUs, node 2 CPU-less: the cxl-x2-online host */
static void x2_nodes(struct hb_numa_node *nodes)
{
	memset(nodes, 0, sizeof(*nodes) * HB_MAX_NODES);
	nodes[0] = (struct hb_numa_node){ .present = true, .has_cpus = true };
	nodes[2] = (struct hb_numa_node){ .present = true };
}

static void test_cxl_windows_come_from_iomem_and_the_cedt(void **state)
{
	struct hb_cxl_windows w;
	struct hb_err err = { 0 };
	char ipath[2048], cpath[2048];

	(void)state;
	data_path(ipath, sizeof(ipath), "iomem/cxl-x2.iomem");
	assert_int_equal(hb_cxl_windows_load(ipath, -1, NULL, &w, &err), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.v[0].start, 0x390000000ULL);
	assert_int_equal(w.v[0].end, 0x490000000ULL);
	/* the region, its dax device and its System RAM are inside; DRAM is not */
	assert_true(hb_cxl_windows_contain(&w, 0x398000000ULL, 0x8000000));
	assert_false(hb_cxl_windows_contain(&w, 0x100000000ULL, 0x1000));
	assert_false(hb_cxl_windows_contain(&w, 0x48ffff000ULL, 0x2000)); /* runs past its end */

	/* no window in iomem: the CEDT's CFMWS (8 GiB at 0x390000000) is one */
	data_path(ipath, sizeof(ipath), "iomem/dram-only.iomem");
	data_path(cpath, sizeof(cpath), "cedt/x2-2hb-modulo.cedt");
	assert_int_equal(hb_cxl_windows_load(ipath, -1, NULL, &w, &err), 0);
	assert_int_equal(w.n, 0);
	assert_int_equal(hb_cxl_windows_load(ipath, -1, cpath, &w, &err), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.v[0].end - w.v[0].start, 0x200000000ULL);

	/* neither readable: an error naming both */
	assert_int_equal(hb_cxl_windows_load("/nonexistent/iomem", -1, "/nonexistent/CEDT", &w, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/iomem"));
	assert_non_null(strstr(err.msg, "/nonexistent/CEDT"));
}

static void test_cpu_less_node_in_a_cxl_window_is_a_source_node(void **state)
{
	_hb_cleanup_node_map_ struct hb_node_map *m = NULL;
	struct hb_numa_node nodes[HB_MAX_NODES];
	struct hb_source_facts f = { .nodes = nodes };

	(void)state;
	x2_nodes(nodes);
	f.window_nodes = window_nodes("sysfs/cxl-x2-online", "iomem/cxl-x2.iomem", NULL, &m);
	assert_int_equal(f.window_nodes, 1ULL << 2);
	assert_int_equal(hb_source_node_check(&f, 2), HB_SOURCE_NODE_OK);
}

static void test_node_with_cpus_is_never_a_source_node(void **state)
{
	struct hb_numa_node nodes[HB_MAX_NODES];
	/* even were its memory in a CXL window */
	struct hb_source_facts f = { .nodes = nodes, .window_nodes = ~0ULL };

	(void)state;
	x2_nodes(nodes);
	assert_int_equal(hb_source_node_check(&f, 0), HB_SOURCE_NODE_HAS_CPUS);
	nodes[2].has_cpus = true;
	assert_int_equal(hb_source_node_check(&f, 2), HB_SOURCE_NODE_HAS_CPUS);
}

static void test_cpu_less_node_outside_every_cxl_window_is_not_a_source_node(void **state)
{
	_hb_cleanup_node_map_ struct hb_node_map *m = NULL;
	struct hb_numa_node nodes[HB_MAX_NODES];
	struct hb_source_facts f = { .nodes = nodes };

	(void)state;
	x2_nodes(nodes);
	/* the same tree, but this host lists no CXL window: node 2 is plain memory */
	f.window_nodes = window_nodes("sysfs/cxl-x2-online", "iomem/dram-only.iomem", NULL, &m);
	assert_int_equal(f.window_nodes, 0);
	assert_int_equal(hb_source_node_check(&f, 2), HB_SOURCE_NODE_OUTSIDE_CXL);
	/* windows that could not be read: the node cannot be vouched for either */
	f.windows_why = "this host's CXL windows are unknown: /proc/iomem: Permission denied";
	assert_int_equal(hb_source_node_check(&f, 2), HB_SOURCE_NODE_NO_WINDOWS);
	/* and a node this host does not have */
	assert_int_equal(hb_source_node_check(&f, 5), HB_SOURCE_NODE_ABSENT);
	assert_int_equal(hb_source_node_check(&f, -1), HB_SOURCE_NODE_ABSENT);
}

static int map_node_of(void *ud, uint64_t hpa)
{
	struct hb_node_info ni;

	if (hb_node_map_lookup(ud, hpa, &ni) < 0 || !ni.online)
		return -1;
	return ni.node;
}

struct refused {
	char region[32];
	int node;
	enum hb_source_node_why why;
	int calls;
};

static void note_refused(void *ud, const struct hb_region *rg, int node, enum hb_source_node_why why)
{
	struct refused *r = ud;

	snprintf(r->region, sizeof(r->region), "%s", rg->name);
	r->node = node;
	r->why = why;
	r->calls++;
}

/* defect 1 of the new user's report: the snapshot's region lies in this host's DRAM */
static void test_snapshot_of_another_host_never_makes_dram_a_source_node(void **state)
{
	_hb_cleanup_node_map_ struct hb_node_map *m = NULL;
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_numa_node nodes[HB_MAX_NODES] = { [0] = { .present = true, .has_cpus = true } };
	struct hb_source_facts f = { .nodes = nodes };
	struct refused r = { .node = -1 };
	struct hb_err err = { 0 };
	char path[2048], msg[HB_ERR_MSG_MAX];

	(void)state;
	f.window_nodes = window_nodes("sysfs/dram-only", "iomem/dram-only.iomem", NULL, &m);
	assert_int_equal(f.window_nodes, 0);
	data_path(path, sizeof(path), "snapshots/x2-vvv-notes.json");
	if (hb_topology_load_json_file(path, NULL, &t, &err) < 0)
		fail_msg("%s", err.msg);
	/* node 0 holds the region's HPA here: it was the source node before */
	assert_int_equal(map_node_of(m, 0x390000000ULL), 0);
	assert_int_equal(hb_source_nodes_of_topology(t, map_node_of, m, &f, note_refused, &r), 0);
	assert_string_equal(r.region, "region0");
	assert_int_equal(r.node, 0);
	assert_int_equal(r.why, HB_SOURCE_NODE_HAS_CPUS);
	assert_int_equal(r.calls, 1); /* once per region and node, not per sample */
	hb_source_refusal_format(msg, sizeof(msg), hb_topology_region(t, 0), 0, r.why, NULL, true);
	assert_non_null(strstr(msg, "region region0 (HPA 0x390000000-0x3afffffff) lies on node 0"));
	assert_non_null(strstr(msg, "has CPUs"));
	assert_non_null(strstr(msg, "snapshot of another host"));

	/* a region that is no memory of this host at all (x8's, at 0x2000000000) is said too */
	t = hb_topology_free(t);
	data_path(path, sizeof(path), "cxl-list/x8.vvv.json");
	if (hb_topology_load_json_file(path, NULL, &t, &err) < 0)
		fail_msg("%s", err.msg);
	r = (struct refused){ .node = 5 };
	assert_int_equal(hb_source_nodes_of_topology(t, map_node_of, m, &f, note_refused, &r), 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.node, -1);
	assert_int_equal(r.why, HB_SOURCE_NODE_NO_MEMORY);
	hb_source_refusal_format(msg, sizeof(msg), hb_topology_region(t, 0), -1, r.why, NULL, true);
	assert_non_null(strstr(msg, "holds no online memory of this host: on no NUMA node"));

	/* on its own host the x2 snapshot gives node 2 */
	t = hb_topology_free(t);
	data_path(path, sizeof(path), "snapshots/x2-vvv-notes.json");
	if (hb_topology_load_json_file(path, NULL, &t, &err) < 0)
		fail_msg("%s", err.msg);
	m = hb_node_map_free(m);
	nodes[2] = (struct hb_numa_node){ .present = true };
	f.window_nodes = window_nodes("sysfs/cxl-x2-online", "iomem/cxl-x2.iomem", NULL, &m);
	r.calls = 0;
	assert_int_equal(hb_source_nodes_of_topology(t, map_node_of, m, &f, note_refused, &r),
			 1ULL << 2);
	assert_int_equal(r.calls, 0);
}

/* defects 6 and 13: policy.source_nodes goes through the same rule */
static void test_policy_source_nodes_must_pass_the_rule(void **state)
{
	struct hb_numa_node nodes[HB_MAX_NODES];
	struct hb_config_facts f = { .nodes = nodes, .window_nodes = 1ULL << 2, .page_size = 4096 };
	struct hb_config c;
	struct hb_err err = { 0 };

	(void)state;
	x2_nodes(nodes);
	hb_config_defaults(&c);
	snprintf(c.sources[0].name, sizeof(c.sources[0].name), "e");
	snprintf(c.sources[0].type, sizeof(c.sources[0].type), "emul-chmu");
	c.nsources = 1;
	snprintf(c.source_nodes, sizeof(c.source_nodes), "2");
	assert_int_equal(hb_config_check(&c, &f, &err), 0);

	snprintf(c.source_nodes, sizeof(c.source_nodes), "7");
	assert_int_equal(hb_config_check(&c, &f, &err), -ENOENT);
	assert_string_equal(err.msg, "policy.source_nodes=7: node 7 is not a NUMA node of this "
				     "host, so it is not a source node");

	snprintf(c.source_nodes, sizeof(c.source_nodes), "0,2");
	c.target_node = 0;
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_string_equal(err.msg, "policy.source_nodes=0,2: node 0 has CPUs (DRAM), not CXL "
				     "memory, so it is not a source node");
	c.target_node = -1;

	snprintf(c.source_nodes, sizeof(c.source_nodes), "2,2");
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_string_equal(err.msg, "policy.source_nodes=2,2: lists node 2 twice");

	f.window_nodes = 0;
	snprintf(c.source_nodes, sizeof(c.source_nodes), "2");
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "outside every CXL window"));
	hb_config_done(&c);
}

/* defect 12: node sets in words as the config writes them, never a bitmask */
static void test_node_sets_print_as_node_numbers(void **state)
{
	char buf[HB_NODE_SET_MAX];

	(void)state;
	assert_string_equal(hb_node_set_format(0, buf, sizeof(buf)), "none");
	assert_string_equal(hb_node_set_format(1ULL << 2, buf, sizeof(buf)), "2");
	assert_string_equal(hb_node_set_format(0x5, buf, sizeof(buf)), "0,2");
	assert_string_equal(hb_node_set_format(1ULL << 63, buf, sizeof(buf)), "63");
}

/* a caller's mistake is an assert (NDEBUG stays off), not a buffer left unterminated */
static void test_node_set_format_asserts_on_a_buffer_with_no_room(void **state)
{
	char buf[8] = "xxxxxxx";
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the assert's message is expected: keep it off the test's output */
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		hb_node_set_format(0x5, buf, 0);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_string_equal(buf, "xxxxxxx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxl_windows_come_from_iomem_and_the_cedt),
		cmocka_unit_test(test_cpu_less_node_in_a_cxl_window_is_a_source_node),
		cmocka_unit_test(test_node_with_cpus_is_never_a_source_node),
		cmocka_unit_test(test_cpu_less_node_outside_every_cxl_window_is_not_a_source_node),
		cmocka_unit_test(test_snapshot_of_another_host_never_makes_dram_a_source_node),
		cmocka_unit_test(test_policy_source_nodes_must_pass_the_rule),
		cmocka_unit_test(test_node_sets_print_as_node_numbers),
		cmocka_unit_test(test_node_set_format_asserts_on_a_buffer_with_no_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
