// SPDX-License-Identifier: MIT
/*
 * The paths the daemon writes, checked by one function (conf-check.h,
 * hb_config_check_paths()): what is at each, the directory it is in, and
 * that it is none of the daemon's other paths (newuser r5 E19, E20, E7).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf-check.h"
#include "conf/conf-keys.h"
#include "devices.h"

#define MAX_PATHS (HB_MAX_SOURCES * 2 + 8)

struct hb_path {
	char what[HB_CONF_WHERE_MAX + 96]; /* "daemon.metrics_textfile", "file:1: [source f]: state" */
	char path[PATH_MAX];
	char parent[PATH_MAX];
	/* dir: a directory whose files are the daemon's; dir_there: parent is one */
	bool written, socket, feed_socket, dir, dir_there;
	char canon[PATH_MAX * 2]; /* realpath(dirname)/basename, or the path */
	struct stat st;           /* lstat: st_ino 0 when there is nothing */
};

struct hb_paths {
	struct hb_path v[MAX_PATHS];
	size_t n;
};

static struct hb_path *add(struct hb_paths *p, const char *path, bool written, const char *fmt,
			   const char *a, const char *b)
{
	struct hb_path *e;

	if (!path || !path[0] || p->n == MAX_PATHS)
		return NULL;
	e = &p->v[p->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->what, sizeof(e->what), fmt, a, b);
	snprintf(e->path, sizeof(e->path), "%s", path);
	e->written = written;
	return e;
}

/* the name as realpath(its directory)/its last component: ./x, a/../x and x meet */
static void canon(struct hb_path *e)
{
	const char *slash = strrchr(e->path, '/'), *base = slash ? slash + 1 : e->path;
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat dst;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == e->path ? 1 : (int)(slash - e->path),
			 e->path);
	e->dir_there = stat(dir, &dst) == 0 && S_ISDIR(dst.st_mode);
	snprintf(e->parent, sizeof(e->parent), "%s", dir);
	if (!realpath(dir, real)) {
		snprintf(e->canon, sizeof(e->canon), "%s", e->path);
		return;
	}
	snprintf(e->canon, sizeof(e->canon), "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
	if (lstat(e->path, &e->st) < 0)
		memset(&e->st, 0, sizeof(e->st));
}

static const char *kind(mode_t m)
{
	return S_ISDIR(m)  ? "a directory" :
	       S_ISCHR(m)  ? "a character device" :
	       S_ISBLK(m)  ? "a block device" :
	       S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" :
			     "not a regular file";
}

static bool same(const struct hb_path *a, const struct hb_path *b)
{
	if (!strcmp(a->canon, b->canon))
		return true;
	/* a hard link, or a symlink the daemon would read through */
	return a->st.st_ino && b->st.st_ino && !S_ISLNK(a->st.st_mode) &&
	       a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino;
}

/* path inside the directory d (the drop-ins') */
static bool inside(const struct hb_path *e, const struct hb_path *d)
{
	size_t len = strlen(d->canon);

	return !strncmp(e->canon, d->canon, len) && e->canon[len] == '/';
}

static int check_one(const struct hb_paths *p, size_t i, struct hb_err *err)
{
	const struct hb_path *e = &p->v[i];
	struct hb_err why = { 0 };

	if (e->path[0] != '/')
		return hb_err_set(err, -EINVAL,
				  "%s=%s: not an absolute path (a file the daemon "
				  "writes is named from /)",
				  e->what, e->path);
	if (e->path[strlen(e->path) - 1] == '/')
		return hb_err_set(err, -EINVAL, "%s=%s: names a directory, not a file", e->what,
				  e->path);
	/* a socket's path: what is there now is the socket's own check (at bind) */
	if (!e->socket && e->st.st_ino && !S_ISREG(e->st.st_mode) && !S_ISLNK(e->st.st_mode))
		return hb_err_set(err, -EINVAL,
				  "%s=%s: names %s, not a file: the daemon would replace it",
				  e->what, e->path, kind(e->st.st_mode));
	/* no directory there (yet): said where the file is made */
	if (e->dir_there && hb_trust_parent(e->path, HB_TRUST_ROOT, geteuid(), &why) < 0)
		return hb_err_set(err, why.code,
				  "%s=%s: %s (a file the daemon writes, as its control socket, "
				  "only where others cannot write)",
				  e->what, e->path, why.msg);
	for (size_t j = 0; j < p->n; j++) {
		const struct hb_path *o = &p->v[j];

		/* two sources on one socket: check_inputs() names them both */
		if (j == i || (j > i && o->written) || (e->feed_socket && o->feed_socket))
			continue; /* two written paths: said once, by the later */
		if (o->dir ? inside(e, o) : same(e, o))
			return hb_err_set(err, -EINVAL,
					  "%s=%s: is %s%s: the daemon would replace it; give it "
					  "a name of its own",
					  e->what, e->path, o->dir ? "in " : "", o->what);
	}
	/*
	 * a file made by rename or bind needs its directory writable: a
	 * read-only one (ProtectSystem=strict outside ReadWritePaths=) would
	 * fail each write while the daemon runs on (newuser r5 E11, E10)
	 */
	if (e->dir_there && access(e->parent, W_OK | X_OK) < 0)
		return hb_err_set(err, -errno,
				  "%s=%s: its directory %s is not writable: %s (under the unit "
				  "only /run/hotbridge, /var/lib/hotbridge and the unit's "
				  "ReadWritePaths= are)",
				  e->what, e->path, e->parent, strerror(errno));
	return 0;
}

