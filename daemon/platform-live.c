// SPDX-License-Identifier: MIT
/* libnuma: the live host's nodes (presence, CPUs, free memory, distances). */
#include <errno.h>
#include <numa.h>
#include <string.h>

#include "daemon.h"

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
