/* SPDX-License-Identifier: MIT */
/*
 * kernel/ internals of the damon backend (damon.c), shared by its helpers:
 *   damon-sysfs.c  our kdamond through DAMON sysfs: set-up, commands, stop
 *   damon-probe.c  what is there before we write anything: DAMON sysfs,
 *                  kernel version, other DAMON users, our state file
 *   damon-node.c   what the batch checks: the target's free memory against
 *                  its watermarks, the static node of a PFN, /proc/kpageflags
 */
#ifndef HB_KERNEL_DAMON_H
#define HB_KERNEL_DAMON_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel.h"
#include "coldness/frames.h"

#define HB_DAMON_ADMIN "/sys/kernel/mm/damon/admin"
#define HB_DAMON_KD HB_DAMON_ADMIN "/kdamonds"

/* regions (ranges) per commit, and the most region directories kept */
#define HB_DAMON_COMMIT_MAX 4096
/* min = max nr_regions: above HB_DAMON_COMMIT_MAX (damon.c says why) */
#define HB_DAMON_NR_REGIONS (HB_DAMON_COMMIT_MAX + 16)
/*
 * Inert regions: region directory i that holds no real range holds the
 * page at HB_DAMON_INERT_BASE + i pages. No memory can be there: every
 * 64-bit architecture's MAX_PHYSMEM_BITS is at most 52, and DAMON's paddr
 * operations find no page beyond NR_MEM_SECTIONS (pfn_to_online_page()),
 * so nothing is checked, isolated or moved there.
 */
#define HB_DAMON_INERT_BASE (1ULL << 56)
/*
 * Ownership written into the kernel-side objects themselves, so a start
 * that finds no state file (a crash, /run wiped) still knows the kdamond
 * it set up, and nothing is committed into or stopped that another tool
 * set up or changed: scheme 0's watermarks/interval_us holds this value.
 * With watermarks/metric "none" the kernel never reads the watermarks
 * (damos_wmark_wait_us() returns 0 for it, 6.12 and 7.3 alike), and the
 * file (there since 5.18) reads back what was written. "hotb" in ASCII.
 */
#define HB_DAMON_MARK 1752134754ULL
/* commits in a row that need under 1/8 of the directories: then shrink */
#define HB_DAMON_SHRINK_AFTER 16

/* pages [pfn, pfn + n): one DAMON region */
struct hb_damon_range {
	uint64_t pfn, n;
};

/*
 * DAMON sysfs features, each from a file or folder that is there once the
 * context and scheme are made (as `damo report sysinfo` probes them), never
 * from the kernel's version.
 */
struct hb_damon_features {
	bool quota_goals;    /* schemes/0/quotas/goals (6.8) */
	bool intervals_goal; /* monitoring_attrs/intervals/intervals_goal (6.15) */
	bool dests;          /* schemes/0/dests: weighted destinations (6.17) */
	bool addr_unit;      /* contexts/0/addr_unit (6.18) */
};

struct hb_damon_found;

/* ---- damon-sysfs.c: the migrator's kdamond 0 ---- */

/*
 * Writes value to root/path (the sys.c seam), retrying -EBUSY for about a
 * second: DAMON sysfs takes its lock with mutex_trylock. err names the file.
 */
int hb_damon_write(const char *root, const char *path, const char *value, struct hb_err *err);
void hb_damon_sleep_ns(uint64_t ns);

/*
 * A command written to kdamond 0's state by a thread of its own. 6.12 takes
 * a command at the kdamond's next sample or aggregation, but its writer
 * only learns that from a poll every 100 ms: the caller watches the effect
 * instead (frames vacated, the stats files changed) and joins later.
 */
struct hb_damon_post {
	struct hb_damon_kd *d;
	char value[32];
	pthread_t th;
	bool used;
	unsigned int wait_mask; /* slots out before this one (the placeholder's wait) */
	atomic_bool done;
	int r;
};
#define HB_DAMON_POSTS 16

