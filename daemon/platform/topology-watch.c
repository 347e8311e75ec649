// SPDX-License-Identifier: MIT
/*
 * Topology watching: kernel uevents (cxl, dax, memory), debounced, then a
 * rebuild of the topology and node map; the table keeps its pages, less
 * those on no node any more and those of a region that left the topology.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>

#include <event2/event.h>

#include "conf/conf-check.h"
#include "daemon-private.h"
#include "ingest/ingest.h"
#include "platform/uevent.h"

static void warn_not_source(void *ud, const struct hb_region *rg, int node,
			    enum hb_source_node_why why)
{
	struct hb_daemon *d = ud;
	const char *windows_why;
	char msg[HB_ERR_MSG_MAX];

	(void)hb_platform_window_nodes(d->env.platform, &windows_why);
	hb_dlog(d, LOG_WARNING, "%s",
		hb_source_refusal_format(msg, sizeof(msg), rg, node, why, windows_why,
					 d->cfg.topology[0]));
}

/*
 * The source nodes the topology's committed regions lie on, by the one
 * rule (source-nodes.h); each region on a node it refuses is warned about.
 */
uint64_t hb_daemon_topology_nodes(struct hb_daemon *d)
{
	struct hb_source_facts f;

	hb_daemon_refresh_nodes(d);
	f = hb_daemon_source_facts(d);
	return hb_source_nodes_of_topology(hb_platform_topology(d->env.platform),
					   hb_daemon_node_of_ud, d, &f, warn_not_source, d);
}

void hb_daemon_source_node_reason(const struct hb_daemon *d, int node, char *buf, size_t size)
{
	struct hb_source_facts f = hb_daemon_source_facts(d);
	enum hb_source_node_why why;

	if (node < 0) {
		snprintf(buf, size,
			 "not on a source node: on no NUMA node (no online memory block "
			 "holds it)");
		return;
	}
	why = hb_source_node_check(&f, node);
	if (node < 64 && (d->source_mask >> node) & 1)
		snprintf(buf, size, "node %d is a source node: it %s", node,
			 hb_source_node_why_text(why));
	else if (why == HB_SOURCE_NODE_OK)
		snprintf(buf, size, "node %d is not a source node: %s", node,
			 d->cfg.source_nodes[0] ? "not in policy.source_nodes" :
						  "no committed CXL region lies on it");
	else
		snprintf(buf, size, "node %d is not a source node: it %s%s%s", node,
			 hb_source_node_why_text(why), why == HB_SOURCE_NODE_NO_WINDOWS ? ": " : "",
			 why == HB_SOURCE_NODE_NO_WINDOWS ? f.windows_why : "");
}

struct hb_source_facts hb_daemon_source_facts(const struct hb_daemon *d)
{
	struct hb_source_facts f = { .nodes = d->nodes };

	f.window_nodes = hb_platform_window_nodes(d->env.platform, &f.windows_why);
	return f;
}

static void log_warning(void *ud, const char *msg)
{
	struct hb_daemon *d = ud;

	hb_dlog(d, LOG_WARNING, "%s", msg);
}

/* the topology's warnings, in check-config's words too (conf-check.h) */
void hb_daemon_warn_refused(struct hb_daemon *d)
{
	hb_topology_warn(hb_platform_topology(d->env.platform), log_warning, d);
}

/* the committed regions' HPA ranges of a topology, before it is replaced */
struct hpa_range {
	uint64_t base, end; /* [base, end) */
	char name[HB_NAME_MAX];
};

struct hpa_ranges {
	size_t n;
	struct hpa_range *r;
};

static int ranges_of(const struct hb_topology *t, struct hpa_ranges *ret)
{
	size_t n = t ? hb_topology_nr_regions(t) : 0;

	ret->n = 0;
	ret->r = n ? calloc(n, sizeof(*ret->r)) : NULL;
	if (n && !ret->r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct hb_region *rg = hb_topology_region(t, i);
		struct hpa_range *x = &ret->r[ret->n];

		if (!rg->committed || !rg->hpa_size)
			continue;
		x->base = rg->hpa_base;
		x->end = rg->hpa_base + rg->hpa_size;
		snprintf(x->name, sizeof(x->name), "%s", rg->name);
		ret->n++;
	}
	return 0;
}

static bool in_ranges(const struct hpa_ranges *rs, uint64_t hpa)
{
	for (size_t i = 0; i < rs->n; i++)
		if (hpa >= rs->r[i].base && hpa < rs->r[i].end)
			return true;
	return false;
}

static bool has_range(const struct hpa_ranges *rs, const struct hpa_range *x)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].base == x->base && rs->r[i].end == x->end &&
		    !strcmp(rs->r[i].name, x->name))
			return true;
	return false;
}

/* the log says which regions a rebuild took away and which it brought */
static void log_region_changes(struct hb_daemon *d, const struct hpa_ranges *before,
			       const struct hpa_ranges *after)
{
	for (size_t i = 0; i < before->n; i++)
		if (!has_range(after, &before->r[i]))
			hb_dlog(d, LOG_WARNING,
				"region %s (HPA 0x%llx-0x%llx) left the topology: nothing of it is "
				"promoted, its pages leave the hotness table",
				before->r[i].name, (unsigned long long)before->r[i].base,
				(unsigned long long)before->r[i].end - 1);
	for (size_t i = 0; i < after->n; i++)
		if (!has_range(before, &after->r[i]))
			hb_dlog(d, LOG_NOTICE, "region %s (HPA 0x%llx-0x%llx) joined the topology",
				after->r[i].name, (unsigned long long)after->r[i].base,
				(unsigned long long)after->r[i].end - 1);
}

