// SPDX-License-Identifier: MIT
/*
 * The memory cgroup of page frames (kernel.h "page owners"): /proc/kpagecgroup,
 * one u64 a PFN, the inode of the cgroup whose memcg the page is charged to
 * (fs/proc/page.c, page_cgroup_ino() in mm/memcontrol.c), 0 for none.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "util/macro.h"

struct hb_kpagecgroup {
	char path[PATH_MAX];
	int fd;
};

int hb_kpagecgroup_open(const char *root, struct hb_kpagecgroup **ret, struct hb_err *err)
{
	_hb_cleanup_(hb_kpagecgroup_freep) struct hb_kpagecgroup *k = calloc(1, sizeof(*k));
	int r;

	if (!k)
		return hb_err_set(err, -ENOMEM, "out of memory");
	k->fd = -1;
	if (snprintf(k->path, sizeof(k->path), "%s/proc/kpagecgroup", root ? root : "") >=
	    (int)sizeof(k->path))
		return hb_err_set(err, -ENAMETOOLONG, "page owners: root %s: too long", root);
	k->fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0) {
		r = -errno;
		return hb_err_set(err, r, "page owners: cannot open %s: %s%s", k->path, strerror(-r),
				  r == -ENOENT ? " (a kernel without CONFIG_MEMCG has none)" :
				  r == -EACCES || r == -EPERM ?
						 " (mode 0400, owned by root: needs root)" :
						 "");
	}
	*ret = HB_TAKE_PTR(k);
	return 0;
}

struct hb_kpagecgroup *hb_kpagecgroup_free(struct hb_kpagecgroup *k)
{
	if (!k)
		return NULL;
	if (k->fd >= 0)
		(void)close(k->fd);
	free(k);
	return NULL;
}

int hb_kpagecgroup_read(struct hb_kpagecgroup *k, uint64_t pfn, size_t n, uint64_t *ret_ino,
			struct hb_err *err)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(k->fd, ret_ino + done, (n - done) * sizeof(uint64_t),
				  (off_t)((pfn + done) * sizeof(uint64_t)));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || r % sizeof(uint64_t))
			return hb_err_set(err, r < 0 ? -errno : -EIO,
					  "page owners: %s at PFN 0x%llx: %s", k->path,
					  (unsigned long long)(pfn + done),
					  r < 0 ? strerror(errno) : "short read");
		done += (size_t)r / sizeof(uint64_t);
	}
	return 0;
}
