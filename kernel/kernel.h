/* SPDX-License-Identifier: MIT */
/*
 * kernel/: the move_phys_pages() system call, reached safely.
 *
 * The call was proposed upstream (RFC v1/v2 as x86_64 454, v3 as 462) and
 * never merged; on mainline x86_64, 454 is futex_wake and 462 is mseal. So
 * no number is built in: the caller configures one, and hb_mpp_probe()
 * enables it only when the running kernel has the syscall's entry point as
 * a real text symbol (`T`/`t` __x64_sys_move_phys_pages in /proc/kallsyms;
 * a `W` COND_SYSCALL stub means it was compiled out).
 */
#ifndef HB_KERNEL_H
#define HB_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct hb_mpp {
	bool available;
	long nr;                 /* the configured number, only used if available */
};

/*
 * root: prefix before /proc (NULL or "" for the live system).
 * Returns 0 when the call may be used, -ENOSYS when the kernel lacks it,
 * -EINVAL when no number is configured, other -errno on I/O errors.
 */
int hb_mpp_probe(const char *root, long configured_nr, struct hb_mpp *ret, struct hb_err *err);

/* move_phys_pages(count, pages, nodes, status, flags); -ENOSYS unless probed. */
long hb_mpp_move(const struct hb_mpp *m, unsigned long count, const uint64_t *pages,
		 const int *nodes, int *status, int flags);

#endif
