// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/*
 * A file read whole is opened O_NONBLOCK, so a FIFO planted at its name
 * never blocks the open (newuser r5 E22), and read only when it is a
 * regular file: -EISDIR for a directory, -EINVAL for anything else
 * (hb_read_file_strerror()); the flag is cleared for the reads.
 */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), flags, r = 0;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

const char *hb_read_file_strerror(int r)
{
	return r == -EINVAL ? "not a regular file (a FIFO, device or socket is never read)" :
			      strerror(-r);
}

static int join(const char *root, const char *path, char *buf, size_t size)
{
	int n;

	n = snprintf(buf, size, "%s%s", root ? root : "", path);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int hb_read_text(const char *root, const char *path, char *buf, size_t size)
{
	_hb_cleanup_close_ int fd = -1;
	char full[PATH_MAX];
	ssize_t n;
	int r;

	if (size == 0)
		return -EINVAL;
	r = join(root, path, full, sizeof(full));
	if (r < 0)
		return r;
	fd = open_regular(full);
	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int hb_read_u64(const char *root, const char *path, int base, uint64_t *ret)
{
	char buf[64];
	int r;

	r = hb_read_text(root, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return hb_parse_u64_base(buf, base, ret);
}

int hb_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len)
{
	_hb_cleanup_close_ int fd = -1;
	_hb_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 4096;

	fd = open_regular(path);
	if (fd < 0)
		return fd;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap >= max)
				return -EFBIG;
			cap = cap * 2 > max ? max : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_buf = HB_TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}
