// SPDX-License-Identifier: MIT
/*
 * A census of a node's page frames in windows (kernel.h; frames.h the flag bits): the node's
 * online memory blocks from sysfs, each frame's flags from /proc/kpageflags
 * read a page of entries at a time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frames.h"
#include "kernel.h"
#include "util/macro.h"

#define FLAGS_CHUNK 512 /* kpageflags entries a pread */
#define MAX_NODES 64    /* NUMA nodes 0-63, as the daemon has */

struct node_pass {
	uint64_t *block; /* the node's online blocks of this pass, ascending */
	size_t nblock;
	size_t at;    /* index of the block the next scan starts in */
	uint64_t pfn; /* and its PFN there; 0 with at 0: a new pass */
	bool started;
	uint64_t passes; /* passes begun */
	uint64_t epoch;  /* the sample the pass reads (hb_frames_sample_epoch()) */
};

/* a sample is kept for this many passes before the next one is read */
#define SAMPLE_PASSES 8

struct hb_frames {
	char root[PATH_MAX / 2];
	char path[PATH_MAX];       /* kpageflags */
	char count_path[PATH_MAX]; /* kpagecount */
	int fd;
	int count_fd;    /* -1: the kernel has no kpagecount, no frame is skipped */
	uint64_t shared; /* frames skipped as mapped more than once */
	uint64_t counts[FLAGS_CHUNK];
	uint64_t page_size, block_pages;
	uint64_t sample_blocks; /* a pass reads at most this many blocks a node; 0 = all */
	struct node_pass node[MAX_NODES];
	uint64_t flags[FLAGS_CHUNK];
};

/*
 * Not KPF_KSM: 6.12's fs/proc/page.c sets it for every anonymous page
 * (`mapping & PAGE_MAPPING_KSM` is true for either bit, and anon pages
 * have PAGE_MAPPING_ANON), so refusing it refused all anonymous memory
 * (seen in Debian's 6.12.118 guest: an ordinary anon page read
 * 0x400205828). A real KSM page cannot be told apart there, and page
 * migration handles KSM folios (migrate_pages(), as for any anon folio).
 */
bool hb_frames_movable(uint64_t kpf)
{
	const uint64_t refuse =
		1ULL << HB_KPF_SLAB | 1ULL << HB_KPF_WRITEBACK | 1ULL << HB_KPF_BUDDY |
		1ULL << HB_KPF_COMPOUND_HEAD | 1ULL << HB_KPF_COMPOUND_TAIL | 1ULL << HB_KPF_HUGE |
		1ULL << HB_KPF_UNEVICTABLE | 1ULL << HB_KPF_HWPOISON | 1ULL << HB_KPF_NOPAGE |
		1ULL << HB_KPF_THP | 1ULL << HB_KPF_OFFLINE | 1ULL << HB_KPF_ZERO_PAGE |
		1ULL << HB_KPF_PGTABLE | 1ULL << HB_KPF_MLOCKED;

	return (kpf >> HB_KPF_LRU & 1) && !(kpf & refuse);
}

