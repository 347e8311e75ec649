/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the programs that run inside the test guest (tests/vm/):
 * TAP output, node-bound memory, PFNs from pagemap, page flags, and a
 * workload child that owns memory while the parent moves it.
 */
#ifndef HB_VM_LIB_H
#define HB_VM_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* TAP */
void tap_ok(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tap_done(void);

uint64_t vm_page_size(void);
double vm_now(void);

/* write v to a /proc or /sys file: 0 or -errno */
int vm_put(const char *path, const char *v);
/* the first line of a file without its newline ("" when unreadable) */
void vm_get(const char *path, char *buf, size_t size);
/*
 * Empties every CPU's per-CPU LRU batches: a page still in one is not on
 * an LRU list, so it can be neither isolated (migrated) nor marked idle.
 * move_pages(2) drains them all (do_pages_move() starts with
 * lru_cache_disable()); compaction would too, but would also refile pages
 * within their node and change the PFNs tests compare.
 */
void vm_drain_lru(void);

/*
 * mmap (anonymous, or shared on fd >= 0) and bind to node (MPOL_BIND: the
 * pages fault in there); NULL on error. A binding that stays forbids the
 * pages every other node: move_phys_pages (with the memory-policy check)
 * and the pagemap backend refuse to move them (-EXDEV, issue 42), so a
 * test whose pages must move releases it once they are in:
 */
void *vm_map_on_node(size_t len, int node, int fd, bool huge);
/*
 * Once the range's pages are in: bound to every node the guest has
 * (MPOL_BIND, all of them). Nothing moves; a policy that names every node
 * excludes no target (move_phys_pages and pagemap take the pages), and
 * NUMA balancing still leaves them, as while bound to one node (with
 * MPOL_DEFAULT Debian's 6.12 moved them to the CPUs' node 0 before the
 * test could; MPOL_PREFERRED names one node, which the kernel's check
 * and pagemap treat as a binding). 0 or -errno
 */
int vm_allow_all(void *p, size_t len);

/* the calling thread's own policy: bound to node, or the default (node < 0);
 * it places what the thread faults in and no mapping keeps it (follow with
 * vm_allow_all to keep NUMA balancing off the pages). 0 or -errno */
int vm_task_bind(int node);

/* PFN of vaddr in pid (0 = self); 0 if not present; -errno on error */
int64_t vm_pfn(pid_t pid, uint64_t vaddr);
/* /proc/kpageflags of pfn, or 0 */
uint64_t vm_kpageflags(uint64_t pfn);
#define KPF_SLAB 7
#define KPF_BUDDY 10
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_HUGE 17
#define KPF_LRU 5
#define KPF_THP 22
#define KPF_ZERO_PAGE 24

/* node of each page of pid, by move_pages(pid, ..., NULL, status) */
int vm_nodes_of(pid_t pid, size_t n, void **addrs, int *status);

/* fill/checksum pages with a per-page tag */
void vm_fill(void *base, size_t npages, uint64_t seed);
uint64_t vm_sum(const void *page);
/*
 * the closed loops' starting pages (hb-vmchmu, hb-vmcrash): filled with
 * seed's tags, the binding that placed them lifted (a binding kept would
 * forbid promotion, issue 42), each page's checksum in sum, the LRU
 * drained and each page's PFN in pfn; -1 with the reason on stderr as
 * prog's
 */
int vm_settle(const char *prog, void *base, size_t npages, uint64_t seed, uint64_t *sum,
	      uint64_t *pfn);

/* first PFN on node with all of the given kpageflags bits set and none of
 * the clear bits; 0 if none found */
uint64_t vm_find_pfn(int node, uint64_t set, uint64_t clear);

/* A child process owning npages on a node; the parent drives it. */
struct vm_child {
	pid_t pid;
	int cmd, res;
	size_t n;
	uint64_t *vaddr;   /* shared with the child */
	uint64_t *sum;     /* checksums at fill time */
	uint64_t *sum_now; /* checksums at the last verify */
	int *node_now;     /* nodes at the last verify */
};

enum vm_child_kind { VM_CHILD_ANON, VM_CHILD_THP, VM_CHILD_SHMEM, VM_CHILD_HUGETLB };

/* benchmarks: fault pages in with MADV_POPULATE_WRITE, write only each page's
 * tag word, and checksum only the tag */
extern bool vm_child_light;
/* the child keeps its pages bound to its node alone (else it binds them to every
 * node once they are in, vm_allow_all()) */
extern bool vm_child_keep_policy;

/* the child's pages are placed on node with MPOL_BIND, filled, then bound to
 * every node (vm_allow_all) */
int vm_child_start(struct vm_child *c, enum vm_child_kind kind, size_t npages, int node,
		   uint64_t seed);
/* the child re-reads its nodes and checksums; returns 0 */
int vm_child_verify(struct vm_child *c);
/* the child forks a grandchild that maps the same pages (COW-shared) */
int vm_child_share(struct vm_child *c);
/* the same, and the grandchild then writes the first half of the pages:
 * those copies are its own, the child's first half is mapped by the child
 * alone (copy on write broken), the second half still by both */
int vm_child_share_cow_half(struct vm_child *c);
void vm_child_stop(struct vm_child *c);
/* PFNs of n consecutive pages from vaddr in pid (0 where not present) */
int vm_pfn_range(pid_t pid, uint64_t vaddr, size_t n, uint64_t *pfn);
/* PFNs of the child's pages (as root) */
int vm_child_pfns(const struct vm_child *c, uint64_t *pfn);

#endif
