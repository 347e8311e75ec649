// SPDX-License-Identifier: MIT
/*
 * damon: what a batch checks outside DAMON. The target node's free memory
 * against its watermarks (/proc/zoneinfo), the static node of a PFN (its
 * memory block in /sys/devices/system/memory) and /proc/kpageflags.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damon.h"
#include "macro.h"

#define ZONEINFO_MAX (4u << 20)

static void fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}

int hb_damon_node_headroom(const char *root, int node, uint64_t *ret_pages)
{
	_hb_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], line[256];
	uint64_t headroom = 0, free_pages = 0;
	bool in_node = false, have_free = false, seen = false;
	int cur = -1;

	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root ? root : "");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/*
	 * Per zone: "Node N, zone NAME", then "  pages free X", then "min",
	 * "low", "high" (the per-cpu pagesets' "high:" has a colon).
	 */
	while (fgets(line, sizeof(line), f)) {
		char word[32], zone[32];
		unsigned long long v;

		if (sscanf(line, "Node %d, zone %31s", &cur, zone) == 2) {
			in_node = cur == node;
			have_free = false;
			seen |= in_node;
			continue;
		}
		if (!in_node)
			continue;
		if (sscanf(line, " pages free %llu", &v) == 1) {
			free_pages = v;
			have_free = true;
		} else if (have_free && sscanf(line, " %31s %llu", word, &v) == 2 &&
			   !strcmp(word, "high")) {
			if (free_pages > v)
				headroom += free_pages - v;
			have_free = false;
		}
	}
	if (!seen)
		return -ENOENT;
	*ret_pages = headroom;
	return 0;
}

static int block_node(const char *root, uint64_t block)
{
	char path[PATH_MAX], online[16];
	DIR *d;
	struct dirent *e;
	int node = -EFAULT, r;

	snprintf(path, sizeof(path), "/sys/devices/system/memory/memory%llu/online",
		 (unsigned long long)block);
	r = hb_read_text(root, path, online, sizeof(online));
	if (r < 0 || strcmp(online, "1"))
		return -EFAULT;
	snprintf(path, sizeof(path), "%s/sys/devices/system/memory/memory%llu", root ? root : "",
		 (unsigned long long)block);
	d = opendir(path);
	if (!d)
		return -EFAULT;
	while ((e = readdir(d))) {
		int n;

		if (!strncmp(e->d_name, "node", 4) && hb_parse_int(e->d_name + 4, &n) == 0 &&
		    n >= 0) {
			node = n;
			break;
		}
	}
	closedir(d);
	return node;
}

int hb_damon_pfn_node(const char *root, struct hb_damon_block_cache *c, uint64_t pfn,
		      uint64_t page_size)
{
	uint64_t block;

	if (!c->block_bytes) {
		int r = hb_read_u64(root, "/sys/devices/system/memory/block_size_bytes", 16,
				    &c->block_bytes);

		if (r < 0 || !c->block_bytes) {
			c->block_bytes = 0;
			return r < 0 ? r : -EINVAL;
		}
	}
	block = pfn * page_size / c->block_bytes;
	if (c->block != block + 1) {
		c->block = block + 1;
		c->node = block_node(root, block);
	}
	return c->node;
}

int hb_damon_kpageflags(const char *root, size_t n, const uint64_t *pfn, uint64_t *ret)
{
	_hb_cleanup_close_ int fd = -1;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/kpageflags", root ? root : "");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		ssize_t r = pread(fd, &ret[i], sizeof(ret[i]), (off_t)(pfn[i] * sizeof(uint64_t)));

		if (r < 0)
			return -errno;
		if (r != sizeof(ret[i]))
			return -EIO;
	}
	return 0;
}
