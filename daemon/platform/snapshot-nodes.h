/* SPDX-License-Identifier: MIT */
/* A snapshot's NUMA nodes against this host (the loading is translate/'s hb_topology_open()). */
#ifndef HB_SNAPSHOT_NODES_H
#define HB_SNAPSHOT_NODES_H

#include "translate.h"

/*
 * The NUMA nodes that t's memdevs name (cxl list's numa_node) and this host
 * lacks (no <root>/sys/devices/system/node/nodeN; root NULL or "" is /).
 * Writes them to buf as "5, 6" and returns how many.
 */
int hb_topology_absent_nodes(const struct hb_topology *t, const char *root, char *buf, size_t size);
/*
 * A saved snapshot (src->topology) from another host names nodes this one
 * lacks: translation still works, node lookups cannot. Warns once on stderr
 * ("who: snapshot FILE: ..."); never fails. Nothing for a live topology.
 */
void hb_topology_source_check_nodes(const struct hb_topology_source *src,
				    const struct hb_topology *t, const char *root, const char *who);

#endif
