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

/* ---- move_phys_pages detection (migrate/wrapper.c) ---- */

/* ABI version this code speaks (/sys/kernel/mm/move_phys_pages/abi_version). */
#define HB_MPP_ABI_VERSION 1

struct hb_mpp {
	bool available;
	long nr;       /* syscall number, only meaningful if available */
	char why[256]; /* how it was proved, or why it is unavailable */
	int mempolicy; /* the memory-policy check (-EXDEV, flag 0x100): 1 the kernel
			  has it, 0 it has not (it refuses the flag), -1 not known yet */
};

/*
 * move_phys_pages flag: move a page even when the memory policy of every
 * VMA mapping it excludes the target node (the kernel's status for such a
 * page is otherwise -EXDEV). A kernel whose series predates the check
 * refuses the flag (-EINVAL for the call) and checks no policy at all.
 */
#define HB_MPP_OVERRIDE_MEMPOLICY 0x100

/*
 * Decides whether move_phys_pages may be called, without calling anything.
 *   root           prefix before /proc and /sys (NULL or "" = live system)
 *   configured_nr  number from the configuration, or <= 0 for "ask the kernel"
 *
 * The proof is the kernel's /sys/kernel/mm/move_phys_pages/syscall_nr: a
 * number is never called without it, configured or not (a symbol or a
 * tracepoint proves the function, not which number reaches it; 451 is
 * cachestat on 6.5+). A configured number must equal it, and the sysfs
 * abi_version must be HB_MPP_ABI_VERSION. Without the file, the refusal
 * says what /proc/kallsyms shows (any architecture's entry symbol, a
 * compiled-out W stub, nothing).
 *
 * Returns 0 when usable; -ENOSYS (no syscall_nr), -EINVAL (a bad number or
 * a mismatch) or -EPROTO (ABI version) otherwise, with ret->why and err set.
 */
int hb_mpp_probe(const char *root, long configured_nr, struct hb_mpp *ret, struct hb_err *err);

/* move_phys_pages(count, pages, nodes, status, flags); -ENOSYS unless probed. */
long hb_mpp_move(const struct hb_mpp *m, unsigned long count, const uint64_t *pages,
		 const int *nodes, int *status, int flags);

/* ---- the system-call seam (sys.c): unit tests replace these with --wrap ---- */

long hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages, const int *nodes,
			    int *status, int flags);
long hb_sys_move_pages(pid_t pid, unsigned long count, void **pages, const int *nodes, int *status,
		       int flags);
/* Writes value to the DAMON sysfs file root+path (never creates it). 0 or -errno. */
int hb_sys_damon_write(const char *root, const char *path, const char *value);

/* ---- migrators (migrate/: migrator.c, phys.c, pagemap.c, dryrun.c; damon/) ---- */

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
#define HB_MIGRATE_MOVE_ALL 0x1 /* also pages mapped by several processes */