int hb_frames_open(const char *root, uint64_t page_size, struct hb_frames **ret, struct hb_err *err)
{
	_hb_cleanup_(hb_frames_freep) struct hb_frames *f = calloc(1, sizeof(*f));
	uint64_t block_bytes;
	int r;

	if (!f)
		return hb_err_set(err, -ENOMEM, "out of memory");
	f->fd = f->count_fd = -1;
	if (!page_size || (page_size & (page_size - 1)))
		return hb_err_set(err, -EINVAL, "page frames: page size %llu is not a power of two",
				  (unsigned long long)page_size);
	if (root && strlen(root) >= sizeof(f->root))
		return hb_err_set(err, -ENAMETOOLONG, "page frames: root %s: too long", root);
	snprintf(f->root, sizeof(f->root), "%s", root ? root : "");
	snprintf(f->path, sizeof(f->path), "%s/proc/kpageflags", f->root);
	snprintf(f->count_path, sizeof(f->count_path), "%s/proc/kpagecount", f->root);
	r = hb_read_u64(f->root, "/sys/devices/system/memory/block_size_bytes", 16, &block_bytes);
	if (r < 0 || block_bytes < page_size || block_bytes % page_size)
		return hb_err_set(err, r < 0 ? r : -EINVAL,
				  "page frames: %s/sys/devices/system/"
				  "memory/block_size_bytes: %s",
				  f->root, r < 0 ? strerror(-r) : "not a multiple of the page size");
	f->page_size = page_size;
	f->block_pages = block_bytes / page_size;
	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		r = -errno;
		return hb_err_set(err, r, "page frames: cannot open %s: %s%s", f->path, strerror(-r),
				  r == -EACCES || r == -EPERM ? " (mode 0400, owned by root: needs "
								"root)" :
								"");
	}
	/* the same mode as kpageflags; a kernel without it (!CONFIG_PROC_PAGE_MONITOR is
	   neither) skips nothing */
	f->count_fd = open(f->count_path, O_RDONLY | O_CLOEXEC);
	if (f->count_fd < 0 && errno != ENOENT) {
		r = -errno;
		return hb_err_set(err, r, "page frames: cannot open %s: %s", f->count_path,
				  strerror(-r));
	}
	*ret = HB_TAKE_PTR(f);
	return 0;
}

struct hb_frames *hb_frames_free(struct hb_frames *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < HB_ARRAY_SIZE(f->node); i++)
		free(f->node[i].block);
	if (f->fd >= 0)
		(void)close(f->fd);
	if (f->count_fd >= 0)
		(void)close(f->count_fd);
	free(f);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool block_online(const char *root, const char *name)
{
	char path[PATH_MAX], buf[16];

	snprintf(path, sizeof(path), "/sys/devices/system/memory/%s/online", name);
	return hb_read_text(root, path, buf, sizeof(buf)) >= 0 && !strcmp(buf, "1");
}

/*
 * A new pass over more blocks than the sample allows keeps every k-th block
 * (k = the blocks over the sample, rounded up) from a phase that moves on
 * every SAMPLE_PASSES passes, so over k such periods every block is read.
 */
static void sample(const struct hb_frames *f, struct node_pass *p)
{
	uint64_t k, phase;
	size_t n = 0;

	p->epoch = p->passes++ / SAMPLE_PASSES;
	if (!f->sample_blocks || p->nblock <= f->sample_blocks)
		return;
	k = (p->nblock + f->sample_blocks - 1) / f->sample_blocks;
	phase = p->epoch % k;
	for (size_t i = 0; i < p->nblock; i++)
		if (i % k == phase)
			p->block[n++] = p->block[i];
	p->nblock = n;
}

/* the node's online blocks, ascending, into p (a new pass) */
static int read_blocks(struct hb_frames *f, int node, struct node_pass *p, struct hb_err *err)
{
	_hb_cleanup_closedir_ DIR *d = NULL;
	char path[PATH_MAX];
	struct dirent *e;
	size_t cap = 0;

	p->nblock = p->at = 0;
	p->pfn = 0;
	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d", f->root, node);
	if (!(d = opendir(path)))
		return hb_err_set(err, -errno, "page frames: %s: %s", path, strerror(errno));
	while ((e = readdir(d))) {
		uint64_t index;

		if (strncmp(e->d_name, "memory", 6) ||
		    hb_parse_u64_base(e->d_name + 6, 10, &index) < 0 ||
		    !block_online(f->root, e->d_name))
			continue;
		if (p->nblock == cap) {
			uint64_t *b = realloc(p->block, (cap = cap ? cap * 2 : 64) * sizeof(*b));

			if (!b)
				return hb_err_set(err, -ENOMEM, "out of memory");
			p->block = b;
		}
		p->block[p->nblock++] = index;
	}
	if (!p->nblock)
		return hb_err_set(err, -ENOENT,
				  "page frames: node %d has no online memory block in %s", node,
				  path);
	qsort(p->block, p->nblock, sizeof(*p->block), cmp_u64);
	sample(f, p);
	return 0;
}