/* Our kdamond as set up: the backend fills the first block, start the rest. */
struct hb_damon_kd {
	char root[256];
	char state_path[PATH_MAX];
	uint64_t page_size;
	unsigned int reset_ms, aggr_ms; /* reset_ms: the apply period P with a
					    rate (configured + aggr) */
	uint64_t quota_bytes;           /* per apply period; 0 = none */
	/* set by hb_damon_kd_start() and the commands */
	bool tried_once; /* the scheme was applied since `on` */
	int nid;         /* target_nid written last, -1 none */
	uint64_t on_ns;  /* when the kdamond was turned on */
	pid_t kdamond_pid;
	bool on;
	/*
	 * kdamond 0 was found changed (hb_damon_kd_owned()): nothing is
	 * written to DAMON any more, not even at stop
	 */
	bool lost;
	unsigned int nr_kdamonds; /* we made: ours (0) and the monitor's (1) */
	struct hb_damon_features feat;
	/*
	 * The region directories, kept between commits: writing nr_regions
	 * removes every directory and makes them again, so it is written only
	 * to grow, or to shrink after HB_DAMON_SHRINK_AFTER small commits.
	 * What each holds is remembered (UINT64_MAX: not known) and only the
	 * files that change are written.
	 */
	size_t nr_dirs;
	uint64_t *dir_start, *dir_end;
	unsigned int small_commits;
	uint64_t dir_resizes; /* nr_regions writes */
	uint64_t dir_writes;  /* start/end writes */
	struct hb_damon_post post[HB_DAMON_POSTS];
};

/*
 * Stops our leftovers (found->ours) or, for a takeover, others' kdamonds;
 * makes nr_kdamonds (2 with monitor: kdamond 1 left off), sets kdamond 0
 * up with the placeholder region, turns it on and writes the state file.
 * On failure after nr_kdamonds, everything is undone (hb_damon_kd_stop).
 */
int hb_damon_kd_start(struct hb_damon_kd *d, const struct hb_damon_found *found, bool monitor,
		      struct hb_err *err);
/*
 * Off (both kdamonds), nr_kdamonds 0, the state file removed; when kdamond
 * 0 is no longer ours (lost, or hb_damon_kd_owned() says so now) only the
 * state file is removed: another tool's kdamonds are never stopped.
 */
void hb_damon_kd_stop(struct hb_damon_kd *d);
/*
 * 0 when kdamond 0 is still the one we started (its pid, action
 * migrate_hot, HB_DAMON_MARK); else -EBUSY naming what changed, and lost
 * set; -EAGAIN when its pid could not be read (DAMON sysfs busy), lost
 * not set. Every function here that writes into kdamond 0's context (a
 * commit, the placeholder, target_nid) and stop check it first.
 */
int hb_damon_kd_owned(struct hb_damon_kd *d, struct hb_err *err);
/* with a quota: waits until the scheme was applied once since `on` */
int hb_damon_kd_wait_first_apply(struct hb_damon_kd *d, struct hb_err *err);
/* update_schemes_stats, then stats/sz_applied */
int hb_damon_kd_applied(struct hb_damon_kd *d, uint64_t *ret, struct hb_err *err);
/* target_nid, written only when it changes */
int hb_damon_kd_set_nid(struct hb_damon_kd *d, int nid, struct hb_err *err);
/*
 * rg[0..n) (sorted, apart, n <= HB_DAMON_COMMIT_MAX) into the region
 * directories, inert ones after them, then commit. n = 0 is the
 * placeholder: every directory inert, nothing real stays live.
 */
int hb_damon_kd_commit(struct hb_damon_kd *d, size_t n, const struct hb_damon_range *rg,
		       struct hb_err *err);
int hb_damon_kd_commit_placeholder(struct hb_damon_kd *d, struct hb_err *err);
/* the same, the commit written by a thread (hb_damon_kd_post): its slot */
int hb_damon_kd_commit_post(struct hb_damon_kd *d, size_t n, const struct hb_damon_range *rg,
			    struct hb_err *err);
/*
 * The placeholder written by a thread once every command out before it
 * has returned (a commit's writer returns only after the kernel took it,
 * so the placeholder is never taken before the ranges it replaces); slot.
 */
int hb_damon_kd_placeholder_post(struct hb_damon_kd *d, struct hb_err *err);
/*
 * Starts writing value ("commit", "update_schemes_stats") to kdamond 0's
 * state in a thread; returns its slot. Every synchronous function here
 * (and stop) first joins all that are out, so writes never interleave
 * with a command the kernel has not taken yet.
 */
