// SPDX-License-Identifier: MIT
/*
 * pagemap: moving physical pages on a kernel without move_phys_pages.
 *
 * The kernel knows which process maps a PFN; user space has to find out.
 * This backend keeps an index PFN -> (pid, virtual page), built from the
 * processes that have memory on the source nodes (/proc/<pid>/numa_maps
 * names them per VMA, /proc/<pid>/maps gives the VMA's end), reading each
 * candidate VMA's /proc/<pid>/pagemap entries. A batch is then one
 * move_pages(2) call per process. The kernel keeps the last word: it
 * refuses shared pages without MPOL_MF_MOVE_ALL, exactly as for phys.
 *
 * The index goes stale as processes fault, exit and migrate. Every hit is
 * re-checked against the process's pagemap (one 8-byte read) before it is
 * moved; misses and stale hits trigger one full rescan, at most every
 * rescan_ms, and are reported -ENOENT if still not found. Before a move,
 * the owner's numa_maps says the page's memory policy: one that keeps it
 * off the target refuses it (-EXDEV), as move_phys_pages does, since
 * move_pages(2) would not (policy_filter()). PFNs in
 * /proc/<pid>/pagemap read as 0 without CAP_SYS_ADMIN, so this needs root
 * just as phys does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/macro.h"
#include "kernel-private.h"

#define PM_PRESENT (1ULL << 63)
#define PM_SWAPPED (1ULL << 62)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define PM_READ_CHUNK 512
#define PM_CALL_MAX 1024
#define PM_NUMA_MAPS_MAX (64u << 20)

struct pm_entry {
	uint64_t key; /* pfn + 1; 0 = empty */
	uint64_t vaddr;
	pid_t pid;
	uint32_t nmap; /* mappings seen while indexing */
};

struct pm_index {
	struct pm_entry *tab;
	size_t cap, len; /* cap is a power of two */
};

struct pagemap {
	struct pm_index idx;
	uint64_t source_nodes;
	unsigned int rescan_ms;
	uint64_t last_scan_ms;
	bool scanned;
	uint64_t page_size;
	uint64_t processes;
	bool override; /* override_mempolicy: no numa_maps check */
	struct hb_pagemap_stats st;
};

static size_t slot_of(const struct pm_index *x, uint64_t key)
{
	return hb_hash_slot(key, 17, x->cap);
}

static struct pm_entry *index_find(struct pm_index *x, uint64_t pfn)
{
	uint64_t key = pfn + 1;

	if (!x->cap)
		return NULL;
	for (size_t s = slot_of(x, key);; s = (s + 1) & (x->cap - 1)) {
		if (x->tab[s].key == key)
			return &x->tab[s];
		if (!x->tab[s].key)
			return NULL;
	}
}

static int index_grow(struct pm_index *x)
{
	struct pm_index n = { .cap = x->cap ? x->cap * 2 : 4096 };

	n.tab = calloc(n.cap, sizeof(*n.tab));
	if (!n.tab)
		return -ENOMEM;
	for (size_t i = 0; i < x->cap; i++) {
		size_t s;

		if (!x->tab[i].key)
			continue;
		for (s = slot_of(&n, x->tab[i].key); n.tab[s].key; s = (s + 1) & (n.cap - 1))
			;
		n.tab[s] = x->tab[i];
		n.len++;
	}
	free(x->tab);
	*x = n;
	return 0;
}

static int index_add(struct pm_index *x, uint64_t pfn, pid_t pid, uint64_t vaddr)
{
	uint64_t key = pfn + 1;
	size_t s;
	int r;

	if ((x->len + 1) * 2 > x->cap) {
		r = index_grow(x);
		if (r < 0)
			return r;
	}
	for (s = slot_of(x, key); x->tab[s].key; s = (s + 1) & (x->cap - 1)) {
		if (x->tab[s].key == key) {
			x->tab[s].nmap++;
			return 0;
		}
	}
	x->tab[s] = (struct pm_entry){ .key = key, .vaddr = vaddr, .pid = pid, .nmap = 1 };
	x->len++;
	return 0;
}

