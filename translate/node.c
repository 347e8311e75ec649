// SPDX-License-Identifier: MIT
/*
 * HPA -> NUMA node and PFN, from sysfs below a root prefix:
 *  - /sys/devices/system/memory/block_size_bytes (hex, no 0x) and the
 *    /sys/devices/system/node/nodeN/memoryM links (block M = HPA / size),
 *    memoryM/state for online;
 *  - /sys/bus/dax/devices/daxX.Y/{resource,size,target_node} for CXL
 *    memory not (yet) onlined as System RAM.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "translate-private.h"

#define HB_MAX_BLOCKS (1u << 24)
#define HB_MAX_DAX 1024

struct block {
	uint64_t index;
	int node;
	bool online;
};

struct dax_range {
	uint64_t start, size;
	int node;
	char name[HB_NAME_MAX];
};

struct hb_node_map {
	uint64_t block_size;
	unsigned page_shift;
	struct block *blocks;
	size_t nr_blocks, cap_blocks;
	struct dax_range *dax;
	size_t nr_dax;
};

struct hb_node_map *hb_node_map_free(struct hb_node_map *m)
{
	if (!m)
		return NULL;
	free(m->blocks);
	free(m->dax);
	free(m);
	return NULL;
}

static int path_of(char *buf, size_t size, const char *root, const char *fmt, const char *a,
		   const char *b)
{
	int n = snprintf(buf, size, "%s", root ? root : "");

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	n += snprintf(buf + n, size - (size_t)n, fmt, a, b);
	return (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int add_block(struct hb_node_map *m, uint64_t index, int node)
{
	if (m->nr_blocks == m->cap_blocks) {
		size_t ncap = m->cap_blocks ? m->cap_blocks * 2 : 64;
		struct block *n;

		if (ncap > HB_MAX_BLOCKS)
			return -E2BIG;
		n = realloc(m->blocks, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		m->blocks = n;
		m->cap_blocks = ncap;
	}
	m->blocks[m->nr_blocks++] = (struct block){ .index = index, .node = node };
	return 0;
}

static int scan_node(struct hb_node_map *m, const char *root, const char *node_dir, int node)
{
	_hb_cleanup_closedir_ DIR *d = NULL;
	char path[PATH_MAX];
	struct dirent *de;
	int r;

	r = path_of(path, sizeof(path), root, "/sys/devices/system/node/%s%s", node_dir, "");
	if (r < 0)
		return r;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t index;

		if (strncmp(de->d_name, "memory", 6) ||
		    hb_parse_u64_base(de->d_name + 6, 10, &index) < 0)
			continue;
		r = add_block(m, index, node);
		if (r < 0)
			return r;
	}
	return 0;
}

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int scan_dax(struct hb_node_map *m, const char *root)
{
	_hb_cleanup_closedir_ DIR *d = NULL;
	char path[PATH_MAX];
	struct dirent *de;
	int r;

	r = path_of(path, sizeof(path), root, "/sys/bus/dax/devices%s%s", "", "");
	if (r < 0)
		return r;
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct dax_range dr = { 0 };
		uint64_t node;
		char rel[PATH_MAX];

		if (strncmp(de->d_name, "dax", 3) || strlen(de->d_name) >= HB_NAME_MAX)
			continue;
		snprintf(rel, sizeof(rel), "/sys/bus/dax/devices/%s/resource", de->d_name);
		if (hb_read_u64(root, rel, 0, &dr.start) < 0)
			continue;
		snprintf(rel, sizeof(rel), "/sys/bus/dax/devices/%s/size", de->d_name);
		if (hb_read_u64(root, rel, 0, &dr.size) < 0 || !dr.size)
			continue;
		snprintf(rel, sizeof(rel), "/sys/bus/dax/devices/%s/target_node", de->d_name);
		dr.node = hb_read_u64(root, rel, 10, &node) < 0 || node > INT_MAX ? -1 : (int)node;
		memcpy(dr.name, de->d_name, strlen(de->d_name) + 1);
		if (m->nr_dax >= HB_MAX_DAX)
			return -E2BIG;
		if (!m->dax) {
			m->dax = calloc(HB_MAX_DAX, sizeof(*m->dax));
			if (!m->dax)
				return -ENOMEM;
		}
		m->dax[m->nr_dax++] = dr;
	}
	return 0;
}

int hb_node_map_load(const char *root, struct hb_node_map **ret, struct hb_err *err)
{
	_hb_cleanup_node_map_ struct hb_node_map *m = NULL;
	_hb_cleanup_closedir_ DIR *d = NULL;
	char path[PATH_MAX];
	struct dirent *de;
	long page;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return hb_err_set(err, -ENOMEM, "out of memory");
	page = sysconf(_SC_PAGESIZE);
	m->page_shift = hb_ilog2(page > 0 ? (uint64_t)page : 4096);
	r = hb_read_u64(root, "/sys/devices/system/memory/block_size_bytes", 16, &m->block_size);
	if (r < 0 || !hb_is_pow2(m->block_size))
		return hb_err_set(err, r < 0 ? r : -EINVAL,
				  "%s/sys/devices/system/memory/block_size_bytes: %s",
				  root ? root : "", r < 0 ? strerror(-r) : "not a power of two");

	r = path_of(path, sizeof(path), root, "/sys/devices/system/node%s%s", "", "");
	if (r < 0)
		return hb_err_set(err, r, "sysfs root too long");
	d = opendir(path);
	if (!d)
		return hb_err_set(err, -errno, "%s: %m", path);
	while ((de = readdir(d))) {
		uint64_t node;

		if (strncmp(de->d_name, "node", 4) ||
		    hb_parse_u64_base(de->d_name + 4, 10, &node) < 0 || node > INT_MAX)
			continue;
		r = scan_node(m, root, de->d_name, (int)node);
		if (r < 0)
			return hb_err_set(err, r, "%s/%s: %s", path, de->d_name, strerror(-r));
	}
	if (m->nr_blocks)
		qsort(m->blocks, m->nr_blocks, sizeof(*m->blocks), cmp_block);
	for (size_t i = 0; i < m->nr_blocks; i++) {
		char rel[128], state[32];

		snprintf(rel, sizeof(rel), "/sys/devices/system/memory/memory%llu/state",
			 (unsigned long long)m->blocks[i].index);
		m->blocks[i].online = hb_read_text(root, rel, state, sizeof(state)) > 0 &&
				      !strcmp(state, "online");
	}
	r = scan_dax(m, root);
	if (r < 0)
		return hb_err_set(err, r, "dax devices: %s", strerror(-r));
	*ret = HB_TAKE_PTR(m);
	return 0;
}

uint64_t hb_node_map_block_size(const struct hb_node_map *m)
{
	return m->block_size;
}

int hb_node_map_lookup(const struct hb_node_map *m, uint64_t hpa, struct hb_node_info *ret)
{
	uint64_t index = hpa / m->block_size;
	size_t lo = 0, hi = m->nr_blocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->blocks[mid].index < index) {
			lo = mid + 1;
		} else if (m->blocks[mid].index > index) {
			hi = mid;
		} else {
			ret->node = m->blocks[mid].node;
			ret->online = m->blocks[mid].online;
			ret->pfn = hpa >> m->page_shift;
			snprintf(ret->source, sizeof(ret->source), "memory%llu",
				 (unsigned long long)index);
			return 0;
		}
	}
	for (size_t i = 0; i < m->nr_dax; i++) {
		const struct dax_range *dr = &m->dax[i];

		if (hpa >= dr->start && hpa - dr->start < dr->size) {
			ret->node = dr->node;
			ret->online = false;
			ret->pfn = hpa >> m->page_shift;
			snprintf(ret->source, sizeof(ret->source), "%s", dr->name);
			return 0;
		}
	}
	return -ENOENT;
}

/* a node is inside when it has memory and none of it (block or dax range) lies outside */
uint64_t hb_node_map_window_nodes(const struct hb_node_map *m, const struct hb_cxl_windows *w)
{
	uint64_t inside = 0, outside = 0;

	for (size_t i = 0; i < m->nr_blocks; i++) {
		int n = m->blocks[i].node;

		if (n < 0 || n >= 64)
			continue;
		if (hb_cxl_windows_contain(w, m->blocks[i].index * m->block_size, m->block_size))
			inside |= 1ULL << n;
		else
			outside |= 1ULL << n;
	}
	for (size_t i = 0; i < m->nr_dax; i++) {
		int n = m->dax[i].node;

		if (n < 0 || n >= 64)
			continue;
		if (hb_cxl_windows_contain(w, m->dax[i].start, m->dax[i].size))
			inside |= 1ULL << n;
		else
			outside |= 1ULL << n;
	}
	return inside & ~outside;
}
