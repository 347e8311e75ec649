// SPDX-License-Identifier: MIT
/*
 * The live host (platform.h): the topology from libcxl (or a saved
 * snapshot, which never changes), nodes from sysfs memory blocks, libnuma
 * for the nodes' memory and distances, kernel uevents for changes.
 */
#include <errno.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "translate.h"
#include "uevent.h"

int hb_numa_nodes(void *ud, struct hb_numa_node *nodes,
		  uint8_t distance[HB_MAX_NODES][HB_MAX_NODES])
{
	int max;

	memset(nodes, 0, sizeof(*nodes) * HB_MAX_NODES);
	if (numa_available() < 0)
		return -ENOSYS;
	max = numa_max_node();
	for (int n = 0; n <= max && n < HB_MAX_NODES; n++) {
		struct bitmask *cpus = numa_allocate_cpumask();
		long long freeb = 0;

		if (numa_node_size64(n, &freeb) < 0) {
			numa_free_cpumask(cpus);
			continue;
		}
		nodes[n].present = true;
		nodes[n].free_bytes = freeb > 0 ? (uint64_t)freeb : 0;
		nodes[n].has_cpus = numa_node_to_cpus(n, cpus) == 0 && numa_bitmask_weight(cpus) > 0;
		numa_free_cpumask(cpus);
		for (int m = 0; m <= max && m < HB_MAX_NODES; m++)
			distance[n][m] = (uint8_t)numa_distance(n, m);
	}
	return 0;
}

static int live_reload(void *priv, struct hb_topology **ret_t, struct hb_node_map **ret_m,
		       struct hb_err *err)
{
	const struct hb_topology_source *ts = priv;
	int r = hb_topology_open(ts, ret_t, err);

	if (r < 0)
		return r;
	r = hb_node_map_load(NULL, ret_m, err);
	if (r < 0) {
		*ret_t = hb_topology_free(*ret_t);
		return r;
	}
	return 0;
}

static int live_open_events(void *priv)
{
	return hb_uevent_open();
}

static void live_free(void *priv)
{
	free(priv);
}

/* live topologies change (uevents); a saved snapshot does not */
static const struct hb_platform_ops live_ops = {
	.name = "live", .nodes = hb_numa_nodes, .reload = live_reload,
	.open_events = live_open_events, .free = live_free,
};

static const struct hb_platform_ops snapshot_ops = {
	.name = "live", .nodes = hb_numa_nodes, .free = live_free,
};

int hb_platform_live_new(const struct hb_topology_source *ts, struct hb_platform **ret,
			 struct hb_err *err)
{
	struct hb_topology_source *copy = malloc(sizeof(*copy));
	struct hb_topology *t = NULL;
	struct hb_node_map *m = NULL;
	int r;

	if (!copy)
		return hb_err_set(err, -ENOMEM, "out of memory");
	*copy = *ts;
	r = live_reload(copy, &t, &m, err);
	if (r < 0) {
		free(copy);
		return r;
	}
	r = hb_platform_new(ts->topology ? &snapshot_ops : &live_ops, copy, false, t, m, ret, err);
	if (r < 0)
		free(copy);
	return r;
}
