// SPDX-License-Identifier: MIT
/*
 * hb-vmidle: runs inside the test guest, as root, and checks kernel/coldness/idle.c
 * against the kernel's /sys/kernel/mm/page_idle/bitmap.
 *
 *   hb-vmidle mpp     our 6.12 kernel (CONFIG_IDLE_PAGE_TRACKING=y): a child
 *                     process owns N pages on node 0 (no THP: idleness is
 *                     per folio); we take their PFNs from its pagemap, mark
 *                     them idle, and the set reads all idle; the child
 *                     touches every other page (half by reading, half by
 *                     writing), and exactly the untouched half reads idle;
 *                     marked again, it touches all, none reads idle
 *                     Then kernel/migrate/conflicts.c against the real files: what
 *                     the guest has, then demotion_enabled = true and
 *                     numa_balancing = 2 are each reported (and restored)
 *   hb-vmidle stock   Debian's stock 6.12 (no IDLE_PAGE_TRACKING): open
 *                     fails -ENOENT naming the option
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"
#include "vm-lib.h"

#define NPAGES 8192 /* 32 MiB */

struct child {
	pid_t pid;
	int cmd, res;
	uint64_t vaddr;
};

/*
 * The child: maps and fills NPAGES on node 0, sends the address, then
 * obeys: 'h' touches the even pages (reads pages 0 mod 4, writes 2 mod 4),
 * 'a' touches every page, 'q' or EOF ends it. Each command is acked.
 */
static void child_main(int cmd, int res)
{
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *p = vm_map_on_node((size_t)NPAGES * (size_t)ps, 0, -1, false);
	uint64_t v = (uintptr_t)p;
	unsigned long sum = 0;
	char c;

	if (p && madvise((void *)p, (size_t)NPAGES * (size_t)ps, MADV_NOHUGEPAGE) < 0)
		p = NULL;
	if (p)
		for (size_t i = 0; i < NPAGES; i++)
			p[i * (size_t)ps] = (char)i;
	v = p ? (uintptr_t)p : 0;
	if (write(res, &v, sizeof(v)) != sizeof(v) || !p)
		_exit(1);
	while (read(cmd, &c, 1) == 1 && c != 'q') {
		for (size_t i = 0; i < NPAGES; i++) {
			if (c == 'h' && i % 2)
				continue;
			if (c == 'h' && i % 4 == 0)
				sum += (unsigned char)p[i * (size_t)ps];
			else
				p[i * (size_t)ps] += 1;
		}
		if (write(res, &c, 1) != 1)
			_exit(1);
	}
	_exit(sum == 0xdeadbeef);
}

