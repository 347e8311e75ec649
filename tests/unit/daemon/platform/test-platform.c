// SPDX-License-Identifier: MIT
/*
 * The platform interface over the emulated host: what the daemon asks of
 * any host (node of an HPA, nodes, rebuild, events) answered through it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "platform/emulated-host.h"
#include "platform/platform.h"

static void test_platform_emulated_answers_through_the_interface(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	_hb_cleanup_(hb_platform_freep) struct hb_platform *p = NULL;
	static struct hb_numa_node nodes[HB_MAX_NODES];
	static uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
	struct hb_err err = { 0 };

	assert_int_equal(hb_emulated_platform_new(&host, &p, &err), 0);
	assert_string_equal(hb_platform_name(p), "emulated");
	assert_true(hb_platform_emulated(p));
	assert_int_equal(hb_topology_nr_regions(hb_platform_topology(p)), 1);
	assert_int_equal(hb_platform_node_of(p, HB_EMU_REGION_BASE), HB_EMU_CXL_NODE);
	assert_int_equal(hb_platform_node_of(p, HB_EMU_REGION_BASE - 1), -1);
	assert_int_equal(hb_platform_node_step(p), 0); /* no node map */
	assert_int_equal(hb_platform_nodes(p, nodes, dist), 0);
	assert_true(nodes[0].present && nodes[0].has_cpus);
	assert_false(nodes[HB_EMU_CXL_NODE].has_cpus);
	assert_int_equal(nodes[0].free_bytes, 8ULL << 30);
	assert_int_equal(dist[0][HB_EMU_CXL_NODE], 20);
}

/* a rebuild replaces the topology; with region0 offline its pages are on no node */
static void test_platform_reload_replaces_the_topology(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	_hb_cleanup_(hb_platform_freep) struct hb_platform *p = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_emulated_platform_new(&host, &p, &err), 0);
	assert_true(hb_platform_can_reload(p));
	host.region_offline = true;
	assert_int_equal(hb_platform_reload(p, &err), 0);
	assert_int_equal(host.reloads, 1);
	assert_int_equal(hb_topology_nr_regions(hb_platform_topology(p)), 0);
	assert_int_equal(hb_platform_node_of(p, HB_EMU_REGION_BASE), -1);
}

/* the emulated host has no events of its own; a test's fd is handed out once */
static void test_platform_events_are_a_tests_fd(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	_hb_cleanup_(hb_platform_freep) struct hb_platform *p = NULL;
	struct hb_err err = { 0 };
	int sv[2];

	assert_int_equal(hb_emulated_platform_new(&host, &p, &err), 0);
	assert_int_equal(hb_platform_open_events(p), -EOPNOTSUPP);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	hb_platform_set_events_fd(p, sv[0]);
	assert_int_equal(hb_platform_open_events(p), sv[0]);
	assert_int_equal(hb_platform_open_events(p), -EOPNOTSUPP);
	close(sv[0]);
	close(sv[1]);
}

static int no_nodes(void *priv, struct hb_numa_node *nodes,
		    uint8_t distance[HB_MAX_NODES][HB_MAX_NODES])
{
	return -ENOSYS;
}

/* a platform needs a topology and a way to its nodes; a fixed one cannot rebuild */
static void test_platform_new_refuses_what_is_missing(void **state)
{
	static const struct hb_platform_ops fixed = { .name = "fixed", .nodes = no_nodes };
	static const struct hb_platform_ops none = { .name = "none" };
	struct hb_platform *p = NULL;
	struct hb_topology *t = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_platform_new(&fixed, NULL, false, NULL, NULL, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "topology"));
	assert_int_equal(hb_emulated_topology(&t, &err), 0);
	assert_int_equal(hb_platform_new(&none, NULL, false, t, NULL, &p, &err), -EINVAL);
	assert_null(p);
	assert_int_equal(hb_emulated_topology(&t, &err), 0);
	assert_int_equal(hb_platform_new(&fixed, NULL, false, t, NULL, &p, &err), 0);
	assert_false(hb_platform_can_reload(p));
	assert_int_equal(hb_platform_reload(p, &err), -EOPNOTSUPP);
	assert_int_equal(hb_platform_open_events(p), -EOPNOTSUPP);
	assert_int_equal(hb_platform_node_of(p, HB_EMU_REGION_BASE), -1); /* no node_of */
	hb_platform_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_platform_emulated_answers_through_the_interface),
		cmocka_unit_test(test_platform_reload_replaces_the_topology),
		cmocka_unit_test(test_platform_events_are_a_tests_fd),
		cmocka_unit_test(test_platform_new_refuses_what_is_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
