/* SPDX-License-Identifier: MIT */
/*
 * kernel/: moving pages between NUMA nodes, given their physical addresses.
 *
 * One migrator interface, three backends, one set of per-page status codes
 * (those of move_pages(2): the node the page is on, or -errno):
 *
 *   phys     the move_phys_pages() system call from kernel/patches/. It has
 *            no upstream number (RFC v1/v2 used x86_64 454, v3 462; on
 *            mainline those are futex_wake and mseal), so it is used only
 *            after hb_mpp_probe() has proved the running kernel has it.
 *   damon    stock kernels >= 6.11: DAMON's paddr operations with the
 *            migrate_hot action, a region per run of contiguous pages, driven
 *            through /sys/kernel/mm/damon/admin (damon/).
 *   pagemap  stock kernels: reverse-map PFNs to (pid, virtual page) through
 *            /proc/<pid>/pagemap, then move_pages(2) per process.
 *   dryrun   records what it was asked to move; moves nothing.
 */
#ifndef HB_KERNEL_H
#define HB_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

/* ---- move_phys_pages detection (wrapper.c) ---- */

/* ABI version this code speaks (/sys/kernel/mm/move_phys_pages/abi_version). */
#define HB_MPP_ABI_VERSION 1

struct hb_mpp {
	bool available;
	long nr;                 /* syscall number, only meaningful if available */
	char why[256];           /* how it was proved, or why it is unavailable */
};

/*
 * Decides whether move_phys_pages may be called, without calling anything.
 *   root           prefix before /proc and /sys (NULL or "" = live system)
 *   configured_nr  number from the configuration, or <= 0 for "ask the kernel"
 *
 * Proof is the syscall's entry point as a real text symbol (T/t
 * __x64_sys_move_phys_pages in /proc/kallsyms; W is a compiled-out stub) or
 * its sys_enter tracepoint. The number comes from the configuration, else
 * from /sys/kernel/mm/move_phys_pages/syscall_nr; when both exist they must
 * agree, and the sysfs abi_version must be HB_MPP_ABI_VERSION.
 *
 * Returns 0 when usable; -ENOSYS (no proof, stub), -EINVAL (no number or a
 * mismatch) or -EPROTO (ABI version) otherwise, with ret->why and err set.
 */
int hb_mpp_probe(const char *root, long configured_nr, struct hb_mpp *ret, struct hb_err *err);

/* move_phys_pages(count, pages, nodes, status, flags); -ENOSYS unless probed. */
long hb_mpp_move(const struct hb_mpp *m, unsigned long count, const uint64_t *pages,
		 const int *nodes, int *status, int flags);

/* ---- the system-call seam (sys.c): unit tests replace these with --wrap ---- */

long hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
			    const int *nodes, int *status, int flags);
long hb_sys_move_pages(pid_t pid, unsigned long count, void **pages,
		       const int *nodes, int *status, int flags);
/* Writes value to the DAMON sysfs file root+path (never creates it). 0 or -errno. */
int hb_sys_damon_write(const char *root, const char *path, const char *value);

/* ---- migrators (migrator.c, phys.c, pagemap.c, dryrun.c) ---- */

enum hb_migrator_kind {
	HB_MIGRATOR_PHYS,
	HB_MIGRATOR_PAGEMAP,
	HB_MIGRATOR_DRYRUN,
	HB_MIGRATOR_DAMON,
	_HB_MIGRATOR_MAX,
	_HB_MIGRATOR_INVALID = -EINVAL,
};

const char *hb_migrator_kind_to_string(enum hb_migrator_kind k);
enum hb_migrator_kind hb_migrator_kind_from_string(const char *s);

/* Flags for hb_migrator_move(). */
#define HB_MIGRATE_MOVE_ALL 0x1  /* also pages mapped by several processes */

struct hb_migrator_config {
	const char *root;        /* prefix before /proc and /sys; NULL = live */
	long syscall_nr;         /* phys: configured number, <= 0 = from sysfs */
	uint64_t source_nodes;   /* pagemap: bit n = index processes with pages on
				    node n (nodes 0-63); 0 = every node */
	unsigned int rescan_ms;  /* pagemap: minimum time between full rescans */
	size_t dryrun_keep;      /* dryrun: records kept (oldest dropped) */
	uint64_t rate_bytes;     /* damon: DAMOS quota in bytes per second per
				    target node (the daemon's rate); 0 = none */
	bool damon_takeover;     /* damon: stop and replace other DAMON sysfs
				    users instead of refusing */
	const char *damon_state; /* damon: file recording the kdamond we set
				    up (for a start after a crash); NULL = none */
	unsigned int damon_reset_ms;  /* damon: quota reset interval; 0 = 100 */
	unsigned int damon_aggr_ms;   /* damon: aggregation interval; 0 = 100 */
	bool damon_monitor;      /* damon: also make kdamond 1, left off, for the
				    coldness monitor (damon/damon-monitor.h) */
};

struct hb_migrator;

/*
 * Opens a backend. phys fails with the probe's error when the kernel lacks
 * the call (err says why); pagemap and dryrun always open.
 */
int hb_migrator_new(enum hb_migrator_kind kind, const struct hb_migrator_config *cfg,
		    struct hb_migrator **ret, struct hb_err *err);
struct hb_migrator *hb_migrator_free(struct hb_migrator *m);
enum hb_migrator_kind hb_migrator_kind(const struct hb_migrator *m);
const char *hb_migrator_describe(const struct hb_migrator *m);