struct hb_migrator_config {
	const char *root;            /* prefix before /proc and /sys; NULL = live */
	long syscall_nr;             /* phys: configured number, <= 0 = from sysfs */
	uint64_t source_nodes;       /* pagemap: bit n = index processes with pages on
				    node n (nodes 0-63); 0 = every node */
	unsigned int rescan_ms;      /* pagemap: minimum time between full rescans */
	size_t dryrun_keep;          /* dryrun: records kept (oldest dropped) */
	uint64_t rate_bytes;         /* damon: DAMOS quota in bytes per second per
				    target node (the daemon's rate); 0 = none */
	bool damon_takeover;         /* damon: stop and replace other DAMON sysfs
				    users instead of refusing */
	const char *damon_state;     /* damon: file recording the kdamond we set
				    up (for a start after a crash); NULL = none */
	unsigned int damon_reset_ms; /* damon: quota reset interval; 0 = 100 */
	unsigned int damon_aggr_ms;  /* damon: aggregation interval; 0 = 100 */
	bool damon_monitor;          /* damon: also make the coldness monitor's
				    kdamond: hb_damon_monitor_reserve() */
	bool override_mempolicy;     /* phys: pass HB_MPP_OVERRIDE_MEMPOLICY;
				    pagemap: skip its numa_maps check. Off:
				    pages whose owners' memory policy excludes
				    the target are refused (-EXDEV) */
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
 *   -EXDEV   refused: the memory policy (mbind(2), set_mempolicy(2)) of
 *            every mapping excludes the target node (phys: the kernel's
 *            check, when it has it; pagemap: the owner's numa_maps; damon
 *            never says it). Not with override_mempolicy.
 * Returns 0, or -errno when the batch as a whole failed: then entries the
 * kernel handled before the error keep the status it gave them (phys: it
 * moved them), and every other entry is set to that error.
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
	uint64_t batches;              /* per target node and move call: pages checked, committed */
	uint64_t commits;              /* region sets committed (a batch is one or more) */
	uint64_t pages_programmed;     /* pages committed (in ranges) */
	uint64_t regions;              /* ranges committed: contiguous pages are one */
	uint64_t bytes_applied;        /* measured: sum of sz_applied deltas */
	uint64_t pages_moved;          /* inferred: reported moved per page */
	uint64_t pages_not_moved;      /* inferred: still in their source frame */
	uint64_t pages_unknown;        /* neither provable: reported -ENODATA */
	uint64_t pages_already;        /* measured: source PFN's node is the target */
	uint64_t pages_over_watermark; /* measured: beyond the target's free - high */
	uint64_t settle_timeouts;      /* batches that did not settle in time */
	uint64_t settle_us;            /* time from commit to settled, in all */
};
int hb_migrator_damon_stats(const struct hb_migrator *m, struct hb_damon_stats *ret);
/*
 * damon without a rate ends a batch by a thread that commits the
 * placeholder (the kernel takes it within an aggregation; 6.12's writer
 * returns at its next 100 ms poll): waits for that writer. Any later
 * batch or close waits for it anyway. -EINVAL for another backend.
 */
int hb_migrator_damon_flush(struct hb_migrator *m, struct hb_err *err);
/*
 * damon: DAMOS memcg filters on the scheme (6.3+), so that the kernel
 * itself never moves a page of reject[0..n) (cgroup v2 paths as the
 * kernel names them, "/a/b"; each an exact memcg, not its descendants)
 * nor, with only, a page of any memcg but that one, even inside a
 * committed range. Written to schemes/0/ops_filters (6.15+) or
 * schemes/0/filters: type memcg, memcg_path, matching Y (reject) or N
 * (only), allow N where the file is (6.14+); taken at the next commit
 * (every batch commits). n = 0 and no only: no filters. Each path must
 * name an existing cgroup (the kernel refuses a commit otherwise).
 * -EOPNOTSUPP for another backend or a kernel without DAMOS filters,
 * -E2BIG beyond HB_DAMON_FILTERS_MAX.
 */
#define HB_DAMON_FILTERS_MAX 32
int hb_migrator_damon_memcg_filters(struct hb_migrator *m, const char *const *reject, size_t n,
				    const char *only, struct hb_err *err);

/* dryrun: what it was asked, oldest first. */
struct hb_dryrun_record {
	uint64_t hpa;
	int node;
	unsigned int flags;
};
size_t hb_migrator_dryrun_records(const struct hb_migrator *m, const struct hb_dryrun_record **ret);

/* pagemap: index figures (for benchmarks and `hotbridge stats`). */
struct hb_pagemap_stats {
	uint64_t full_scans;    /* times every candidate process was read */
	uint64_t processes;     /* candidate processes in the index */
	uint64_t pages;         /* PFNs in the index now */
	uint64_t scanned_pages; /* PFNs the last full scan found */
	uint64_t scan_us;       /* time spent in full scans, in all */
	uint64_t stale;         /* index hits that no longer mapped the PFN */
	uint64_t move_pages_calls;
	uint64_t policy_refused;  /* pages refused -EXDEV: the owner's numa_maps policy */
	uint64_t numa_maps_reads; /* owners' numa_maps read for that check */
};
int hb_migrator_pagemap_stats(const struct hb_migrator *m, struct hb_pagemap_stats *ret);