int hb_config_check_paths(const struct hb_config *c, const char *config_path, struct hb_err *err)
{
	struct hb_paths *p = calloc(1, sizeof(*p));
	char dropins[PATH_MAX];
	struct hb_path *e;
	int r = 0;

	if (!p)
		return hb_err_set(err, -ENOMEM, "out of memory");
	/* what it reads: its configuration, topology input, feeds */
	if (config_path) {
		add(p, config_path, false, "the configuration file %s%s", config_path, "");
		snprintf(dropins, sizeof(dropins), "%s.d", config_path);
		if ((e = add(p, dropins, false, "the drop-in directory %s%s", dropins, "")))
			e->dir = true;
	}
	add(p, c->topology, false, "[topology] snapshot %s%s", c->topology, "");
	add(p, c->cedt, false, "[topology] cedt %s%s", c->cedt, "");
	for (size_t i = 0; i < c->nsources; i++) {
		const struct hb_source_config *s = &c->sources[i];
		struct hb_dev_info info;

		hb_source_info(s, &info);
		if (strcmp(s->type, "replay"))
			continue;
		add(p, hb_dev_param(&info, "path"), false, "[source %s]'s feed (path=)%s", s->name,
		    "");
	}
	/* what it writes */
	if ((e = add(p, c->control_socket, true, "daemon.control_socket%s%s", "", "")))
		e->socket = true;
	if (c->control_socket[0]) {
		char lock[sizeof(c->control_socket) + 8];

		snprintf(lock, sizeof(lock), "%s.lock", c->control_socket);
		add(p, lock, true, "daemon.control_socket's lock%s%s", "", "");
	}
	add(p, c->metrics_textfile, true, "daemon.metrics_textfile%s%s", "", "");
	add(p, c->damon_state, true, "migrate.damon_state%s%s", "", "");
	add(p, c->pause_state, true, "daemon.pause_state%s%s", "", "");
	for (size_t i = 0; i < c->nsources; i++) {
		const struct hb_source_config *s = &c->sources[i];
		struct hb_dev_info info;

		hb_source_info(s, &info);
		if (strcmp(s->type, "replay"))
			continue;
		add(p, hb_dev_param(&info, "state"), true, "%s: [source %s]: state", s->where,
		    s->name);
		if ((e = add(p, hb_dev_param(&info, "socket"), true, "%s: [source %s]: socket",
			     s->where, s->name)))
			e->socket = e->feed_socket = true;
	}
	for (size_t i = 0; i < p->n; i++)
		canon(&p->v[i]);
	for (size_t i = 0; i < p->n && !r; i++)
		if (p->v[i].written)
			r = check_one(p, i, err);
	free(p);
	/* a key's error names where it was set */
	return hb_config_err_where(c, err, r);
}

void hb_config_remove_temporaries(const struct hb_config *c, void (*said)(const char *path, int n))
{
	const char *paths[HB_MAX_SOURCES + 2] = { c->metrics_textfile, c->damon_state };
	size_t n = 2;

	for (size_t i = 0; i < c->nsources; i++) {
		const struct hb_source_config *s = &c->sources[i];
		struct hb_dev_info info;

		hb_source_info(s, &info);
		if (!strcmp(s->type, "replay") && hb_dev_param(&info, "state"))
			paths[n++] = hb_dev_param(&info, "state");
	}
	for (size_t i = 0; i < n; i++) {
		int r = paths[i][0] ? hb_remove_temporaries(paths[i]) : 0;

		if (r > 0 && said)
			said(paths[i], r);
	}
}
