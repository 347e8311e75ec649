/* SPDX-License-Identifier: MIT */
/*
 * devices/: hotness sources. What the daemon uses (vendor plugins see only
 * hb-device.h): checking an ops table, loading plugins from a directory,
 * the table of built-in sources.
 */
#ifndef HB_DEVICES_H
#define HB_DEVICES_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "hb-device.h"
#include "util.h"

/*
 * Refuses an ops table the host must not touch: NULL, another ABI major, a
 * size below v1, no name, missing open/close, poll missing although
 * HB_DEV_CAP_POLL, neither DPA nor HPA, unknown capability bits.
 * origin (a file or "built-in") starts the message in err.
 */
int hb_device_ops_check(const struct hb_device_ops *ops, const char *origin, struct hb_err *err);

struct hb_plugin {
	char path[PATH_MAX];
	void *handle;                      /* dlopen handle */
	const struct hb_device_ops *ops;
};

struct hb_plugin_set {
	struct hb_plugin *v;
	size_t n;
};

/*
 * A directory (or plugin file) is safe when owned by `owner` (root in
 * production) and not group- or world-writable, nor reached through a
 * symlink. Returns 0 or -EPERM/-errno with err naming the path and why.
 */
int hb_plugin_path_check(const char *path, bool want_dir, uid_t owner, struct hb_err *err);

/*
 * dlopens every "*.so" in dir (lexical order). A file that is unsafe, does
 * not load, lacks HB_DEVICE_ENTRY_SYMBOL or returns an ops table that
 * hb_device_ops_check() refuses is skipped, and refused(ud, path, why) is
 * called for it; the others are kept. Fails as a whole (-errno, err) only
 * when dir itself is unsafe or unreadable.
 */
int hb_plugins_load(const char *dir, uid_t owner, struct hb_plugin_set *set,
		    void (*refused)(void *ud, const char *path, const char *why), void *ud,
		    struct hb_err *err);
void hb_plugin_set_done(struct hb_plugin_set *set);

/* Parameters ("key=value") of a source instance (params.c). */
const char *hb_dev_param(const struct hb_dev_info *info, const char *key);
int hb_dev_params_check(const struct hb_dev_info *info, const char *const *allowed,
			struct hb_err *err);
int hb_dev_param_u64(const struct hb_dev_info *info, const char *key, uint64_t def,
		     uint64_t *ret, struct hb_err *err);

/*
 * probe (when the source has one: 0 = not here) and open one instance.
 * A failure is -errno with err naming origin (the plugin file or
 * "built-in"), the source and the instance; nothing is left open.
 */
int hb_source_open(const struct hb_device_ops *ops, const char *origin,
		   const struct hb_host_ops *host, struct hb_host *h,
		   const struct hb_dev_info *info, void **ret_priv, struct hb_err *err);

/*
 * The emulated CHMU's ground truth (every access per unit since enable),
 * for tests and `hotbridge demo` to score what the daemon did. priv is an
 * open emul-chmu instance.
 */
size_t hb_source_emul_truth(void *priv, const uint64_t **ret, uint64_t *ret_unit);

/* Built-in sources, in a fixed table (registry.c). */
size_t hb_builtin_sources(const struct hb_device_ops *const **ret);
const struct hb_device_ops *hb_builtin_find(const char *name);

#endif