/* Linear probing removal by backward shift: no tombstones. */
static void index_del(struct pm_index *x, struct pm_entry *e)
{
	size_t hole = (size_t)(e - x->tab);

	x->tab[hole].key = 0;
	x->len--;
	for (size_t s = (hole + 1) & (x->cap - 1); x->tab[s].key; s = (s + 1) & (x->cap - 1)) {
		size_t home = slot_of(x, x->tab[s].key);

		/* move s into the hole unless its home lies cyclically in (hole, s] */
		if ((s > hole && (home <= hole || home > s)) ||
		    (s < hole && home <= hole && home > s)) {
			x->tab[hole] = x->tab[s];
			x->tab[s].key = 0;
			hole = s;
		}
	}
}

static void index_clear(struct pm_index *x)
{
	if (x->tab)
		memset(x->tab, 0, x->cap * sizeof(*x->tab));
	x->len = 0;
}

struct vma {
	uint64_t start, end;
};

static int vma_cmp(const void *a, const void *b)
{
	const struct vma *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_maps(const char *path, struct vma **ret, size_t *ret_n)
{
	_hb_cleanup_free_ char *buf = NULL;
	struct vma *v = NULL;
	size_t len, n = 0, cap = 0;
	char *line, *save = NULL;
	int r;

	r = hb_read_file(path, PM_NUMA_MAPS_MAX, &buf, &len);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e;

		if (sscanf(line, "%llx-%llx", &s, &e) != 2)
			continue;
		if (n == cap) {
			struct vma *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (struct vma){ s, e };
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), vma_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Does this numa_maps line have pages on a source node? */
static bool line_on_source(const char *line, uint64_t mask)
{
	for (const char *p = strstr(line, " N"); p; p = strstr(p + 1, " N")) {
		char *end;
		unsigned long node = strtoul(p + 2, &end, 10);

		if (end == p + 2 || *end != '=')
			continue;
		if (!mask || (node < 64 && (mask & (1ULL << node))))
			return true;
	}
	return false;
}

static int scan_vma(struct pagemap *pm, int fd, pid_t pid, const struct vma *v, bool *saw_zero_pfn)
{
	uint64_t buf[PM_READ_CHUNK];
	uint64_t first = v->start / pm->page_size, last = v->end / pm->page_size;

	for (uint64_t vp = first; vp < last; vp += PM_READ_CHUNK) {
		size_t want = last - vp < PM_READ_CHUNK ? last - vp : PM_READ_CHUNK;
		ssize_t got = pread(fd, buf, want * 8, (off_t)(vp * 8));

		if (got <= 0)
			return got < 0 ? -errno : 0;
		for (size_t i = 0; i < (size_t)got / 8; i++) {
			uint64_t e = buf[i];
			int r;

			if (!(e & PM_PRESENT) || (e & PM_SWAPPED))
				continue;
			if (!(e & PM_PFN_MASK)) {
				*saw_zero_pfn = true;
				continue;
			}
			r = index_add(&pm->idx, e & PM_PFN_MASK, pid, (vp + i) * pm->page_size);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int scan_process(struct pagemap *pm, const char *root, pid_t pid, bool *saw_zero_pfn)
{
	_hb_cleanup_free_ char *nm = NULL;
	_hb_cleanup_free_ struct vma *vmas = NULL;
	_hb_cleanup_close_ int fd = -1;
	char path[PATH_MAX];
	char *line, *save = NULL;
	size_t len, nvma = 0;
	bool candidate = false;
	int r;

	snprintf(path, sizeof(path), "%s/proc/%d/numa_maps", root, pid);
	r = hb_read_file(path, PM_NUMA_MAPS_MAX, &nm, &len);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/proc/%d/maps", root, pid);
	r = read_maps(path, &vmas, &nvma);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/proc/%d/pagemap", root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	for (line = strtok_r(nm, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start;
		struct vma key, *v;

		if (sscanf(line, "%llx", &start) != 1 || !line_on_source(line, pm->source_nodes))
			continue;
		key.start = start;
		v = bsearch(&key, vmas, nvma, sizeof(*vmas), vma_cmp);
		if (!v)
			continue; /* the VMA changed between the two reads */
		candidate = true;
		r = scan_vma(pm, fd, pid, v, saw_zero_pfn);
		if (r < 0)
			return r;
	}
	return candidate;
}

static int full_scan(struct pagemap *pm, const char *root, struct hb_err *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	bool saw_zero_pfn = false;
	uint64_t procs = 0, t0 = hb_now_us();

	snprintf(path, sizeof(path), "%s/proc", root);
	d = opendir(path);
	if (!d)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	index_clear(&pm->idx);
	while ((de = readdir(d))) {
		uint64_t pid;
		int r;

		if (hb_parse_u64(de->d_name, &pid) < 0 || pid == 0 || pid > INT_MAX)
			continue;
		r = scan_process(pm, root, (pid_t)pid, &saw_zero_pfn);
		if (r == -ENOMEM) {
			closedir(d);
			return hb_err_set(err, r, "out of memory indexing PFNs");
		}
		/* processes come and go, kernel threads have no maps: skip */
		if (r > 0)
			procs++;
	}
	closedir(d);
	pm->st.full_scans++;
	pm->st.processes = procs;
	pm->st.pages = pm->idx.len;
	pm->st.scanned_pages = pm->idx.len;
	pm->st.scan_us += hb_now_us() - t0;
	pm->last_scan_ms = hb_now_ms();
	pm->scanned = true;
	if (saw_zero_pfn && pm->idx.len == 0)
		return hb_err_set(err, -EPERM,
				  "/proc/<pid>/pagemap shows no PFNs: reading them needs CAP_SYS_ADMIN");
	return 0;
}

/* Does (pid, vaddr) still map pfn? */
static bool still_maps(int fd, uint64_t vaddr, uint64_t page_size, uint64_t pfn)
{
	uint64_t e;

	if (fd < 0 || pread(fd, &e, 8, (off_t)(vaddr / page_size * 8)) != 8)
		return false;
	return (e & PM_PRESENT) && !(e & PM_SWAPPED) && (e & PM_PFN_MASK) == pfn;
}

struct pm_req {
	size_t i; /* index into the caller's arrays */
	pid_t pid;
	uint64_t vaddr;
};

static int req_cmp(const void *a, const void *b)
{
	const struct pm_req *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int open_pagemap(const char *root, pid_t pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/%d/pagemap", root, pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * One move_pages(2) call per process and chunk. Entries whose process went
 * away are left with status -ESRCH for the caller to retry after a rescan.
 * move_pages(2) moves (and reports) the pages before an error for the call
 * as a whole (-ENODEV, -EACCES: do_pages_move() flushes what it queued), so
 * only entries it did not write get that error (review W1). ST_UNSET is no
 * status it writes (a node >= 0 or -errno).
 */
#define ST_UNSET INT_MIN

static void move_group(struct pagemap *pm, const struct pm_req *rq, size_t n, const int *nodes,
		       int *status, int kflags)
{
	void *addrs[PM_CALL_MAX];
	int tnodes[PM_CALL_MAX], st[PM_CALL_MAX];

	for (size_t off = 0; off < n; off += PM_CALL_MAX) {
		size_t len = n - off < PM_CALL_MAX ? n - off : PM_CALL_MAX;
		long r;

		for (size_t k = 0; k < len; k++) {
			addrs[k] = (void *)(uintptr_t)rq[off + k].vaddr;
			tnodes[k] = nodes[rq[off + k].i];
			st[k] = ST_UNSET;
		}
		r = hb_sys_move_pages(rq[0].pid, len, addrs, tnodes, st, kflags);
		pm->st.move_pages_calls++;
		for (size_t k = 0; k < len; k++)
			status[rq[off + k].i] = st[k] != ST_UNSET ? st[k] : r < 0 ? (int)r : -EBUSY;
	}
}

/*
 * The owner's memory policy, as move_phys_pages' check has it:
 * move_pages(2) itself moves a page whatever the policy of the VMA it is
 * in (only the cpuset is checked), so the backend reads the owner's
 * numa_maps (once per process and batch) and refuses with -EXDEV a page
 * whose VMA's policy (or the task's, which numa_maps shows where the VMA
 * has none) names nodes without the target (hb_mempolicy_excludes()). Only
 * the process the index found is read: a page several processes map
 * (MOVE_ALL) is judged by that one. Keeps the requests to move in
 * rq[0..return); -ENOENT/-ESRCH when the process went away.
 */
static long policy_filter(struct pagemap *pm, const char *root, struct pm_req *rq, size_t n,
			  const int *nodes, int *status)
{
	_hb_cleanup_free_ char *nm = NULL;
	char path[PATH_MAX];
	size_t len, keep = 0;
	int r;

	snprintf(path, sizeof(path), "%s/proc/%d/numa_maps", root, rq[0].pid);
	r = hb_read_file(path, PM_NUMA_MAPS_MAX, &nm, &len);
	if (r < 0)
		return r;
	pm->st.numa_maps_reads++;
	for (size_t k = 0; k < n; k++) {
		struct hb_mempolicy pol;

		if (hb_mempolicy_find(nm, rq[k].vaddr, &pol) == 0 &&
		    hb_mempolicy_excludes(&pol, nodes[rq[k].i])) {
			status[rq[k].i] = -EXDEV;
			pm->st.policy_refused++;
			continue;
		}
		rq[keep++] = rq[k];
	}
	return (long)keep;
}

static int pagemap_round(struct pagemap *pm, const char *root, size_t n, const size_t *which,
			 const uint64_t *hpa, const int *nodes, int *status, int kflags,
			 size_t *ret_unresolved, size_t *unresolved)
{
	_hb_cleanup_free_ struct pm_req *rq = calloc(n ? n : 1, sizeof(*rq));
	size_t nrq = 0, nun = 0;

	if (!rq)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		size_t i = which[k];
		struct pm_entry *e = index_find(&pm->idx, hpa[i] / pm->page_size);

		if (!e) {
			unresolved[nun++] = i;
			continue;
		}
		rq[nrq++] = (struct pm_req){ .i = i, .pid = e->pid, .vaddr = e->vaddr };
	}
	if (nrq > 1)
		qsort(rq, nrq, sizeof(*rq), req_cmp);

	for (size_t a = 0; a < nrq;) {
		_hb_cleanup_close_ int fd = open_pagemap(root, rq[a].pid);
		size_t b = a, keep = a;

		while (b < nrq && rq[b].pid == rq[a].pid)
			b++;
		/* drop stale hits to the unresolved list, compact the rest */
		for (size_t k = a; k < b; k++) {
			uint64_t pfn = hpa[rq[k].i] / pm->page_size;

			if (still_maps(fd, rq[k].vaddr, pm->page_size, pfn)) {
				rq[keep++] = rq[k];
				continue;
			}
			struct pm_entry *e = index_find(&pm->idx, pfn);

			pm->st.stale++;
			if (e)
				index_del(&pm->idx, e);
			unresolved[nun++] = rq[k].i;
		}
		if (keep > a && !pm->override) {
			long left = policy_filter(pm, root, rq + a, keep - a, nodes, status);

			if (left < 0) { /* gone: found again by a rescan, or -ENOENT */
				for (size_t k = a; k < keep; k++)
					unresolved[nun++] = rq[k].i;
				left = 0;
			}
			keep = a + (size_t)left;
		}
		if (keep > a)
			move_group(pm, rq + a, keep - a, nodes, status, kflags);
		for (size_t k = a; k < keep; k++) {
			size_t i = rq[k].i;
			struct pm_entry *e;

			if (status[i] == -ESRCH) {
				unresolved[nun++] = i;
				continue;
			}
			/* the page now has another PFN: forget this one */
			e = status[i] == nodes[i] ? index_find(&pm->idx, hpa[i] / pm->page_size) :
						    NULL;
			if (e)
				index_del(&pm->idx, e);
		}
		a = b;
	}
	*ret_unresolved = nun;
	return 0;
}

static int pagemap_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
			int *status, unsigned int flags, struct hb_err *err)
{
	struct pagemap *pm = m->priv;
	int kflags = MPOL_MF_MOVE | ((flags & HB_MIGRATE_MOVE_ALL) ? MPOL_MF_MOVE_ALL : 0);
	_hb_cleanup_free_ size_t *which = calloc(n, sizeof(*which));
	_hb_cleanup_free_ size_t *unres = calloc(n, sizeof(*unres));
	size_t nw = 0, nun = 0;
	int r;

	if (!which || !unres)
		return hb_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (hpa[i] % pm->page_size) {
			status[i] = -EINVAL;
			continue;
		}
		status[i] = -ENOENT;
		which[nw++] = i;
	}
	if (!pm->scanned) {
		r = full_scan(pm, m->root, err);
		if (r < 0)
			return r;
	}
	r = pagemap_round(pm, m->root, nw, which, hpa, nodes, status, kflags, &nun, unres);
	if (r < 0)
		return hb_err_set(err, r, "out of memory");
	if (nun && hb_now_ms() - pm->last_scan_ms >= pm->rescan_ms) {
		r = full_scan(pm, m->root, err);
		if (r < 0)
			return r;
		memcpy(which, unres, nun * sizeof(*which));
		for (size_t k = 0; k < nun; k++)
			status[which[k]] = -ENOENT;
		r = pagemap_round(pm, m->root, nun, which, hpa, nodes, status, kflags, &nun, unres);
		if (r < 0)
			return hb_err_set(err, r, "out of memory");
	}
	/* still unresolved: no process maps that PFN (as far as we can see) */
	for (size_t k = 0; k < nun; k++)
		status[unres[k]] = -ENOENT;
	pm->st.pages = pm->idx.len;
	return 0;
}

static int pagemap_open(struct hb_migrator *m, const struct hb_migrator_config *cfg,
			struct hb_err *err)
{
	struct pagemap *pm = calloc(1, sizeof(*pm));
	long ps = sysconf(_SC_PAGESIZE);

	if (!pm)
		return hb_err_set(err, -ENOMEM, "out of memory");
	pm->page_size = ps > 0 ? (uint64_t)ps : 4096;
	pm->source_nodes = cfg->source_nodes;
	pm->rescan_ms = cfg->rescan_ms;
	pm->override = cfg->override_mempolicy;
	snprintf(m->describe, sizeof(m->describe),
		 "pagemap: /proc/<pid>/pagemap reverse map + move_pages(2), rescan >= %u ms; %s",
		 pm->rescan_ms,
		 pm->override ? "owners' memory policies not checked (override_mempolicy)" :
				"pages their owner's numa_maps policy keeps off the target refused "
				"(-EXDEV)");
	m->priv = pm;
	return 0;
}

static void pagemap_close(struct hb_migrator *m)
{
	struct pagemap *pm = m->priv;

	free(pm->idx.tab);
	free(pm);
}

int hb_migrator_pagemap_stats(const struct hb_migrator *m, struct hb_pagemap_stats *ret)
{
	if (m->kind != HB_MIGRATOR_PAGEMAP)
		return -EINVAL;
	*ret = ((struct pagemap *)m->priv)->st;
	return 0;
}

const struct hb_migrator_backend hb_migrator_pagemap = {
	.name = "pagemap",
	.open = pagemap_open,
	.move = pagemap_move,
	.close = pagemap_close,
};
