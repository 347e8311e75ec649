/* SPDX-License-Identifier: MIT */
/*
 * What a configuration must be for `hotbridge run` to start, checked by one
 * function that both `run` and `check-config` (the unit's ExecStartPre) call,
 * so the two cannot drift: sources exist and take their parameters (each
 * built-in's own check, hb_builtin_check(), the one its open runs first),
 * node lists parse, policy.source_nodes passes the source-node rule
 * (source-nodes.h), the target node exists and is not a CXL node, the
 * token bucket holds a page, the emulated host runs dry, demote.cxl_node
 * is a CXL node, the metrics textfile's directory exists, the paths the
 * daemon writes pass hb_config_check_paths(), the hotness table fits in
 * memory.
 */
#ifndef HB_CONF_CHECK_H
#define HB_CONF_CHECK_H

#include "conf/conf.h"
#include "core.h"
#include "translate.h"

struct hb_plugin_set;

/* a plugin refused while scanned or inspected, and why (without its path) */
struct hb_plugin_refusal {
	char name[64];
	char path[512];
	char why[HB_ERR_MSG_MAX];
};

/* What the host says; a NULL/0 fact skips the checks that need it. */
struct hb_config_facts {
	const struct hb_numa_node *nodes;        /* HB_MAX_NODES entries */
	uint64_t cxl_nodes;                      /* the topology's source nodes (the rule's) */
	uint64_t window_nodes;                   /* nodes in this host's CXL windows */
	const char *windows_why;                 /* why they are unknown, or NULL */
	const struct hb_plugin_set *plugins;     /* scanned (not loaded) plugins */
	const struct hb_topology *topology;      /* the CXL topology, if one was read */
	const struct hb_plugin_refusal *refused; /* plugins refused, by name */
	size_t nrefused;
	uint64_t page_size;
	uint64_t mem_bytes;      /* this machine's memory */
	bool migrator_given;     /* not from the config (tests) */
	const char *config_path; /* the file read (hb_config_check_paths()), or NULL */
	/*
	 * what is not a configuration error but worth saying (a source this
	 * host cannot serve: run goes on without it); NULL: not said
	 */
	void (*warn)(void *ud, const char *msg);
	void *warn_ud;
};

/*
 * The refusal (from hb_plugins_scan() or _load()) of plugin file path as
 * a fact: its NAME and why without the path in front. 0, or -EINVAL
 * for a file whose name is no plugin name (nothing to record).
 */
int hb_plugin_refusal_note(struct hb_plugin_refusal *ret, const char *path, const char *why);
/* this machine's memory in bytes (0: unknown): the facts' mem_bytes */
uint64_t hb_config_mem_bytes(void);
/*
 * The hotness table fits in mem_bytes (0: not checked). Part of
 * hb_config_check(); run calls it alone too, before it allocates the table.
 */
int hb_config_check_table(const struct hb_config *c, uint64_t mem_bytes, struct hb_err *err);
/* "why" without a leading "path: " (loader messages start with the path) */
const char *hb_plugin_refusal_why(const char *path, const char *why);

/* policy.source_nodes as a node mask (0 when empty); -EINVAL naming it */
int hb_config_source_nodes(const struct hb_config *c, uint64_t *ret_mask, struct hb_err *err);
/*
 * The memdev source s submits under: its memdev =, or the memdev whose host
 * is its pci = (t's); -EINVAL when the two disagree, -ENODEV when pci names
 * no memdev of t and memdev is not given, -EINVAL for a chmu source that
 * names neither. t NULL: memdev = as given.
 */
int hb_source_memdev(const struct hb_topology *t, const struct hb_source_config *s, char *memdev,
		     size_t size, struct hb_err *err);
/*
 * The parameters source s opens with (params: HB_MAX_SOURCE_PARAMS + 2
 * slots, NULL-terminated), the same for check-config and run: its own,
 * and an emulated CHMU (emul-chmu) on memdev, a memdev of t, gets the
 * memdev's size as capacity= (its own default, 1 GiB, is twice the
 * emulated host's memdevs; records past the memdev's end would be dropped
 * as unmapped), written into added; a larger capacity= is refused
 * (-EINVAL naming it). A memdev not in t keeps the source's default.
 * The device CHMU sources (chmu, cxl-hmu) get it the same way: they drop
 * and count hotlist entries past it (garbled entries, devices/docs/sources.md).
 */
