// SPDX-License-Identifier: MIT
/*
 * Whether a file may steer the daemon: plugins and configuration files pass
 * the same owner and mode checks (util.h, "trusted paths").
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

static bool owner_ok(uid_t uid, uid_t owner, unsigned flags)
{
	return uid == owner || ((flags & HB_TRUST_ROOT) && uid == 0);
}

int hb_trust_stat(const char *path, const struct stat *st, unsigned flags, uid_t owner,
		  struct hb_err *err)
{
	bool want_dir = flags & HB_TRUST_DIR;

	if (S_ISLNK(st->st_mode))
		return hb_err_set(err, -EPERM, "%s: is a symlink; refusing to follow it", path);
	if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return hb_err_set(err, -EPERM, "%s: not a %s", path,
				  want_dir ? "directory" : "regular file");
	if (!owner_ok(st->st_uid, owner, flags)) {
		if ((flags & HB_TRUST_ROOT) && owner)
			return hb_err_set(err, -EPERM,
					  "%s: owned by uid %u, not root or %u; refusing", path,
					  (unsigned)st->st_uid, (unsigned)owner);
		return hb_err_set(err, -EPERM, "%s: owned by uid %u, not %u; refusing", path,
				  (unsigned)st->st_uid, (unsigned)owner);
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return hb_err_set(err, -EPERM, "%s: group- or world-writable (mode %04o); refusing",
				  path, (unsigned)(st->st_mode & 07777));
	return 0;
}

int hb_trust_check(const char *path, int fd, unsigned flags, uid_t owner, struct hb_err *err)
{
	struct stat st;

	if ((fd >= 0 ? fstat(fd, &st) : lstat(path, &st)) < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	return hb_trust_stat(path, &st, flags, owner, err);
}

int hb_trust_parent(const char *path, unsigned flags, uid_t owner, struct hb_err *err)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return hb_err_set(err, -ENAMETOOLONG, "%s: path too long", path);
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	/* the directory itself may be reached through a symlink (/etc/x -> ...):
	 * what counts is the directory the name resolves to */
	if (stat(dir, &st) < 0)
		return hb_err_set(err, -errno, "%s: %s", dir, strerror(errno));
	return hb_trust_stat(dir, &st, flags | HB_TRUST_DIR, owner, err);
}
