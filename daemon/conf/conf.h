/* SPDX-License-Identifier: MIT */
/*
 * The daemon's configuration: INI (Debian's inih), HB_CONFIG_DEFAULT (config.h:
 * <sysconfdir>/hotbridge/hotbridge.conf) or --config FILE, then FILE.d/ (*.conf)
 * in lexical order. One key table drives
 * parsing, defaults, ranges and `hotbridge check-config`. Unknown keys and
 * out-of-range values are errors naming file:line. Files are trusted like
 * plugins (util.h, hb_trust_check()): no symlink, owned by root or the
 * user running hotbridge, not group- or world-writable; conf.d likewise;
 * the main file's directory too (a sticky one like /tmp as well).
 * A directory, an empty main file, more than 256 drop-ins, a line, section
 * or key name that inih would split or truncate are errors. [source NAME] sections configure sources:
 * `type=` picks the source, `memdev=`/`pci=` name the device, every other
 * key is passed to the source as a parameter.
 */
#ifndef HB_CONF_H
#define HB_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/util.h"

#define HB_MAX_SOURCES 32
#define HB_MAX_SOURCE_PARAMS 24
#define HB_MAX_SETS 64        /* --set options of run and check-config */
#define HB_CONF_MAX_KEYS 48   /* the key table's size at most (conf-keys.c) */
#define HB_CONF_WHERE_MAX 256 /* "file:line", "--set" or "" (the default) */

struct hb_source_config {
	char name[64];
	char type[64];
	char memdev[32];
	char pci[32];
	char *params[HB_MAX_SOURCE_PARAMS + 1];  /* "key=value", NULL-terminated */
	char *param_where[HB_MAX_SOURCE_PARAMS]; /* where each was set (heap) */
	size_t nparams;
	char where[300];                        /* file:line of its first key */
	char fixed_where[3][HB_CONF_WHERE_MAX]; /* where type, memdev, pci were set */
};

struct hb_config {
	/* [daemon] */
	uint64_t interval_ms;
	bool dry_run;
	char log_level[16];
	char log_target[16]; /* stderr | syslog */
	char plugin_dir[256];
	char control_socket[108];
	char metrics_textfile[256];
	char pause_state[256];
	uint64_t backlog; /* records waiting for ingestion at which sources stop reading */
	uint64_t plugin_memory_limit; /* a plugin host's RLIMIT_AS, bytes; 0: none */
	uint64_t plugin_hang_ms;      /* an unanswered plugin host this long is killed */
	/* [table] */
	uint64_t max_entries;
	uint64_t history_size; /* decision history ring, entries */
	double decay;
	/* [policy] */
	double threshold;
	uint64_t top_k;
	uint64_t hysteresis_ms;
	uint64_t min_epochs;
	double rate_mbps;
	double burst_mb;
	uint64_t watermark_mb;
	int64_t target_node;    /* -1: nearest node with CPUs */
	char source_nodes[128]; /* "" = the CXL nodes of the topology; else "2,3" */
	/* [demote] */
	bool demote_enabled;
	uint64_t demote_room_mb;    /* demote while free < watermark_mb + this */
	uint64_t demote_rate_pages; /* per DRAM node per second; 0 = no limit */
	uint64_t demote_cxl_floor_mb;
	int64_t demote_cxl_node;      /* -1: the source node each page came from */
	uint64_t demote_cold_cycles;  /* idle checks in a row before a page is cold */
	uint64_t demote_scan_mb;      /* live: census of this much of each DRAM node a cycle */
	uint64_t demote_step_ms;      /* live: census a cycle, at most */
	uint64_t demote_track_mb;     /* live: tracked of each node at a time; 0 = all */
	uint64_t demote_idle_cpu_pct; /* live, page_idle: its thread's share of a CPU */
	/* [migrate] */
	char backend[16];   /* auto | phys | damon | pagemap | dryrun */
	int64_t syscall_nr; /* 0 = from the kernel's sysfs */
	uint64_t rescan_ms;
	bool damon_takeover;     /* damon: replace other DAMON sysfs users */
	char damon_state[256];   /* damon: the kdamond we set up, for restarts */
	bool override_mempolicy; /* move pages whose owners' memory policy forbids the target */
	/* [tenant] (core.h "tenants") */
	char tenant_allow[1024];     /* cgroup v2 path patterns whose pages may be promoted */
	char tenant_deny[1024];      /* ... may not */
	char tenant_budget_mb[1024]; /* PATTERN=MIB,...: DRAM promoted per budget */
	char tenant_no_cgroup[8];    /* allow | deny: pages of no cgroup */
	/* [topology] */
	char topology[256]; /* "" = live (libcxl) */
	char cedt[256];
	bool emulated; /* the built-in emulated CXL host instead */
	/* [source NAME] */
	struct hb_source_config sources[HB_MAX_SOURCES];
	size_t nsources;
	/* where each key of the table was set: "file:line", "--set", "" = default */
	char key_where[HB_CONF_MAX_KEYS][HB_CONF_WHERE_MAX];
};

void hb_config_defaults(struct hb_config *c);
void hb_config_done(struct hb_config *c);

/*
 * Reads path, then path's ".d" directory (*.conf, lexical order). On error
 * c is left as it was before the call (a reload keeps the old config).
 * Precedence: within one file a key, and a [source NAME] section, may
 * appear once (a second one is an error naming both lines); a later file
 * overrides an earlier one key by key, a source's parameters included (a
 * drop-in's [source NAME] replaces the keys it gives and adds the others).
 */
int hb_config_load(struct hb_config *c, const char *path, bool dropins, struct hb_err *err);
/*
 * One "section.key=value" from the command line (file "command line"), or
 * "source.NAME.KEY=value" (also "source NAME.KEY=value") for a parameter
 * (or type, memdev, pci) of a configured [source NAME]: it replaces the
 * file's value or is added; an unknown NAME is an error.
 */
int hb_config_set(struct hb_config *c, const char *assignment, struct hb_err *err);
/*
 * What the commands do: defaults, then path (and its drop-ins), then each
 * --set assignment. On error c holds nothing to free.
 */
int hb_config_read(struct hb_config *c, const char *path, bool dropins, const char *const *sets,
		   size_t nsets, struct hb_err *err);
/*
 * changed(ud, section, key) for each key whose value differs between a and
 * b, then changed(ud, "source", NULL) once if the [source] sections differ.
 */
void hb_config_diff(const struct hb_config *a, const struct hb_config *b,
		    void (*changed)(void *ud, const char *section, const char *key), void *ud);
/*
 * The effective configuration as INI, with each key's help as a comment
 * and, after each value, where it was set as an inline comment
 * ("; FILE:LINE", "; --set" or "; default"), still valid configuration.
 */
void hb_config_write(const struct hb_config *c, FILE *f);
/* hotbridge.conf(5) in roff, from the same key table */
void hb_config_write_man(FILE *f);

struct hb_dev_info;
/* ret: source s as the device ABI sees it (its name and key=value parameters) */
void hb_source_info(const struct hb_source_config *s, struct hb_dev_info *ret);

#endif
