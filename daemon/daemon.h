/* SPDX-License-Identifier: MIT */
/*
 * The hotbridge service: struct hb_daemon owns the event loop, the
 * configuration, the topology, the sources, the hotness table, the policy
 * and the migrator. One cycle: poll the sources (records are translated to
 * HPA pages and added to the table as they are submitted), decide, migrate,
 * fold the per-page status into counters, decay.
 */
#ifndef HB_DAEMON_H
#define HB_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "cycle/coldness.h"
#include "conf/conf.h"
#include "core.h"
#include "ingest/ingest.h"
#include "kernel.h"
#include "platform/platform.h"
#include "translate.h"

/* devices' media events (hb_host_ops.submit_event; media-events.c) */
struct hb_media_stats {
	uint64_t media_events, poison_events, poison_cleared;
	uint64_t overflow_events, overflow_records_lost;
	uint64_t hpa_agree, hpa_mismatch; /* the device's HPA against ours */
	uint64_t quarantined_pages;       /* poisoned or uncorrectable, kept out */
	uint64_t quarantine_dropped;      /* candidates set aside for it */
	uint64_t quarantine_refused_late; /* decided to promote, quarantined since */
	uint64_t poison_released;         /* pages let back by cleared poison */
	uint64_t poison_clear_kept;       /* pages cleared poison did not let back */
	uint64_t quarantine_untranslated; /* events on DPA we cannot translate */
	uint64_t quarantine_full;         /* pages past the quarantine's size */
};

struct hb_daemon_stats {
	uint64_t cycles;
	struct hb_ingest_stats in; /* records, translated, pages, dropped[] */
	uint64_t decisions[_HB_REASON_MAX];
	uint64_t last_decisions[_HB_REASON_MAX]; /* the last promotion's: what held it */
	struct hb_migrate_counts migrated;
	uint64_t promoted_bytes, source_errors;
	uint64_t promoted_pages_by_node[HB_MAX_NODES];
	/* demotion: what its migrations gave, bytes and pages moved back to CXL */
	struct hb_migrate_counts demoted;
	uint64_t demoted_bytes, demoted_pages_by_node[HB_MAX_NODES]; /* by CXL node */
	uint64_t demote_backoffs; /* failed demotions that rested their DRAM node */
	uint64_t demoted_freed;   /* -ENOENT: freed since the census; not in demoted */
	uint64_t coldness_errors; /* cycles the coldness source failed */
	/* where demotion steps spend their time: census, idle checks, decide + move */
	uint64_t demote_census_us, demote_coldness_us, demote_move_us;
	uint64_t demote_census_max_us, demote_coldness_max_us; /* the longest of each, on the loop */
	uint64_t demote_decide_us, demote_decide_max_us; /* hb_demote_select(): all, the longest */
	uint64_t census_frames, idle_checked; /* frames the census read, idle checks made */
	uint64_t idle_rounds, idle_round_us;  /* per-frame idle rounds, their time (off the loop) */
	uint64_t census_samples;              /* times a node's census moved on to another sample */
	uint64_t uevents, topology_reloads, topology_reload_failures, topology_pages_dropped;
	double last_cycle_ms, cycle_ms_total;
	struct hb_media_stats media;
};

struct hb_daemon;

/*
 * How the daemon runs. Where its facts come from is the platform
 * (platform.h): the live host (hb_platform_live_new()) or the emulated
 * one (hb_emulated_platform_new()).
 */
struct hb_daemon_env {
	struct hb_platform *platform; /* taken */
	struct hb_migrator *migrator; /* taken; NULL: from the config */
	/* which placed pages went cold (borrowed; ops NULL: none, no demotion) */
	struct hb_coldness coldness;
	/*
	 * A dry-run migrator from the config keeps its last dryrun_keep requests
	 * for hb_migrator_dryrun_records() (the demo's score asks for 2^20,
	 * about 32 MiB); 0: the migrator's small default.
	 */
	size_t dryrun_keep;
	bool quiet;             /* no per-cycle log line */
	bool keep_capabilities; /* the demo: nothing to protect */
	/*
	 * Topology changes: a platform event (a uevent) triggers, after
	 * debounce_ms (0: 500) of quiet, the platform's rebuild of topology and
	 * node map. The hotness table is kept (its keys are host addresses),
	 * less the pages the new node map puts on no node. A platform that
	 * cannot rebuild is not watched.
	 */
	unsigned int debounce_ms;
	/* the command line's overrides, re-applied on each reload (borrowed) */
	const char *const *sets;
	size_t nsets;
	bool dry_run_forced;    /* --dry-run */
	bool pause_state_aside; /* another daemon holds pause_state: neither read nor write it */
	/*
	 * Where to look for other movers of the same pages (kernel/kernel.h,
	 * at start and on reload): NULL = this host's /proc and /sys, and not
	 * at all on an emulated platform (it moves none of this host's memory);
	 * tests name a fixture tree (borrowed).
	 */
	const char *conflicts_root;
	/*
	 * Where the owners of pages are read for [tenant] rules (/proc/kpagecgroup,
	 * /sys/fs/cgroup): NULL = this host's, refused on an emulated platform
	 * (its pages belong to no process here); tests name a fixture tree (borrowed).
	 */
	const char *owners_root;
	/* called after each cycle of hb_daemon_run(); stop after stop_cycles (0 = never) */
	void (*after_cycle)(void *ud, struct hb_daemon *d);
	void *ud;
	uint64_t stop_cycles;
};

