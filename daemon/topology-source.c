// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "util/log.h"
#include "topology-source.h"

int hb_topology_source_load(const struct hb_topology_source *src, struct hb_topology **ret,
			    struct hb_err *err)
{
	struct hb_cedt *cedt = NULL;
	_hb_cleanup_free_ struct hb_cedt *owned = NULL;
	const char *cedt_path = src->cedt;
	int r;

	/* Live: the firmware's CEDT if we may read it (root only); without it,
	 * every window is taken as modulo, which is what libcxl can tell. */
	if (!cedt_path && !src->topology && access(HB_DEFAULT_CEDT, R_OK) == 0)
		cedt_path = HB_DEFAULT_CEDT;
	if (cedt_path) {
		owned = calloc(1, sizeof(*owned));
		if (!owned)
			return hb_err_set(err, -ENOMEM, "out of memory");
		r = hb_cedt_load_file(cedt_path, owned, err);
		if (r < 0)
			return r;
		cedt = owned;
	}
	if (src->topology)
		return hb_topology_load_json_file(src->topology, cedt, ret, err);
	return hb_topology_load_libcxl(cedt, ret, err);
}

#define HB_MAX_NODE_ID 1024

int hb_topology_absent_nodes(const struct hb_topology *t, const char *root, char *buf,
			     size_t size)
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
			     "are looked up on this host, ignoring", src->topology, n > 1 ? "s" : "",
			     nodes);
}