/* ---- memory policies as /proc/<pid>/numa_maps shows them (migrate/mempolicy.c) ---- */

/*
 * The second field of a numa_maps line is the VMA's memory policy, or the
 * task's where the VMA has none (the kernel's mpol_to_str()): a mode,
 * optional flags after '=' (static, relative, balancing, joined by '|'),
 * and a node list after ':' ("bind:1", "interleave=static:0-3",
 * "prefer (many):0,2", "weighted interleave:1", "default", "local").
 */
enum hb_mempolicy_mode {
	HB_MPOL_DEFAULT,    /* "default" */
	HB_MPOL_LOCAL,      /* "local" */
	HB_MPOL_PREFERRED,  /* "prefer", "prefer (many)": these nodes first */
	HB_MPOL_BIND,       /* "bind": only these nodes */
	HB_MPOL_INTERLEAVE, /* "interleave", "weighted interleave": spread over these */
	_HB_MPOL_MAX,
	_HB_MPOL_INVALID = -EINVAL,
};

struct hb_mempolicy {
	enum hb_mempolicy_mode mode;
	uint64_t nodes; /* bit n: node n in the list (nodes 0-63) */
	bool beyond;    /* the list names a node >= 64 */
	bool relative;  /* "=relative": the list is relative to the cpuset */
};

/*
 * Parses one numa_maps line: its start address and policy. 0, or -EINVAL
 * for a line that is not one (no address, an unknown mode, a bad list).
 */
int hb_mempolicy_parse_line(const char *line, uint64_t *ret_start, struct hb_mempolicy *ret);

/*
 * The policy of the VMA that holds vaddr in a whole numa_maps text (the
 * line with the greatest start at or below vaddr: lines come in address
 * order and the caller knows vaddr is mapped). 0, -ENOENT when no line
 * starts at or below vaddr, -EINVAL when that line does not parse.
 */
int hb_mempolicy_find(const char *numa_maps, uint64_t vaddr, struct hb_mempolicy *ret);

/*
 * Whether the policy keeps a page off node: one that names nodes (bind,
 * prefer, prefer (many), interleave, weighted interleave) without it, the
 * rule of the kernel's move_phys_pages check (kernel/patches/6.12/0002),
 * so that both backends answer alike. default and local exclude nothing,
 * nor does a relative list (its nodes are renumbered within the cpuset:
 * not known from here, where the kernel knows) or a node outside 0-63.
 */
bool hb_mempolicy_excludes(const struct hb_mempolicy *p, int node);

/* "bind", "interleave", ... (enum order); NULL out of range */
const char *hb_mempolicy_mode_to_string(enum hb_mempolicy_mode m);

/* ---- folding per-page status into classes (migrate/status.c) ---- */

enum hb_migrate_class {
	HB_MIGRATE_MOVED,      /* now on the target, was elsewhere */
	HB_MIGRATE_ALREADY,    /* was on the target already */
	HB_MIGRATE_RETRY,      /* EBUSY, EAGAIN: try again later */
	HB_MIGRATE_BACKOFF,    /* ENOMEM: the target is full, back off */
	HB_MIGRATE_DROP,       /* EACCES, EPERM, EFAULT, ENOENT, EINVAL, ...:
				    not allowed or not mapped, forget the page */
	HB_MIGRATE_WRONG_NODE, /* reported on a node other than the target */
	HB_MIGRATE_POLICY,     /* EXDEV: the owners' memory policy excludes the
				    target: a refusal, not retried soon */
	_HB_MIGRATE_CLASS_MAX,
};

