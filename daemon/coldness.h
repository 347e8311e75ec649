/* SPDX-License-Identifier: MIT */
/*
 * Coldness: which of the pages hotbridge placed on DRAM went cold. The
 * devices see only CXL accesses, so once a page is on DRAM its coldness
 * comes from the host. The interface is page idle tracking's: mark a set
 * of page frames idle, later ask which are still idle (not accessed since).
 *
 * Implementations: the emulated host's (emulated-host.c: it knows every
 * access). A live one over /sys/kernel/mm/page_idle/bitmap plugs in here
 * as another struct hb_coldness_ops.
 */
#ifndef HB_COLDNESS_H
#define HB_COLDNESS_H

#include <stddef.h>
#include <stdint.h>

struct hb_coldness_ops {
	const char *name;                      /* "emulated", "page_idle" */
	/* mark pfn[0..n) idle now; 0 or -errno */
	int (*mark_idle)(void *priv, size_t n, const uint64_t *pfn);
	/* idle[i] = 1 when pfn[i] was not accessed since it was last marked, else 0; 0 or -errno */
	int (*check_idle)(void *priv, size_t n, const uint64_t *pfn, uint8_t *idle);
};

struct hb_coldness {
	const struct hb_coldness_ops *ops;
	void *priv;
};

#endif
