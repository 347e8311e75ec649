// SPDX-License-Identifier: MIT
/*
 * This host's CXL memory devices as `hotbridge list` shows them
 * (devices.h): each PCI function of class 0x0502 with its Register Locator
 * blocks, its memdev, and, where it has a CHMU, the block mapped (root;
 * through /dev/mem when the kernel refuses the sysfs resource, chmu/map.c)
 * and its capabilities read.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chmu/chmu.h"
#include "chmu/cxlpci.h"
#include "devices.h"

/* the memdev whose sysfs device path runs through this PCI function */
static void memdev_of(const char *sysroot, const char *bdf, char *out, size_t size)
{
	char dir[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/sys/bus/cxl/devices", sysroot);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		ssize_t n;

		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "mem", 3) || len >= size ||
		    strlen(dir) + len + 2 > sizeof(link))
			continue;
		memcpy(link, dir, strlen(dir));
		link[strlen(dir)] = '/';
		memcpy(link + strlen(dir) + 1, de->d_name, len + 1);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, bdf)) {
			memcpy(out, de->d_name, len + 1);
			break;
		}
	}
	if (d)
		closedir(d);
}

static void summarize(const struct hb_chmu_caps *k, struct hb_chmu_summary *s)
{
	*s = (struct hb_chmu_summary){
		.version = k->version,
		.instances = k->instances,
		.hotlist_size = k->hotlist_size,
		.counter_width = k->counter_width,
		.epoch_based = k->epoch_based,
		.always_on = k->always_on,
		.min_epoch_ns = k->min_epoch_ns,
		.max_epoch_ns = k->max_epoch_ns,
	};
	hb_chmu_format_sizes(k->unit_sizes, 8, s->unit_sizes, sizeof(s->unit_sizes));
	hb_chmu_format_sizes(k->ds_factors, 0, s->ds_factors, sizeof(s->ds_factors));
}

/*
 * Map the CHMU block and read its capabilities. Why it cannot be mapped
 * goes to chmu_error.
 */
static void chmu_probe(const char *sysroot, const struct hb_cxl_pcidev *d, const char *memdev,
		       struct hb_cxl_device_info *o)
{
	struct hb_chmu_map_req req;
	struct hb_chmu_mapping how;
	struct hb_regwin w;
	struct hb_chmu *c = NULL;
	struct hb_err err = { 0 };
	uint64_t size = d->bar_size[d->chmu.bir];

	o->chmu_probed = true;
	if (!size && sysroot[0])
		size = d->chmu.offset + (1u << 20); /* a test image: no BAR sizes in dumps */
	if (!size || d->chmu.offset >= size) {
		snprintf(o->chmu_error, sizeof(o->chmu_error),
			 "BAR size unknown (a dump has none) or block offset beyond it");
		return;
	}
	hb_chmu_map_req_init(&req, sysroot, d->bdf, d->chmu.bir, d->bar_base[d->chmu.bir], size,
			     d->chmu.offset);
	if (hb_chmu_map_block(&req, &w, &how, &err) < 0) {
		snprintf(o->chmu_error, sizeof(o->chmu_error), "%s", err.msg);
		return;
	}
	if (how.via == HB_CHMU_MAP_DEVMEM)
		snprintf(o->chmu_mapping, sizeof(o->chmu_mapping), "/dev/mem (%s)", how.why);
	else
		snprintf(o->chmu_mapping, sizeof(o->chmu_mapping), "sysfs resource");
	if (hb_chmu_open(&w, 0, memdev, &c, &err) < 0) {
		snprintf(o->chmu_error, sizeof(o->chmu_error), "%s", err.msg);
	} else {
		summarize(hb_chmu_caps(c), &o->chmu);
		o->chmu_read = true;
	}
	hb_chmu_free(c);
	hb_regwin_mmio_close(&w);
}

int hb_cxl_inventory(const char *dump, const char *sysroot, struct hb_cxl_device_info **ret,
		     size_t *ret_n, struct hb_err *err)
{
	_hb_cleanup_free_ struct hb_cxl_pcidev *devs = NULL;
	struct hb_cxl_device_info *v;
	size_t ndev = 0;
	int r;

	*ret = NULL;
	*ret_n = 0;
	sysroot = sysroot ? sysroot : "";
	r = hb_cxl_pci_scan(dump, &devs, &ndev, err);
	if (r < 0)
		return r;
	v = calloc(ndev ? ndev : 1, sizeof(*v));
	if (!v)
		return hb_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < ndev; i++) {
		const struct hb_cxl_pcidev *d = &devs[i];
		struct hb_cxl_device_info *o = &v[i];

		snprintf(o->bdf, sizeof(o->bdf), "%s", d->bdf);
		memdev_of(sysroot, d->bdf, o->memdev, sizeof(o->memdev));
		o->vendor = d->vendor;
		o->device = d->device;
		for (unsigned int k = 0; k < d->nblocks && k < HB_CXL_INVENTORY_BLOCKS; k++)
			o->blocks[o->nblocks++] = (struct hb_cxl_regblock_info){
				.id = d->blocks[k].id,
				.bar = d->blocks[k].bir,
				.offset = d->blocks[k].offset,
				.type = hb_cxl_regblock_name(d->blocks[k].id),
			};
		o->has_chmu = d->has_chmu;
		if (d->has_chmu && (!dump || sysroot[0]))
			chmu_probe(sysroot, d, o->memdev[0] ? o->memdev : d->bdf, o);
	}
	*ret = v;
	*ret_n = ndev;
	return 0;
}