const char *hb_migrate_class_to_string(enum hb_migrate_class c);

/* src_node: the node the page was on before (-1 unknown). */
enum hb_migrate_class hb_migrate_classify(int status, int target, int src_node);

struct hb_migrate_counts {
	uint64_t by_class[_HB_MIGRATE_CLASS_MAX];
	uint64_t by_errno[134]; /* -status for negative statuses (errno < 134) */
};

void hb_migrate_fold(struct hb_migrate_counts *c, size_t n, const int *status, const int *nodes,
		     const int *src_nodes);

/* ---- other movers of the same pages (migrate/conflicts.c) ---- */

/*
 * Who else moves pages between tiers (conflicts.c): the kernel's own
 * tiering and other DAMON users move the same pages hotbridge promotes and
 * demotes, each undoing the other's work. Reading only; the daemon shows
 * what it finds in `status` and warns at start and on reload.
 */
enum hb_conflict {
	/* /proc/sys/kernel/numa_balancing has NUMA_BALANCING_MEMORY_TIERING (2):
	   hinting faults promote pages from slow nodes */
	HB_CONFLICT_NUMA_TIERING,
	/* /sys/kernel/mm/numa/demotion_enabled is true: reclaim demotes pages
	   to the next tier */
	HB_CONFLICT_KERNEL_DEMOTION,
	/* damon_reclaim/damon_lru_sort enabled, or a kdamond on that is not ours */
	HB_CONFLICT_DAMON,
	/* /proc/sys/kernel/numa_balancing has NUMA_BALANCING_NORMAL (1): hinting
	   faults move a busy page to the node of the CPU that touches it, off a
	   CPU-less CXL node too (most distributions' default where NUMA is) */
	HB_CONFLICT_NUMA_BALANCING,
	_HB_CONFLICT_MAX,
};

/* "numa_balancing_tiering", "kernel_demotion", "damon_user", "numa_balancing" */
const char *hb_conflict_to_string(enum hb_conflict c);

struct hb_conflicts {
	unsigned int found;                         /* bit c: conflict c is active */
	char why[_HB_CONFLICT_MAX][HB_ERR_MSG_MAX]; /* what was read, for found ones */
};

/*
 * Reads root/proc and root/sys (root NULL or "" = "/"). damon_state: the
 * damon migrator's state file (NULL: none), so that our own kdamond is not
 * counted. An absent file means that mechanism is not there (an older
 * kernel, or built without it); a file that does not parse is named in
 * why[] and counted as active, since it cannot be ruled out.
 */
void hb_conflicts_probe(const char *root, const char *damon_state, struct hb_conflicts *ret);

/* ---- idle page tracking (coldness/idle.c) ---- */

/*
 * Idle page tracking over a set of PFNs (idle.c): is a page the host
 * touched since we last looked? The kernel's interface is
 * /sys/kernel/mm/page_idle/bitmap (CONFIG_IDLE_PAGE_TRACKING,
 * Documentation/admin-guide/mm/idlepage.rst): an array of 8-byte words,
 * bit i of word k standing for PFN 64 * k + i, read and written only in
 * whole words at word-aligned offsets.
 *
 *  - Writing a 1 bit marks that page idle (the kernel also clears the
 *    accessed bits of the page table entries that map it); a 0 bit does
 *    nothing.
 *  - Reading gives the kernel's view: a bit is 1 when the page was marked
 *    idle and nobody touched it since (the kernel checks the accessed bits
 *    of every mapping as it reads). Only user pages on an LRU list can be
 *    idle: any other frame (free, slab, kernel, a page still in a per-CPU
 *    LRU batch) reads 0 and cannot be marked.
 *  - The file ends at the kernel's last PFN (max_pfn): reads there give
 *    nothing, writes fail with ENXIO. The file is mode 0600, owned by root.
 *
 * PFN sets are sorted ascending (repeats allowed). Each call reads or
 * writes runs of words with pread/pwrite, at most one page (512 words, the
 * most sysfs takes in one call) at a time; a run bridges at most one word
 * none of its PFNs is in, since every PFN in a run costs the kernel a page
 * lookup.
 */
