/* SPDX-License-Identifier: MIT */
/*
 * /proc/iomem read as a list (iomem.c): the CHMU driver looks for claims on
 * its BAR there, the platform for this host's CXL windows.
 */
#ifndef HB_UTIL_IOMEM_H
#define HB_UTIL_IOMEM_H

#include <stddef.h>
#include <stdint.h>

struct hb_err;

struct hb_iomem_entry {
	uint64_t start, end; /* inclusive, as printed */
	unsigned int depth;  /* leading spaces / 2; the kernel prints at most 5 */
	char name[64];
};

struct hb_iomem {
	struct hb_iomem_entry *v;
	size_t n;
};

/* Parses a /proc/iomem text; -EPERM when every address reads 0 (no CAP_SYS_ADMIN). */
int hb_iomem_load(const char *path, struct hb_iomem *ret, struct hb_err *err);
/*
 * The same from an open /proc/iomem, read again from its start: the kernel
 * shows the addresses by the credentials of whoever opened it, so a file
 * opened at start-up still shows them after capabilities are dropped.
 */
int hb_iomem_load_fd(int fd, const char *path, struct hb_iomem *ret, struct hb_err *err);
void hb_iomem_done(struct hb_iomem *m);

#endif
