/* SPDX-License-Identifier: MIT */
/*
 * kernel/ internals of the frame census (frames.c; its API is kernel.h's
 * "a census of page frames"): the /proc/kpageflags bits it reads, which
 * the damon backend (damon-node.c) reads too, and the movability rule.
 */
#ifndef HB_KERNEL_FRAMES_H
#define HB_KERNEL_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"

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

/* Whether a frame with these /proc/kpageflags bits is movable (kernel.h). */
bool hb_frames_movable(uint64_t kpf);

#endif
