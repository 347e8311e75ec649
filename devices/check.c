// SPDX-License-Identifier: MIT
/* Validating a source's ops table before the host touches any op. */
#include <errno.h>
#include <stddef.h>

#include "devices.h"

/* The v1 table ends with close. */
#define OPS_V1_SIZE (offsetof(struct hb_device_ops, close) + sizeof(void (*)(void *)))

int hb_device_ops_check(const struct hb_device_ops *ops, const char *origin, struct hb_err *err)
{
	if (!ops)
		return hb_err_set(err, -EINVAL, "%s: entry point returned no ops table", origin);
	if (ops->abi_major != HB_DEVICE_ABI_MAJOR)
		return hb_err_set(err, -EPROTO, "%s: plugin ABI %u.%u, host speaks %u.%u", origin,
				  ops->abi_major, ops->abi_minor, HB_DEVICE_ABI_MAJOR,
				  HB_DEVICE_ABI_MINOR);
	if (!HB_OPS_HAS(ops, close))
		return hb_err_set(err, -EPROTO, "%s: ops table of %u bytes, ABI 1.0 needs %zu",
				  origin, ops->size, (size_t)OPS_V1_SIZE);
	if (!ops->name || !ops->name[0])
		return hb_err_set(err, -EINVAL, "%s: ops table has no name", origin);
	if (ops->caps & ~HB_DEV_CAP_ALL_V1)
		return hb_err_set(err, -EINVAL, "%s (%s): unknown capability bits 0x%llx", origin,
				  ops->name, (unsigned long long)(ops->caps & ~HB_DEV_CAP_ALL_V1));
	if (!(ops->caps & (HB_DEV_CAP_DPA | HB_DEV_CAP_HPA)))
		return hb_err_set(err, -EINVAL, "%s (%s): reports neither DPA nor HPA records",
				  origin, ops->name);
	if (!(ops->caps & (HB_DEV_CAP_POLL | HB_DEV_CAP_FD)))
		return hb_err_set(err, -EINVAL, "%s (%s): neither polled nor fd-driven", origin,
				  ops->name);
	if (!ops->open || !ops->close)
		return hb_err_set(err, -EINVAL, "%s (%s): missing %s op", origin, ops->name,
				  !ops->open ? "open" : "close");
	if ((ops->caps & HB_DEV_CAP_POLL) && !ops->poll)
		return hb_err_set(err, -EINVAL, "%s (%s): HB_DEV_CAP_POLL without a poll op",
				  origin, ops->name);
	return 0;
}
