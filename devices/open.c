// SPDX-License-Identifier: MIT
/* Opening a source instance: probe, then open, each failure named. */
#include <errno.h>
#include <string.h>

#include "devices.h"

int hb_source_open(const struct hb_device_ops *ops, const char *origin,
		   const struct hb_host_ops *host, struct hb_host *h,
		   const struct hb_dev_info *info, void **ret_priv, struct hb_err *err)
{
	void *priv = NULL;
	int r;

	*ret_priv = NULL;
	if (ops->probe) {
		r = ops->probe(info);
		if (r < 0)
			return hb_err_set(err, r, "%s (%s): probe of '%s' failed: %s", origin,
					  ops->name, info->name ? info->name : "?", strerror(-r));
		if (r == 0) {
			char why[256] = "";

			/* a built-in can say why; a plugin's probe cannot (ABI 1.x) */
			if (hb_builtin_find(ops->name) == ops &&
			    hb_builtin_available(ops->name, why, sizeof(why)) != 0)
				why[0] = '\0';
			return hb_err_set(err, -ENODEV, "%s (%s): cannot serve '%s' on this host%s%s",
					  origin, ops->name, info->name ? info->name : "?",
					  why[0] ? ": " : "", why);
		}
	}
	r = ops->open(host, h, info, &priv);
	if (r > 0)
		r = -EPROTO; /* not an errno: the plugin broke the contract */
	if (r < 0) {
		if (priv && ops->close)
			ops->close(priv);
		return hb_err_set(err, r, "%s (%s): open of '%s' failed: %s", origin, ops->name,
				  info->name ? info->name : "?", strerror(-r));
	}
	*ret_priv = priv;
	return 0;
}
