/* SPDX-License-Identifier: MIT */
/*
 * The platform: what the daemon learns from the host it runs on. The CXL
 * topology (regions, decoders), the NUMA node of a host address, the
 * nodes and their memory (presence, CPUs, free bytes; the policy's
 * watermark compares against free_bytes) with their distances, a rebuild
 * of the topology and node map, and the events that say when to rebuild.
 *
 * Two implementations, picked by the caller: the live host
 * (platform-live.c: libcxl or a saved snapshot, sysfs memory blocks,
 * libnuma, kernel uevents) and the emulated one (emulated-host.c, for the
 * demo, `[topology] emulated = true` and tests).
 */
#ifndef HB_PLATFORM_H
#define HB_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"
#include "translate.h"

struct hb_topology_source;

struct hb_platform_ops {
	const char *name; /* "live", "emulated" */
	/* the online node of hpa when there is no node map, or -1; NULL: -1 */
	int (*node_of)(void *priv, uint64_t hpa);
	/* fills nodes[] (presence, CPUs, free memory) and distances */
	int (*nodes)(void *priv, struct hb_numa_node *nodes,
		     uint8_t distance[HB_MAX_NODES][HB_MAX_NODES]);
	/* a new topology and node map (may be NULL); NULL: it never changes */
	int (*reload)(void *priv, struct hb_topology **ret_topology,
		      struct hb_node_map **ret_node_map, struct hb_err *err);
	/*
	 * The nodes (bit n) whose memory lies in this host's CXL windows, given
	 * the node map (may be NULL); asked at creation and after each reload.
	 * NULL: none. An error (windows unknown) leaves none, with its reason.
	 */
	int (*window_nodes)(void *priv, const struct hb_node_map *m, uint64_t *ret,
			    struct hb_err *err);
	/* an fd readable when the topology may have changed (uevents); NULL: none */
	int (*open_events)(void *priv);
	void (*free)(void *priv); /* priv, when the platform goes */
};

struct hb_platform;

/*
 * A platform over ops and priv, starting from topology and node_map
 * (taken, also on failure; node_map may be NULL: ops->node_of answers).
 * emulated: its addresses are not this machine's memory.
 */
int hb_platform_new(const struct hb_platform_ops *ops, void *priv, bool emulated,
		    struct hb_topology *topology, struct hb_node_map *node_map,
		    struct hb_platform **ret, struct hb_err *err);
struct hb_platform *hb_platform_free(struct hb_platform *p);
HB_DEFINE_CLEANUP(struct hb_platform *, hb_platform_free)

/*
 * The live host: topology as ts says (copied), the node map from sysfs, the
 * CXL windows from iomem (NULL: /proc/iomem, opened now, while the process
 * may still see its addresses) and the firmware's CEDT.
 */
int hb_platform_live_new(const struct hb_topology_source *ts, const char *iomem,
			 struct hb_platform **ret, struct hb_err *err);

const char *hb_platform_name(const struct hb_platform *p);
bool hb_platform_emulated(const struct hb_platform *p);
const struct hb_topology *hb_platform_topology(const struct hb_platform *p);
/* the node map's block size (how far one node lookup holds), 0 without one */
uint64_t hb_platform_node_step(const struct hb_platform *p);
/* the online NUMA node of hpa, or -1 (ud: the platform) */
int hb_platform_node_of(const struct hb_platform *p, uint64_t hpa);
int hb_platform_node_of_ud(void *ud, uint64_t hpa);
/*
 * The nodes whose memory lies in this host's CXL windows (bit n); when the
 * windows could not be read, 0 and *ret_why (if given) says why, else "".
 */
uint64_t hb_platform_window_nodes(const struct hb_platform *p, const char **ret_why);
int hb_platform_nodes(const struct hb_platform *p, struct hb_numa_node *nodes,
		      uint8_t distance[HB_MAX_NODES][HB_MAX_NODES]);
/*
 * A new topology and node map, in place of the old ones; on failure the
 * old ones stay. -EOPNOTSUPP when the platform cannot rebuild.
 */
bool hb_platform_can_reload(const struct hb_platform *p);
int hb_platform_reload(struct hb_platform *p, struct hb_err *err);
/*
 * An fd of topology events for the caller (taken), or -errno;
 * -EOPNOTSUPP when the platform has none. A test's fd set with
 * hb_platform_set_events_fd() (taken) is handed out instead.
 */
int hb_platform_open_events(struct hb_platform *p);
void hb_platform_set_events_fd(struct hb_platform *p, int fd);

/*
 * This host's nodes (bit n) whose memory, by node map m, lies in its CXL
 * windows: /proc/iomem at iomem (read from iomem_fd when >= 0) and the
 * firmware's CEDT (platform-live.c). -errno with err when neither reads.
 */
int hb_live_window_nodes(const char *iomem, int iomem_fd, const struct hb_node_map *m,
			 uint64_t *ret, struct hb_err *err);

/* libnuma: presence, CPUs, free memory, numa_distance() (platform-live.c) */
int hb_numa_nodes(void *ud, struct hb_numa_node *nodes, uint8_t distance[HB_MAX_NODES][HB_MAX_NODES]);

#endif
