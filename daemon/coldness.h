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
 * bitmap). On a live host hotbridge cannot know the frame a promoted page
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

struct hb_coldness_ops {
	const char *name;                      /* "emulated", "page_idle" */
	/* mark pfn[0..n) idle now; 0 or -errno */
	int (*mark_idle)(void *priv, size_t n, const uint64_t *pfn);
	/* idle[i] = 1 when pfn[i] was not accessed since it was last marked, else 0; 0 or -errno */
	int (*check_idle)(void *priv, size_t n, const uint64_t *pfn, uint8_t *idle);
	/*
	 * NULL, or (live hosts) the next window of DRAM node's frames, at
	 * most max: window[0..1] its first PFN and the one past its last,
	 * pfn[] the movable frames in it, ascending. Count, or -errno with err.
	 */
	long (*census)(void *priv, int node, size_t max, uint64_t *pfn, uint64_t window[2],
		       struct hb_err *err);
};

struct hb_coldness {
	const struct hb_coldness_ops *ops;
	void *priv;
};

/* The live host's source (coldness-live.c): root NULL or "" = "/". */
struct hb_live_coldness;
int hb_live_coldness_new(const char *root, uint64_t page_size, struct hb_live_coldness **ret,
			 struct hb_err *err);
struct hb_live_coldness *hb_live_coldness_free(struct hb_live_coldness *lc);
HB_DEFINE_CLEANUP(struct hb_live_coldness *, hb_live_coldness_free)
struct hb_coldness hb_live_coldness(struct hb_live_coldness *lc);

#endif
