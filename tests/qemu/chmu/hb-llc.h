/* SPDX-License-Identifier: MIT */
/*
 * hb-llc: the host's last-level cache as the CXL memory device sees it,
 * for the CHMU model (hb-chmu.c). A CPU load or store to the device's
 * memory reaches the device only when it misses: a load miss or a store
 * miss arrives as a read of the 64-byte line (the fill), and the store
 * leaves the line dirty; the eviction of a dirty line arrives as a write
 * of that line. Hits reach nothing. Set-associative, write-back,
 * write-allocate, least recently used within a set; the set is a hash of
 * the line's address, as the slice hash of a real LLC spreads lines.
 *
 * It sees only this device's lines: the rest of the machine's traffic
 * (DRAM, other devices) does not compete for it.
 */
#ifndef HB_QEMU_LLC_H
#define HB_QEMU_LLC_H

#include <stdbool.h>
#include <stdint.h>

#define HB_QLLC_LINE 64ULL
#define HB_QLLC_MAX_SIZE (1ULL << 30)
#define HB_QLLC_MAX_WAYS 64

struct hb_qllc;

/* a request the cache sends to the device: the line at dpa, read or written */
typedef void hb_qllc_request_fn(void *opaque, uint64_t dpa, bool write);

/* NULL, or a message naming the bad parameter (size 0: no cache) */
const char *hb_qllc_check(uint64_t size, unsigned int ways);
/* 0, -EINVAL (check first) or -ENOMEM */
int hb_qllc_new(uint64_t size, unsigned int ways, struct hb_qllc **ret);
void hb_qllc_free(struct hb_qllc *l);

/*
 * A CPU access of size bytes at dpa: calls fn for each request it sends
 * to the device (none on a hit; a write-back and a fill on a miss that
 * evicts a dirty line), in the order the device receives them.
 */
void hb_qllc_access(struct hb_qllc *l, uint64_t dpa, unsigned int size, bool write,
		    hb_qllc_request_fn *fn, void *opaque);

#endif
