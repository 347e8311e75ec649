// SPDX-License-Identifier: MIT
/* Page areas, nodes' free memory and a watch on pages, for hb-vmcapacity (vm-capacity.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vm-capacity.h"
#include "vm-lib.h"

uint64_t node_free_kb(int node)
{
	char path[64], line[128];
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemFree: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * kB of free pages held in the nodes' per-CPU lists (/proc/zoneinfo
 * "pagesets" counts): MemFree leaves them out, since the kernel takes them
 * from the free lists in batches before they are handed out
 */
static void pcp_kb(uint64_t kb[MAX_NODE])
{
	FILE *f = fopen("/proc/zoneinfo", "re");
	char line[256];
	unsigned long long v;
	int node = -1;

	memset(kb, 0, sizeof(uint64_t) * MAX_NODE);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d,", &node) == 1)
			continue;
		if (node >= 0 && node < MAX_NODE && sscanf(line, " count: %llu", &v) == 1)
			kb[node] += v * vm_page_size() / 1024;
	}
	fclose(f);
}

void sample(struct samples *s)
{
	uint64_t pcp[MAX_NODE];

	pcp_kb(pcp);
	for (int k = 0; k < MAX_NODE; k++) {
		uint64_t kb = node_free_kb(k);

		if (!s->n || kb < s->min_free[k])
			s->min_free[k] = kb;
		if (!s->n || kb + pcp[k] < s->min_free_pcp[k])
			s->min_free_pcp[k] = kb + pcp[k];
	}
	s->n++;
}

int area_map(struct area *a, size_t max_pages)
{
	size_t len = max_pages * vm_page_size();

	a->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->base == MAP_FAILED) {
		a->base = NULL;
		return -errno;
	}
	if (madvise(a->base, len, MADV_NOHUGEPAGE) < 0)
		return -errno;
	a->sum = calloc(max_pages, sizeof(*a->sum));
	return a->sum ? 0 : -ENOMEM;
}

/* a checksum of a page's words (vm_sum's bytewise one is slow under TCG) */
static uint64_t page_sum(const char *page)
{
	const uint64_t *w = (const uint64_t *)page;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t k = 0; k < vm_page_size() / 8; k++)
		h = (h ^ w[k]) * 0x100000001b3ULL;
	return h;
}

void area_fill_page(struct area *a, size_t i, uint64_t seed)
{
	char *p = a->base + i * vm_page_size();

	vm_fill(p, 1, seed + i * 0x10001);
	a->sum[i] = page_sum(p);
}

/* node of each page (status[i]: node, or -errno) */
int area_nodes(const struct area *a, int *status)
{
	void **addr = calloc(a->n, sizeof(*addr));
	int r;

	if (!addr)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++)
		addr[i] = a->base + i * vm_page_size();
	r = vm_nodes_of(0, a->n, addr, status);
	free(addr);
	return r;
}

/*
 * area_nodes() until no page reads an error, for up to 2 s: a page the
 * daemon is moving right then has a migration entry, which reads -ENOENT.
 * Returns how many queries it took, or -errno.
 */
int area_nodes_settled(const struct area *a, int *status)
{
	for (int tries = 1;; tries++) {
		size_t bad = 0;
		int r = area_nodes(a, status);

		if (r < 0)
			return r;
		for (size_t i = 0; i < a->n; i++)
			bad += status[i] < 0;
		if (!bad || tries == 20)
			return tries;
		usleep(100 * 1000);
	}
}

int watch_init(struct watch *w, const struct area *a)
{
	w->n = (a->n + WATCH_EVERY - 1) / WATCH_EVERY;
	w->addr = calloc(w->n, sizeof(*w->addr));
	w->node = calloc(w->n, sizeof(*w->node));
	w->now = calloc(w->n, sizeof(*w->now));
	w->pfn1 = calloc(w->n, sizeof(*w->pfn1));
	w->pfn = calloc(a->n, sizeof(*w->pfn));
	if (!w->addr || !w->node || !w->now || !w->pfn1 || !w->pfn)
		return -ENOMEM;
	for (size_t j = 0; j < w->n; j++)
		w->addr[j] = a->base + j * WATCH_EVERY * vm_page_size();
	return vm_nodes_of(0, w->n, w->addr, w->node);
}

int watch_round(struct watch *w, const struct area *a, const uint8_t *fed_map)
{
	int *status = w->now, r = vm_nodes_of(0, w->n, w->addr, status);

	if (r == 0)
		r = vm_pfn_range(getpid(), (uintptr_t)a->base, a->n, w->pfn);
	for (size_t j = 0; r == 0 && j < w->n; j++) {
		uint64_t f = w->pfn1[j];

		if (w->node[j] == 0 && status[j] == 1)
			w->demoted++;
		if (w->node[j] == 1 && status[j] == 0) {
			w->back++;
			w->back_fed += f && f < FED_MAP_PFNS && (fed_map[f / 8] >> f % 8 & 1);
		}
		if (status[j] == 1)
			w->pfn1[j] = w->pfn[j * WATCH_EVERY];
		if (status[j] >= 0)
			w->node[j] = status[j];
	}
	return r;
}

/* pages per node (last: anywhere else or not present) and pages whose bytes changed */
void census(const struct area *a, const int *status, size_t on[MAX_NODE + 1], size_t *bad)
{
	memset(on, 0, sizeof(size_t) * (MAX_NODE + 1));
	*bad = 0;
	for (size_t i = 0; i < a->n; i++) {
		on[status[i] >= 0 && status[i] < MAX_NODE ? status[i] : MAX_NODE]++;
		*bad += page_sum(a->base + i * vm_page_size()) != a->sum[i];
	}
}

/* the kernel's page flags of every 16th page, the most common values first */
void flags_diag(const char *what, const struct area *a, uint64_t *pfn)
{
	struct {
		uint64_t flags;
		size_t n;
	} seen[8] = { { 0 } };
	size_t other = 0;

	if (vm_pfn_range(getpid(), (uintptr_t)a->base, a->n, pfn) < 0)
		return;
	for (size_t i = 0; i < a->n; i += 16) {
		uint64_t f = pfn[i] ? vm_kpageflags(pfn[i]) : 0;
		size_t k = 0;

		while (k < 8 && seen[k].n && seen[k].flags != f)
			k++;
		if (k == 8) {
			other++;
			continue;
		}
		seen[k].flags = f;
		seen[k].n++;
	}
	for (size_t k = 0; k < 8 && seen[k].n; k++)
		tap_diag("%s pages: kpageflags %#" PRIx64 " on %zu of %zu sampled", what,
			 seen[k].flags, seen[k].n, (a->n + 15) / 16);
	if (other)
		tap_diag("%s pages: %zu sampled with other flags", what, other);
}
