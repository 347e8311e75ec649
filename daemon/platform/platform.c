// SPDX-License-Identifier: MIT
/* A platform over its ops (platform.h): the state every host shares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform/platform.h"

struct hb_platform {
	const struct hb_platform_ops *ops;
	void *priv;
	bool emulated;
	struct hb_topology *topology;
	struct hb_node_map *node_map;     /* NULL: ops->node_of */
	int events_fd;                    /* a test's, until handed out; -1 */
	uint64_t window_nodes;            /* memory in this host's CXL windows */
	char windows_why[HB_ERR_MSG_MAX]; /* why none are known, or "" */
};

/* the nodes in CXL windows under the current node map */
static void learn_windows(struct hb_platform *p)
{
	struct hb_err why = { 0 };

	p->window_nodes = 0;
	p->windows_why[0] = '\0';
	if (p->ops->window_nodes &&
	    p->ops->window_nodes(p->priv, p->node_map, &p->window_nodes, &why) < 0) {
		p->window_nodes = 0;
		snprintf(p->windows_why, sizeof(p->windows_why), "%s", why.msg);
	}
}

int hb_platform_new(const struct hb_platform_ops *ops, void *priv, bool emulated,
		    struct hb_topology *topology, struct hb_node_map *node_map,
		    struct hb_platform **ret, struct hb_err *err)
{
	struct hb_platform *p;

	if (!ops || !ops->nodes || !topology) {
		hb_topology_free(topology);
		hb_node_map_free(node_map);
		return hb_err_set(err, -EINVAL, "platform: nodes and a topology are needed");
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		hb_topology_free(topology);
		hb_node_map_free(node_map);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	*p = (struct hb_platform){ .ops = ops,
				   .priv = priv,
				   .emulated = emulated,
				   .topology = topology,
				   .node_map = node_map,
				   .events_fd = -1 };
	learn_windows(p);
	*ret = p;
	return 0;
}

struct hb_platform *hb_platform_free(struct hb_platform *p)
{
	if (!p)
		return NULL;
	if (p->events_fd >= 0)
		close(p->events_fd);
	if (p->ops->free)
		p->ops->free(p->priv);
	hb_topology_free(p->topology);
	hb_node_map_free(p->node_map);
	free(p);
	return NULL;
}

const char *hb_platform_name(const struct hb_platform *p)
{
	return p->ops->name;
}

bool hb_platform_emulated(const struct hb_platform *p)
{
	return p->emulated;
}

const struct hb_topology *hb_platform_topology(const struct hb_platform *p)
{
	return p->topology;
}

uint64_t hb_platform_node_step(const struct hb_platform *p)
{
	return p->node_map ? hb_node_map_block_size(p->node_map) : 0;
}

int hb_platform_node_of(const struct hb_platform *p, uint64_t hpa)
{
	struct hb_node_info ni;

	if (!p->node_map)
		return p->ops->node_of ? p->ops->node_of(p->priv, hpa) : -1;
	if (hb_node_map_lookup(p->node_map, hpa, &ni) < 0 || !ni.online)
		return -1;
	return ni.node;
}

int hb_platform_node_of_ud(void *ud, uint64_t hpa)
{
	return hb_platform_node_of(ud, hpa);
}

uint64_t hb_platform_window_nodes(const struct hb_platform *p, const char **ret_why)
{
	if (ret_why)
		*ret_why = p->windows_why;
	return p->window_nodes;
}

int hb_platform_nodes(const struct hb_platform *p, struct hb_numa_node *nodes,
		      uint8_t distance[HB_MAX_NODES][HB_MAX_NODES])
{
	return p->ops->nodes(p->priv, nodes, distance);
}

bool hb_platform_can_reload(const struct hb_platform *p)
{
	return p->ops->reload != NULL;
}

int hb_platform_reload(struct hb_platform *p, struct hb_err *err)
{
	struct hb_topology *t = NULL;
	struct hb_node_map *m = NULL;
	int r;

	if (!p->ops->reload)
		return hb_err_set(err, -EOPNOTSUPP, "this host cannot rebuild its topology");
	r = p->ops->reload(p->priv, &t, &m, err);
	if (r < 0)
		return r;
	hb_topology_free(p->topology);
	hb_node_map_free(p->node_map);
	p->topology = t;
	p->node_map = m;
	learn_windows(p);
	return 0;
}

int hb_platform_open_events(struct hb_platform *p)
{
	int fd = p->events_fd;

	if (fd >= 0) {
		p->events_fd = -1;
		return fd;
	}
	return p->ops->open_events ? p->ops->open_events(p->priv) : -EOPNOTSUPP;
}

void hb_platform_set_events_fd(struct hb_platform *p, int fd)
{
	if (p->events_fd >= 0)
		close(p->events_fd);
	p->events_fd = fd;
}