int hb_damon_kd_post(struct hb_damon_kd *d, const char *value, struct hb_err *err);
/* threads not joined yet */
unsigned int hb_damon_kd_posts_out(const struct hb_damon_kd *d);
/* whether the slot's write returned (the kernel served it, or refused) */
bool hb_damon_kd_post_done(struct hb_damon_kd *d, int slot);
/* joins the slot: the write's result, err naming the file */
int hb_damon_kd_post_wait(struct hb_damon_kd *d, int slot, struct hb_err *err);
/* joins every slot out; the first failure */
int hb_damon_kd_join(struct hb_damon_kd *d, struct hb_err *err);
/* stats/<name> of scheme 0 as the files hold it now (no command) */
int hb_damon_kd_stat(struct hb_damon_kd *d, const char *name, uint64_t *ret, struct hb_err *err);
/*
 * DAMOS memcg filters on scheme 0 (hb_migrator_damon_memcg_filters() says
 * what they mean): nr_filters, then each filter's files
 */
int hb_damon_kd_memcg_filters(struct hb_damon_kd *d, const char *const *reject, size_t n,
			      const char *only, struct hb_err *err);
/* "quota_goals dests ..." or "none" */
void hb_damon_features_describe(const struct hb_damon_features *f, char *buf, size_t size);

/* ---- damon-probe.c ---- */

/*
 * Whether kdamond 0 is one hotbridge set up, reading only: scheme 0's
 * action is migrate_hot and its watermarks/interval_us holds HB_DAMON_MARK;
 * with pid > 0, kdamond 0's pid is that too. 1 yes; 0 no, with why saying
 * what differs (what cannot be read is not ours); -EBUSY when the pid
 * file stayed busy (DAMON sysfs's lock) for a second: not known.
 */
int hb_damon_kd0_marked(const char *root, pid_t pid, char *why, size_t size);

/* What was there before we started, and what our state file says. */
struct hb_damon_found {
	uint64_t nr_kdamonds; /* kdamonds/nr_kdamonds as found */
	bool ours;            /* kdamond 0 is marked ours (HB_DAMON_MARK), or is
				 the one our state file names, running migrate_hot */
	pid_t recorded_pid;   /* kdamond pid in the state file, -1 none,
				 0 a start or stop of ours cut short */
};

/*
 * Reads only. 0 when DAMON can be used (found says what is there), or
 * -errno with err naming why not: -ENOENT (sysfs not mounted, no DAMON
 * sysfs), -EOPNOTSUPP (kernel before 6.11: no migrate_hot), -EBUSY
 * (another DAMON user and no takeover).
 */
int hb_damon_probe_found(const struct hb_migrator_config *cfg, struct hb_damon_found *ret,
			 struct hb_err *err);

/*
 * Another DAMON user, reading only: damon_reclaim or damon_lru_sort
 * enabled, or kdamonds in DAMON sysfs that are on and are not the one the
 * state file (NULL: none) names. 1 with why saying who, else 0 (no DAMON
 * at all included).
 */
int hb_damon_other_user(const char *root, const char *state, char *why, size_t size);

/*
 * The state file: what we set up ("kdamond_pid=N\nfound_kdamonds=K\n").
 * N = 0 while a start or a stop writes DAMON sysfs (HB_DAMON_STATE_BUSY):
 * a crash then leaves a file that says the kdamonds are ours however far
 * the writes got.
 */
#define HB_DAMON_STATE_BUSY 0
int hb_damon_state_write(const char *path, pid_t kdamond_pid, uint64_t found);
int hb_damon_state_read(const char *path, pid_t *ret_pid, uint64_t *ret_found);
void hb_damon_state_remove(const char *path);

/* ---- damon-node.c ---- */

/*
 * Pages the target node can take before its free memory drops below the
 * high watermark plus the lowmem reserve a movable allocation must leave,
 * summed over its zones (/proc/zoneinfo: "pages free" minus "high" minus
 * the largest "protection" entry). -ENOENT when the node has no zones.
 */
int hb_damon_node_headroom(const char *root, int node, uint64_t *ret_pages);

/*
 * The node a PFN belongs to (static: the memory block's nodeN link in
 * /sys/devices/system/memory) or -EFAULT when the block is absent or
 * offline. cache remembers the last block looked up.
 */
struct hb_damon_block_cache {
	uint64_t block_bytes; /* 0 = not read yet */
	uint64_t block;       /* last block looked up, + 1; 0 = none */
	int node;             /* its node, or -errno */
};
int hb_damon_pfn_node(const char *root, struct hb_damon_block_cache *c, uint64_t pfn,
		      uint64_t page_size);

/* /proc/kpageflags bits: HB_KPF_* of frames.h */
/* Flags of each PFN into ret[i]; -errno when the file cannot be read. */
int hb_damon_kpageflags(const char *root, size_t n, const uint64_t *pfn, uint64_t *ret);

#endif
