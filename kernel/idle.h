/* SPDX-License-Identifier: MIT */
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
#ifndef HB_KERNEL_IDLE_H
#define HB_KERNEL_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

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

#endif
