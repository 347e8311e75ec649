// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vm-lib.h"

#define MPOL_DEFAULT_ 0
#define MPOL_BIND_ 2
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

static int tap_n, tap_failed;

static void vtap(bool ok, const char *pfx, const char *fmt, va_list ap)
{
	printf("%s %d - %s", ok ? "ok" : "not ok", ++tap_n, pfx);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

void tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtap(ok, "", fmt, ap);
	va_end(ap);
}

void tap_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtap(true, "# SKIP ", fmt, ap);
	va_end(ap);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

uint64_t vm_page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

double vm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int vm_put(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int r = 0;

	if (!f)
		return -errno;
	if (fputs(v, f) < 0)
		r = -EIO;
	if (fclose(f) < 0 && !r)
		r = -errno;
	return r;
}

void vm_get(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

void vm_drain_lru(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int node = 0, status = 0;

	if (p == MAP_FAILED)
		return;
	*(volatile char *)p = 1;
	(void)syscall(SYS_move_pages, 0, 1UL, &p, &node, &status, 0);
	munmap(p, (size_t)ps);
}

void *vm_map_on_node(size_t len, int node, int fd, bool huge)
{
	unsigned long mask = 1UL << node;
	int flags = fd >= 0 ? MAP_SHARED : (MAP_PRIVATE | MAP_ANONYMOUS);
	char *p;

	if (huge && fd < 0)
		flags |= MAP_HUGETLB;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (syscall(SYS_mbind, p, len, MPOL_BIND_, &mask, sizeof(mask) * 8 + 1, 0) < 0) {
		munmap(p, len);
		return NULL;
	}
	return p;
}

int vm_task_bind(int node)
{
	unsigned long mask = node >= 0 ? 1UL << node : 0;

	if (node < 0)
		return syscall(SYS_set_mempolicy, MPOL_DEFAULT_, NULL, 0UL) < 0 ? -errno : 0;
	return syscall(SYS_set_mempolicy, MPOL_BIND_, &mask, sizeof(mask) * 8 + 1) < 0 ? -errno : 0;
}

int vm_allow_all(void *p, size_t len)
{
	unsigned long every = 0;
	char dir[64];

	/* the nodes this guest has: a bit past the kernel's nodes is EINVAL */
	for (int node = 0; node < 64; node++) {
		snprintf(dir, sizeof(dir), "/sys/devices/system/node/node%d", node);
		if (access(dir, F_OK) == 0)
			every |= 1UL << node;
	}
	return syscall(SYS_mbind, p, len, MPOL_BIND_, &every, sizeof(every) * 8 + 1, 0) < 0 ? -errno :
											      0;
}

int64_t vm_pfn(pid_t pid, uint64_t vaddr)
{
	char path[64];
	uint64_t e;
	int fd;
	ssize_t r;

	snprintf(path, sizeof(path), pid ? "/proc/%d/pagemap" : "/proc/self/pagemap", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = pread(fd, &e, 8, (off_t)(vaddr / vm_page_size() * 8));
	close(fd);
	if (r != 8)
		return -EIO;
	if (!(e >> 63))
		return 0;
	return (int64_t)(e & ((1ULL << 55) - 1));
}

uint64_t vm_kpageflags(uint64_t pfn)
{
	uint64_t f = 0;
	int fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &f, 8, (off_t)(pfn * 8)) != 8)
		f = 0;
	close(fd);
	return f;
}

int vm_nodes_of(pid_t pid, size_t n, void **addrs, int *status)
{
	long r = syscall(SYS_move_pages, pid, n, addrs, NULL, status, 0);

	return r < 0 ? -errno : 0;
}

void vm_fill(void *base, size_t npages, uint64_t seed)
{
	uint64_t ps = vm_page_size();

	for (size_t i = 0; i < npages; i++) {
		uint64_t *w = (uint64_t *)((char *)base + i * ps);
		uint64_t x = seed ^ (i * 0x9E3779B97F4A7C15ULL);

		for (size_t k = 0; k < ps / 8; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[k] = x;
		}
		w[0] = seed + i; /* the page's tag */
	}
}

