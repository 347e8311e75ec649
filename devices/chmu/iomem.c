// SPDX-License-Identifier: MIT
/*
 * The claims nested under a PCI BAR in /proc/iomem (parsed by util/iomem.c)
 * and the kernel lockdown mode. Pure reading: the decisions are in map.c.
 *
 * Facts (Linux kernel/resource.c, drivers/pci/pci-sysfs.c, drivers/cxl/core/regs.c):
 * a PCI BAR is a resource named after the function ("0000:0d:00.0");
 * request_mem_region() inserts a busy child of it, named by the caller
 * (cxl_pci's devm_cxl_iomap_block() uses dev_name(), the same
 * "0000:0d:00.0"). /proc/iomem prints no flags, so a child of a BAR is
 * taken as a claim. Without CAP_SYS_ADMIN every address reads as 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chmu.h"

int hb_iomem_find_claim(const struct hb_iomem *m, const char *bdf, uint64_t bar_start,
			uint64_t start, uint64_t end, const struct hb_iomem_entry **ret)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].start == bar_start && !strcmp(m->v[i].name, bdf))
			break;
	if (i == m->n)
		return -ENOENT;
	/*
	 * Its descendants follow it, each inside its range; siblings never
	 * overlap. Containment, not indentation, because the kernel caps the
	 * printed depth (MAX_IORES_LEVEL, 5): behind a switch or two a claim is
	 * printed as deep as the BAR it sits in.
	 */
	for (size_t k = i + 1;
	     k < m->n && m->v[k].start >= m->v[i].start && m->v[k].end <= m->v[i].end; k++) {
		if (m->v[k].start <= end && m->v[k].end >= start) {
			*ret = &m->v[k];
			return 1;
		}
	}
	return 0;
}

int hb_lockdown_mode(const char *path, char *mode, size_t size)
{
	char line[128], *open, *close;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close || (size_t)(close - open - 1) >= size)
		return -EINVAL;
	memcpy(mode, open + 1, (size_t)(close - open - 1));
	mode[close - open - 1] = '\0';
	return 0;
}
