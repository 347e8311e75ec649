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
#include "util/macro.h"

#define ZONEINFO_MAX (4u << 20)

static void fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}

struct zone_acc {
	bool have_free, have_high;
	uint64_t free_pages, high, reserve;
};

/* free - (high + lowmem reserve) of the zone just read, if positive */
static uint64_t zone_room(struct zone_acc *z)
{
	uint64_t bar = z->high + z->reserve, room = 0;

	if (z->have_free && z->have_high && z->free_pages > bar)
		room = z->free_pages - bar;
	*z = (struct zone_acc){ 0 };
	return room;
}

int hb_damon_node_headroom(const char *root, int node, uint64_t *ret_pages)
{
	_hb_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], line[256];
	struct zone_acc z = { 0 };
	uint64_t headroom = 0;
	bool in_node = false, seen = false;
	int cur = -1;

	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root ? root : "");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/*
	 * Per zone: "Node N, zone NAME", "  pages free X", "min", "low",
	 * "high" (the per-cpu pagesets' "high:" has a colon), then
	 * "protection: (a, b, ...)": the lowmem reserve an allocation that
	 * may use a higher zone must leave in this one. A migration target
	 * page is movable, so the largest reserve applies.
	 */
	while (fgets(line, sizeof(line), f)) {
		char word[32], zone[32];
		unsigned long long v;

		if (sscanf(line, "Node %d, zone %31s", &cur, zone) == 2) {
			if (in_node)
				headroom += zone_room(&z);
			in_node = cur == node;
			seen |= in_node;
			continue;
		}
		if (!in_node)
			continue;
		if (sscanf(line, " pages free %llu", &v) == 1) {
			z.free_pages = v;
			z.have_free = true;
		} else if (z.have_free && !z.have_high &&
			   sscanf(line, " %31s %llu", word, &v) == 2 && !strcmp(word, "high")) {
			z.high = v;
			z.have_high = true;
		} else if (sscanf(line, " protection: (%llu", &v) == 1) {
			for (char *p = strchr(line, '('); p && *p && *p != ')'; p++) {
				char *end;
				unsigned long long x = strtoull(p + 1, &end, 10);

				if (end == p + 1)
					break;
				if (x > z.reserve)
					z.reserve = x;
				p = end;
				if (*p != ',')
					break;
			}
		}
	}
	if (in_node)
		headroom += zone_room(&z);
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

		if (!strncmp(e->d_name, "node", 4) && hb_parse_int(e->d_name + 4, &n) == 0 && n >= 0) {
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
