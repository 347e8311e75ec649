// SPDX-License-Identifier: MIT
/*
 * Listening UNIX stream sockets, made and removed in one place: the control
 * socket and the replay source's feed socket both come from here, with the
 * same permissions (HB_UNIX_SOCKET_MODE, set by the umask at bind time, so
 * there is no window with a wider mode; a feed socket may have another mode
 * and a group), the same peers (root and our own uid; and the feed socket's
 * group) and the same rules for what may be removed: only a
 * socket, never a regular file or a symbolic link, never one another
 * process still listens on, and on close only the very socket we bound.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util.h"

int hb_unix_unlink(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	if (unlink(path) < 0)
		return -errno;
	return 0;
}

/* 1 when a process accepts connections on the socket at sa, 0 when nobody does */
static int listened_on(const struct sockaddr_un *sa)
{
	_hb_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		return 1;
	/* EAGAIN: its backlog is full, so somebody is there */
	return errno == EAGAIN || errno == EINPROGRESS ? 1 : 0;
}

int hb_unix_listen(const char *path, int backlog, struct hb_unix_listener *ret, struct hb_err *err)
{
	return hb_unix_listen_as(path, backlog, HB_UNIX_SOCKET_MODE, (gid_t)-1, ret, err);
}

int hb_unix_listen_as(const char *path, int backlog, mode_t mode, gid_t gid,
		      struct hb_unix_listener *ret, struct hb_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_hb_cleanup_close_ int fd = -1;
	struct stat st;
	mode_t old;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return hb_err_set(err, -ENAMETOOLONG,
				  "%s: longer than %zu bytes, too long for a "
				  "UNIX socket",
				  path, sizeof(sa.sun_path) - 1);
	strcpy(sa.sun_path, path);
	r = hb_mkdir_parent(path, 0700);
	if (r < 0)
		return hb_err_set(err, r, "%s: cannot create its directory: %s", path, strerror(-r));
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return hb_err_set(err, -EEXIST,
					  "%s exists and is not a socket (%s); not "
					  "replacing it",
					  path,
					  S_ISLNK(st.st_mode)  ? "a symbolic link" :
					  S_ISREG(st.st_mode)  ? "a regular file" :
					  S_ISDIR(st.st_mode)  ? "a directory" :
					  S_ISFIFO(st.st_mode) ? "a FIFO" :
								 "a device");
		r = listened_on(&sa);
		if (r > 0)
			return hb_err_set(err, -EADDRINUSE, "%s: another process listens on it",
					  path);
		/* a dead listener's socket: replace it */
		r = hb_unix_unlink(path);
		if (r < 0 && r != -ENOENT)
			return hb_err_set(err, r, "%s: cannot remove the stale socket: %s", path,
					  strerror(-r));
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return hb_err_set(err, -errno, "%s: socket: %s", path, strerror(errno));
	/* bind creates the node with 0777 & ~umask: exactly mode, from the start */
	old = umask(~mode & 0777);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	umask(old);
	if (r < 0)
		return hb_err_set(err, r, "%s: %s", path, strerror(-r));
	/* its group before anyone may connect (nobody can until it listens) */
	if (gid != (gid_t)-1 && lchown(path, (uid_t)-1, gid) < 0) {
		r = -errno;
		(void)unlink(path);
		return hb_err_set(err, r, "%s: cannot give it group %u: %s", path, (unsigned)gid,
				  strerror(-r));
	}
	if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		r = errno ? -errno : -EIO;
		return hb_err_set(err, r, "%s: gone right after bind", path);
	}
	if (listen(fd, backlog) < 0) {
		r = -errno;
		(void)unlink(path);
		return hb_err_set(err, r, "%s: listen: %s", path, strerror(-r));
	}
	strcpy(ret->path, path);
	ret->dev = st.st_dev;
	ret->ino = st.st_ino;
	ret->ctime = st.st_ctim;
	ret->fd = HB_TAKE_FD(fd);
	return 0;
}

int hb_unix_accept(const struct hb_unix_listener *l)
{
	int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int hb_unix_peer_check(int fd, uid_t *ret_uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (ret_uid)
		*ret_uid = cred.uid;
	return cred.uid == 0 || cred.uid == geteuid() ? 0 : -EPERM;
}

int hb_unix_peer_check_group(int fd, gid_t gid, uid_t *ret_uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t groups[256];
	int r = hb_unix_peer_check(fd, ret_uid);

	if (r != -EPERM || gid == (gid_t)-1)
		return r;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (cred.gid == gid)
		return 0;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return -EPERM; /* too many to say, or a kernel that cannot: not proven */
	for (size_t i = 0; i < len / sizeof(groups[0]); i++)
		if (groups[i] == gid)
			return 0;
	return -EPERM;
}

void hb_unix_listener_close(struct hb_unix_listener *l)
{
	struct stat st;

	if (!l || l->fd < 0)
		return;
	(void)close(l->fd);
	l->fd = -1;
	/* only the socket we bound: not a successor's, not whatever replaced it */
	if (lstat(l->path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == l->dev &&
	    st.st_ino == l->ino && st.st_ctim.tv_sec == l->ctime.tv_sec &&
	    st.st_ctim.tv_nsec == l->ctime.tv_nsec)
		(void)unlink(l->path);
}
