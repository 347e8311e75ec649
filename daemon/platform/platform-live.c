// SPDX-License-Identifier: MIT
/*
 * The live host (platform.h): the topology from libcxl (or a saved
 * snapshot, which never changes), nodes from sysfs memory blocks, libnuma
 * for the nodes' memory and distances, kernel uevents for changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"
#include "translate.h"
#include "platform/uevent.h"

int hb_numa_nodes(void *ud, struct hb_numa_node *nodes, uint8_t distance[HB_MAX_NODES][HB_MAX_NODES])
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

struct live {
	struct hb_topology_source ts;
	char iomem[PATH_MAX];
	int iomem_fd; /* opened with the rights to see addresses; -1 */
};

static int live_reload(void *priv, struct hb_topology **ret_t, struct hb_node_map **ret_m,
		       struct hb_err *err)
{
	const struct live *l = priv;
	int r = hb_topology_open(&l->ts, ret_t, err);

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

int hb_live_window_nodes(const char *iomem, int iomem_fd, const struct hb_node_map *m,
			 uint64_t *ret, struct hb_err *err)
{
	struct hb_cxl_windows w;
	int r;

	*ret = 0;
	r = hb_cxl_windows_load(iomem, iomem_fd, HB_DEFAULT_CEDT, &w, err);
	if (r < 0)
		return r;
	if (m)
		*ret = hb_node_map_window_nodes(m, &w);
	return 0;
}

static int live_window_nodes(void *priv, const struct hb_node_map *m, uint64_t *ret,
			     struct hb_err *err)
{
	const struct live *l = priv;

	return hb_live_window_nodes(l->iomem, l->iomem_fd, m, ret, err);
}

static void live_free(void *priv)
{
	struct live *l = priv;

	if (l->iomem_fd >= 0)
		close(l->iomem_fd);
	free(l);
}

/* live topologies change (uevents); a saved snapshot does not */
static const struct hb_platform_ops live_ops = {
	.name = "live",
	.nodes = hb_numa_nodes,
	.reload = live_reload,
	.window_nodes = live_window_nodes,
	.open_events = live_open_events,
	.free = live_free,
};

static const struct hb_platform_ops snapshot_ops = {
	.name = "live",
	.nodes = hb_numa_nodes,
	.window_nodes = live_window_nodes,
	.free = live_free,
};

int hb_platform_live_new(const struct hb_topology_source *ts, const char *iomem,
			 struct hb_platform **ret, struct hb_err *err)
{
	struct live *l = calloc(1, sizeof(*l));
	struct hb_topology *t = NULL;
	struct hb_node_map *m = NULL;
	int r;

	if (!l)
		return hb_err_set(err, -ENOMEM, "out of memory");
	l->ts = *ts;
	snprintf(l->iomem, sizeof(l->iomem), "%s", iomem ? iomem : "/proc/iomem");
	l->iomem_fd = open(l->iomem, O_RDONLY | O_CLOEXEC);
	r = live_reload(l, &t, &m, err);
	if (r < 0) {
		live_free(l);
		return r;
	}
	r = hb_platform_new(ts->topology ? &snapshot_ops : &live_ops, l, false, t, m, ret, err);
	if (r < 0)
		live_free(l);
	return r;
}
