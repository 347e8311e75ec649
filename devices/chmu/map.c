// SPDX-License-Identifier: MIT
/*
 * Mapping the CHMU block on the kernels users run (Debian 6.12:
 * STRICT_DEVMEM=y, IO_STRICT_DEVMEM=y).
 *
 * What the kernel does (Linux drivers/pci/pci-sysfs.c pci_mmap_resource(),
 * kernel/resource.c resource_is_exclusive(), drivers/char/mem.c,
 * arch/x86/mm/init.c devmem_is_allowed()):
 *  - mmap of sysfs resourceN: -EPERM under lockdown (LOCKDOWN_PCI_ACCESS),
 *    -EINVAL when iomem_is_exclusive(BAR start), i.e. when a busy resource
 *    overlaps the BAR's *first page* and IO_STRICT_DEVMEM is set (or the
 *    resource is IORESOURCE_EXCLUSIVE); iomem=relaxed lifts the busy check.
 *    A claim elsewhere in the BAR does not refuse the mapping.
 *  - /dev/mem: open needs CAP_SYS_RAWIO and no lockdown (LOCKDOWN_DEV_MEM,
 *    refused from "integrity" up); mmap is refused (-EPERM) when any page
 *    is System RAM or iomem_is_exclusive(). A driver that claims a range
 *    later revokes existing /dev/mem mappings of it.
 * So: try sysfs; if refused, map only the block's own pages from /dev/mem,
 * when /proc/iomem shows them unclaimed and lockdown is none. Never drive
 * a block a kernel driver has claimed (a CHMU driver would claim it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chmu.h"
#include "regs.h"

#define WINDOW_MAX (1ULL << 20)

void hb_chmu_map_req_init(struct hb_chmu_map_req *q, const char *root, const char *bdf,
			  unsigned int bar, uint64_t bar_start, uint64_t bar_size, uint64_t offset)
{
	*q = (struct hb_chmu_map_req){ .bdf = bdf,
				       .bar = bar,
				       .bar_start = bar_start,
				       .bar_size = bar_size,
				       .offset = offset,
				       .iomem_fd = -1 };
	snprintf(q->resource, sizeof(q->resource), "%s/sys/bus/pci/devices/%s/resource%u", root,
		 bdf, bar);
	snprintf(q->iomem, sizeof(q->iomem), "%s/proc/iomem", root);
	snprintf(q->devmem, sizeof(q->devmem), "%s/dev/mem", root);
	snprintf(q->lockdown, sizeof(q->lockdown), "%s/sys/kernel/security/lockdown", root);
	snprintf(q->driver, sizeof(q->driver), "%s/sys/bus/pci/devices/%s/driver", root, bdf);
}

static uint64_t window_max(const struct hb_chmu_map_req *q)
{
	uint64_t left = q->bar_size ? q->bar_size - q->offset : WINDOW_MAX;

	return left < WINDOW_MAX ? left : WINDOW_MAX;
}

/* the block's length from its common capabilities: 0x10 + instances x length */
static uint64_t block_len(const struct hb_regwin *w, uint64_t max)
{
	uint64_t cap0 = 0, cap1 = 0, len;

	if (w->read(w->priv, CHMU_COMMON_CAP0, 8, &cap0) < 0 ||
	    w->read(w->priv, CHMU_COMMON_CAP1, 8, &cap1) < 0)
		return CHMU_INST0;
	len = CHMU_INST0 + HB_CHMU_FIELD(cap0, 15, 8) * HB_CHMU_FIELD(cap1, 15, 0);
	return len < max ? len : max;
}

