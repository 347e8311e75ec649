/* SPDX-License-Identifier: MIT */
/*
 * Which NUMA nodes hotbridge promotes from, by one rule for every way they
 * are configured (the topology's regions, live or from a snapshot,
 * policy.source_nodes, at start-up and on reload): a node is a source node
 * only when it is on this host, has no CPUs, and all its memory lies in a
 * CXL window of this host (/proc/iomem's "CXL Window N", the CEDT's CFMWS;
 * platform.h). Anything else is DRAM, or memory hotbridge cannot vouch
 * for, and moving its pages could move DRAM to DRAM.
 */
#ifndef HB_SOURCE_NODES_H
#define HB_SOURCE_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "translate.h"

enum hb_source_node_why {
	HB_SOURCE_NODE_OK,
	HB_SOURCE_NODE_ABSENT,      /* not a NUMA node of this host */
	HB_SOURCE_NODE_HAS_CPUS,    /* DRAM */
	HB_SOURCE_NODE_NO_WINDOWS,  /* this host's CXL windows could not be read */
	HB_SOURCE_NODE_OUTSIDE_CXL, /* memory outside every CXL window, or none */
	HB_SOURCE_NODE_NO_MEMORY,   /* a region on no node: no online memory here */
	_HB_SOURCE_NODE_MAX,
};

/* What the rule looks at: the platform's nodes and CXL windows. */
struct hb_source_facts {
	const struct hb_numa_node *nodes; /* HB_MAX_NODES entries */
	uint64_t window_nodes;            /* nodes whose memory lies in CXL windows */
	const char *windows_why;          /* why the windows are unknown, or "" / NULL */
};

enum hb_source_node_why hb_source_node_check(const struct hb_source_facts *f, int node);
/* "OK", "has CPUs (DRAM)", ... in words that follow "node N " */
const char *hb_source_node_why_text(enum hb_source_node_why why);

#define HB_NODE_SET_MAX 192 /* "0,1,...,63" */

/*
 * mask as node numbers, the way policy.source_nodes and status write them:
 * "2", "0,2"; an empty set is "none". Returns buf.
 */
const char *hb_node_set_format(uint64_t mask, char *buf, size_t size);

/* a region that lies on a node the rule refuses, and why (see below) */
typedef void (*hb_source_refused_fn)(void *ud, const struct hb_region *rg, int node,
				     enum hb_source_node_why why);

/*
 * The source nodes the topology's committed regions give: the nodes their
 * memory lies on (node_of, sampled at 16 points of each region) that pass
 * the rule; each region and node the rule refuses is passed to refused
 * (may be NULL), once per pair, and a region none of whose samples is
 * online memory of this host once, with node -1 and HB_SOURCE_NODE_NO_MEMORY.
 */
uint64_t hb_source_nodes_of_topology(const struct hb_topology *t,
				     int (*node_of)(void *ud, uint64_t hpa), void *node_ud,
				     const struct hb_source_facts *f, hb_source_refused_fn refused,
				     void *refused_ud);

/* The warning for a refused region and node, in buf. snapshot: the topology is a saved one. */
const char *hb_source_refusal_format(char *buf, size_t size, const struct hb_region *rg, int node,
				     enum hb_source_node_why why, const char *windows_why,
				     bool snapshot);

/* Every node of mask passes the rule, or -EINVAL/-ENOENT naming the first that does not. */
int hb_source_nodes_check(uint64_t mask, const char *key, const char *value,
			  const struct hb_source_facts *f, struct hb_err *err);

#endif
