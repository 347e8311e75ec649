// SPDX-License-Identifier: MIT
/*
 * Vendor plugins from a trusted directory: every check (owner, mode,
 * symlink, the [NN-]NAME.so file name, a built-in or duplicate NAME) comes
 * before any dlopen, and only the plugins asked for are opened.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "devices.h"
#include "util/macro.h"

int hb_plugin_path_check(const char *path, bool want_dir, uid_t owner, struct hb_err *err)
{
	return hb_trust_check(path, -1, want_dir ? HB_TRUST_DIR : 0, owner, err);
}

int hb_plugin_file_name(const char *file, char *ret_name, size_t size)
{
	const char *name = file, *end;
	size_t len = strlen(file);

	if (len <= 3 || strcmp(file + len - 3, ".so"))
		return -EINVAL;
	end = file + len - 3;
	/* an optional ordering prefix: digits and a dash */
	if (*name >= '0' && *name <= '9') {
		const char *q = name;

		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == '-')
			name = q + 1;
	}
	len = (size_t)(end - name);
	if (!len || len >= size || len >= HB_PLUGIN_NAME_MAX)
		return -EINVAL;
	if (!((*name >= 'a' && *name <= 'z') || (*name >= '0' && *name <= '9')))
		return -EINVAL;
	for (const char *q = name; q < end; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '-' || *q == '_'))
			return -EINVAL;
	memcpy(ret_name, name, len);
	ret_name[len] = '\0';
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The "*.so" files of dir (not hidden), sorted. */
static int list_dir(const char *dir, char ***ret, size_t *ret_n, struct hb_err *err)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return hb_err_set(err, -errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len <= 3 || strcmp(de->d_name + len - 3, ".so"))
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
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	*ret = names;
	*ret_n = n;
	return 0;
oom:
	closedir(d);
	free_names(names, n);
	return hb_err_set(err, -ENOMEM, "out of memory");
}

static void refuse(void (*refused)(void *, const char *, const char *), void *ud, const char *path,
		   const char *why)
{
	if (refused)
		refused(ud, path, why);
}

int hb_plugins_scan(const char *dir, uid_t owner, struct hb_plugin_set *set,
		    void (*refused)(void *ud, const char *path, const char *why), void *ud,
		    struct hb_err *err)
{
	char **files = NULL;
	bool *dup;
	size_t n = 0;
	int r;

	*set = (struct hb_plugin_set){ 0 };
	r = hb_plugin_path_check(dir, true, owner, err);
	if (r < 0)
		return r;
	r = list_dir(dir, &files, &n, err);
	if (r < 0)
		return r;
	set->v = calloc(n ? n : 1, sizeof(*set->v));
	dup = calloc(n ? n : 1, sizeof(*dup));
	if (!set->v || !dup) {
		free(dup);
		free_names(files, n);
		hb_plugin_set_done(set);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		struct hb_plugin *p = &set->v[set->n];
		struct hb_err why = { 0 };

		*p = (struct hb_plugin){ 0 };
		snprintf(p->path, sizeof(p->path), "%s/%s", dir, files[i]);
		if (hb_plugin_path_check(p->path, false, owner, &why) < 0) {
			refuse(refused, ud, p->path, why.msg);
			continue;
		}
		if (hb_plugin_file_name(files[i], p->name, sizeof(p->name)) < 0) {
			hb_err_set(&why, -EINVAL,
				   "%s: not a plugin file name: want [NN-]NAME.so, NAME of "
				   "a-z, 0-9, '-', '_' (at most %d characters); refusing",
				   p->path, HB_PLUGIN_NAME_MAX - 1);
			refuse(refused, ud, p->path, why.msg);
			continue;
		}
		if (hb_builtin_find(p->name)) {
			hb_err_set(&why, -EEXIST,
				   "%s: source name '%s' is a built-in source's; refusing "
				   "(a plugin never shadows a built-in)",
				   p->path, p->name);
			refuse(refused, ud, p->path, why.msg);
			continue;
		}
		set->n++;
	}
	/* two files with one NAME: neither is taken, each names the other */
	for (size_t i = 0; i < set->n; i++)
		for (size_t j = 0; j < set->n; j++)
			if (i != j && !strcmp(set->v[i].name, set->v[j].name))
				dup[i] = true;
	for (size_t i = 0; i < set->n; i++) {
		struct hb_err why = { 0 };

		if (!dup[i])
			continue;
		for (size_t j = 0; j < set->n; j++)
			if (j != i && !strcmp(set->v[i].name, set->v[j].name)) {
				hb_err_set(&why, -EEXIST,
					   "%s: source name '%s' is also claimed by %s; refusing both",
					   set->v[i].path, set->v[i].name, set->v[j].path);
				break;
			}
		refuse(refused, ud, set->v[i].path, why.msg);
	}
	{
		size_t k = 0;

		for (size_t i = 0; i < set->n; i++)
			if (!dup[i])
				set->v[k++] = set->v[i];
		set->n = k;
	}
	free(dup);
	free_names(files, n);
	return 0;
}

struct trust_refusal {
	const char *path;
	char *why;
	size_t size;
};

static void trust_refused(void *ud, const char *path, const char *why)
{
	struct trust_refusal *t = ud;

	if (!strcmp(path, t->path))
		snprintf(t->why, t->size, "%s", why);
}

int hb_plugin_trust(const char *path, const char *name, uid_t owner, struct hb_err *err)
{
	struct hb_plugin_set set;
	char dir[PATH_MAX], why[HB_ERR_MSG_MAX] = "";
	struct trust_refusal t = { .path = path, .why = why, .size = sizeof(why) };
	const char *slash = strrchr(path, '/');
	bool found = false;
	int r;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return hb_err_set(err, -EINVAL, "%s: not a path in a plugin directory", path);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	/* the very checks of start-up: the directory, every file, the names */
	r = hb_plugins_scan(dir, owner, &set, trust_refused, &t, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < set.n && !found; i++)
		found = !strcmp(set.v[i].path, path) && !strcmp(set.v[i].name, name);
	hb_plugin_set_done(&set);
	if (found)
		return 0;
	if (why[0])
		return hb_err_set(err, -EPERM, "%s", why);
	return hb_err_set(err, -ENOENT, "%s: no longer a plugin of source type '%s' in %s", path,
			  name, dir);
}

static bool wanted(const char *name, const char *const *want)
{
	if (!want)
		return true;
	for (; *want; want++)
		if (!strcmp(*want, name))
			return true;
	return false;
}

int hb_plugins_load(const char *dir, uid_t owner, const char *const *want, int inspect_ms,
		    struct hb_plugin_set *set,
		    void (*refused)(void *ud, const char *path, const char *why), void *ud,
		    struct hb_err *err)
{
	size_t k = 0;
	int r;

	r = hb_plugins_scan(dir, owner, set, refused, ud, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < set->n; i++) {
		struct hb_plugin *p = &set->v[i];
		struct hb_err why = { 0 };

		if (!wanted(p->name, want))
			continue;
		if (inspect_ms > 0) {
			struct hb_plugin_desc desc;

			if (hb_plugin_inspect(p, inspect_ms, &desc, &why) < 0) {
				refuse(refused, ud, p->path, why.msg);
				continue;
			}
		}
		if (hb_plugin_open(p, &why) < 0) {
			refuse(refused, ud, p->path, why.msg);
			continue;
		}
		set->v[k++] = *p;
	}
	set->n = k;
	return 0;
}

void hb_plugin_set_done(struct hb_plugin_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].handle)
			dlclose(set->v[i].handle);
	free(set->v);
	*set = (struct hb_plugin_set){ 0 };
}
