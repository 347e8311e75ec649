// SPDX-License-Identifier: MIT
/*
 * hb-vmtest: runs inside the test guest, as root, and proves that pages
 * named by physical address really move.
 *
 *   hb-vmtest mpp      on our kernel: the phys backend, its refusals, the
 *                      unusual pages, then the pagemap backend
 *   hb-vmtest stock    on a stock kernel: phys must report itself
 *                      unavailable without calling anything; pagemap moves
 *
 * Node 1 has memory and no CPUs (the CXL stand-in); node 0 is "DRAM".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"
#include "vm-lib.h"

#define SRC 1
#define DST 0

static struct hb_mpp mpp;

static long raw_mpp(unsigned long n, const uint64_t *pa, const int *nodes, int *st, int flags)
{
	return hb_mpp_move(&mpp, n, pa, nodes, st, flags);
}

static int count_status(const int *st, size_t n, int want)
{
	int k = 0;

	for (size_t i = 0; i < n; i++)
		k += st[i] == want;
	return k;
}

/* Moves every page of a child with migrator m, then checks it all. */
static void check_move(struct hb_migrator *m, enum vm_child_kind kind, size_t n, const char *what)
{
	struct hb_err err = { 0 };
	struct vm_child c;
	uint64_t *pfn = calloc(n, 8), *hpa = calloc(n, 8), ps = vm_page_size();
	int *st = calloc(n, sizeof(int)), *nodes = calloc(n, sizeof(int));
	size_t unit = kind == VM_CHILD_THP || kind == VM_CHILD_HUGETLB ? (2u << 20) / ps : 1;
	size_t nreq = 0, same = 0, moved_pfn = 0;
	double t;
	int r;

	if (kind == VM_CHILD_HUGETLB) {
		FILE *f =
			fopen("/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages",
			      "w");

		if (f) {
			fprintf(f, "%zu\n", n / unit + 1);
			fclose(f);
		}
	}
	r = vm_child_start(&c, kind, n, SRC, 0x4842000000000000ULL + n);
	if (r < 0) {
		tap_skip("%s: %s: could not allocate %zu pages on node %d (%s)",
			 hb_migrator_describe(m), what, n, SRC, strerror(-r));
		goto out;
	}
	r = vm_child_verify(&c);
	if (vm_child_pfns(&c, pfn) < 0 || r < 0 || count_status(c.node_now, n, SRC) != (int)n) {
		tap_skip("%s: %s: pages not all on node %d before the move",
			 hb_migrator_describe(m), what, SRC);
		goto out_stop;
	}
	if (unit > 1) {
		uint64_t f = vm_kpageflags(pfn[0]);
		bool ok = kind == VM_CHILD_THP ? (f >> KPF_THP) & 1 : (f >> KPF_HUGE) & 1;

		if (!ok || !((f >> KPF_COMPOUND_HEAD) & 1)) {
			tap_skip("%s: %s: no huge page formed (kpageflags %#llx)",
				 hb_migrator_describe(m), what, (unsigned long long)f);
			goto out_stop;
		}
	}
	/* one request per folio: the head page's physical address */
	for (size_t i = 0; i < n; i += unit) {
		hpa[nreq] = pfn[i] * ps;
		nodes[nreq++] = DST;
	}
	t = vm_now();
	r = hb_migrator_move(m, nreq, hpa, nodes, st, 0, &err);
	t = vm_now() - t;
	tap_ok(r == 0 && count_status(st, nreq, DST) == (int)nreq,
	       "%s: %s: %zu requests, status %d for each (%d were; first status %d; %.3f s)",
	       hb_migrator_kind_to_string(hb_migrator_kind(m)), what, nreq, DST,
	       count_status(st, nreq, DST), st[0], t);
	if (r)
		tap_diag("%s", err.msg);

	r = vm_child_verify(&c);
	tap_ok(r == 0 && count_status(c.node_now, n, DST) == (int)n,
	       "%s: %s: the process's own move_pages(NULL) query says node %d for %d of %zu pages",
	       hb_migrator_kind_to_string(hb_migrator_kind(m)), what, DST,
	       count_status(c.node_now, n, DST), n);
	for (size_t i = 0; i < n; i++) {
		int64_t now = vm_pfn(c.pid, c.vaddr[i]);

		same += c.sum_now[i] == c.sum[i];
		moved_pfn += now > 0 && (uint64_t)now != pfn[i];
	}
	tap_ok(same == n, "%s: %s: checksums of %zu/%zu pages unchanged (tags and contents)",
	       hb_migrator_kind_to_string(hb_migrator_kind(m)), what, same, n);
	tap_ok(moved_pfn == n, "%s: %s: %zu/%zu pages now at a different PFN",
	       hb_migrator_kind_to_string(hb_migrator_kind(m)), what, moved_pfn, n);
out_stop:
	vm_child_stop(&c);
out:
	free(pfn);
	free(hpa);
	free(st);
	free(nodes);
}