static int read_u64s(int fd, const char *path, uint64_t *v, uint64_t pfn, size_t n, struct hb_err *err)
{
	ssize_t r = pread(fd, v, n * sizeof(uint64_t), (off_t)(pfn * sizeof(uint64_t)));

	if (r == (ssize_t)(n * sizeof(uint64_t)))
		return 0;
	return hb_err_set(err, r < 0 ? -errno : -EIO, "page frames: %s at PFN 0x%llx: %s", path,
			  (unsigned long long)pfn, r < 0 ? strerror(errno) : "short read");
}

/* flags (and map counts, where the kernel has them) of n frames from pfn */
static int read_flags(struct hb_frames *f, uint64_t pfn, size_t n, struct hb_err *err)
{
	int r = read_u64s(f->fd, f->path, f->flags, pfn, n, err);

	if (r == 0 && f->count_fd >= 0)
		r = read_u64s(f->count_fd, f->count_path, f->counts, pfn, n, err);
	return r;
}

uint64_t hb_frames_shared(const struct hb_frames *f)
{
	return f->shared;
}

long hb_frames_scan(struct hb_frames *f, int node, size_t max, uint64_t *pfn,
		    uint64_t ret_window[2], struct hb_err *err)
{
	struct node_pass *p;
	size_t seen = 0, n = 0;
	int r;

	ret_window[0] = ret_window[1] = 0;
	if (node < 0 || node >= MAX_NODES)
		return hb_err_set(err, -EINVAL, "page frames: no node %d", node);
	p = &f->node[node];
	if (!p->started || p->at >= p->nblock) {
		if ((r = read_blocks(f, node, p, err)) < 0)
			return r;
		p->started = true;
		p->pfn = p->block[0] * f->block_pages;
	}
	ret_window[0] = p->pfn;
	while (seen < max && p->at < p->nblock) {
		uint64_t end = (p->block[p->at] + 1) * f->block_pages;
		size_t k = (size_t)(end - p->pfn);

		if (k > FLAGS_CHUNK)
			k = FLAGS_CHUNK;
		if (k > max - seen)
			k = max - seen;
		if ((r = read_flags(f, p->pfn, k, err)) < 0)
			return r;
		for (size_t i = 0; i < k; i++) {
			if (!hb_frames_movable(f->flags[i]))
				continue;
			/* mapped by several processes: the mover refuses it (EACCES) */
			if (f->count_fd >= 0 && f->counts[i] > 1) {
				f->shared++;
				continue;
			}
			pfn[n++] = p->pfn + i;
		}
		seen += k;
		p->pfn += k;
		ret_window[1] = p->pfn;
		if (p->pfn == end && ++p->at < p->nblock) {
			p->pfn = p->block[p->at] * f->block_pages;
			/* a window never spans frames of blocks it does not read */
			if (p->block[p->at] != p->block[p->at - 1] + 1)
				break;
		}
	}
	return (long)n;
}

void hb_frames_sample(struct hb_frames *f, uint64_t max_frames)
{
	f->sample_blocks = max_frames ? (max_frames + f->block_pages - 1) / f->block_pages : 0;
}

bool hb_frames_pass_done(const struct hb_frames *f, int node)
{
	return node >= 0 && node < MAX_NODES && f->node[node].started &&
	       f->node[node].at >= f->node[node].nblock;
}

uint64_t hb_frames_sample_epoch(const struct hb_frames *f, int node)
{
	return node >= 0 && node < MAX_NODES ? f->node[node].epoch : 0;
}

long hb_frames_node_ranges(struct hb_frames *f, int node, size_t max, uint64_t (*range)[2],
			   struct hb_err *err)
{
	struct node_pass p = { 0 };
	size_t n = 0;
	int r;

	if (node < 0 || node >= MAX_NODES)
		return hb_err_set(err, -EINVAL, "page frames: node %d is not 0-%d", node,
				  MAX_NODES - 1);
	r = read_blocks(f, node, &p, err);
	for (size_t i = 0; r == 0 && i < p.nblock; i++) {
		uint64_t start = p.block[i] * f->block_pages;

		if (n && range[n - 1][1] == start) {
			range[n - 1][1] += f->block_pages;
		} else if (n < max) {
			range[n][0] = start;
			range[n][1] = start + f->block_pages;
			n++;
		}
	}
	free(p.block);
	return r < 0 ? r : (long)n;
}