#define HB_IDLE_BITMAP "/sys/kernel/mm/page_idle/bitmap"

struct hb_idle;

/*
 * Opens root/sys/kernel/mm/page_idle/bitmap (root NULL or "" = "/") for
 * reading and writing. -ENOENT when sysfs is not mounted or the kernel
 * lacks CONFIG_IDLE_PAGE_TRACKING, -EACCES/-EPERM without root; err says
 * which.
 */
int hb_idle_open(const char *root, struct hb_idle **ret, struct hb_err *err);
struct hb_idle *hb_idle_free(struct hb_idle *t);
HB_DEFINE_CLEANUP(struct hb_idle *, hb_idle_free)

/*
 * Marks the pages pfn[0..n) idle. 0, or -errno with err naming the PFN or
 * the call that failed: -EINVAL (not sorted), -ENXIO (beyond the kernel's
 * last PFN), or the write's error.
 */
int hb_idle_mark(struct hb_idle *t, size_t n, const uint64_t *pfn, struct hb_err *err);

/*
 * ret_idle[i]: whether pfn[i] is still idle (marked, and not touched
 * since). Returns how many are, or -errno as hb_idle_mark() (then
 * ret_idle[] is unspecified).
 */
long hb_idle_read(struct hb_idle *t, size_t n, const uint64_t *pfn, bool *ret_idle,
		  struct hb_err *err);

/* What the calls cost: system calls and words moved, since open. */
struct hb_idle_stats {
	uint64_t preads, pwrites;
	uint64_t words_read, words_written;
};
void hb_idle_get_stats(const struct hb_idle *t, struct hb_idle_stats *ret);

/* ---- a census of page frames (coldness/frames.c) ---- */

/*
 * A census of a NUMA node's page frames (frames.c): which of them hold a
 * page another node could take, for demotion on a live host. The kernel's
 * view, read below a root prefix:
 *  - /sys/devices/system/memory/block_size_bytes (hex, no 0x) and the
 *    /sys/devices/system/node/nodeN/memoryM links with memoryM/online:
 *    the node's online memory blocks;
 *  - /proc/kpageflags: one u64 of KPF_* bits a PFN
 *    (include/uapi/linux/kernel-page-flags.h; mode 0400, root);
 *  - /proc/kpagecount: one u64 a PFN, how many times its page is mapped
 *    (fs/proc/page.c; the same mode), where the kernel has it.
 *
 * A frame is movable when its page is on an LRU list, is a base page (not
 * a huge page, a THP or any part of a large folio: the demotion budget
 * counts base pages), and is none of unevictable, mlocked, under
 * writeback, hardware-poisoned, offline, a page table or the zero page
 * (KSM is not refused: 6.12 reports it on every anonymous page, frames.c).
 * A frame whose page is mapped more than once (kpagecount > 1, several
 * processes or several mappings) is skipped and counted: the movers refuse
 * such pages (EACCES without HB_MIGRATE_MOVE_ALL), and demoting them would
 * only fail.
 * The flags are a snapshot: the page may be freed or change before it is
 * moved, and the mover checks again.
 *
 * Scans walk a node in windows: each scan resumes where the node's last
 * one ended and stops after `max` frames or at the node's last online
 * block; the next then starts a new pass over the node, whose block list
 * is read afresh (blocks go on- and offline).
 */
struct hb_frames;

/* Opens root/proc/kpageflags (root NULL or "" = "/"); err names what failed. */
int hb_frames_open(const char *root, uint64_t page_size, struct hb_frames **ret, struct hb_err *err);
struct hb_frames *hb_frames_free(struct hb_frames *f);
HB_DEFINE_CLEANUP(struct hb_frames *, hb_frames_free)