/* A COW-shared page: EACCES without MOVE_ALL, moved with it. */
static void check_shared(struct hb_migrator *m)
{
	const char *name = hb_migrator_kind_to_string(hb_migrator_kind(m));
	struct hb_err err = { 0 };
	struct vm_child c;
	uint64_t pfn[4], hpa[4];
	int st[4], nodes[4] = { DST, DST, DST, DST };

	if (vm_child_start(&c, VM_CHILD_ANON, 4, SRC, 77) < 0 || vm_child_share(&c) < 0 ||
	    vm_child_pfns(&c, pfn) < 0) {
		tap_ok(false, "%s: shared pages: set-up failed", name);
		vm_child_stop(&c);
		return;
	}
	for (int i = 0; i < 4; i++)
		hpa[i] = pfn[i] * vm_page_size();
	hb_migrator_move(m, 4, hpa, nodes, st, 0, &err);
	tap_ok(count_status(st, 4, -EACCES) == 4,
	       "%s: pages mapped by two processes, no MOVE_ALL: -EACCES for 4/4 (got %d)", name,
	       st[0]);
	hb_migrator_move(m, 4, hpa, nodes, st, HB_MIGRATE_MOVE_ALL, &err);
	vm_child_verify(&c);
	tap_ok(count_status(st, 4, DST) == 4 && count_status(c.node_now, 4, DST) == 4 &&
		       !memcmp(c.sum, c.sum_now, sizeof(uint64_t) * 4),
	       "%s: with MOVE_ALL: moved (status %d), the owner sees node %d, contents equal", name,
	       st[0], c.node_now[0]);
	vm_child_stop(&c);
}

/* the binding line of pid's numa_maps at vaddr, for the log (a real guest line) */
static void diag_numa_maps(pid_t pid, uint64_t vaddr)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strtoull(line, NULL, 16) == vaddr)
			tap_diag("numa_maps: %s", strtok(line, "\n"));
	if (f)
		fclose(f);
}

/*
 * Issue 42: a process that keeps its pages bound to node 1 (mbind
 * MPOL_BIND, kept). The migrator must leave them there (-EXDEV for each),
 * bytes intact; the same migrator opened with override_mempolicy moves
 * them. phys needs a kernel whose move_phys_pages has the check (it takes
 * flag 0x100); on one without, the check is skipped, saying so.
 */
static void check_bound(enum hb_migrator_kind kind)
{
	const char *name = hb_migrator_kind_to_string(kind);
	struct hb_migrator_config cfg = { .rescan_ms = 0, .source_nodes = 1ULL << SRC };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	struct vm_child c;
	size_t n = 64, same = 0;
	uint64_t pfn[64], hpa[64];
	int st[64], nodes[64];
	long r;

	if (kind == HB_MIGRATOR_PHYS) {
		r = raw_mpp(0, NULL, NULL, NULL, MPOL_MF_MOVE | HB_MPP_OVERRIDE_MEMPOLICY);
		if (r == -EINVAL) {
			struct utsname u;

			uname(&u);
			tap_skip("phys: pages bound to node %d: kernel %s has no memory-policy check "
				 "(move_phys_pages refuses flag 0x100): it moves them; this check "
				 "runs once kernel/patches/6.12 has it",
				 SRC, u.release);
			return;
		}
	}
	vm_child_keep_policy = true;
	r = vm_child_start(&c, VM_CHILD_ANON, n, SRC, 0x4845584445560000ULL);
	vm_child_keep_policy = false;
	if (r < 0 || vm_child_verify(&c) < 0 || vm_child_pfns(&c, pfn) < 0 ||
	    count_status(c.node_now, n, SRC) != (int)n) {
		tap_ok(false, "%s: pages bound to node %d: set-up failed", name, SRC);
		if (r == 0)
			vm_child_stop(&c);
		return;
	}
	diag_numa_maps(c.pid, c.vaddr[0]);
	for (size_t i = 0; i < n; i++) {
		hpa[i] = pfn[i] * vm_page_size();
		nodes[i] = DST;
	}
	if (hb_migrator_new(kind, &cfg, &m, &err) < 0) {
		tap_ok(false, "%s: opens: %s", name, err.msg);
		goto out;
	}
	tap_diag("%s", hb_migrator_describe(m));
	r = hb_migrator_move(m, n, hpa, nodes, st, 0, &err);
	vm_child_verify(&c);
	for (size_t i = 0; i < n; i++)
		same += c.sum_now[i] == c.sum[i];
	tap_ok(r == 0 && count_status(st, n, -EXDEV) == (int)n &&
		       count_status(c.node_now, n, SRC) == (int)n && same == n,
	       "%s: %zu pages their owner keeps bound to node %d (mbind MPOL_BIND): -EXDEV for "
	       "%d, still on node %d: %d (the owner's move_pages query), %zu intact; first "
	       "status %d",
	       name, n, SRC, count_status(st, n, -EXDEV), SRC, count_status(c.node_now, n, SRC),
	       same, st[0]);
	hb_migrator_free(m);
	m = NULL;
	cfg.override_mempolicy = true;
	if (hb_migrator_new(kind, &cfg, &m, &err) < 0) {
		tap_ok(false, "%s: opens with override_mempolicy: %s", name, err.msg);
		goto out;
	}
	r = hb_migrator_move(m, n, hpa, nodes, st, 0, &err);
	vm_child_verify(&c);
	same = 0;
	for (size_t i = 0; i < n; i++)
		same += c.sum_now[i] == c.sum[i];
	tap_ok(r == 0 && count_status(st, n, DST) == (int)n &&
		       count_status(c.node_now, n, DST) == (int)n && same == n,
	       "%s: with override_mempolicy the same pages move: status %d for %d, on node %d: "
	       "%d, %zu intact",
	       name, DST, count_status(st, n, DST), DST, count_status(c.node_now, n, DST), same);
out:
	hb_migrator_free(m);
	vm_child_stop(&c);
}

