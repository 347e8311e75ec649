/* SPDX-License-Identifier: MIT */
/*
 * vm-capacity-lib.c, for hb-vmcapacity (vm-capacity.c): page areas bound to
 * a node and filled with a per-page pattern, where their pages are, the
 * nodes' free memory sampled, and a watch on a sample of pages across
 * rounds.
 */
#ifndef HB_VM_CAPACITY_H
#define HB_VM_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#define MAX_NODE 3              /* nodes 0..2, and "elsewhere" */
#define WATCH_EVERY 16          /* pages watched each round: one in this many */
#define FED_MAP_PFNS (1u << 20) /* frames the fed map covers: 4 GiB */

struct area {
	char *base;
	size_t n;      /* pages */
	uint64_t *sum; /* checksums at fill time */
};

struct samples {
	uint64_t n, min_free[MAX_NODE], min_free_pcp[MAX_NODE];
};

/*
 * One cold page in WATCH_EVERY, watched each round: seen going to node 1
 * (demoted) and back to node 0 (promoted: the daemon only promotes frames
 * the feed named, so the frame it left should be one hb-vmcapacity fed).
 */
struct watch {
	size_t n, demoted, back, back_fed;
	void **addr;
	int *node, *now; /* last seen, this round */
	uint64_t *pfn1;  /* its frame when last seen on node 1 */
	uint64_t *pfn;   /* the whole area's, from pagemap */
};

uint64_t node_free_kb(int node);
/* MemFree of each node, and with its per-CPU lists' free pages, at their lowest */
void sample(struct samples *s);

/*
 * an area of max_pages (no THP), none filled yet, with no memory policy:
 * fill it under vm_task_bind(node) to place it, then vm_allow_all. Our
 * kernel's move_phys_pages refuses (-EXDEV) pages whose mapping is bound
 * elsewhere, and these stand for memory the kernel placed, not bound memory
 */
int area_map(struct area *a, size_t max_pages);
/* page i gets its pattern from seed, and its checksum is kept */
void area_fill_page(struct area *a, size_t i, uint64_t seed);
/* node of each page (or -errno); _settled: asked until none reads an error (2 s at most) */
int area_nodes(const struct area *a, int *status);
int area_nodes_settled(const struct area *a, int *status);
/* pages per node (last: anywhere else or absent), pages whose bytes changed */
void census(const struct area *a, const int *status, size_t on[MAX_NODE + 1], size_t *bad);
/* the kernel's page flags of a sample of the area's pages, as "# " lines */
void flags_diag(const char *what, const struct area *a, uint64_t *pfn);

int watch_init(struct watch *w, const struct area *a);
/* one round: what moved since the last; fed_map: a bit per frame the feed named */
int watch_round(struct watch *w, const struct area *a, const uint8_t *fed_map);

#endif