/*
 * The next window of node's frames, at most max of them: ret_window[0] and
 * [1] get its first PFN and the one past its last, pfn[0..) the movable
 * frames in it, ascending (pfn holds max). Returns how many are movable,
 * or -errno with err naming the file: -ENOENT when the node has no online
 * memory (ret_window empty).
 */
long hb_frames_scan(struct hb_frames *f, int node, size_t max, uint64_t *pfn,
		    uint64_t ret_window[2], struct hb_err *err);

/* The frames the scans skipped so far as mapped more than once. */
uint64_t hb_frames_shared(const struct hb_frames *f);

/*
 * The node's online memory as PFN ranges [range[i][0], range[i][1]),
 * ascending, adjacent blocks joined, at most max of them (the rest left
 * out). Count, or -errno with err: -ENOENT when the node has no online
 * memory. Does not disturb the scans' windows.
 */
long hb_frames_node_ranges(struct hb_frames *f, int node, size_t max, uint64_t (*range)[2],
			   struct hb_err *err);

/*
 * A pass reads at most max_frames of a node (whole memory blocks, rounded
 * up; 0 = all, the default): every k-th online block, k = the node's
 * blocks over the sample's, from a phase that moves on every 8 passes, so
 * a node of any size costs a pass the sample and, over k periods, every
 * block is read. Windows never span a block the pass does not read (nor a
 * hole between blocks). Takes effect at the next pass.
 */
void hb_frames_sample(struct hb_frames *f, uint64_t max_frames);
/* Whether node's last scan ended its pass (the next one begins a new pass). */
bool hb_frames_pass_done(const struct hb_frames *f, int node);
/* Which sample node's current pass reads: it changes when the blocks do. */
uint64_t hb_frames_sample_epoch(const struct hb_frames *f, int node);

/* ---- the migrator's and the monitor's kdamonds (damon/damon.c) ---- */

/*
 * DAMON sysfs numbers its kdamonds 0 .. nr_kdamonds - 1, and nr_kdamonds
 * is global and can be written only while no kdamond is on. So the
 * coldness monitor (below) cannot add a kdamond beside a running damon
 * migrator: the migrator makes the monitor's with its own, at open, left
 * off, and removes both at close; the monitor only sets it up and turns
 * it on and off. These two calls are the whole hand-over: reserve before
 * the migrator opens, ask which kdamond it made before
 * hb_damon_monitor_open().
 */

/**
 * hb_damon_monitor_reserve() - ask for the monitor's kdamond at open
 * @cfg: the configuration hb_migrator_new() or hb_migrator_new_auto()
 *	will be given
 *
 * A damon migrator opened with @cfg then makes the monitor's kdamond
 * along with its own (hb_migrator_describe() says so); the other backends
 * ignore the request.
 */
void hb_damon_monitor_reserve(struct hb_migrator_config *cfg);

/**
 * hb_damon_monitor_kdamond() - the monitor's kdamond an open migrator made
 * @m: an open migrator
 * @err: why there is none (may be NULL)
 *
 * Return: the kdamond's number in DAMON sysfs, the one
 * hb_damon_monitor_open() turns on; -EOPNOTSUPP when @m's backend makes
 * none (phys, pagemap: "the damon coldness source needs migrate.backend =
 * damon, not KIND"); -ENOENT when @m is a damon migrator opened without
 * hb_damon_monitor_reserve(). dryrun moves nothing and makes no kdamond
 * but stands in for damon (tests): the number, whose kdamond must then
 * exist already (hb_damon_monitor_open() says -ENOENT otherwise).
 */
int hb_damon_monitor_kdamond(const struct hb_migrator *m, struct hb_err *err);

/* ---- DAMON as a coldness reading (damon/damon-monitor.c) ---- */