/*
 * Review M1: the child forked a grandchild that wrote the first half of 8
 * pages, so the child's first half is mapped by the child alone while the
 * grandchild's VMA still covers it. The daemon's call (flags 0) moves that
 * half, and refuses the half both still map with -EACCES, as move_pages(2)
 * does for the same pages.
 */
static void check_cow(struct hb_migrator *m)
{
	const char *name = hb_migrator_kind_to_string(hb_migrator_kind(m));
	struct hb_err err = { 0 };
	struct vm_child c;
	uint64_t pfn[8], hpa[8];
	int st[8], mp[4], nodes[8];
	void *shared[4];

	if (vm_child_start(&c, VM_CHILD_ANON, 8, SRC, 78) < 0 || vm_child_share_cow_half(&c) < 0 ||
	    vm_child_pfns(&c, pfn) < 0) {
		tap_ok(false, "%s: copy-on-write: set-up failed", name);
		vm_child_stop(&c);
		return;
	}
	for (int i = 0; i < 8; i++) {
		hpa[i] = pfn[i] * vm_page_size();
		nodes[i] = DST;
	}
	hb_migrator_move(m, 8, hpa, nodes, st, 0, &err);
	for (int i = 0; i < 4; i++)
		shared[i] = (void *)(uintptr_t)c.vaddr[4 + i];
	hb_sys_move_pages(c.pid, 4, shared, nodes, mp, MPOL_MF_MOVE);
	vm_child_verify(&c);
	tap_ok(count_status(st, 4, DST) == 4 && count_status(c.node_now, 4, DST) == 4,
	       "%s: after fork, pages whose copy-on-write broke are the parent's alone: moved "
	       "without MOVE_ALL, status %d for %d/4, on node %d for %d/4",
	       name, DST, count_status(st, 4, DST), DST, count_status(c.node_now, 4, DST));
	tap_ok(count_status(st + 4, 4, -EACCES) == 4 && count_status(mp, 4, -EACCES) == 4 &&
		       count_status(c.node_now + 4, 4, SRC) == 4,
	       "%s: pages still mapped by both: -EACCES for %d/4, as move_pages(2) says for %d/4 "
	       "(status %d); still on node %d",
	       name, count_status(st + 4, 4, -EACCES), count_status(mp, 4, -EACCES), mp[0], SRC);
	tap_ok(!memcmp(c.sum, c.sum_now, sizeof(uint64_t) * 8),
	       "%s: copy-on-write: the parent's 8 pages' contents unchanged", name);
	vm_child_stop(&c);
}

/*
 * Review M5: pages of a mapping bound (MPOL_BIND) to SRC are refused with
 * -EXDEV for a DST target; MPP_MF_IGNORE_MEMPOLICY moves them. The same
 * pages bound to both nodes move without the flag.
 */