static int child_start(struct child *ch)
{
	int cmd[2], res[2];

	if (pipe(cmd) < 0 || pipe(res) < 0)
		return -errno;
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (ch->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		child_main(cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	ch->cmd = cmd[1];
	ch->res = res[0];
	if (read(ch->res, &ch->vaddr, sizeof(ch->vaddr)) != sizeof(ch->vaddr) || !ch->vaddr)
		return -ENOMEM;
	return 0;
}

static int child_do(struct child *ch, char c)
{
	char ack;

	if (write(ch->cmd, &c, 1) != 1 || read(ch->res, &ack, 1) != 1 || ack != c)
		return -EIO;
	return 0;
}

static void child_stop(struct child *ch)
{
	int st;

	if (ch->pid <= 0)
		return;
	(void)!write(ch->cmd, "q", 1);
	close(ch->cmd);
	close(ch->res);
	(void)waitpid(ch->pid, &st, 0);
}

struct page {
	uint64_t pfn;
	size_t idx; /* page index in the child's mapping */
};

static int page_cmp(const void *a, const void *b)
{
	const struct page *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* idle[] (in PFN order) back to page order; how many of the wanted parity are idle */
static size_t count_idle(const struct page *pg, const bool *idle, int parity, size_t *wrong)
{
	size_t k = 0;

	*wrong = 0;
	for (size_t j = 0; j < NPAGES; j++) {
		bool want = parity < 0  ? false :
			    parity == 2 ? true :
					  (int)(pg[j].idx % 2) == parity;

		k += idle[j];
		*wrong += idle[j] != want;
	}
	return k;
}

/* the real files: each switch turned on is reported, then put back */
static void check_conflicts(void)
{
	static const struct {
		const char *path, *on;
		enum hb_conflict c;
	} sw[] = {
		{ "/sys/kernel/mm/numa/demotion_enabled", "true", HB_CONFLICT_KERNEL_DEMOTION },
		{ "/proc/sys/kernel/numa_balancing", "2", HB_CONFLICT_NUMA_TIERING },
	};
	struct hb_conflicts c;
	char was[32];
	int r;

	hb_conflicts_probe(NULL, NULL, &c);
	tap_diag("conflicts in the guest as booted: %#x", c.found);
	for (int k = 0; k < _HB_CONFLICT_MAX; k++)
		if (c.found & 1u << k)
			tap_diag("  %s: %s", hb_conflict_to_string(k), c.why[k]);
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		vm_get(sw[i].path, was, sizeof(was));
		r = vm_put(sw[i].path, sw[i].on);
		if (r < 0) {
			tap_skip("%s: cannot write %s (%s)", sw[i].path, sw[i].on, strerror(-r));
			continue;
		}
		hb_conflicts_probe(NULL, NULL, &c);
		tap_ok(c.found & 1u << sw[i].c, "%s = %s (was %s): %s reported: %s", sw[i].path,
		       sw[i].on, was, hb_conflict_to_string(sw[i].c), c.why[sw[i].c]);
		(void)vm_put(sw[i].path, was);
		hb_conflicts_probe(NULL, NULL, &c);
		tap_ok(!(c.found & 1u << sw[i].c), "%s back to %s: not reported", sw[i].path, was);
	}
}

static int run_mpp(void)
{
	struct page *pg = calloc(NPAGES, sizeof(*pg));
	uint64_t *raw = calloc(NPAGES, 8), *pfn = calloc(NPAGES, 8);
	bool *idle = calloc(NPAGES, sizeof(bool));
	struct hb_idle *t = NULL;
	struct hb_idle_stats st;
	struct hb_err err = { 0 };
	struct child ch = { 0 };
	size_t wrong, missing = 0;
	long n;
	double t0;
	int r;

	r = hb_idle_open(NULL, &t, &err);
	tap_ok(r == 0, "hb_idle_open: %s", r ? err.msg : "bitmap open");
	if (r < 0)
		return tap_done();
	r = child_start(&ch);
	if (r == 0)
		r = vm_pfn_range(ch.pid, ch.vaddr, NPAGES, raw);
	for (size_t i = 0; r == 0 && i < NPAGES; i++) {
		pg[i] = (struct page){ .pfn = raw[i], .idx = i };
		missing += !raw[i];
	}
	tap_ok(r == 0 && !missing, "child %d: %d pages on node 0, PFNs from its pagemap (%zu absent)",
	       ch.pid, NPAGES, missing);
	if (r < 0 || missing)
		goto out;
	qsort(pg, NPAGES, sizeof(*pg), page_cmp);
	for (size_t j = 0; j < NPAGES; j++)
		pfn[j] = pg[j].pfn;
	vm_drain_lru();

	t0 = vm_now();
	r = hb_idle_mark(t, NPAGES, pfn, &err);
	tap_ok(r == 0, "marked %d PFNs idle in %.1f ms%s%s", NPAGES, (vm_now() - t0) * 1e3,
	       r ? ": " : "", r ? err.msg : "");
	n = hb_idle_read(t, NPAGES, pfn, idle, &err);
	count_idle(pg, idle, 2, &wrong);
	tap_ok(n == NPAGES && !wrong, "untouched: %ld of %d read idle%s%s", n, NPAGES,
	       n < 0 ? ": " : "", n < 0 ? err.msg : "");

	r = child_do(&ch, 'h');
	t0 = vm_now();
	n = hb_idle_read(t, NPAGES, pfn, idle, &err);
	hb_idle_get_stats(t, &st);
	count_idle(pg, idle, 1, &wrong);
	tap_ok(r == 0 && n == NPAGES / 2 && !wrong,
	       "child touched the even pages: %ld read idle (want %d, exactly the odd ones: %zu "
	       "wrong) in %.1f ms%s%s",
	       n, NPAGES / 2, wrong, (vm_now() - t0) * 1e3, n < 0 ? ": " : "", n < 0 ? err.msg : "");
	tap_diag("so far %llu pwrites (%llu words), %llu preads (%llu words) for %d PFNs",
		 (unsigned long long)st.pwrites, (unsigned long long)st.words_written,
		 (unsigned long long)st.preads, (unsigned long long)st.words_read, NPAGES);

	r = hb_idle_mark(t, NPAGES, pfn, &err);
	if (r == 0)
		r = child_do(&ch, 'a');
	n = hb_idle_read(t, NPAGES, pfn, idle, &err);
	count_idle(pg, idle, -1, &wrong);
	tap_ok(r == 0 && n == 0, "marked again, child touched all: %ld read idle (want 0)%s%s", n,
	       n < 0 ? ": " : "", n < 0 ? err.msg : "");
	check_conflicts();
out:
	child_stop(&ch);
	hb_idle_free(t);
	free(pg);
	free(raw);
	free(pfn);
	free(idle);
	return tap_done();
}

static int run_stock(void)
{
	struct hb_idle *t = NULL;
	struct hb_err err = { 0 };
	int r = hb_idle_open(NULL, &t, &err);

	tap_ok(r == -ENOENT && strstr(err.msg, "CONFIG_IDLE_PAGE_TRACKING"),
	       "stock kernel: unavailable (%d: %s)", r, err.msg);
	hb_idle_free(t);
	return tap_done();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "mpp"))
		return run_mpp();
	if (argc == 2 && !strcmp(argv[1], "stock"))
		return run_stock();
	fprintf(stderr, "usage: hb-vmidle mpp|stock\n");
	return 2;
}