uint64_t vm_sum(const void *page)
{
	const unsigned char *p = page;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint64_t i = 0; i < vm_page_size(); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

int vm_settle(const char *prog, void *base, size_t npages, uint64_t seed, uint64_t *sum, uint64_t *pfn)
{
	uint64_t ps = vm_page_size();

	vm_fill(base, npages, seed);
	if (vm_allow_all(base, npages * ps) < 0) {
		fprintf(stderr, "%s: mbind(every node): %s\n", prog, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < npages; i++)
		sum[i] = vm_sum((char *)base + i * ps);
	vm_drain_lru();
	if (vm_pfn_range(getpid(), (uintptr_t)base, npages, pfn) < 0) {
		fprintf(stderr, "%s: no PFNs from pagemap (root?)\n", prog);
		return -1;
	}
	return 0;
}

uint64_t vm_find_pfn(int node, uint64_t set, uint64_t clear)
{
	char path[128], buf[64];
	uint64_t block = 0, flags[512];
	DIR *d;
	struct dirent *de;
	int fd, kfd;
	ssize_t r;

	fd = open("/sys/devices/system/memory/block_size_bytes", O_RDONLY);
	if (fd < 0)
		return 0;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = 0;
	block = strtoull(buf, NULL, 16) / vm_page_size();
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	d = opendir(path);
	kfd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (!d || kfd < 0) {
		if (d)
			closedir(d);
		if (kfd >= 0)
			close(kfd);
		return 0;
	}
	while ((de = readdir(d))) {
		unsigned long id;

		if (sscanf(de->d_name, "memory%lu", &id) != 1)
			continue;
		for (uint64_t pfn = id * block; pfn < (id + 1) * block; pfn += 512) {
			if (pread(kfd, flags, sizeof(flags), (off_t)(pfn * 8)) != sizeof(flags))
				break;
			for (int i = 0; i < 512; i++) {
				if ((flags[i] & set) == set && !(flags[i] & clear)) {
					closedir(d);
					close(kfd);
					return pfn + (uint64_t)i;
				}
			}
		}
	}
	closedir(d);
	close(kfd);
	return 0;
}

/* ---- workload child ---- */

bool vm_child_light;
bool vm_child_keep_policy;

struct shared_hdr {
	pid_t grandchild;
};

static void *child_alloc(enum vm_child_kind kind, size_t npages, int node)
{
	uint64_t ps = vm_page_size(), len = npages * ps;
	char *p;

	switch (kind) {
	case VM_CHILD_ANON: return vm_map_on_node(len, node, -1, false);
	case VM_CHILD_THP: {
		/* 2 MiB aligned so the fault path can use a huge page */
		uint64_t huge = 2u << 20;
		char *raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned long mask = 1UL << node;

		if (raw == MAP_FAILED)
			return NULL;
		p = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
		if (madvise(p, len, MADV_HUGEPAGE) < 0 ||
		    syscall(SYS_mbind, p, len, MPOL_BIND_, &mask, sizeof(mask) * 8 + 1, 0) < 0)
			return NULL;
		return p;
	}
	case VM_CHILD_SHMEM: {
		int fd = open("/dev/shm/hb-vmtest", O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || ftruncate(fd, (off_t)len) < 0)
			return NULL;
		unlink("/dev/shm/hb-vmtest");
		return vm_map_on_node(len, node, fd, false);
	}
	case VM_CHILD_HUGETLB: return vm_map_on_node(len, node, -1, true);
	}
	return NULL;
}

static void child_main(struct vm_child *c, struct shared_hdr *hdr, enum vm_child_kind kind,
		       int node, uint64_t seed)
{
	uint64_t ps = vm_page_size();
	void **addrs = calloc(c->n, sizeof(*addrs));
	char *p = child_alloc(kind, c->n, node);
	char cmd;

	if (!p || !addrs)
		_exit(2);
	if (vm_child_light) {
		/* one call faults every page in: far fewer traps under TCG */
		(void)madvise(p, c->n * ps, MADV_POPULATE_WRITE);
		for (size_t i = 0; i < c->n; i++)
			*(uint64_t *)(p + i * ps) = seed + i;
	} else {
		vm_fill(p, c->n, seed);
	}
	if (!vm_child_keep_policy && vm_allow_all(p, c->n * ps) < 0)
		_exit(2);
	for (size_t i = 0; i < c->n; i++) {
		c->vaddr[i] = (uint64_t)(uintptr_t)(p + i * ps);
		c->sum[i] = vm_child_light ? seed + i : vm_sum(p + i * ps);
		addrs[i] = p + i * ps;
	}
	if (write(c->res, "r", 1) != 1)
		_exit(2);
	while (read(c->cmd, &cmd, 1) == 1) {
		if (cmd == 'v') {
			if (vm_nodes_of(0, c->n, addrs, c->node_now) < 0)
				memset(c->node_now, 0xff, c->n * sizeof(int));
			for (size_t i = 0; i < c->n; i++)
				c->sum_now[i] = vm_child_light ? *(uint64_t *)(p + i * ps) :
								 vm_sum(p + i * ps);
		} else if (cmd == 's' || cmd == 'h') {
			int done[2];
			char d;
			pid_t g;

			if (pipe(done) < 0)
				break;
			g = fork();
			if (g == 0) {
				/* 'h': write the first half (copy on write) */
				for (size_t i = 0; cmd == 'h' && i < c->n / 2; i++)
					*(volatile uint64_t *)(p + i * ps + 8) ^= 0x5a5a;
				(void)!write(done[1], "d", 1);
				for (;;)
					pause();
			}
			close(done[1]);
			if (g < 0 || read(done[0], &d, 1) != 1)
				break;
			close(done[0]);
			hdr->grandchild = g;
		} else {
			break;
		}
		if (write(c->res, &cmd, 1) != 1)
			break;
	}
	if (hdr->grandchild > 0) {
		kill(hdr->grandchild, SIGKILL);
		waitpid(hdr->grandchild, NULL, 0);
	}
	_exit(0);
}

int vm_child_start(struct vm_child *c, enum vm_child_kind kind, size_t npages, int node, uint64_t seed)
{
	size_t bytes = sizeof(struct shared_hdr) + npages * (3 * sizeof(uint64_t) + sizeof(int));
	int cmd[2], res[2];
	char *sh;
	char ok;

	sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe(cmd) < 0 || pipe(res) < 0)
		return -errno;
	memset(c, 0, sizeof(*c));
	c->n = npages;
	c->vaddr = (uint64_t *)(sh + sizeof(struct shared_hdr));
	c->sum = c->vaddr + npages;
	c->sum_now = c->sum + npages;
	c->node_now = (int *)(c->sum_now + npages);
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		c->cmd = cmd[0];
		c->res = res[1];
		child_main(c, (struct shared_hdr *)sh, kind, node, seed);
	}
	close(cmd[0]);
	close(res[1]);
	c->cmd = cmd[1];
	c->res = res[0];
	if (read(c->res, &ok, 1) != 1) {
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
		return -EIO;
	}
	return 0;
}