static void check_mempolicy(void)
{
	uint64_t ps = vm_page_size(), pa[8];
	int st[8], now[8], nodes[8];
	unsigned long both = (1UL << SRC) | (1UL << DST);
	char *p = vm_map_on_node(8 * ps, SRC, -1, false);
	void *va[8];
	long r;

	if (!p) {
		tap_ok(false, "mempolicy: cannot map 8 pages bound to node %d", SRC);
		return;
	}
	vm_fill(p, 8, 0x4d50);
	for (int i = 0; i < 8; i++) {
		va[i] = p + i * ps;
		pa[i] = (uint64_t)vm_pfn(0, (uint64_t)(uintptr_t)va[i]) * ps;
		nodes[i] = DST;
	}
	r = raw_mpp(8, pa, nodes, st, 0);
	tap_ok(r == 0 && count_status(st, 8, -EXDEV) == 8,
	       "mempolicy: bound to node %d, target %d: -EXDEV for %d/8 (status %d)", SRC, DST,
	       count_status(st, 8, -EXDEV), st[0]);
	r = raw_mpp(8, pa, nodes, st, 0x100);
	vm_nodes_of(0, 8, va, now);
	tap_ok(r == 0 && count_status(st, 8, DST) == 8 && count_status(now, 8, DST) == 8,
	       "mempolicy: with MPP_MF_IGNORE_MEMPOLICY (0x100): moved, status %d for %d/8, on "
	       "node %d for %d/8",
	       DST, count_status(st, 8, DST), DST, count_status(now, 8, DST));
	/* back to SRC (ignoring the policy again), then bind to both nodes */
	for (int i = 0; i < 8; i++) {
		pa[i] = (uint64_t)vm_pfn(0, (uint64_t)(uintptr_t)va[i]) * ps;
		nodes[i] = SRC;
	}
	raw_mpp(8, pa, nodes, st, 0x100);
	for (int i = 0; i < 8; i++) {
		pa[i] = (uint64_t)vm_pfn(0, (uint64_t)(uintptr_t)va[i]) * ps;
		nodes[i] = DST;
	}
	if (syscall(SYS_mbind, p, 8 * ps, MPOL_BIND, &both, sizeof(both) * 8 + 1, 0) < 0) {
		tap_ok(false, "mempolicy: mbind to nodes %d,%d: %s", SRC, DST, strerror(errno));
		munmap(p, 8 * ps);
		return;
	}
	r = raw_mpp(8, pa, nodes, st, 0);
	tap_ok(r == 0 && count_status(st, 8, DST) == 8,
	       "mempolicy: bound to nodes %d and %d: moved without the flag, %d/8 (status %d)", SRC,
	       DST, count_status(st, 8, DST), st[0]);
	munmap(p, 8 * ps);
}

static void check_probe_mpp(void)
{
	struct hb_err err = { 0 };
	int r = hb_mpp_probe(NULL, 0, &mpp, &err);

	tap_ok(r == 0 && mpp.available, "probe: move_phys_pages available: %s",
	       r == 0 ? mpp.why : err.msg);
	r = hb_mpp_probe(NULL, 454, &(struct hb_mpp){ 0 }, &err);
	tap_ok(r == -EINVAL, "probe: a configured 454 (futex_wake upstream) is refused: %s", err.msg);
}

static void check_refusals(void)
{
	uint64_t ps = vm_page_size(), pa[4];
	int st[4], nodes[4] = { DST, DST, DST, DST };
	struct vm_child c;
	uint64_t pfn[2];
	long r;

	/* flags, privilege */
	r = raw_mpp(0, NULL, NULL, NULL, MPOL_MF_STRICT);
	tap_ok(r == -EINVAL, "refusal: flags MPOL_MF_STRICT -> %ld (want -EINVAL)", r);
	/* bit 8 is HB_MPP_OVERRIDE_MEMPOLICY on a kernel with the check (issue 42) */
	r = raw_mpp(0, NULL, NULL, NULL, 1 << 9);
	tap_ok(r == -EINVAL, "refusal: unknown flag bit 9 -> %ld (want -EINVAL)", r);
	{
		pid_t p = fork();
		int ws;

		if (p == 0) {
			if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
				_exit(100);
			_exit(raw_mpp(0, NULL, NULL, NULL, 0) == -EPERM ? 0 : 1);
		}
		waitpid(p, &ws, 0);
		tap_ok(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
		       "refusal: an unprivileged caller (uid 65534) gets -EPERM");
	}

	/* addresses */
	if (vm_child_start(&c, VM_CHILD_ANON, 2, SRC, 5) < 0 || vm_child_pfns(&c, pfn) < 0) {
		tap_ok(false, "refusal: set-up failed");
		return;
	}
	pa[0] = pfn[0] * ps + 8; /* not the first byte of the page */
	pa[1] = 1ULL << 46;      /* far beyond memory */
	pa[2] = pfn[1] * ps;     /* valid */
	pa[3] = pfn[1] * ps;     /* the same page again */
	r = raw_mpp(4, pa, nodes, st, MPOL_MF_MOVE);
	tap_ok(r == 0 && st[0] == -EINVAL && st[1] == -EFAULT && st[2] == DST && st[3] == -EBUSY,
	       "refusal: one batch, own status each: unaligned %d (-EINVAL), beyond memory %d "
	       "(-EFAULT), valid %d (%d), duplicate %d (-EBUSY); returned %ld",
	       st[0], st[1], st[2], DST, st[3], r);
	r = raw_mpp(2, (uint64_t[]){ pfn[0] * ps, 1ULL << 46 }, NULL, st, 0);
	tap_ok(r == 0 && st[0] == SRC && st[1] == -EFAULT,
	       "query: nodes == NULL reports node %d for a node-%d page, %d (-EFAULT) beyond memory",
	       st[0], SRC, st[1]);
	vm_child_stop(&c);

	r = raw_mpp(2, (uint64_t[]){ 0, 0 }, (int[]){ 7, 0 }, st, 0);
	tap_ok(r == -ENODEV, "refusal: a node with no memory fails the call with -ENODEV (%ld)", r);
}

