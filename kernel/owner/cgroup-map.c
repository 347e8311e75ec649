// SPDX-License-Identifier: MIT
/*
 * cgroup v2 inode -> path (kernel.h "page owners"): the directories under
 * root/sys/fs/cgroup by inode number, sorted for a binary search, read
 * again when an inode is not found (at most once per HB_CGROUP_RESCAN_NS),
 * at most max of them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "util/macro.h"

#define MAX_DEPTH 32 /* cgroup levels walked at most */

struct entry {
	uint64_t ino;
	char *path; /* "/" or "/a/b", relative to the cgroup v2 mount */
};

struct hb_cgroup_map {
	char mount[PATH_MAX / 2]; /* root/sys/fs/cgroup */
	size_t max;
	struct entry *e;
	size_t n;
	bool scanned;
	uint64_t last_scan_ns;
	struct hb_cgroup_map_stats stats;
};

static void entries_free(struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

struct hb_cgroup_map *hb_cgroup_map_free(struct hb_cgroup_map *m)
{
	if (!m)
		return NULL;
	entries_free(m->e, m->n);
	free(m);
	return NULL;
}

int hb_cgroup_v2_mount(const char *root, char *buf, size_t size, struct hb_err *err)
{
	char p[PATH_MAX];

	if (snprintf(buf, size, "%s/sys/fs/cgroup", root ? root : "") >= (int)size)
		return hb_err_set(err, -ENAMETOOLONG, "cgroups: root %s: too long", root);
	char ctl[512], *save = NULL;
	int r;

	snprintf(p, sizeof(p), "%s/cgroup.controllers", buf);
	r = hb_read_text(NULL, p, ctl, sizeof(ctl));
	if (r == -ENOENT)
		return hb_err_set(err, -EOPNOTSUPP,
				  "cgroups: %s has no cgroup.controllers: not a cgroup v2 (unified) "
				  "hierarchy (a cgroup v1 or hybrid host)",
				  buf);
	if (r < 0)
		return hb_err_set(err, r, "cgroups: %s: %s", p, strerror(-r));
	/*
	 * Without the memory controller on the v2 hierarchy, /proc/kpagecgroup
	 * names a v1 memcg's inode (or 0 for every page, cgroup_disable=memory):
	 * owners matched against this tree would be wrong, not merely unknown.
	 */
	for (char *w = strtok_r(ctl, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (!strcmp(w, "memory"))
			return 0;
	return hb_err_set(err, -EOPNOTSUPP,
			  "cgroups: %s lists no memory controller (bound to cgroup v1, or "
			  "cgroup_disable=memory): /proc/kpagecgroup would name no owner in this "
			  "hierarchy",
			  p);
}

struct walk {
	struct entry *e;
	size_t n, cap, max;
	uint64_t dropped;
};

static int add(struct walk *w, uint64_t ino, const char *rel)
{
	char *p;

	if (w->n == w->max) {
		w->dropped++;
		return 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct entry *e = realloc(w->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		w->e = e;
		w->cap = cap;
	}
	if (!(p = strdup(*rel ? rel : "/")))
		return -ENOMEM;
	w->e[w->n++] = (struct entry){ .ino = ino, .path = p };
	return 0;
}

/* the cgroups below mount+rel (rel "" or "/a/b"), depth levels deep already */
static int walk_dir(struct walk *w, const char *mount, char *rel, size_t rel_size, int depth)
{
	_hb_cleanup_closedir_ DIR *d = NULL;
	char path[PATH_MAX];
	size_t len = strlen(rel);
	struct dirent *de;
	int r;

	snprintf(path, sizeof(path), "%s%s", mount, rel);
	if (!(d = opendir(path)))
		/* removed while we walked: not an error */
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (len + 1 + strlen(de->d_name) >= rel_size) {
			w->dropped++;
			continue;
		}
		snprintf(rel + len, rel_size - len, "/%s", de->d_name);
		if ((r = add(w, st.st_ino, rel)) < 0)
			return r;
		if (depth + 1 < MAX_DEPTH && (r = walk_dir(w, mount, rel, rel_size, depth + 1)) < 0)
			return r;
		rel[len] = '\0';
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	uint64_t x = ((const struct entry *)a)->ino, y = ((const struct entry *)b)->ino;

	return x < y ? -1 : x > y;
}

int hb_cgroup_map_rescan(struct hb_cgroup_map *m, uint64_t now_ns, struct hb_err *err)
{
	struct walk w = { .max = m->max };
	char rel[PATH_MAX / 2] = "";
	struct stat st;
	int r;

	if (stat(m->mount, &st) < 0)
		return hb_err_set(err, -errno, "cgroups: %s: %s", m->mount, strerror(errno));
	r = add(&w, st.st_ino, "");
	if (r == 0)
		r = walk_dir(&w, m->mount, rel, sizeof(rel), 0);
	if (r < 0) {
		entries_free(w.e, w.n);
		return hb_err_set(err, r, "cgroups: reading %s: %s", m->mount, strerror(-r));
	}
	qsort(w.e, w.n, sizeof(*w.e), cmp_entry);
	entries_free(m->e, m->n);
	m->e = w.e;
	m->n = w.n;
	m->scanned = true;
	m->last_scan_ns = now_ns;
	m->stats.entries = w.n;
	m->stats.dropped = w.dropped;
	m->stats.rescans++;
	return 0;
}

int hb_cgroup_map_refresh(struct hb_cgroup_map *m, uint64_t now_ns, struct hb_err *err)
{
	if (m->scanned && now_ns - m->last_scan_ns < HB_CGROUP_RESCAN_NS)
		return 0;
	return hb_cgroup_map_rescan(m, now_ns, err);
}

int hb_cgroup_map_new(const char *root, size_t max, struct hb_cgroup_map **ret, struct hb_err *err)
{
	_hb_cleanup_(hb_cgroup_map_freep) struct hb_cgroup_map *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return hb_err_set(err, -ENOMEM, "out of memory");
	if (!max)
		return hb_err_set(err, -EINVAL, "cgroups: a map of no entries");
	m->max = max;
	if ((r = hb_cgroup_v2_mount(root, m->mount, sizeof(m->mount), err)) < 0)
		return r;
	*ret = HB_TAKE_PTR(m);
	return 0;
}

static const struct entry *find(const struct hb_cgroup_map *m, uint64_t ino)
{
	const struct entry key = { .ino = ino };

	return m->n ? bsearch(&key, m->e, m->n, sizeof(*m->e), cmp_entry) : NULL;
}

int hb_cgroup_map_path(struct hb_cgroup_map *m, uint64_t ino, uint64_t now_ns, const char **ret_path)
{
	const struct entry *e = find(m, ino);
	int r;

	if (!e) {
		m->stats.misses++;
		if (m->scanned && now_ns - m->last_scan_ns < HB_CGROUP_RESCAN_NS)
			return -ENOENT;
		if ((r = hb_cgroup_map_rescan(m, now_ns, NULL)) < 0)
			return r;
		if (!(e = find(m, ino)))
			return -ENOENT;
	}
	*ret_path = e->path;
	return 0;
}

size_t hb_cgroup_map_count(const struct hb_cgroup_map *m,
			   bool (*match)(const char *pattern, const char *path), const char *pattern)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		n += match(pattern, m->e[i].path);
	return n;
}

size_t hb_cgroup_map_len(const struct hb_cgroup_map *m)
{
	return m->n;
}

const char *hb_cgroup_map_path_at(const struct hb_cgroup_map *m, size_t i)
{
	return m->e[i].path;
}

const struct hb_cgroup_map_stats *hb_cgroup_map_stats(const struct hb_cgroup_map *m)
{
	return &m->stats;
}
