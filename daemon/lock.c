// SPDX-License-Identifier: MIT
/*
 * A PID lock file: one process at a time holds an exclusive flock() on it,
 * and it holds that process's PID for the one that is refused. The lock is
 * the flock, not the file: the file stays behind when its holder exits, and
 * its stale PID means nothing while nobody holds the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lock.h"

/* The PID written by the holder; 0 when there is none (yet) or it is garbage. */
static pid_t read_holder(int fd)
{
	char buf[32];
	ssize_t n;
	int pid;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (hb_parse_int(buf, &pid) < 0 || pid <= 0)
		return 0;
	return (pid_t)pid;
}

int hb_pid_lock_take(const char *path, int *ret_fd, pid_t *ret_holder, struct hb_err *err)
{
	_hb_cleanup_close_ int fd = -1;
	char pid[32];
	struct stat st;
	int len, r;

	r = hb_mkdir_parent(path, 0700);
	if (r < 0)
		return hb_err_set(err, r, "%s: cannot create its directory: %s", path, strerror(-r));
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP)
			return hb_err_set(err, r,
					  "%s is a symbolic link; refusing to use it as a "
					  "lock file",
					  path);
		return hb_err_set(err, r, "%s: %s", path, strerror(-r));
	}
	if (fstat(fd, &st) < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return hb_err_set(err, -EINVAL,
				  "%s is not a regular file; refusing to use it as "
				  "a lock file",
				  path);
	if (st.st_uid != geteuid())
		return hb_err_set(err, -EPERM,
				  "%s is owned by uid %u, not by us (uid %u); "
				  "refusing to use it as a lock file",
				  path, (unsigned)st.st_uid, (unsigned)geteuid());
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		if (r == -EWOULDBLOCK) {
			pid_t holder = read_holder(fd);

			if (ret_holder)
				*ret_holder = holder;
			if (holder)
				return hb_err_set(err, r, "%s is held by pid %d", path, (int)holder);
			return hb_err_set(err, r, "%s is held by another process", path);
		}
		return hb_err_set(err, r, "%s: cannot lock it: %s", path, strerror(-r));
	}
	len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len)
		return hb_err_set(err, -errno, "%s: cannot write our PID: %s", path, strerror(errno));
	*ret_fd = HB_TAKE_FD(fd);
	return 0;
}

int hb_pid_lock_release(int fd)
{
	if (fd >= 0)
		(void)close(fd); /* closing the last descriptor drops the flock */
	return -1;
}
