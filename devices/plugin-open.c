// SPDX-License-Identifier: MIT
/*
 * Opening one vendor plugin that passed the loader's checks (loader.c):
 * dlopen, its entry point, its ops table checked, its name against its
 * file's. The loader and the inspecting child (inspect.c) both call it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "devices.h"

int hb_plugin_open(struct hb_plugin *p, struct hb_err *err)
{
	const struct hb_device_ops *(*entry)(void);
	const struct hb_device_ops *ops;
	void *h;
	int r;

	h = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return hb_err_set(err, -ELIBBAD, "%s: %s", p->path, dlerror());
	*(void **)&entry = dlsym(h, HB_DEVICE_ENTRY_SYMBOL);
	if (!entry) {
		dlclose(h);
		return hb_err_set(err, -ENOSYS, "%s: no %s() entry point", p->path,
				  HB_DEVICE_ENTRY_SYMBOL);
	}
	ops = entry();
	r = hb_device_ops_check(ops, p->path, err);
	if (r < 0) {
		dlclose(h);
		return r;
	}
	if (strcmp(ops->name, p->name)) {
		r = hb_err_set(err, -EINVAL,
			       "%s: the file name says source '%s' but the plugin calls itself "
			       "'%.64s'; refusing",
			       p->path, p->name, ops->name);
		dlclose(h);
		return r;
	}
	p->handle = h;
	p->ops = ops;
	return 0;
}
