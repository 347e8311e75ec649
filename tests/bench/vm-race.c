// SPDX-License-Identifier: MIT
/*
 * hb-vmrace WORKLOAD NODE SECONDS ROOM RATE_MBPS DIR: one workload of the
 * race bench (tests/bench/race.sh, hb-vm-race.sh), in the guest, with
 * whichever mover the script started beside it.
 *
 * WORKLOAD, all of it on NODE (the CXL node):
 *   loop  4096 anonymous pages; hot set A (256 pages) read whole, 64
 *         lines a page, for SECONDS / 2, then hot set B (256 others): the
 *         closed loop's moving hot set (vm-chmu.c);
 *   file  a 4096-page file on tmpfs (DIR/file) written while the task was
 *         bound to NODE, so its page cache is there; 256 of its pages read
 *         with pread(2) over and over (64 lines a page): no mapping is ever
 *         touched, so no NUMA hint fault can fire;
 *   zipf  65536 anonymous pages (256 MiB), one line read per access, the
 *         page drawn from a Zipf distribution (s = 0.99) over a fixed
 *         random order of the pages; its hot set: the 4096 most likely;
 *   big   4096 anonymous pages, 2048 of them (every other page) read whole
 *         in turn for SECONDS: a hot set larger than DRAM's room (ROOM
 *         below 2048), which nothing should move back and forth;
 *   scan  256 hot pages read whole over and over beside one sequential
 *         pass, page after page, over a cold array of 16384 others (64
 *         MiB), paced to end with the run: the scan must not displace
 *         the hot set, nor should its pages (each read once) be moved.
 * The pages are filled, then their policy is MPOL_DEFAULT (so NUMA
 * balancing may move them), and nothing is on DRAM. It writes DIR/ready and
 * waits for DIR/go (the mover is running by then). Then it takes the
 * DRAM nodes' free memory down to ROOM pages above node 0's FLOOR (and
 * none above node 1's and others' low watermarks), holding it in locked
 * anonymous memory it never touches again, and keeps it there (below):
 * DRAM has room for less than the footprint.
 *
 * It counts its own accesses per page in windows (0.25 s; 1 s for zipf)
 * and at each window's start asks the kernel where every page is
 * (move_pages(2) without nodes): an access counts as served from DRAM when
 * its page was off NODE at its window's start. The oracle: knowing each
 * window's counts in advance, it holds the window's busiest pages on DRAM,
 * never more than ROOM (the room asked for), promoting at most RATE_MBPS (MB = 10^6 bytes, as
 * hotbridge's rate_mbps) a second from a one-second bucket; demotion free.
 * Its share is the same sum over its own placement.
 *
 * Printed at the end, one line "race: key=value ...": share (DRAM-served
 * share of the accesses), oracle (the oracle's share), t90 (seconds from
 * the (each) hot set's start to 90 % of it on DRAM, for big 90 % of ROOM,
 * -1 never), migr
 * (pgmigrate_success over the run) and hot (hot pages), cold_moved (pages
 * never accessed during the run whose frame changed), cold_dram (those of
 * them on DRAM at the end) and cold, bounced (pages seen on DRAM at one
 * window's start and back on NODE at a later one), hot_back (hot pages among
 * them), hot_off (hot pages not on DRAM at the end), scan_moved and
 * scan_dram (scan: pages of the scanned array whose frame changed, and of
 * them on DRAM at the end; 0 for the others), hint
 * (numa_hint_faults), promo (pgpromote_success), sys (the program's system
 * seconds), faults (its minor + major faults), mover_cpu (CPU seconds of
 * kdamond*, kswapd*, kcompactd*, kmigrate* and hotbridge over the run),
 * room (pages measured free above node 0's floor once held: the kernel's
 * per-CPU free lists make it a rough figure), room_want (ROOM), placed_max
 * (the most of the workload's pages seen off NODE at a window's start: at
 * most ROOM when the room binds), regrabbed (filler pages taken during the
 * run because something else freed DRAM).
 *
 * The floor: node 0's free memory is held at ROOM pages above FLOOR (pages;
 * default and at least its low watermark, where NUMA balancing's
 * promotion stops: in tiering mode a node short of its high watermark
 * only wakes kswapd, and the allocation, without reclaim, takes pages down
 * to the low one; hotbridge's watermark_mb for hotbridge, which stops
 * there), the other DRAM nodes at their low watermarks. During the run,
 * at each window's start, memory a DRAM node gained beyond the workload's
 * pages placed there (kswapd reclaiming, which NUMA balancing's promotion
 * wakes) is taken by the filler (locked): every mover sees ROOM pages
 * above its own stop and no more.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vm-lib.h"

#define LINES 64
#define FILE_PAGES 4096
#define LOOP_PAGES 4096
#define ZIPF_PAGES 65536
#define HOT 256
#define ZIPF_HOT 4096
#define ZIPF_S 0.99
#define MPOL_DEFAULT_ 0
#define BIG_PAGES 4096
#define BIG_HOT 2048
#define SCAN_PAGES 16384 /* the scanned array, after the hot set */
#define MAX_PROCS 4096