/* "(kernel driver cxl_pci)" from the function's driver link */
static void driver_of(const struct hb_chmu_map_req *q, char *buf, size_t size)
{
	char link[HB_CHMU_MAP_PATH_MAX];
	ssize_t n = readlink(q->driver, link, sizeof(link) - 1);

	if (n <= 0) {
		snprintf(buf, size, "a kernel driver");
		return;
	}
	link[n] = '\0';
	snprintf(buf, size, "kernel driver %.64s",
		 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
}

static int iomem_load(const struct hb_chmu_map_req *q, struct hb_iomem *m, struct hb_err *err)
{
	return q->iomem_fd >= 0 ? hb_iomem_load_fd(q->iomem_fd, q->iomem, m, err) :
				  hb_iomem_load(q->iomem, m, err);
}

/*
 * 0 when /proc/iomem shows nothing nested under the BAR on the pages of
 * [phys, phys + len); -EBUSY (message set) when something does; another
 * -errno (message set) when /proc/iomem cannot tell.
 */
static int check_unclaimed(const struct hb_chmu_map_req *q, uint64_t phys, uint64_t len,
			   const char *why, struct hb_err *err)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t ps = phys & ~(page - 1), pe = ((phys + len + page - 1) & ~(page - 1)) - 1;
	const struct hb_iomem_entry *c = NULL;
	struct hb_iomem m = { 0 };
	char drv[96];
	int r;

	r = iomem_load(q, &m, err);
	if (r < 0)
		return r;
	r = hb_iomem_find_claim(&m, q->bdf, q->bar_start, ps, pe, &c);
	if (r == -ENOENT) {
		hb_iomem_done(&m);
		return hb_err_set(err, r, "%s does not list BAR %u of %s at 0x%llx", q->iomem,
				  q->bar, q->bdf, (unsigned long long)q->bar_start);
	}
	if (r > 0) {
		driver_of(q, drv, sizeof(drv));
		r = hb_err_set(err, -EBUSY,
			       "CHMU registers at 0x%llx-0x%llx are claimed by %s (%s); %s",
			       (unsigned long long)phys, (unsigned long long)(phys + len - 1),
			       c->name, drv, why);
	}
	hb_iomem_done(&m);
	return r;
}

/* /dev/mem at phys, with errors that say which rule refused it */
static int devmem_window(const struct hb_chmu_map_req *q, uint64_t phys, uint64_t len,
			 struct hb_regwin *ret, struct hb_err *err)
{
	struct hb_err e = { 0 };
	int fd, r;

	fd = open(q->devmem, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return hb_err_set(err, r, "%s: %s%s", q->devmem, strerror(-r),
				  r == -EPERM || r == -EACCES ?
					  " (needs CAP_SYS_RAWIO and no lockdown)" :
					  "");
	}
	close(fd);
	r = hb_regwin_mmio_open(q->devmem, phys, len, ret, &e);
	if (r == -EPERM)
		return hb_err_set(err, r,
				  "%s: the kernel refused 0x%llx-0x%llx (STRICT_DEVMEM: a page "
				  "of it is RAM or claimed)",
				  q->devmem, (unsigned long long)phys,
				  (unsigned long long)(phys + len - 1));
	if (r < 0)
		return hb_err_set(err, r, "%s", e.msg);
	return 0;
}

static int map_devmem(const struct hb_chmu_map_req *q, const char *refusal, struct hb_regwin *ret,
		      struct hb_err *err)
{
	static const char strict[] = "the kernel refuses user mappings of claimed MMIO under "
				     "IO_STRICT_DEVMEM";
	uint64_t phys = q->bar_start + q->offset, len;
	struct hb_err e = { 0 };
	struct hb_regwin w;
	char mode[32];
	int r;

	r = hb_lockdown_mode(q->lockdown, mode, sizeof(mode));
	if (r == 0 && strcmp(mode, "none"))
		return hb_err_set(err, -EPERM,
				  "%s; kernel lockdown is '%s', which refuses /dev/mem "
				  "and PCI BAR mappings",
				  refusal, mode);
	/* the common capabilities first: they give the block's length */
	r = check_unclaimed(q, phys, CHMU_INST0, strict, &e);
	if (r == -EBUSY)
		return hb_err_set(err, r, "%s", e.msg);
	if (r < 0)
		return hb_err_set(err, r, "%s, and the claims on the CHMU block are unknown: %s",
				  refusal, e.msg);
	if ((r = devmem_window(q, phys, CHMU_INST0, &w, &e)) < 0)
		return hb_err_set(err, r, "%s; %s", refusal, e.msg);
	len = block_len(&w, window_max(q));
	hb_regwin_mmio_close(&w);
	r = check_unclaimed(q, phys, len, strict, &e);
	if (r < 0)
		return hb_err_set(err, r, "%s", e.msg);
	if ((r = devmem_window(q, phys, len, ret, &e)) < 0)
		return hb_err_set(err, r, "%s; %s", refusal, e.msg);
	return 0;
}