static void check_tail_and_offline(void)
{
	uint64_t ps = vm_page_size(), pa[1];
	int st[1], node[1] = { DST };
	struct vm_child c;
	uint64_t pfn[512];
	char path[128];
	long r;

	if (vm_child_start(&c, VM_CHILD_THP, 512, SRC, 9) == 0 && vm_child_pfns(&c, pfn) == 0 &&
	    ((vm_kpageflags(pfn[1]) >> KPF_COMPOUND_TAIL) & 1)) {
		pa[0] = pfn[1] * ps;
		r = raw_mpp(1, pa, node, st, 0);
		tap_ok(r == 0 && st[0] == -EINVAL,
		       "refusal: a THP tail page's address -> %d (want -EINVAL)", st[0]);
	} else {
		tap_skip("refusal: tail page: no THP formed on node %d", SRC);
	}
	vm_child_stop(&c);

	/* take a memory block of node 1 offline (the highest that will go), ask
	 * about its first PFN, then bring it back */
	{
		uint64_t block_pages = 0;
		char buf[64];
		int fd = open("/sys/devices/system/memory/block_size_bytes", O_RDONLY);
		int tried = 0, done = 0;

		if (fd >= 0) {
			ssize_t k = read(fd, buf, sizeof(buf) - 1);

			buf[k > 0 ? k : 0] = 0;
			block_pages = strtoull(buf, NULL, 16) / ps;
			close(fd);
		}
		for (int b = 4096; b >= 0 && !done && block_pages; b--) {
			FILE *f;

			snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/memory%d",
				 SRC, b);
			if (access(path, F_OK))
				continue;
			tried++;
			snprintf(path, sizeof(path), "/sys/devices/system/memory/memory%d/state", b);
			f = fopen(path, "w");
			if (!f)
				continue;
			if (fputs("offline", f) < 0 || fclose(f) != 0)
				continue;
			done = 1;
			pa[0] = (uint64_t)b * block_pages * ps;
			r = raw_mpp(1, pa, node, st, 0);
			tap_ok(r == 0 && st[0] == -EFAULT,
			       "refusal: the first PFN of offlined memory%d -> %d (want -EFAULT)",
			       b, st[0]);
			r = raw_mpp(1, pa, NULL, st, 0);
			tap_ok(r == 0 && st[0] == -EFAULT,
			       "query: offlined memory%d -> %d (want -EFAULT)", b, st[0]);
			f = fopen(path, "w");
			if (f) {
				fputs("online", f);
				fclose(f);
			}
		}
		if (!done)
			tap_ok(false,
			       "refusal: offline PFN: none of %d memory blocks of node %d went offline",
			       tried, SRC);
	}
}

/*
 * Config space of every CXL memory device (class 0x0502), in the format of
 * `lspci -xxxx` that libpci's dump access method reads (hb-vmtest pci-dump).
 */
static int run_pci_dump(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *de;
	int found = 0;

	while (d && (de = readdir(d))) {
		char path[512], cls[16] = "";
		unsigned char cfg[4096];
		unsigned int dom, bus, dev, fn;
		ssize_t n;
		int fd;

		if (sscanf(de->d_name, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, cls, sizeof(cls) - 1) <= 0 || strncmp(cls, "0x0502", 6)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", de->d_name);
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, cfg, sizeof(cfg)) : -1;
		if (fd >= 0)
			close(fd);
		if (n < 256)
			continue;
		printf("%02x:%02x.%x CXL memory device (class %.8s), %zd bytes of config space\n",
		       bus, dev, fn, cls, n);
		for (ssize_t off = 0; off < n; off += 16) {
			printf(off < 0x100 ? "%02zx:" : "%03zx:", off);
			for (int k = 0; k < 16; k++)
				printf(" %02x", cfg[off + k]);
			printf("\n");
		}
		printf("\n");
		found++;
	}
	if (d)
		closedir(d);
	fprintf(stderr, "hb-vmtest: %d CXL memory device(s)\n", found);
	return found ? 0 : 1;
}

