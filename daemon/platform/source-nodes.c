// SPDX-License-Identifier: MIT
/* The source-node rule (source-nodes.h). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/source-nodes.h"
#include "util/strtab.h"

enum hb_source_node_why hb_source_node_check(const struct hb_source_facts *f, int node)
{
	if (node < 0 || node >= HB_MAX_NODES || node >= 64 || !f->nodes[node].present)
		return HB_SOURCE_NODE_ABSENT;
	if (f->nodes[node].has_cpus)
		return HB_SOURCE_NODE_HAS_CPUS;
	if (!((f->window_nodes >> node) & 1))
		return f->windows_why && f->windows_why[0] ? HB_SOURCE_NODE_NO_WINDOWS :
							     HB_SOURCE_NODE_OUTSIDE_CXL;
	return HB_SOURCE_NODE_OK;
}

static const char *const why_text[_HB_SOURCE_NODE_MAX] = {
	[HB_SOURCE_NODE_OK] = "is a CPU-less node whose memory lies in this host's CXL "
			      "windows",
	[HB_SOURCE_NODE_ABSENT] = "is not a NUMA node of this host",
	[HB_SOURCE_NODE_HAS_CPUS] = "has CPUs (DRAM), not CXL memory",
	[HB_SOURCE_NODE_NO_WINDOWS] = "cannot be checked: this host's CXL windows are "
				      "unknown",
	[HB_SOURCE_NODE_OUTSIDE_CXL] = "has memory outside every CXL window of this host "
				       "(/proc/iomem \"CXL Window\", ACPI CEDT)",
	[HB_SOURCE_NODE_NO_MEMORY] = "holds no online memory of this host",
};

HB_STRTAB_TO_STRING(hb_source_node_why_text, enum hb_source_node_why, why_text, "?")

const char *hb_node_set_format(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;

	/* a caller's mistake: with no room there is no string to return */
	assert(buf && size > 0);
	snprintf(buf, size, "none");
	for (int n = 0; n < 64 && mask; n++) {
		int w;

		if (!((mask >> n) & 1))
			continue;
		w = snprintf(buf + len, size - len, "%s%d", len ? "," : "", n);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
	return buf;
}

uint64_t hb_source_nodes_of_topology(const struct hb_topology *t,
				     int (*node_of)(void *ud, uint64_t hpa), void *node_ud,
				     const struct hb_source_facts *f, hb_source_refused_fn refused,
				     void *refused_ud)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < hb_topology_nr_regions(t); i++) {
		const struct hb_region *r = hb_topology_region(t, i);
		uint64_t told = 0;
		bool any = false;

		if (!r->committed)
			continue;
		for (uint64_t k = 0; k < 16; k++) {
			int n = node_of(node_ud, r->hpa_base + r->hpa_size / 16 * k);
			enum hb_source_node_why why;

			if (n < 0 || n >= 64)
				continue;
			any = true;
			why = hb_source_node_check(f, n);
			if (why == HB_SOURCE_NODE_OK)
				mask |= 1ULL << n;
			else if (refused && !((told >> n) & 1))
				refused(refused_ud, r, n, why);
			if (why != HB_SOURCE_NODE_OK)
				told |= 1ULL << n;
		}
		if (!any && refused)
			refused(refused_ud, r, -1, HB_SOURCE_NODE_NO_MEMORY);
	}
	return mask;
}

int hb_source_nodes_check(uint64_t mask, const char *key, const char *value,
			  const struct hb_source_facts *f, struct hb_err *err)
{
	for (int n = 0; n < 64; n++) {
		enum hb_source_node_why why;

		if (!((mask >> n) & 1))
			continue;
		why = hb_source_node_check(f, n);
		if (why == HB_SOURCE_NODE_OK)
			continue;
		if (why == HB_SOURCE_NODE_NO_WINDOWS)
			return hb_err_set(err, -ENOENT, "%s=%s: node %d %s: %s", key, value, n,
					  hb_source_node_why_text(why), f->windows_why);
		return hb_err_set(err, why == HB_SOURCE_NODE_ABSENT ? -ENOENT : -EINVAL,
				  "%s=%s: node %d %s, so it is not a source node", key, value, n,
				  hb_source_node_why_text(why));
	}
	return 0;
}

const char *hb_source_refusal_format(char *buf, size_t size, const struct hb_region *rg, int node,
				     enum hb_source_node_why why, const char *windows_why,
				     bool snapshot)
{
	bool unknown = why == HB_SOURCE_NODE_NO_WINDOWS && windows_why;
	const char *hint = snapshot ? " (is the snapshot of another host?)" : "";

	if (node < 0) {
		snprintf(buf, size,
			 "region %s (HPA 0x%llx-0x%llx) %s: on no NUMA node, so its pages "
			 "are never promoted%s",
			 rg->name, (unsigned long long)rg->hpa_base,
			 (unsigned long long)(rg->hpa_base + rg->hpa_size - 1),
			 hb_source_node_why_text(why),
			 snapshot ? hint :
				    " (not onlined yet? daxctl reconfigure-device "
				    "--mode=system-ram)");
		return buf;
	}
	snprintf(buf, size,
		 "region %s (HPA 0x%llx-0x%llx) lies on node %d, which %s%s%s: node %d "
		 "is not a source node and the region's pages there are never promoted%s",
		 rg->name, (unsigned long long)rg->hpa_base,
		 (unsigned long long)(rg->hpa_base + rg->hpa_size - 1), node,
		 hb_source_node_why_text(why), unknown ? ": " : "", unknown ? windows_why : "",
		 node, hint);
	return buf;
}
