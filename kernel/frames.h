/* SPDX-License-Identifier: MIT */
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
#ifndef HB_KERNEL_FRAMES_H
#define HB_KERNEL_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h, fs/proc/page.c) */
#define HB_KPF_LRU 5
#define HB_KPF_SLAB 7
#define HB_KPF_WRITEBACK 8
#define HB_KPF_BUDDY 10
#define HB_KPF_MMAP 11
#define HB_KPF_COMPOUND_HEAD 15
#define HB_KPF_COMPOUND_TAIL 16
#define HB_KPF_HUGE 17
#define HB_KPF_UNEVICTABLE 18
#define HB_KPF_HWPOISON 19
#define HB_KPF_NOPAGE 20
#define HB_KPF_KSM 21
#define HB_KPF_THP 22
#define HB_KPF_OFFLINE 23
#define HB_KPF_ZERO_PAGE 24
#define HB_KPF_PGTABLE 26
#define HB_KPF_MLOCKED 33

struct hb_frames;

/* Opens root/proc/kpageflags (root NULL or "" = "/"); err names what failed. */
int hb_frames_open(const char *root, uint64_t page_size, struct hb_frames **ret,
		   struct hb_err *err);
struct hb_frames *hb_frames_free(struct hb_frames *f);
HB_DEFINE_CLEANUP(struct hb_frames *, hb_frames_free)

/* Whether a frame with these /proc/kpageflags bits is movable (above). */
bool hb_frames_movable(uint64_t kpf);

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

#endif