/*
 * hb-vmtest tag N NODE [FIRST]: N pages bound to NODE, tags FIRST.. (default 0),
 * each stamped at offset 0 with
 * a unique tag (0x4842544147000000 + i, "HBTAG") and its complement, so the
 * host can find each page in the CXL device's backing file: that offset is
 * the page's DPA. Prints "<tag> <hpa>" a line; the pages stay put (the
 * program exits, the guest powers off, the backing file keeps the bytes).
 */
static int run_tag(size_t n, int node, uint64_t first)
{
	uint64_t ps = vm_page_size();
	char *p = vm_map_on_node(n * ps, node, -1, false);
	int bad = 0;

	if (!p) {
		fprintf(stderr, "hb-vmtest tag: cannot map %zu pages on node %d\n", n, node);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t *w = (uint64_t *)(p + i * ps), tag = 0x4842544147000000ULL + first + i;

		w[0] = tag;
		w[1] = ~tag;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t pfn = vm_pfn(0, (uint64_t)(uintptr_t)(p + i * ps));
		void *addr = p + i * ps;
		int st = -1;

		vm_nodes_of(0, 1, &addr, &st);
		if (pfn <= 0 || st != node)
			bad++;
		printf("%#llx %#llx %d\n", (unsigned long long)(0x4842544147000000ULL + first + i),
		       (unsigned long long)pfn * ps, st);
	}
	fflush(stdout);
	fprintf(stderr, "hb-vmtest tag: %zu pages on node %d, %d not there\n", n, node, bad);
	return bad ? 1 : 0;
}

/*
 * hb-vmtest hold N NODE TAGS VERIFY: N pages on NODE, each filled with a
 * per-page pattern whose first word is a unique tag and whose second is its
 * complement; "<tag> <hpa> <node>" lines go to TAGS (then TAGS.done). The
 * process keeps the pages, reading every 8th one (the hot subset) every
 * 20 ms, until SIGUSR1, then writes "<tag> <node> <checksum ok 0|1> <hpa>"
 * lines to VERIFY: where each page is now (its node, and its frame from
 * /proc/self/pagemap, as in TAGS), and whether its bytes survived.
 */
static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int run_hold(size_t n, int node, const char *tags, const char *verify)
{
	uint64_t ps = vm_page_size(), *sum = calloc(n, 8);
	char *p = vm_map_on_node(n * ps, node, -1, false), done[512];
	void **addrs = calloc(n, sizeof(*addrs));
	int *st = calloc(n, sizeof(int));
	FILE *f;

	if (!p || !sum || !addrs || !st)
		return 1;
	signal(SIGUSR1, on_usr1);
	vm_fill(p, n, 0x4842544147000000ULL);
	/* bound only to land there: a binding kept would forbid promotion (issue 42) */
	if (vm_allow_all(p, n * ps) < 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t *w = (uint64_t *)(p + i * ps);

		w[1] = ~w[0];
		sum[i] = vm_sum(w);
		addrs[i] = w;
	}
	f = fopen(tags, "w");
	if (!f)
		return 1;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%#llx %#llx %d\n", (unsigned long long)(0x4842544147000000ULL + i),
			(unsigned long long)vm_pfn(0, (uint64_t)(uintptr_t)addrs[i]) * ps, node);
	fclose(f);
	snprintf(done, sizeof(done), "%s.done", tags);
	f = fopen(done, "w");
	if (!f)
		return 1;
	fclose(f);
	/* keep touching the hot subset (every 8th page) until told to verify */
	while (!got_usr1) {
		volatile uint64_t sink = 0;

		for (size_t i = 0; i < n; i += 8)
			sink += *(volatile uint64_t *)addrs[i];
		(void)sink;
		usleep(20000);
	}
	vm_nodes_of(0, n, addrs, st);
	f = fopen(verify, "w");
	if (!f)
		return 1;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%#llx %d %d %#llx\n", (unsigned long long)(0x4842544147000000ULL + i),
			st[i], vm_sum(addrs[i]) == sum[i],
			(unsigned long long)vm_pfn(0, (uint64_t)(uintptr_t)addrs[i]) * ps);
	fclose(f);
	return 0;
}

/* What the probe sees, for tests/data/mpp-probe (hb-vmtest capture). */
static int run_capture(void)
{
	static const char *const files[] = {
		"/sys/kernel/mm/move_phys_pages/syscall_nr",
		"/sys/kernel/mm/move_phys_pages/abi_version",
		"/sys/kernel/tracing/events/syscalls/sys_enter_move_phys_pages/format",
	};
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "r");

	printf("=== uname -r\n");
	fflush(stdout);
	(void)!system("uname -r");
	printf("=== /proc/kallsyms (move_pages and move_phys_pages entries)\n");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "sys_move_p"))
			fputs(line, stdout);
	if (f)
		fclose(f);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		printf("=== %s\n", files[i]);
		f = fopen(files[i], "r");
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stdout);
		if (f)
			fclose(f);
		else
			printf("(absent: %s)\n", strerror(errno));
	}
	return 0;
}

