// SPDX-License-Identifier: MIT
/*
 * key=value parameters of a source instance (struct hb_dev_info.params):
 * the public helpers of hb-device.h with hb_err messages for built-ins.
 */
#include <errno.h>

#include "devices.h"

int hb_dev_params_check(const struct hb_dev_info *info, const char *const *allowed, struct hb_err *err)
{
	const char *bad = hb_dev_param_unknown(info, allowed);

	if (bad)
		return hb_err_set(err, -EINVAL, "%s: unknown parameter '%s'",
				  info->name ? info->name : "source", bad);
	return 0;
}

int hb_dev_param_u64(const struct hb_dev_info *info, const char *key, uint64_t def, uint64_t *ret,
		     struct hb_err *err)
{
	const char *v = hb_dev_param(info, key);

	int r;

	*ret = def;
	r = v ? hb_dev_param_parse_u64(v, ret) : 0;
	if (r < 0)
		return hb_err_set(err, -EINVAL, "%s: %s=%s %s", info->name ? info->name : "source",
				  key, v, hb_parse_u64_why(v, r));
	return 0;
}
