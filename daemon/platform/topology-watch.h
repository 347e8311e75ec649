/* SPDX-License-Identifier: MIT */
/*
 * The daemon's topology watch (platform/topology-watch.c): kernel uevents
 * (cxl, dax, memory), debounced, then the topology and node map rebuilt,
 * and the source-node rule's answers. Its state is struct
 * hb_topology_watch, a member of struct hb_daemon (daemon-private.h).
 * Not installed, not for commands.
 */
#ifndef HB_DAEMON_TOPOLOGY_WATCH_H
#define HB_DAEMON_TOPOLOGY_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "platform/source-nodes.h"

struct event;
struct hb_daemon;

/**
 * struct hb_topology_watch - the uevent watch's state
 * @uevent_ev: reads the uevent socket (NULL: not watched)
 * @debounce_ev: fires once the uevents have been quiet a while
 * @uevent_fd: the uevent socket, watched and ours, or -1
 */
struct hb_topology_watch {
	struct event *uevent_ev, *debounce_ev;
	int uevent_fd;
};

uint64_t hb_daemon_topology_nodes(struct hb_daemon *d);
/* the source-node rule's facts: the nodes and this host's CXL windows (source-nodes.h) */
struct hb_source_facts hb_daemon_source_facts(const struct hb_daemon *d);
/* why node is or is not a source node, in words (explain, status's nodes[].source_reason) */
void hb_daemon_source_node_reason(const struct hb_daemon *d, int node, char *buf, size_t size);
void hb_daemon_warn_refused(struct hb_daemon *d);
void hb_daemon_watch_uevents(struct hb_daemon *d);

#endif