static int child_cmd(struct vm_child *c, char cmd)
{
	char ack;

	if (write(c->cmd, &cmd, 1) != 1 || read(c->res, &ack, 1) != 1 || ack != cmd)
		return -EIO;
	return 0;
}

int vm_child_verify(struct vm_child *c)
{
	return child_cmd(c, 'v');
}

int vm_child_share(struct vm_child *c)
{
	return child_cmd(c, 's');
}

int vm_child_share_cow_half(struct vm_child *c)
{
	return child_cmd(c, 'h');
}

void vm_child_stop(struct vm_child *c)
{
	if (c->pid > 0) {
		(void)!write(c->cmd, "q", 1);
		waitpid(c->pid, NULL, 0);
		close(c->cmd);
		close(c->res);
	}
	c->pid = 0;
}

int vm_pfn_range(pid_t pid, uint64_t vaddr, size_t n, uint64_t *pfn)
{
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = pread(fd, pfn, n * 8, (off_t)(vaddr / vm_page_size() * 8));
	close(fd);
	if (r != (ssize_t)(n * 8))
		return -EIO;
	for (size_t i = 0; i < n; i++)
		pfn[i] = (pfn[i] >> 63) ? pfn[i] & ((1ULL << 55) - 1) : 0;
	return 0;
}

int vm_child_pfns(const struct vm_child *c, uint64_t *pfn)
{
	for (size_t i = 0; i < c->n; i++) {
		int64_t r = vm_pfn(c->pid, c->vaddr[i]);

		if (r <= 0)
			return r < 0 ? (int)r : -ENOENT;
		pfn[i] = (uint64_t)r;
	}
	return 0;
}