/*
 * DAMON as a coldness reading on a stock kernel (damon-monitor.c): a
 * monitoring-only kdamond over given physical ranges (paddr operations),
 * one DAMOS scheme with action `stat` that matches the regions with no
 * access sampled (it moves nothing), and those regions read through the
 * scheme's tried_regions (`update_schemes_tried_regions`, 6.2 on): a
 * region not listed was accessed.
 *
 * Which kdamond: nr_kdamonds is global and can only be written while no
 * kdamond is on. The damon migrator (damon.c) owns kdamond 0 and writes
 * nr_kdamonds; asked by hb_damon_monitor_reserve() it creates the
 * monitor's kdamond (1, hb_damon_monitor_kdamond()) as well and leaves it
 * off, before its own is on. This monitor then sets up that one and turns
 * it on: it never writes nr_kdamonds. The migrator turns both off and
 * removes them at close.
 *
 * What the kernel reports (6.12 mm/damon/core.c, kdamond_fn): every
 * sample interval DAMON checks one random page of each region for an
 * access (and clears its accessed bits); at each aggregation nr_accesses
 * is how many samples found the region accessed, and age how many
 * aggregations its nr_accesses stayed within max_nr_accesses / 10 of the
 * previous one. With fewer than 10 samples an aggregation that bound is 0:
 * a region with nr_accesses 0 and age a went unaccessed (as sampled) for
 * the last a + 1 aggregations. Regions split and merge on their own
 * between the min and max counts; a page is as cold as its region.
 */
struct hb_damon_monitor;

struct hb_damon_region {
	uint64_t start, end; /* physical bytes, end exclusive */
	uint32_t nr_accesses, age;
};

/*
 * Sets up the monitor's kdamond (the number hb_damon_monitor_kdamond()
 * gave) below root (NULL or "" = "/") over the physical byte ranges
 * range[0..n) (sorted, not overlapping) and turns it on. -ENOENT when that
 * kdamond does not exist (the damon migrator did not make it), -EBUSY when
 * it is already on, or a write's error; err says which.
 */
int hb_damon_monitor_open(const char *root, int kdamond, size_t n, const uint64_t (*range)[2],
			  struct hb_damon_monitor **ret, struct hb_err *err);
/* Turns the kdamond off (when it is still there). */
struct hb_damon_monitor *hb_damon_monitor_free(struct hb_damon_monitor *m);
HB_DEFINE_CLEANUP(struct hb_damon_monitor *, hb_damon_monitor_free)

/*
 * The kernel's current regions (its last aggregation), ascending: the
 * returned array is the monitor's, valid until the next call. Count, or
 * -errno with err.
 */
long hb_damon_monitor_regions(struct hb_damon_monitor *m, const struct hb_damon_region **ret,
			      struct hb_err *err);

/*
 * idle[i] = 1 when pfn[i]'s region (regions[0..nr), as returned above)
 * was found unaccessed for at least `span_us` up to its last aggregation
 * (nr_accesses 0 and (age + 1) aggregations covering span_us less one
 * aggregation, as aggregations do not line up with the caller's checks),
 * else 0; a PFN in no region is not idle. pfn[] in any order.
 */
void hb_damon_monitor_idle(const struct hb_damon_region *regions, size_t nr, uint64_t page_size,
			   uint64_t span_us, size_t n, const uint64_t *pfn, uint8_t *idle);

/* ---- page owners (owner/: kpagecgroup.c, cgroup-map.c) ---- */

/*
 * The memory cgroup a page frame is charged to, read below a root prefix:
 *  - /proc/kpagecgroup: one u64 a PFN, the inode number of the cgroup of
 *    the page's memcg (fs/proc/page.c; mode 0400, root), 0 for a page
 *    charged to none (free, kernel, slab). For a memcg that is offline (its
 *    cgroup removed while pages are still charged to it) the kernel gives
 *    its nearest online ancestor (page_cgroup_ino(), mm/memcontrol.c).
 *    Absent on a kernel without CONFIG_MEMCG (or !CONFIG_PROC_PAGE_MONITOR).
 *  - /sys/fs/cgroup: the cgroup v2 hierarchy, whose directories' inode
 *    numbers those are. A host without /sys/fs/cgroup/cgroup.controllers
 *    (cgroup v1, or hybrid with v2 elsewhere) is refused: its kpagecgroup
 *    inodes are the v1 memory hierarchy's.
 */
