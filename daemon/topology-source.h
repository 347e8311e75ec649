/* SPDX-License-Identifier: MIT */
/* Where the CLI gets its topology: --topology FILE or live (libcxl). */
#ifndef HB_TOPOLOGY_SOURCE_H
#define HB_TOPOLOGY_SOURCE_H

#include "translate.h"

struct hb_topology_source {
	const char *topology;   /* saved cxl list JSON, NULL = live */
	const char *cedt;       /* CEDT binary, NULL = the ACPI one when live */
};

#define HB_DEFAULT_CEDT "/sys/firmware/acpi/tables/CEDT"

/* Load as the options say; prints nothing, fills err. */
int hb_topology_source_load(const struct hb_topology_source *src, struct hb_topology **ret,
			    struct hb_err *err);

/*
 * The NUMA nodes that t's memdevs name (cxl list's numa_node) and this host
 * lacks (no <root>/sys/devices/system/node/nodeN; root NULL or "" is /).
 * Writes them to buf as "5, 6" and returns how many.
 */
int hb_topology_absent_nodes(const struct hb_topology *t, const char *root, char *buf,
			     size_t size);
/*
 * A saved snapshot (src->topology) from another host names nodes this one
 * lacks: translation still works, node lookups cannot. Warns once on stderr
 * ("who: snapshot FILE: ..."); never fails. Nothing for a live topology.
 */
void hb_topology_source_check_nodes(const struct hb_topology_source *src,
				    const struct hb_topology *t, const char *root, const char *who);

#endif