/* "BAR 2's first page is claimed by <name> (kernel driver cxl_pci)", or "" */
static void first_page_claim(const struct hb_chmu_map_req *q, char *buf, size_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const struct hb_iomem_entry *c = NULL;
	struct hb_iomem m = { 0 };
	char drv[96];

	buf[0] = '\0';
	if (iomem_load(q, &m, NULL) < 0)
		return;
	if (hb_iomem_find_claim(&m, q->bdf, q->bar_start, q->bar_start, q->bar_start + page - 1,
				&c) > 0) {
		driver_of(q, drv, sizeof(drv));
		snprintf(buf, size, "BAR %u's first page is claimed by %.63s (%.80s)", q->bar,
			 c->name, drv);
	}
	hb_iomem_done(&m);
}

int hb_chmu_map_block(const struct hb_chmu_map_req *q, struct hb_regwin *ret,
		      struct hb_chmu_mapping *ret_how, struct hb_err *err)
{
	char refusal[128], claim[192] = "";
	struct hb_err e = { 0 };
	struct hb_regwin w;
	int r, r_sysfs;

	if (q->bar_size && q->offset >= q->bar_size)
		return hb_err_set(err, -EPROTO,
				  "%s: CHMU block at BAR %u + 0x%llx lies beyond the "
				  "BAR (%llu bytes)",
				  q->bdf, q->bar, (unsigned long long)q->offset,
				  (unsigned long long)q->bar_size);
	r = hb_regwin_mmio_open(q->resource, q->offset, window_max(q), &w, &e);
	if (r == 0) {
		uint64_t len = block_len(&w, window_max(q));

		/* the sysfs check looks at the BAR's first page only */
		r = check_unclaimed(q, q->bar_start + q->offset, len,
				    "refusing to drive registers a kernel driver owns", &e);
		hb_regwin_mmio_close(&w);
		if (r == -EBUSY)
			return hb_err_set(err, r, "%s", e.msg);
		/* the block's own pages, as from /dev/mem */
		if ((r = hb_regwin_mmio_open(q->resource, q->offset, len, ret, &e)) < 0)
			return hb_err_set(err, r, "%s", e.msg);
		ret_how->via = HB_CHMU_MAP_SYSFS;
		ret_how->why[0] = '\0';
		return 0;
	}
	if (r != -EINVAL && r != -EPERM)
		return hb_err_set(err, r, "%s", e.msg);
	r_sysfs = r;
	snprintf(refusal, sizeof(refusal), "%s resource%u: mmap refused (%s: %s)", q->bdf, q->bar,
		 r == -EINVAL ? "EINVAL" : "EPERM",
		 r == -EINVAL ? "the BAR's first page is claimed" : "kernel lockdown");
	r = map_devmem(q, refusal, ret, err);
	if (r < 0)
		return r;
	ret_how->via = HB_CHMU_MAP_DEVMEM;
	if (r_sysfs == -EINVAL)
		first_page_claim(q, claim, sizeof(claim));
	if (claim[0])
		snprintf(ret_how->why, sizeof(ret_how->why),
			 "%s resource%u: mmap refused (EINVAL): %s", q->bdf, q->bar, claim);
	else
		snprintf(ret_how->why, sizeof(ret_how->why), "%s", refusal);
	return 0;
}

int hb_chmu_map_recheck(const struct hb_chmu_map_req *q, uint64_t len, struct hb_err *err)
{
	struct hb_err e = { 0 };
	int r;

	r = check_unclaimed(q, q->bar_start + q->offset, len,
			    "it was claimed after hotbridge mapped it; not touching it again", &e);
	if (r == -EBUSY)
		return hb_err_set(err, r, "%s", e.msg);
	return 0; /* unknown is no news: the mapping was allowed when made */
}
