// SPDX-License-Identifier: MIT
/* Loading vendor plugins from a trusted directory. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "devices.h"
#include "macro.h"

int hb_plugin_path_check(const char *path, bool want_dir, uid_t owner, struct hb_err *err)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return hb_err_set(err, -EPERM, "%s: is a symlink; refusing to follow it", path);
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return hb_err_set(err, -EPERM, "%s: not a %s", path,
				  want_dir ? "directory" : "regular file");
	if (st.st_uid != owner)
		return hb_err_set(err, -EPERM, "%s: owned by uid %u, not %u; refusing", path,
				  (unsigned)st.st_uid, (unsigned)owner);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return hb_err_set(err, -EPERM, "%s: group- or world-writable (mode %04o); refusing",
				  path, (unsigned)(st.st_mode & 07777));
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_plugin_name(const char *n)
{
	size_t len = strlen(n);

	return n[0] != '.' && len > 3 && !strcmp(n + len - 3, ".so");
}

static int load_one(const char *path, uid_t owner, struct hb_plugin *p, struct hb_err *err)
{
	const struct hb_device_ops *(*entry)(void);
	void *h;
	int r;

	r = hb_plugin_path_check(path, false, owner, err);
	if (r < 0)
		return r;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return hb_err_set(err, -ELIBBAD, "%s: %s", path, dlerror());
	*(void **)&entry = dlsym(h, HB_DEVICE_ENTRY_SYMBOL);
	if (!entry) {
		dlclose(h);
		return hb_err_set(err, -ENOSYS, "%s: no %s() entry point", path,
				  HB_DEVICE_ENTRY_SYMBOL);
	}
	r = hb_device_ops_check(entry(), path, err);
	if (r < 0) {
		dlclose(h);
		return r;
	}
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->handle = h;
	p->ops = entry();
	return 0;
}

int hb_plugins_load(const char *dir, uid_t owner, struct hb_plugin_set *set,
		    void (*refused)(void *ud, const char *path, const char *why), void *ud,
		    struct hb_err *err)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int r;

	*set = (struct hb_plugin_set){ 0 };
	r = hb_plugin_path_check(dir, true, owner, err);
	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d)
		return hb_err_set(err, -errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!is_plugin_name(de->d_name))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 8) * sizeof(*names));

			if (!nn)
				goto oom;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto oom;
		n++;
	}
	closedir(d);
	d = NULL;
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	set->v = calloc(n ? n : 1, sizeof(*set->v));
	if (!set->v)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		struct hb_err why = { 0 };
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (load_one(path, owner, &set->v[set->n], &why) < 0) {
			if (refused)
				refused(ud, path, why.msg);
			continue;
		}
		set->n++;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return 0;
oom:
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	hb_plugin_set_done(set);
	return hb_err_set(err, -ENOMEM, "out of memory");
}

void hb_plugin_set_done(struct hb_plugin_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].handle)
			dlclose(set->v[i].handle);
	free(set->v);
	*set = (struct hb_plugin_set){ 0 };
}
