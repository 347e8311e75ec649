/* SPDX-License-Identifier: MIT */
/*
 * Coldness: which of the pages hotbridge placed on DRAM went cold. The
 * devices see only CXL accesses, so once a page is on DRAM its coldness
 * comes from the host. The interface is page idle tracking's: mark a set
 * of page frames idle, later ask which are still idle (not accessed since).
 *
 * Implementations: the emulated host's (emulated-host.c: it knows every
 * access, and the placed pages are the ones hotbridge promoted); a live
 * host's (coldness-live.c: idle page tracking, /sys/kernel/mm/page_idle/
 * bitmap; coldness-damon.c: DAMON's monitoring results, for kernels
 * without it). On a live host hotbridge cannot know the frame a promoted page
 * went to (move_phys_pages() reports nodes, not frames), so the placed
 * pages are the DRAM nodes' movable frames, found by the census op, and a
 * frame's time starts when it was last seen in use or new (a promotion's
 * new frame is either), which keeps the promotion hysteresis.
 */
#ifndef HB_COLDNESS_H
#define HB_COLDNESS_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct hb_census_window {
	uint64_t first, end; /* PFNs: [first, end) */
	bool pass_done;      /* the node's pass ended with it */
	uint64_t sample;     /* the sample of the node the pass reads */
};

struct hb_coldness_ops {
	const char *name; /* "emulated", "page_idle", "damon" */
	/*
	 * true: the source is a DAMON kdamond the damon migrator makes for it
	 * (migrate.backend = damon is then required, and demotes its frames);
	 * start() is called once that migrator is open, with the kdamond it
	 * made for the source (kernel.h's hb_damon_monitor_kdamond()) and the
	 * nodes whose frames the census takes (bit n: node n).
	 */
	bool damon;
	/*
	 * true: mark_idle and check_idle take long (page idle tracking's rmap
	 * walk a frame; DAMON's sysfs round trips, served at the kdamond's next
	 * aggregation), so the daemon runs them on a thread of their own
	 * (idle-worker.h), off the event loop's; false: on the loop, at once
	 */
	bool off_loop;
	int (*start)(void *priv, int kdamond, uint64_t node_mask, struct hb_err *err);
	/* mark pfn[0..n) idle now; 0 or -errno */
	int (*mark_idle)(void *priv, size_t n, const uint64_t *pfn);
	/*
	 * idle[i] = 1 when pfn[i] was not accessed since it was last marked,
	 * else 0; 0, -EAGAIN when the source has nothing new yet (no page is
	 * then checked nor marked), or -errno
	 */
	int (*check_idle)(void *priv, size_t n, const uint64_t *pfn, uint8_t *idle);
	/*
	 * NULL, or (live hosts) the next window of DRAM node's frames, at
	 * most max: win its first PFN and the one past its last, whether it
	 * ended the node's pass and which sample of the node the pass reads,
	 * pfn[] the movable frames in it, ascending. Count, or -errno with err.
	 */
	long (*census)(void *priv, int node, size_t max, uint64_t *pfn,
		       struct hb_census_window *win, struct hb_err *err);
	/* with census: a pass reads at most max_frames of a node (0 = all; kernel.h) */
	void (*sample)(void *priv, uint64_t max_frames);
	/* with census: the frames a pass of node reads (its sample), or 0 (unknown) */
	uint64_t (*pass_frames)(void *priv, int node);
	/*
	 * NULL, or (with census) how many frames the census skipped so far as
	 * mapped more than once: the movers refuse their pages (EACCES)
	 */
	uint64_t (*shared)(void *priv);
};

struct hb_coldness {
	const struct hb_coldness_ops *ops;
	void *priv;
};

/* The census of both live sources, over kernel.h's frames (coldness-live.c). */
struct hb_frames;
long hb_coldness_census(struct hb_frames *f, int node, size_t max, uint64_t *pfn,
			struct hb_census_window *win, struct hb_err *err);
uint64_t hb_coldness_pass_frames(struct hb_frames *f, int node);

/* The live host's source (coldness-live.c): root NULL or "" = "/". */
struct hb_live_coldness;
int hb_live_coldness_new(const char *root, uint64_t page_size, struct hb_live_coldness **ret,
			 struct hb_err *err);
struct hb_live_coldness *hb_live_coldness_free(struct hb_live_coldness *lc);
HB_DEFINE_CLEANUP(struct hb_live_coldness *, hb_live_coldness_free)
struct hb_coldness hb_live_coldness(struct hb_live_coldness *lc);

/*
 * The live host's source over DAMON (coldness-damon.c), for kernels without
 * idle page tracking: the census as above, coldness from a monitoring
 * kdamond over the online memory of the census nodes, set up by start()
 * (after the damon migrator made its kdamond). root NULL or "" = "/".
 * A reading costs sysfs round trips the kdamond serves: at most one every
 * every_us (-1: 2 s); a check sooner is -EAGAIN.
 */
struct hb_damon_coldness;
int hb_damon_coldness_new(const char *root, uint64_t page_size, int64_t every_us,
			  struct hb_damon_coldness **ret, struct hb_err *err);
struct hb_damon_coldness *hb_damon_coldness_free(struct hb_damon_coldness *dc);
HB_DEFINE_CLEANUP(struct hb_damon_coldness *, hb_damon_coldness_free)
struct hb_coldness hb_damon_coldness(struct hb_damon_coldness *dc);

#endif