enum kind { LOOP, FILEREAD, ZIPF, BIG, SCAN };

struct race {
	enum kind kind;
	int node;
	size_t npages, nwin, nhot;
	double win_s, secs;
	char *base;
	int fd;
	uint64_t psz;
	uint32_t *count; /* [window][page] */
	size_t *hot;     /* loop: A then B; else the one hot set */
	size_t *perm;    /* zipf: rank -> page */
	double *cdf;     /* zipf: by rank */
	uint64_t rng;
	char *buf;   /* file: one page */
	size_t next; /* scan: the pass's next page */
	volatile uint64_t sink;
};

struct proc_cpu {
	int pid;
	double s;
};

static void wait_for(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK))
		usleep(20000);
}

static void put(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

static uint64_t vmstat(const char *name)
{
	char line[128];
	uint64_t v = 0;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = strtoull(line + len + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* a node's free pages (its meminfo's MemFree) */
static long node_free(int node)
{
	char path[96], line[160];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "MemFree:");

		if (p) {
			kb = strtol(p + 8, NULL, 10);
			break;
		}
	}
	if (f)
		fclose(f);
	return kb < 0 ? -1 : kb / 4;
}

/* the sum of one watermark ("low", "high") of a node's zones (pages) */
static long node_wmark(int node, const char *which)
{
	char line[160], fmt[32];
	long sum = 0;
	int cur = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	snprintf(fmt, sizeof(fmt), " %s %%ld", which);
	while (f && fgets(line, sizeof(line), f)) {
		long v;

		if (sscanf(line, "Node %d,", &cur) == 1)
			continue;
		if (cur == node && sscanf(line, fmt, &v) == 1)
			sum += v;
	}
	if (f)
		fclose(f);
	return sum;
}

/*
 * The filler: anonymous memory on a node, touched once and locked (so
 * neither reclaim nor swap gives it back), never used again.
 */
#define HOLD_CHUNKS 4096
static struct {
	char *p;
	size_t n;
} chunk[HOLD_CHUNKS];
static size_t nchunk;

/* n more pages of filler on node; the pages taken */
static long grab(int node, long n)
{
	long ps = (long)vm_page_size(), took = 0;

	while (n > took && nchunk < HOLD_CHUNKS) {
		size_t k = n - took > 2048 ? 2048 : (size_t)(n - took);
		char *p = vm_map_on_node(k * (size_t)ps, node, -1, false);

		if (!p)
			break;
		for (size_t i = 0; i < k; i++)
			p[i * (size_t)ps] = 1;
		(void)mlock(p, k * (size_t)ps);
		chunk[nchunk].p = p;
		chunk[nchunk++].n = k;
		took += (long)k;
	}
	return took;
}

/*
 * Holds a node's free memory at keep pages above base (its high
 * watermark, or the watermark a mover stops at); the room left. The
 * per-CPU free lists blur it: an allocation refills them from the node's
 * free pages in batches, and since 6.7 they give pages back over the
 * following seconds (their high mark decays). So it holds, waits a
 * second, measures, and holds more or lets go of pages, until the room is
 * within 32 pages of keep or six rounds have passed.
 */
