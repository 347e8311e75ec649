// SPDX-License-Identifier: MIT
/*
 * Creating files the daemon owns, without following anything an attacker
 * may have planted: the parent directory, and whole files written
 * atomically (a fresh temporary beside the target, then rename).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int hb_mkdir_parent(const char *path, mode_t mode)
{
	char dir[PATH_MAX];
	char *slash;
	int n;

	n = snprintf(dir, sizeof(dir), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* dir and base of path: "a/b/c" -> "a/b", "c"; "c" -> ".", "c" */
static int split(const char *path, char *dir, size_t dir_size, const char **ret_base)
{
	const char *slash = strrchr(path, '/');
	size_t len;

	if (!slash) {
		snprintf(dir, dir_size, ".");
		*ret_base = path;
	} else {
		len = slash == path ? 1 : (size_t)(slash - path);
		if (len >= dir_size)
			return -ENAMETOOLONG;
		memcpy(dir, path, len);
		dir[len] = '\0';
		*ret_base = slash + 1;
	}
	if (!**ret_base || !strcmp(*ret_base, ".") || !strcmp(*ret_base, ".."))
		return -EISDIR;
	return 0;
}

/* A fresh, exclusive temporary ".BASE.XXXXXXXX" in dirfd; never follows a link. */
static int open_temporary(int dirfd, const char *base, char *name, size_t name_size)
{
	for (int attempt = 0; attempt < 16; attempt++) {
		uint32_t rnd;
		int n, fd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (uint32_t)getpid() * 2654435761u + (uint32_t)attempt;
		n = snprintf(name, name_size, ".%s.%08x", base, rnd);
		if (n < 0 || (size_t)n >= name_size)
			return -ENAMETOOLONG;
		fd = openat(dirfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int hb_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	_hb_cleanup_close_ int dirfd = -1, fd = -1;
	char dir[PATH_MAX], tmp[NAME_MAX + 1];
	const char *base;
	int r;

	r = split(path, dir, sizeof(dir), &base);
	if (r < 0)
		return r;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	fd = open_temporary(dirfd, base, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	r = write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && close(HB_TAKE_FD(fd)) < 0)
		r = -errno;
	/* rename replaces whatever is at path, a symbolic link included: it never follows it */
	if (r == 0 && renameat(dirfd, tmp, dirfd, base) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	if (fsync(dirfd) < 0)
		return -errno;
	return 0;
}

/* ".BASE.XXXXXXXX", eight lowercase hex digits: a name open_temporary() gives */
static bool is_temporary(const char *name, const char *base)
{
	size_t len = strlen(base);

	if (name[0] != '.' || strncmp(name + 1, base, len) || name[len + 1] != '.' ||
	    strlen(name + len + 2) != 8)
		return false;
	for (const char *c = name + len + 2; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return false;
	return true;
}

int hb_remove_temporaries(const char *path)
{
	_hb_cleanup_close_ int fd = -1;
	char dir[PATH_MAX];
	const char *base;
	struct dirent *e;
	DIR *d;
	int r, n = 0;

	r = split(path, dir, sizeof(dir), &base);
	if (r < 0)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d)
		return -errno;
	fd = -1; /* the DIR has it */
	while ((e = readdir(d))) {
		struct stat st;

		if (!is_temporary(e->d_name, base) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	return n;
}