struct revalidate_ctx {
	struct hb_daemon *d;
	struct hpa_ranges before, after;
};

/*
 * A page's node after a rebuild, or -1 to drop it: on no node, or in a
 * region the old topology had and the new one has not (a memdev disabled or
 * cxl_pci unbound under online memory: the kernel leaves the blocks online
 * on the node, but nothing decodes the range; it is no source of ours now).
 * Pages that were in no region before (hpa= records of other memory) keep
 * the node rule alone.
 */
static int node_after_rebuild(void *ud, uint64_t hpa)
{
	const struct revalidate_ctx *c = ud;

	if (in_ranges(&c->before, hpa) && !in_ranges(&c->after, hpa))
		return -1;
	return hb_daemon_node_of(c->d, hpa);
}

int hb_daemon_rebuild_topology(struct hb_daemon *d, struct hb_err *err)
{
	const struct hb_topology *t;
	char set[HB_NODE_SET_MAX];
	struct revalidate_ctx rc = { .d = d };
	size_t gone;
	int r;

	if (!hb_platform_can_reload(d->env.platform))
		return hb_err_set(err, -EOPNOTSUPP, "this host cannot rebuild its topology");
	/* out of memory: the old regions unknown, the node rule alone */
	(void)ranges_of(hb_platform_topology(d->env.platform), &rc.before);
	if (hb_platform_reload(d->env.platform, err) < 0) {
		free(rc.before.r);
		d->st.topology_reload_failures++;
		hb_dlog(d, LOG_ERR,
			"topology changed, but rebuilding it failed: %s; keeping the old one",
			err->msg);
		return err->code ? err->code : -EIO;
	}
	t = hb_platform_topology(d->env.platform);
	if (!d->cfg.source_nodes[0])
		d->source_mask = hb_daemon_topology_nodes(d);
	if (hb_daemon_set_ingest_topology(d) < 0) {
		/* without the new regions nothing could be checked: take nothing in */
		(void)hb_ingest_set_topology(d->intake.ingest, NULL, 0, 0);
		hb_dlog(d, LOG_ERR,
			"topology rebuilt, but out of memory for its region list: "
			"records are dropped until the next rebuild");
	}
	/* pages taken in under the old topology: their node may have changed,
	 * their region may be gone */
	r = ranges_of(t, &rc.after);
	if (r < 0)
		rc.before.n = 0;
	log_region_changes(d, &rc.before, &rc.after);
	gone = hb_heat_revalidate(d->heat, node_after_rebuild, &rc);
	free(rc.before.r);
	free(rc.after.r);
	d->st.topology_pages_dropped += gone;
	d->st.topology_reloads++;
	hb_dlog(d, LOG_INFO,
		"topology rebuilt: %zu regions, %zu memdevs, source nodes %s; %zu hot pages "
		"kept, %zu on no node or in no region any more dropped",
		hb_topology_nr_regions(t), hb_topology_nr_memdevs(t),
		hb_node_set_format(d->source_mask, set, sizeof(set)), hb_heat_len(d->heat), gone);
	hb_daemon_warn_refused(d);
	hb_daemon_reopen_stopped_sources(d);
	return 0;
}

static void on_debounced(evutil_socket_t fd, short what, void *arg)
{
	struct hb_err err = { 0 };

	(void)hb_daemon_rebuild_topology(arg, &err);
}

static void on_uevent(evutil_socket_t fd, short what, void *arg)
{
	struct hb_daemon *d = arg;
	struct timeval tv = { .tv_sec = d->env.debounce_ms / 1000,
			      .tv_usec = (suseconds_t)(d->env.debounce_ms % 1000) * 1000 };
	char buf[8192];

	for (;;) {
		struct hb_uevent ev;
		ssize_t n = recv((int)fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0)
			return;
		if (hb_uevent_parse(buf, (size_t)n, &ev) != 1)
			continue;
		d->st.uevents++;
		hb_dlog(d, LOG_DEBUG, "uevent %s %s (%s)", ev.action, ev.devpath, ev.subsystem);
		evtimer_add(d->topo_watch.debounce_ev, &tv); /* re-arming pushes it back */
	}
}

void hb_daemon_watch_uevents(struct hb_daemon *d)
{
	int fd;

	if (!hb_platform_can_reload(d->env.platform))
		return;
	fd = hb_platform_open_events(d->env.platform);
	if (fd == -EOPNOTSUPP)
		return;
	if (fd < 0) {
		hb_dlog(d, LOG_WARNING, "uevents: %s; topology changes will not be noticed",
			strerror(-fd));
		return;
	}
	d->topo_watch.uevent_fd = fd;
	if (!d->env.debounce_ms)
		d->env.debounce_ms = 500;
	d->topo_watch.uevent_ev = event_new(d->base, fd, EV_READ | EV_PERSIST, on_uevent, d);
	d->topo_watch.debounce_ev = evtimer_new(d->base, on_debounced, d);
	if (!d->topo_watch.uevent_ev || !d->topo_watch.debounce_ev ||
	    event_add(d->topo_watch.uevent_ev, NULL) < 0)
		hb_dlog(d, LOG_WARNING,
			"uevents: out of memory; topology changes will not be noticed");
}