static long hold(int node, long base, long keep)
{
	size_t first = nchunk; /* this node's chunks */
	long ps = (long)vm_page_size();

	for (int round = 0; round < 6; round++) {
		long over = node_free(node) - base - keep;

		if (round && over >= -32 && over <= 32)
			break;
		if (over > 0)
			over -= grab(node, over);
		/* too little: give back the last chunks' tails */
		while (over < 0 && nchunk > first) {
			size_t give = (size_t)-over, *n = &chunk[nchunk - 1].n;

			if (give >= *n) {
				munmap(chunk[nchunk - 1].p, *n * (size_t)ps);
				over += (long)*n;
				nchunk--;
				continue;
			}
			munmap(chunk[nchunk - 1].p + (*n - give) * (size_t)ps, give * (size_t)ps);
			*n -= give;
			over = 0;
		}
		usleep(1000000);
	}
	return node_free(node) - base;
}

/* CPU seconds of the movers' threads and processes, by pid */
static bool mover_comm(const char *c)
{
	static const char *const names[] = { "kdamond", "kswapd", "kcompactd", "kmigrate",
					     "hotbridge" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(c, names[i], strlen(names[i])))
			return true;
	return false;
}

static size_t mover_cpu(struct proc_cpu *pc, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)) && n < max) {
		char path[300], buf[512], *l, *r;
		unsigned long ut, st;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		l = strchr(buf, '(');
		r = strrchr(buf, ')');
		if (!l || !r)
			continue;
		*r = 0;
		if (!mover_comm(l + 1))
			continue;
		/* after ") ": state, then fields 4..13; utime and stime are 14 and 15 */
		if (sscanf(r + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) !=
		    2)
			continue;
		pc[n].pid = atoi(e->d_name);
		pc[n++].s = (double)(ut + st) / 100.0;
	}
	if (d)
		closedir(d);
	return n;
}

static double mover_cpu_since(const struct proc_cpu *a, size_t na)
{
	static struct proc_cpu b[MAX_PROCS];
	size_t nb = mover_cpu(b, MAX_PROCS);
	double s = 0;

	for (size_t i = 0; i < nb; i++) {
		double before = 0;

		for (size_t k = 0; k < na; k++)
			if (a[k].pid == b[i].pid)
				before = a[k].s;
		s += b[i].s - before;
	}
	return s;
}

static uint64_t rnd(struct race *r)
{
	r->rng ^= r->rng >> 12;
	r->rng ^= r->rng << 25;
	r->rng ^= r->rng >> 27;
	return r->rng * 0x2545F4914F6CDD1DULL;
}

static void read_page(struct race *r, size_t p, uint32_t *cnt)
{
	const volatile uint64_t *pg = (const volatile uint64_t *)(r->base + p * r->psz);
	uint64_t sum = 0;

	for (unsigned int l = 0; l < LINES; l++)
		sum += pg[l * (r->psz / 8 / LINES)];
	r->sink += sum;
	cnt[p] += LINES;
}

/* accesses until the clock reaches until; t: seconds since the start */
static void burst(struct race *r, double t0, double until, uint32_t *cnt)
{
	while (vm_now() < until) {
		const size_t *set = r->hot;

		switch (r->kind) {
		case LOOP:
			if (vm_now() - t0 >= r->secs / 2)
				set = r->hot + HOT;
			for (size_t i = 0; i < HOT; i++)
				read_page(r, set[i], cnt);
			break;
		case FILEREAD:
			for (size_t i = 0; i < HOT; i++) {
				if (pread(r->fd, r->buf, r->psz, (off_t)(set[i] * r->psz)) !=
				    (ssize_t)r->psz)
					break;
				r->sink += (uint64_t)r->buf[0];
				cnt[set[i]] += LINES;
			}
			break;
		case BIG:
			for (size_t i = 0; i < r->nhot; i++)
				read_page(r, set[i], cnt);
			break;
		case SCAN: {
			/* the pass's page now: page HOT + next, paced to end with the run */
			size_t due = (size_t)((vm_now() - t0) / r->secs * SCAN_PAGES);

			for (size_t i = 0; i < HOT; i++)
				read_page(r, set[i], cnt);
			for (; r->next < due && r->next < SCAN_PAGES; r->next++)
				read_page(r, HOT + r->next, cnt);
			break;
		}
		case ZIPF:
			for (int k = 0; k < 4096; k++) {
				double u = (double)(rnd(r) >> 11) / 9007199254740992.0;
				size_t lo = 0, hi = r->npages - 1, p;
				unsigned int line = (unsigned int)(rnd(r) & (LINES - 1));

				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (r->cdf[mid] > u)
						hi = mid;
					else
						lo = mid + 1;
				}
				p = r->perm[lo];
				r->sink += *(const volatile uint64_t *)(r->base + p * r->psz +
									line * (r->psz / LINES));
				cnt[p]++;
			}
			break;
		}
	}
}

