// SPDX-License-Identifier: MIT
/* key=value parameters of a source instance (struct hb_dev_info.params). */
#include <errno.h>
#include <string.h>

#include "devices.h"

const char *hb_dev_param(const struct hb_dev_info *info, const char *key)
{
	size_t klen = strlen(key);

	for (const char *const *p = info->params; p && *p; p++)
		if (!strncmp(*p, key, klen) && (*p)[klen] == '=')
			return *p + klen + 1;
	return NULL;
}

int hb_dev_params_check(const struct hb_dev_info *info, const char *const *allowed,
			struct hb_err *err)
{
	for (const char *const *p = info->params; p && *p; p++) {
		const char *eq = strchr(*p, '=');
		bool ok = false;

		for (const char *const *a = allowed; eq && *a; a++)
			ok |= strlen(*a) == (size_t)(eq - *p) && !strncmp(*a, *p, (size_t)(eq - *p));
		if (!ok)
			return hb_err_set(err, -EINVAL, "%s: unknown parameter '%s'",
					  info->name ? info->name : "source", *p);
	}
	return 0;
}

int hb_dev_param_u64(const struct hb_dev_info *info, const char *key, uint64_t def,
		     uint64_t *ret, struct hb_err *err)
{
	const char *v = hb_dev_param(info, key);

	*ret = def;
	if (v && hb_parse_u64_base(v, 0, ret) < 0)
		return hb_err_set(err, -EINVAL, "%s: %s=%s is not a number",
				  info->name ? info->name : "source", key, v);
	return 0;
}
