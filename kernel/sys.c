// SPDX-License-Identifier: MIT
/*
 * The system-call seam. Nothing else in hotbridge enters the kernel for
 * migration; unit tests replace these functions with -Wl,--wrap.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"

long hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages, const int *nodes,
			    int *status, int flags)
{
	long r = syscall(nr, count, pages, nodes, status, flags);

	return r < 0 ? -errno : r;
}

long hb_sys_move_pages(pid_t pid, unsigned long count, void **pages, const int *nodes, int *status,
		       int flags)
{
	long r = syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);

	return r < 0 ? -errno : r;
}

int hb_sys_damon_write(const char *root, const char *path, const char *value)
{
	char p[PATH_MAX];
	size_t len = strlen(value);
	ssize_t w;
	int fd, r = 0;

	if (snprintf(p, sizeof(p), "%s%s", root ? root : "", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	fd = open(p, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	w = write(fd, value, len);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}