static size_t on_dram(const struct race *r, const int *status, const size_t *set, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += status[set[i]] >= 0 && status[set[i]] != r->node;
	return k;
}

static int cmp_desc(const void *a, const void *b, void *arg)
{
	const uint32_t *c = arg;
	uint32_t x = c[*(const size_t *)a], y = c[*(const size_t *)b];

	/* ties by page: the order is total, the oracle's choice the same each window */
	if (x != y)
		return x < y ? 1 : -1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* the clairvoyant oracle's DRAM-served accesses (see the top) */
static double oracle(const struct race *r, size_t nwin, double room, double rate_pages_s)
{
	size_t *order = malloc(r->npages * sizeof(*order));
	size_t *victim = malloc(r->npages * sizeof(*victim));
	bool *placed = calloc(r->npages, sizeof(*placed));
	bool *want = calloc(r->npages, sizeof(*want));
	double tokens = rate_pages_s, served = 0;
	size_t nplaced = 0, cap = room < 1 ? 0 : (size_t)room;

	if (!order || !victim || !placed || !want)
		return -1;
	for (size_t w = 0; w < nwin; w++) {
		const uint32_t *c = r->count + w * r->npages;
		size_t n = 0, nv = 0, vi = 0;

		tokens += rate_pages_s * r->win_s;
		if (tokens > rate_pages_s)
			tokens = rate_pages_s;
		for (size_t p = 0; p < r->npages; p++)
			if (c[p])
				order[n++] = p;
		qsort_r(order, n, sizeof(*order), cmp_desc, (void *)c);
		if (n > cap)
			n = cap;
		memset(want, 0, r->npages * sizeof(*want));
		for (size_t i = 0; i < n; i++)
			want[order[i]] = true;
		/* the placed pages it may demote, least busy in this window first */
		for (size_t p = 0; p < r->npages; p++)
			if (placed[p] && !want[p])
				victim[nv++] = p;
		qsort_r(victim, nv, sizeof(*victim), cmp_desc, (void *)c);
		for (size_t i = 0; i < n && tokens >= 1; i++) {
			size_t p = order[i];

			if (placed[p])
				continue;
			if (nplaced >= cap) {
				if (vi >= nv)
					break;
				placed[victim[nv - 1 - vi++]] = false;
				nplaced--;
			}
			placed[p] = true;
			nplaced++;
			tokens -= 1;
		}
		for (size_t p = 0; p < r->npages; p++)
			if (placed[p])
				served += c[p];
	}
	free(order);
	free(victim);
	free(placed);
	free(want);
	return served;
}

static int setup(struct race *r, const char *dir)
{
	char path[512];

	r->psz = vm_page_size();
	r->rng = 0x9e3779b97f4a7c15ULL;
	r->win_s = r->kind == ZIPF ? 1.0 : 0.25;
	switch (r->kind) {
	case ZIPF:
		r->npages = ZIPF_PAGES;
		r->nhot = ZIPF_HOT;
		break;
	case LOOP:
		r->npages = LOOP_PAGES;
		r->nhot = 2 * HOT;
		break;
	case FILEREAD:
		r->npages = FILE_PAGES;
		r->nhot = HOT;
		break;
	case BIG:
		r->npages = BIG_PAGES;
		r->nhot = BIG_HOT;
		break;
	case SCAN:
		r->npages = HOT + SCAN_PAGES;
		r->nhot = HOT;
		break;
	}
	r->hot = calloc(r->nhot, sizeof(*r->hot));
	if (!r->hot)
		return -ENOMEM;
	if (r->kind == FILEREAD) {
		int fd;

		r->buf = malloc(r->psz);
		snprintf(path, sizeof(path), "%s/file", dir);
		if (!r->buf || vm_task_bind(r->node) < 0)
			return -errno;
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		for (size_t i = 0; i < r->npages; i++) {
			memset(r->buf, (int)(i & 0xff), r->psz);
			if (write(fd, r->buf, r->psz) != (ssize_t)r->psz)
				return -EIO;
		}
		if (vm_task_bind(-1) < 0)
			return -errno;
		r->fd = fd;
		/* for move_pages(2) and pagemap only: never read through */
		r->base = mmap(NULL, r->npages * r->psz, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
		if (r->base == MAP_FAILED)
			return -errno;
	} else {
		r->base = vm_map_on_node(r->npages * r->psz, r->node, -1, false);
		if (!r->base)
			return -errno;
		for (size_t i = 0; i < r->npages; i++)
			memset(r->base + i * r->psz, (int)(i & 0xff), r->psz);
		/*
		 * not read back: the fill's last 512 KiB stays dirty in the host
		 * cache in front of the CHMU model and is written back once the
		 * workload runs, 64 writes a page, after the mover (and the
		 * CHMU's reset) has started, as a real program's fresh buffer
		 * would be. A mover must not take those cold pages for hot.
		 */
		/* the default policy: NUMA balancing may move them (a binding forbids it) */
		if (syscall(SYS_mbind, r->base, r->npages * r->psz, MPOL_DEFAULT_, NULL, 0UL, 0) < 0)
			return -errno;
	}
	if (r->kind == ZIPF) {
		double h = 0;

		r->perm = calloc(r->npages, sizeof(*r->perm));
		r->cdf = calloc(r->npages, sizeof(*r->cdf));
		if (!r->perm || !r->cdf)
			return -ENOMEM;
		for (size_t i = 0; i < r->npages; i++) {
			h += pow((double)(i + 1), -ZIPF_S);
			r->cdf[i] = h;
			r->perm[i] = i;
		}
		for (size_t i = 0; i < r->npages; i++)
			r->cdf[i] /= h;
		r->cdf[r->npages - 1] = 1.01; /* every draw below it */
		for (size_t i = r->npages - 1; i > 0; i--) {
			size_t j = rnd(r) % (i + 1), t = r->perm[i];

			r->perm[i] = r->perm[j];
			r->perm[j] = t;
		}
		for (size_t i = 0; i < r->nhot; i++)
			r->hot[i] = r->perm[i];
	} else if (r->kind == BIG) {
		for (size_t i = 0; i < r->nhot; i++)
			r->hot[i] = 2 * i;
	} else if (r->kind == SCAN) {
		for (size_t i = 0; i < r->nhot; i++)
			r->hot[i] = i;
	} else {
		/* spread over the pages like the closed loop's A and B */
		size_t stride = r->npages / HOT;

		for (size_t i = 0; i < HOT; i++) {
			r->hot[i] = i * stride + stride / 4 + i % 2;
			if (r->kind == LOOP)
				r->hot[HOT + i] = i * stride + (3 * stride) / 4 + i % 2;
		}
	}
	r->nwin = (size_t)(r->secs / r->win_s) + 2;
	r->count = calloc(r->nwin * r->npages, sizeof(*r->count));
	return r->count ? 0 : -ENOMEM;
}

int main(int argc, char **argv)
{
	static struct proc_cpu cpu0[MAX_PROCS];
	struct race r = { .fd = -1 };
	struct rusage ru0, ru1;
	double room_want, rate, t0, t90[2] = { -1, -1 }, served = 0, total = 0, room, orc;
	long stop0, stop[64], keep[64], placed_max = 0, regrabbed = 0;
	bool held[64] = { false };
	uint64_t *pfn0, *pfn1, mig0, hint0, promo0;
	size_t ncpu, w = 0, cold = 0, cold_moved = 0, cold_dram = 0;
	size_t bounced = 0, hot_back = 0, hot_off = 0, scan_moved = 0, scan_dram = 0;
	bool *was_dram; /* seen on DRAM at a window's start */
	uint32_t *back; /* times seen back on the CXL node after that */
	void **addrs;
	int *status, rc;
	const char *dir;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: hb-vmrace loop|file|zipf|big|scan NODE SECONDS ROOM RATE_MBPS "
				"DIR [FLOOR]\n");
		return 2;
	}
	{
		static const char *const kinds[] = {
			[LOOP] = "loop", [FILEREAD] = "file", [ZIPF] = "zipf", [BIG] = "big", [SCAN] = "scan"
		};
		size_t k = 0;

		while (k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(argv[1], kinds[k]))
			k++;
		if (k == sizeof(kinds) / sizeof(kinds[0])) {
			fprintf(stderr, "hb-vmrace: unknown workload '%s'\n", argv[1]);
			return 2;
		}
		r.kind = (enum kind)k;
	}
	r.node = atoi(argv[2]);
	r.secs = atof(argv[3]);
	room_want = atof(argv[4]);
	rate = atof(argv[5]) * 1e6 / (double)vm_page_size();
	dir = argv[6];
	stop0 = argc == 8 ? atol(argv[7]) : -1;
	rc = setup(&r, dir);
	addrs = calloc(r.npages, sizeof(*addrs));
	status = calloc(r.npages, sizeof(*status));
	pfn0 = calloc(r.npages, sizeof(*pfn0));
	pfn1 = calloc(r.npages, sizeof(*pfn1));
	was_dram = calloc(r.npages, sizeof(*was_dram));
	back = calloc(r.npages, sizeof(*back));
	if (rc < 0 || !addrs || !status || !pfn0 || !pfn1 || !was_dram || !back) {
		fprintf(stderr, "hb-vmrace: set-up of %s on node %d: %s\n", argv[1], r.node,
			strerror(rc < 0 ? -rc : ENOMEM));
		return 1;
	}
	for (size_t i = 0; i < r.npages; i++)
		addrs[i] = r.base + i * r.psz;
	vm_drain_lru();
	if (vm_nodes_of(0, r.npages, addrs, status) < 0 ||
	    vm_pfn_range(getpid(), (uintptr_t)r.base, r.npages, pfn0) < 0) {
		fprintf(stderr, "hb-vmrace: move_pages or pagemap: %s\n", strerror(errno));
		return 1;
	}
	{
		size_t there = 0;

		for (size_t i = 0; i < r.npages; i++)
			there += status[i] == r.node;
		printf("hb-vmrace: %s: %zu pages, %zu on node %d at the start\n", argv[1], r.npages,
		       there, r.node);
		if (there * 100 < r.npages * 99) {
			fprintf(stderr, "hb-vmrace: the workload is not on node %d\n", r.node);
			return 1;
		}
	}
	fflush(stdout);
	put(dir, "ready");
	wait_for(dir, "go");

	/*
	 * DRAM with room for less than the footprint: node 0 ROOM pages, the
	 * others none; node 0 last (holding the others takes some of its pages)
	 */
	for (int k = 1; k <= 64; k++) {
		int n = k % 64;
		char p[64];

		snprintf(p, sizeof(p), "/sys/devices/system/node/node%d", n);
		if (n != r.node && access(p, F_OK) == 0) {
			long left;

			stop[n] = n == 0 && stop0 >= node_wmark(0, "low") ? stop0 :
									    node_wmark(n, "low");
			keep[n] = n == 0 ? (long)room_want : 0;
			held[n] = true;
			left = hold(n, stop[n], keep[n]);
			printf("hb-vmrace: node %d held to %ld pages above %ld (its low watermark "
			       "%ld, high %ld)\n",
			       n, left, stop[n], node_wmark(n, "low"), node_wmark(n, "high"));
		}
	}
	room = (double)(node_free(0) - stop[0]);
	fflush(stdout);

	ncpu = mover_cpu(cpu0, MAX_PROCS);
	mig0 = vmstat("pgmigrate_success");
	hint0 = vmstat("numa_hint_faults");
	promo0 = vmstat("pgpromote_success");
	getrusage(RUSAGE_SELF, &ru0);
	t0 = vm_now();
	for (w = 0; w < r.nwin && vm_now() - t0 < r.secs; w++) {
		uint32_t *cnt = r.count + w * r.npages;
		double now = vm_now() - t0, end = t0 + (double)(w + 1) * r.win_s;
		size_t a = 0;

		(void)vm_nodes_of(0, r.npages, addrs, status);
		{
			/*
			 * The room binds every mover: whatever frees memory on a
			 * DRAM node (kswapd's reclaim, which NUMA balancing's
			 * promotion wakes) is taken by the filler, so that the
			 * workload's pages there never pass the room
			 */
			long on[64] = { 0 }, placed = 0;

			for (size_t p = 0; p < r.npages; p++)
				if (status[p] >= 0 && status[p] < 64 && status[p] != r.node) {
					on[status[p]]++;
					placed++;
				}
			placed_max = placed > placed_max ? placed : placed_max;
			for (int n = 0; n < 64; n++) {
				long over;

				if (!held[n])
					continue;
				over = node_free(n) - stop[n] - (keep[n] - on[n]);
				if (over > 32)
					regrabbed += grab(n, over);
			}
		}
		if (r.kind == LOOP) {
			int ph = now >= r.secs / 2;
			double since = ph ? now - r.secs / 2 : now;

			a = on_dram(&r, status, r.hot + ph * HOT, HOT);
			if (t90[ph] < 0 && a * 10 >= HOT * 9)
				t90[ph] = since;
			/* the phase changes at a window's edge: the windows are 0.25 s */
			if (!ph && end - t0 > r.secs / 2)
				end = t0 + r.secs / 2;
		} else {
			/* big: the hot set does not fit, 90 % of the room is the goal */
			double goal = r.kind == BIG && room_want < (double)r.nhot ? room_want :
										    (double)r.nhot;

			a = on_dram(&r, status, r.hot, r.nhot);
			if (t90[0] < 0 && (double)a * 10 >= goal * 9)
				t90[0] = now;
		}
		for (size_t p = 0; p < r.npages; p++) {
			bool dram = status[p] >= 0 && status[p] != r.node;

			if (dram)
				was_dram[p] = true;
			else if (was_dram[p] && status[p] == r.node && !back[p]++)
				bounced++;
		}
		if (w % (size_t)(2 / r.win_s) == 0)
			printf("hb-vmrace: t=%5.1f s: %zu of the hot set on DRAM\n", now, a);
		burst(&r, t0, end, cnt);
		for (size_t p = 0; p < r.npages; p++) {
			total += cnt[p];
			if (status[p] >= 0 && status[p] != r.node)
				served += cnt[p];
		}
	}
	getrusage(RUSAGE_SELF, &ru1);
	{
		double cpu = mover_cpu_since(cpu0, ncpu);
		uint64_t mig = vmstat("pgmigrate_success") - mig0;
		uint64_t hint = vmstat("numa_hint_faults") - hint0;
		uint64_t promo = vmstat("pgpromote_success") - promo0;
		double sys = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
			     (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
		long faults = (ru1.ru_minflt - ru0.ru_minflt) + (ru1.ru_majflt - ru0.ru_majflt);

		(void)vm_pfn_range(getpid(), (uintptr_t)r.base, r.npages, pfn1);
		(void)vm_nodes_of(0, r.npages, addrs, status);
		for (size_t p = 0; p < r.npages; p++) {
			uint64_t sum = 0;

			for (size_t k = 0; k < w; k++)
				sum += r.count[k * r.npages + p];
			if (r.kind == SCAN && p >= HOT) {
				scan_moved += pfn1[p] != pfn0[p];
				scan_dram += status[p] >= 0 && status[p] != r.node;
			}
			if (sum)
				continue;
			cold++;
			cold_moved += pfn1[p] != pfn0[p];
			cold_dram += status[p] >= 0 && status[p] != r.node;
		}
		for (size_t i = 0; i < r.nhot; i++) {
			size_t p = r.hot[i];

			hot_back += back[p] > 0;
			hot_off += !(status[p] >= 0 && status[p] != r.node);
		}
		orc = oracle(&r, w, room_want, rate);
		printf("race: workload=%s share=%.4f oracle=%.4f t90=%.2f", argv[1],
		       total > 0 ? served / total : 0, total > 0 ? orc / total : 0, t90[0]);
		if (r.kind == LOOP)
			printf(",%.2f", t90[1]);
		printf(" migr=%llu hot=%zu cold_moved=%zu cold_dram=%zu cold=%zu bounced=%zu hot_back=%zu "
		       "hot_off=%zu scan_moved=%zu scan_dram=%zu hint=%llu promo=%llu sys=%.2f "
		       "faults=%ld mover_cpu=%.2f room=%.0f room_want=%.0f placed_max=%ld "
		       "regrabbed=%ld accesses=%.0f secs=%.1f\n",
		       (unsigned long long)mig, r.nhot, cold_moved, cold_dram, cold, bounced,
		       hot_back, hot_off, scan_moved, scan_dram, (unsigned long long)hint,
		       (unsigned long long)promo, sys, faults, cpu, room, room_want, placed_max,
		       regrabbed, total, vm_now() - t0);
	}
	fflush(stdout);
	return 0;
}