int hb_source_open_params(const struct hb_topology *t, const struct hb_source_config *s,
			  const char *memdev, const char **params, char *added, size_t added_size,
			  struct hb_err *err);
/*
 * The topology's start-up warnings, the same words for run (at start and
 * each rebuild) and check-config: an empty model (no CXL memdev, decoder
 * or region on this host, or in the snapshot), and each region hotbridge
 * does not translate (translate/refuse.c) with its reason.
 */
void hb_topology_warn(const struct hb_topology *t, void (*warn)(void *ud, const char *msg), void *ud);
/*
 * daemon.control_socket: an absolute path, in a directory that is missing
 * (the lock creates it, 0700) or trusted as a configuration file's is
 * (root's or ours, not group- or world-writable: not /tmp, where another
 * user could put a socket or lock there first). Empty is for `run --once`
 * only: running true (the daemon's loop) refuses it, for without the
 * socket there is no lock and a second daemon could start beside it. Part
 * of hb_config_check() (running false); run calls it alone too, before it
 * takes the lock.
 */
int hb_config_check_control_socket(const struct hb_config *c, bool running, struct hb_err *err);
/*
 * Every path the daemon writes (the control socket and its lock,
 * metrics_textfile, migrate.damon_state, each replay source's state= and
 * socket=; conf-paths.c): absolute; nothing there but a regular file (or a
 * symlink, which the rename replaces) for a file, for a device node, FIFO,
 * socket or directory would be replaced (a socket's path: its bind says);
 * in a directory trusted as the control socket's is (not /tmp); and none
 * of the daemon's other paths: config_path (NULL: not known) or a file in
 * its drop-in directory, the topology snapshot or CEDT, a replay source's
 * feed, another path it writes (newuser r5 E19, E20, E7). -EINVAL (or the
 * directory's -errno) naming the key and what the path is. Part of
 * hb_config_check(); run calls it alone too, before it takes the lock.
 */
int hb_config_check_paths(const struct hb_config *c, const char *config_path, struct hb_err *err);
/*
 * The temporaries a killed run left beside the files it replaces by rename
 * (metrics_textfile, damon_state, each replay state=; util.h,
 * hb_remove_temporaries()), removed at start once the lock is held; said
 * (NULL: not) is told each path and how many went (newuser r5 E17).
 */
void hb_config_remove_temporaries(const struct hb_config *c, void (*said)(const char *path, int n));
/* 0, or the first problem (-errno) with err naming the key or [source] */
int hb_config_check(const struct hb_config *c, const struct hb_config_facts *f, struct hb_err *err);
/*
 * A plugin source's isolate = yes|no (also true|false, 1|0): 1 (the
 * default: the plugin runs in hotbridge-plugin-host), 0 (in the daemon),
 * or -EINVAL for another value. The daemon's key, not the plugin's: run
 * takes it out of the parameters the plugin sees.
 */
int hb_source_isolate(const char *const *params);
/* whether a source of plugin type `type` has isolate = no */
bool hb_config_plugin_in_process(const struct hb_config *c, const char *type);
/*
 * The token bucket's depth in MB: burst_mb, or (0) one interval_ms of
 * rate_mbps, at least one second's
 */
double hb_config_burst_mb(const struct hb_config *c);
/*
 * What bounds promotion and demotion less than the keys say, to f's warn
 * (part of hb_config_check(); run's check, without a warn of its own for
 * the sources, calls it alone): a top_k, a cycle's candidates or a
 * burst_mb capping promotion below rate_mbps; demotion on the emulated
 * host without an emul-chmu source's ground truth
 */
void hb_config_warn_limits(const struct hb_config *c, const struct hb_config_facts *f);

/* the [tenant] keys parsed (core.h "tenants"); an error names the key, its value and where */
int hb_config_tenant_rules(const struct hb_config *c, struct hb_tenant_rules *ret,
			   struct hb_err *err);

#endif