int hb_daemon_new(const struct hb_config *cfg, struct hb_daemon_env *env, struct hb_daemon **ret,
		  struct hb_err *err);
struct hb_daemon *hb_daemon_free(struct hb_daemon *d);

/* One cycle now (what --once runs). */
int hb_daemon_cycle(struct hb_daemon *d);
/*
 * The loop: a cycle every interval_ms until SIGTERM/SIGINT (0), an error,
 * or env.stop_cycles. The configuration must outlive the daemon (sources
 * keep pointers to its parameters); SIGHUP reloads (hb_daemon_reload()).
 */
int hb_daemon_run(struct hb_daemon *d, const char *config_path);
/*
 * A simulation (`hotbridge demo`): `cycles` cycles back to back, without
 * the event loop, env.after_cycle after each. Every polled source is
 * polled once a cycle and all it submits is taken in before the cycle
 * decides (no ingestion slices, so no source waits behind another's
 * backlog; sources that report through fds are not read), and the clock
 * that times hysteresis, rate limits and back-offs advances by interval_ms
 * a cycle instead of following the machine's: the result does not depend
 * on how fast or loaded the machine is. 0 or the first failed cycle's error.
 */
int hb_daemon_simulate(struct hb_daemon *d, uint64_t cycles);

/*
 * Keep only the capabilities the migrator needs (see capabilities.c); done by
 * hb_daemon_run() once set up, and by `run --once` before its cycle.
 * Nothing when env.keep_capabilities or not root.
 */
void hb_daemon_drop_capabilities(struct hb_daemon *d);
const struct hb_daemon_stats *hb_daemon_stats(const struct hb_daemon *d);
/* The open emul-chmu source on memdev (its priv, for hb_source_emul_truth()), or NULL. */
void *hb_daemon_emul_chmu_of(struct hb_daemon *d, const char *memdev);
/* The pages hotbridge placed on DRAM and has not demoted (NULL: demotion off). */
const struct hb_placed *hb_daemon_placed(const struct hb_daemon *d);
/*
 * Asks the platform for the topology now (what a debounced uevent
 * burst does); on success pages in the table are re-checked against the new
 * node map and those on no node are dropped. On failure the old one stays.
 */
int hb_daemon_rebuild_topology(struct hb_daemon *d, struct hb_err *err);
struct hb_migrator *hb_daemon_migrator(struct hb_daemon *d);
/* the open instance of source `name`, or NULL (for the demo's ground truth) */
void *hb_daemon_source_priv(struct hb_daemon *d, const char *name);
void hb_daemon_print_stats(const struct hb_daemon *d, FILE *f);

/* what the control socket answers with (control-ops.c) */
struct json_object;
void hb_daemon_pause(struct hb_daemon *d, bool paused);
/*
 * Reads the configuration again as at start-up (defaults, config_path and
 * its drop-ins, then env.sets and --dry-run) and runs the start-up checks.
 * Keys removed from the file return to their defaults. What can change
 * live does (policy, interval_ms, log_level, metrics_textfile); every other
 * changed key, and changed [source] sections, is logged as needing a
 * restart and keeps its running value. On error nothing changes and the
 * refusal is logged ("reload refused, ..."), whoever asked: SIGHUP or
 * the control socket's reload. err may be NULL.
 */
int hb_daemon_reload(struct hb_daemon *d, struct hb_err *err);
/* the last reload's keys: {"applied": [...], "restart_needed": [...]} */
struct json_object *hb_daemon_reload_json(const struct hb_daemon *d);
struct json_object *hb_daemon_status_json(struct hb_daemon *d);
struct json_object *hb_daemon_stats_json(struct hb_daemon *d);
struct json_object *hb_daemon_sources_json(struct hb_daemon *d);
/* Prometheus text exposition of the counters (no addresses in it) */
void hb_daemon_metrics(const struct hb_daemon *d, FILE *f);
/*
 * explain's decisions beyond the policy's reasons (hb_reason_to_string):
 * an address in no committed CXL region (in translate's words), and a
 * paused daemon (what it would do once resumed: when_resumed).
 */
#define HB_EXPLAIN_NOT_IN_A_REGION "not_in_a_cxl_region"
#define HB_EXPLAIN_PAUSED "paused"
int hb_daemon_explain(struct hb_daemon *d, uint64_t hpa, struct json_object **ret,
		      struct hb_err *err);
/* the same for memdev:DPA, translated here (an unknown memdev: -ENODEV, named) */
int hb_daemon_explain_dpa(struct hb_daemon *d, const char *memdev, uint64_t dpa,
			  struct json_object **ret, struct hb_err *err);
/* up to last decisions, newest first: all, or (page_only) of hpa's page */
int hb_daemon_history(struct hb_daemon *d, bool page_only, uint64_t hpa, size_t last,
		      struct json_object **ret, struct hb_err *err);
/* the last hottest pages of the heat table, hottest first (control/heat-json.c) */
int hb_daemon_heat(struct hb_daemon *d, size_t last, struct json_object **ret, struct hb_err *err);
const struct hb_topology *hb_daemon_topology(const struct hb_daemon *d);

#endif