/*
 * Moves the pages at physical addresses hpa[i] (page-aligned) to nodes[i].
 * status[i] gets the node the page is on afterwards, or -errno:
 *   -EINVAL  not a page-aligned address (phys: also a tail page of a THP)
 *   -EFAULT  no online memory there, or a mapping VMA is not migratable
 *   -ENOENT  no process maps a page there
 *   -EACCES  mapped by several processes without HB_MIGRATE_MOVE_ALL, or
 *            the target is outside a mapping task's cpuset
 *   -EBUSY   transiently unmovable; -ENOMEM no memory on the target
 * Returns 0, or -errno when the batch as a whole failed (then status[] is
 * unspecified for entries not yet handled and set to that error).
 */
int hb_migrator_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		     int *status, unsigned int flags, struct hb_err *err);

/*
 * backend = auto: phys (proven present), then damon, then pagemap. The first
 * that opens is returned; ret_why[k] says why each backend tried before it
 * was unavailable ("" for the chosen one and those not tried). The chosen
 * migrator's describe text names the others' reasons as well.
 */
struct hb_migrator_choice {
	enum hb_migrator_kind kind;
	char why[_HB_MIGRATOR_MAX][HB_ERR_MSG_MAX];
};
int hb_migrator_new_auto(const struct hb_migrator_config *cfg, struct hb_migrator **ret,
			 struct hb_migrator_choice *ret_why, struct hb_err *err);
/*
 * The same choice without opening anything (probes read only; for
 * `hotbridge list`): what auto would pick as far as the probes can tell
 * (damon's set-up may still fail), and why the backends before it are not
 * available.
 */
void hb_migrator_probe_auto(const struct hb_migrator_config *cfg, struct hb_migrator_choice *ret);

/*
 * damon: whether the running kernel can serve the damon backend, reading
 * only (nothing is written): DAMON sysfs present, no other DAMON user
 * (unless takeover). 0 or -errno with err saying why. hb_migrator_new()
 * proves the rest from the files it makes (paddr, the scheme's target_nid
 * that came with migrate_hot, the action accepted, kdamond starts; never
 * the release) and undoes its writes when that fails.
 */
int hb_damon_probe(const struct hb_migrator_config *cfg, struct hb_err *err);

/*
 * damon: counters. DAMON reports no per-page status, only bytes applied by
 * the scheme; "measured" comes from the kernel, "inferred" is ours.
 */
struct hb_damon_stats {
	uint64_t batches;             /* per target node and move call: pages checked, committed */
	uint64_t commits;             /* region sets committed (a batch is one or more) */
	uint64_t pages_programmed;    /* pages committed (in ranges) */
	uint64_t regions;             /* ranges committed: contiguous pages are one */
	uint64_t bytes_applied;       /* measured: sum of sz_applied deltas */
	uint64_t pages_moved;         /* inferred: reported moved per page */
	uint64_t pages_not_moved;     /* inferred: still in their source frame */
	uint64_t pages_unknown;       /* neither provable: reported -ENODATA */
	uint64_t pages_already;       /* measured: source PFN's node is the target */
	uint64_t pages_over_watermark;/* measured: beyond the target's free - high */
	uint64_t settle_timeouts;     /* batches that did not settle in time */
	uint64_t settle_us;           /* time from commit to settled, in all */
};
int hb_migrator_damon_stats(const struct hb_migrator *m, struct hb_damon_stats *ret);
/*
 * damon without a rate ends a batch by a thread that commits the
 * placeholder (the kernel takes it within an aggregation; 6.12's writer
 * returns at its next 100 ms poll): waits for that writer. Any later
 * batch or close waits for it anyway. -EINVAL for another backend.
 */
int hb_migrator_damon_flush(struct hb_migrator *m, struct hb_err *err);

/* dryrun: what it was asked, oldest first. */
struct hb_dryrun_record {
	uint64_t hpa;
	int node;
	unsigned int flags;
};
size_t hb_migrator_dryrun_records(const struct hb_migrator *m, const struct hb_dryrun_record **ret);

/* pagemap: index figures (for benchmarks and `hotbridge stats`). */
struct hb_pagemap_stats {
	uint64_t full_scans;      /* times every candidate process was read */
	uint64_t processes;       /* candidate processes in the index */
	uint64_t pages;           /* PFNs in the index now */
	uint64_t scanned_pages;   /* PFNs the last full scan found */
	uint64_t scan_us;         /* time spent in full scans, in all */
	uint64_t stale;           /* index hits that no longer mapped the PFN */
	uint64_t move_pages_calls;
};
int hb_migrator_pagemap_stats(const struct hb_migrator *m, struct hb_pagemap_stats *ret);

/* ---- folding per-page status into classes (status.c) ---- */

enum hb_migrate_class {
	HB_MIGRATE_MOVED,        /* now on the target, was elsewhere */
	HB_MIGRATE_ALREADY,      /* was on the target already */
	HB_MIGRATE_RETRY,        /* EBUSY, EAGAIN: try again later */
	HB_MIGRATE_BACKOFF,      /* ENOMEM: the target is full, back off */
	HB_MIGRATE_DROP,         /* EACCES, EPERM, EFAULT, ENOENT, EINVAL, ...:
				    not allowed or not mapped, forget the page */
	HB_MIGRATE_WRONG_NODE,   /* reported on a node other than the target */
	_HB_MIGRATE_CLASS_MAX,
};

const char *hb_migrate_class_to_string(enum hb_migrate_class c);

/* src_node: the node the page was on before (-1 unknown). */
enum hb_migrate_class hb_migrate_classify(int status, int target, int src_node);

struct hb_migrate_counts {
	uint64_t by_class[_HB_MIGRATE_CLASS_MAX];
	uint64_t by_errno[134];  /* -status for negative statuses (errno < 134) */
};

void hb_migrate_fold(struct hb_migrate_counts *c, size_t n, const int *status, const int *nodes,
		     const int *src_nodes);

#endif