/* Pages that are not a process's: free, slab, the zero page. */
static void check_unusual(void)
{
	uint64_t ps = vm_page_size();
	uint64_t free_pfn = vm_find_pfn(SRC, 1ULL << KPF_BUDDY, 0);
	uint64_t slab_pfn = vm_find_pfn(DST, 1ULL << KPF_SLAB, 0);
	int st[3], nodes[3] = { DST, SRC, DST };
	uint64_t pa[3];
	volatile char *zp;
	int64_t zpfn;
	long r;

	/* a never-written anonymous page maps the shared zero page on read */
	zp = mmap(NULL, ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	(void)zp[0];
	zpfn = vm_pfn(0, (uint64_t)(uintptr_t)zp);
	if (!free_pfn || !slab_pfn || zpfn <= 0) {
		tap_skip("unusual pages: could not find free %llu / slab %llu / zero %lld PFNs",
			 (unsigned long long)free_pfn, (unsigned long long)slab_pfn, (long long)zpfn);
		return;
	}
	pa[0] = free_pfn * ps;
	pa[1] = slab_pfn * ps;
	pa[2] = (uint64_t)zpfn * ps;
	r = raw_mpp(3, pa, nodes, st, MPOL_MF_MOVE_ALL);
	tap_ok(r == 0 && st[0] == -ENOENT && st[1] == -ENOENT && st[2] == -ENOENT,
	       "unusual: free page %d, slab page %d, zero page %d: all -ENOENT, nothing moved",
	       st[0], st[1], st[2]);
}

static struct hb_migrator *open_migrator(enum hb_migrator_kind k)
{
	struct hb_migrator_config cfg = { .rescan_ms = 0, .source_nodes = 1ULL << SRC };
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	int r = hb_migrator_new(k, &cfg, &m, &err);

	if (r < 0)
		tap_diag("%s: %s", hb_migrator_kind_to_string(k), err.msg);
	return m;
}

static void run_pagemap(void)
{
	struct hb_migrator *m = open_migrator(HB_MIGRATOR_PAGEMAP);
	struct hb_pagemap_stats s;

	tap_ok(m != NULL, "pagemap backend opens");
	if (!m)
		return;
	check_move(m, VM_CHILD_ANON, 2048, "2048 anonymous pages");
	check_move(m, VM_CHILD_THP, 1024, "2 THPs");
	check_shared(m);
	check_bound(HB_MIGRATOR_PAGEMAP);
	hb_migrator_pagemap_stats(m, &s);
	tap_diag("pagemap index: %llu full scans, %llu processes, %llu PFNs, %llu stale, "
		 "%llu move_pages calls",
		 (unsigned long long)s.full_scans, (unsigned long long)s.processes,
		 (unsigned long long)s.pages, (unsigned long long)s.stale,
		 (unsigned long long)s.move_pages_calls);
	hb_migrator_free(m);
}

/*
 * move_pages(2) itself, the same on every kernel: our 6.12 series shares
 * its queueing and migration code, and must not change what it does.
 */
static void check_move_pages(void)
{
	uint64_t ps = vm_page_size();
	size_t n = 8;
	char *anon = vm_map_on_node(n * ps, SRC, -1, false);
	char *fresh = vm_map_on_node(ps, SRC, -1, false);
	char *zero = vm_map_on_node(ps, SRC, -1, false);
	char *unmapped = mmap(NULL, ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = memfd_create("hb-untouched", 0);
	char *shm = NULL;
	void *va[6];
	int nodes[6], st[6];
	volatile char sink;
	struct utsname u;
	int untouched, major = 0, minor = 0;
	long r;

	/*
	 * A never-touched anonymous page: 6.1's follow_page(FOLL_DUMP) said
	 * -EFAULT, 6.12's folio_walk says -ENOENT (measured on Debian's stock
	 * kernels); our kernels must say what their base's stock kernel says.
	 */
	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	untouched = major > 6 || (major == 6 && minor >= 12) ? -ENOENT : -EFAULT;

	if (fd >= 0 && ftruncate(fd, (off_t)ps) == 0)
		shm = vm_map_on_node(ps, SRC, fd, false);
	if (!anon || !fresh || !zero || unmapped == MAP_FAILED || !shm) {
		tap_ok(false, "move_pages(2): set-up failed");
		return;
	}
	munmap(unmapped, ps);
	vm_fill(anon, n, 99);
	sink = zero[0];
	(void)sink;

	/* one call: untouched shmem, never-touched anon, the zero page, an
	 * unmapped address, a page and the same page again */
	va[0] = shm;
	va[1] = fresh;
	va[2] = zero;
	va[3] = unmapped;
	va[4] = anon;
	va[5] = anon;
	for (int i = 0; i < 6; i++) {
		nodes[i] = DST;
		st[i] = 12345;
	}
	r = syscall(SYS_move_pages, 0, 6UL, va, nodes, st, MPOL_MF_MOVE);
	tap_ok(r == 0 && st[0] == -ENOENT && st[1] == untouched && st[2] == -EFAULT &&
		       st[3] == -EFAULT && st[4] == DST && st[5] == -EBUSY,
	       "move_pages(2) on %s: untouched shmem %d (-ENOENT), untouched anon %d (%d), "
	       "zero page %d, unmapped %d (-EFAULT), a page %d (%d), the same page again %d "
	       "(-EBUSY); returned %ld",
	       u.release, st[0], st[1], untouched, st[2], st[3], st[4], DST, st[5], r);

	/* mixed targets in one call: each page ends where it was sent */
	{
		void *mv[7];
		int mn[7], ms[7], now[7], good = 0;

		for (int i = 0; i < 7; i++) {
			mv[i] = anon + (size_t)(i + 1) * ps;
			mn[i] = i % 3 == 0 ? SRC : DST;
		}
		r = syscall(SYS_move_pages, 0, 7UL, mv, mn, ms, MPOL_MF_MOVE);
		vm_nodes_of(0, 7, mv, now);
		for (int i = 0; i < 7; i++)
			good += ms[i] == mn[i] && now[i] == mn[i] && vm_sum(mv[i]) != 0;
		tap_ok(r == 0 && good == 7,
		       "move_pages(2): mixed targets %d,%d,%d,...: %d/7 pages where sent, "
		       "status equal to the node",
		       mn[0], mn[1], mn[2], good);
	}
	/* a failing node fails the call, not a page */
	va[0] = anon;
	nodes[0] = 1 << 20;
	r = syscall(SYS_move_pages, 0, 1UL, va, nodes, st, MPOL_MF_MOVE);
	tap_ok(r == -1 && errno == ENODEV, "move_pages(2): node out of range -> -ENODEV (%ld, %s)",
	       r, strerror(errno));
	munmap(anon, n * ps);
	munmap(fresh, ps);
	munmap(zero, ps);
	munmap(shm, ps);
	close(fd);
}

static int run_mpp(void)
{
	struct hb_migrator *m;

	check_probe_mpp();
	if (!mpp.available)
		return tap_done();
	m = open_migrator(HB_MIGRATOR_PHYS);
	tap_ok(m != NULL, "phys backend opens: %s", m ? hb_migrator_describe(m) : "failed");
	if (m) {
		check_move(m, VM_CHILD_ANON, 2048, "2048 anonymous pages");
		check_move(m, VM_CHILD_THP, 1024, "2 THPs");
		check_move(m, VM_CHILD_SHMEM, 256, "256 shmem (file-backed) pages");
		check_move(m, VM_CHILD_HUGETLB, 1024, "2 hugetlb pages");
		check_shared(m);
		check_cow(m);
		hb_migrator_free(m);
		check_bound(HB_MIGRATOR_PHYS);
	}
	check_refusals();
	check_mempolicy();
	check_tail_and_offline();
	check_unusual();
	check_move_pages();
	run_pagemap();
	return tap_done();
}

static int run_stock(void)
{
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	int r;

	r = hb_mpp_probe(NULL, 451, &mpp, &err);
	tap_ok(r < 0 && !mpp.available, "probe on a stock kernel: unavailable: %s", err.msg);
	r = hb_migrator_new(HB_MIGRATOR_PHYS, &(struct hb_migrator_config){ .syscall_nr = 451 }, &m,
			    &err);
	tap_ok(r == -ENOSYS && !m, "phys backend refuses to open (%d): %s", r, err.msg);
	check_move_pages();
	run_pagemap();
	return tap_done();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "mpp"))
		return run_mpp();
	if (argc == 2 && !strcmp(argv[1], "stock"))
		return run_stock();
	if (argc == 2 && !strcmp(argv[1], "capture"))
		return run_capture();
	if (argc == 2 && !strcmp(argv[1], "pci-dump"))
		return run_pci_dump();
	if (argc == 6 && !strcmp(argv[1], "hold"))
		return run_hold(strtoul(argv[2], NULL, 10), atoi(argv[3]), argv[4], argv[5]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "tag"))
		return run_tag(strtoul(argv[2], NULL, 10), atoi(argv[3]),
			       argc > 4 ? strtoull(argv[4], NULL, 0) : 0);
	fprintf(stderr, "usage: hb-vmtest mpp|stock|capture|pci-dump|tag N NODE [FIRST]\n");
	return 2;
}