struct hb_kpagecgroup;

/* Opens root/proc/kpagecgroup: -ENOENT (no CONFIG_MEMCG), -EACCES, ... with err set. */
int hb_kpagecgroup_open(const char *root, struct hb_kpagecgroup **ret, struct hb_err *err);
struct hb_kpagecgroup *hb_kpagecgroup_free(struct hb_kpagecgroup *k);
HB_DEFINE_CLEANUP(struct hb_kpagecgroup *, hb_kpagecgroup_free)
/* ret_ino[i] = the cgroup inode of PFN pfn + i, i < n (0: none). 0 or -errno. */
int hb_kpagecgroup_read(struct hb_kpagecgroup *k, uint64_t pfn, size_t n, uint64_t *ret_ino,
			struct hb_err *err);

/*
 * buf = root/sys/fs/cgroup when it is a cgroup v2 mount (it has
 * cgroup.controllers); -EOPNOTSUPP (a cgroup v1 or hybrid host) otherwise.
 */
int hb_cgroup_v2_mount(const char *root, char *buf, size_t size, struct hb_err *err);

/* a miss rescans the hierarchy at most this often */
#define HB_CGROUP_RESCAN_NS 1000000000ULL

struct hb_cgroup_map_stats {
	uint64_t entries; /* cgroups known */
	uint64_t dropped; /* cgroups the last scan left out: beyond max (or too long a path) */
	uint64_t rescans; /* scans of the hierarchy */
	uint64_t misses;  /* inodes not in the map when asked */
};

/*
 * The cgroup v2 hierarchy's directories by inode: at most max, read on the
 * first miss and again on a miss at least HB_CGROUP_RESCAN_NS after the
 * last scan. -EOPNOTSUPP as hb_cgroup_v2_mount().
 */
struct hb_cgroup_map;
int hb_cgroup_map_new(const char *root, size_t max, struct hb_cgroup_map **ret, struct hb_err *err);
struct hb_cgroup_map *hb_cgroup_map_free(struct hb_cgroup_map *m);
HB_DEFINE_CLEANUP(struct hb_cgroup_map *, hb_cgroup_map_free)
/* reads the hierarchy now; on error the map is as it was */
int hb_cgroup_map_rescan(struct hb_cgroup_map *m, uint64_t now_ns, struct hb_err *err);
/* rescans when never scanned or the last scan is HB_CGROUP_RESCAN_NS old */
int hb_cgroup_map_refresh(struct hb_cgroup_map *m, uint64_t now_ns, struct hb_err *err);
/*
 * *ret_path = the cgroup of inode ino, "/" (the root) or "/a/b" (valid until
 * the map's next call); -ENOENT when no cgroup has it (after a rescan, when
 * one was due), -errno when the rescan failed.
 */
int hb_cgroup_map_path(struct hb_cgroup_map *m, uint64_t ino, uint64_t now_ns, const char **ret_path);
/* the cgroups of the last scan for which match(pattern, path) is true */
size_t hb_cgroup_map_count(const struct hb_cgroup_map *m,
			   bool (*match)(const char *pattern, const char *path), const char *pattern);
/* the last scan's cgroups: i < hb_cgroup_map_len(), "/" or "/a/b" (valid until the next scan) */
size_t hb_cgroup_map_len(const struct hb_cgroup_map *m);
const char *hb_cgroup_map_path_at(const struct hb_cgroup_map *m, size_t i);
const struct hb_cgroup_map_stats *hb_cgroup_map_stats(const struct hb_cgroup_map *m);

#endif
