// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "platform/snapshot-nodes.h"

#define HB_MAX_NODE_ID 1024

int hb_topology_absent_nodes(const struct hb_topology *t, const char *root, char *buf, size_t size)
{
	bool seen[HB_MAX_NODE_ID] = { false };
	size_t len = 0;
	int count = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < hb_topology_nr_memdevs(t); i++) {
		int n = hb_topology_memdev(t, i)->numa_node;
		char path[4096];
		int w;

		if (n < 0 || (n < HB_MAX_NODE_ID && seen[n]))
			continue;
		if (n < HB_MAX_NODE_ID)
			seen[n] = true;
		w = snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d",
			     root ? root : "", n);
		if (w < 0 || (size_t)w >= sizeof(path) || access(path, F_OK) == 0)
			continue;
		count++;
		w = snprintf(buf + len, size - len, "%s%d", len ? ", " : "", n);
		if (w > 0 && (size_t)w < size - len)
			len += (size_t)w;
	}
	return count;
}

void hb_topology_source_check_nodes(const struct hb_topology_source *src,
				    const struct hb_topology *t, const char *root, const char *who)
{
	char nodes[256];
	int n;

	if (!src->topology || !t)
		return;
	n = hb_topology_absent_nodes(t, root, nodes, sizeof(nodes));
	if (n > 0)
		hb_log_early(LOG_WARNING, who,
			     "snapshot %s: its memdevs are on NUMA node%s %s, which this host does "
			     "not have (taken on another host?); addresses still translate, nodes "
			     "are looked up on this host, ignoring",
			     src->topology, n > 1 ? "s" : "", nodes);
}
