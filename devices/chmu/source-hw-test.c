// SPDX-License-Identifier: MIT
/*
 * The "chmu" source as test binaries see it: pci_dump=<lspci -xxxx file>
 * and sysfs_root=<dir> become hooks (chmu.h), the other parameters go to
 * the source unchanged. Built into hb-devices-test with the tests only, so
 * no configuration of the daemon can reach it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chmu.h"
#include "devices.h"

#define MAX_PARAMS 64

static int test_open(const struct hb_host_ops *ops, struct hb_host *h,
		     const struct hb_dev_info *info, void **ret_priv)
{
	struct hb_chmu_test_hooks hooks = {
		.pci_dump = hb_dev_param(info, "pci_dump"),
		.sysfs_root = hb_dev_param(info, "sysfs_root"),
	};
	const char *rest[MAX_PARAMS + 1];
	struct hb_dev_info copy = *info;
	size_t n = 0;

	/* the source proper sees the parameters without the hooks */
	for (const char *const *p = info->params; p && *p; p++) {
		if (!strncmp(*p, "pci_dump=", 9) || !strncmp(*p, "sysfs_root=", 11))
			continue;
		if (n == MAX_PARAMS)
			return -E2BIG;
		rest[n++] = *p;
	}
	rest[n] = NULL;
	copy.params = rest;
	return hb_chmu_source_open(ops, h, &copy, &hooks, ret_priv);
}

const struct hb_device_ops hb_source_chmu_test = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_device_ops),
	.name = "chmu",
	.caps = HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
	.open = test_open,
	.poll = hb_chmu_source_poll,
	.close = hb_chmu_source_close,
};
