// SPDX-License-Identifier: MIT
/*
 * hb-vmchmu NODE PAGES HOT PHASE_S BOUND_S DIR [RESIDENT]: the closed loop's
 * workload, in the guest (tests/e2e/hb-vm-chmu.sh runs it beside
 * `hotbridge run`).
 *
 * It maps PAGES pages bound to NODE (the CXL node), fills each with its
 * tag and records its PFN and checksum. Two disjoint hot sets of HOT pages,
 * A and B, are spread over them; only this program knows which. It writes
 * DIR/ready ("<hpa of A's first page> <hpa of B's first page>") and waits
 * for DIR/go: the daemon has programmed the CHMU by then, which resets its
 * counters, so the accesses of the set-up (the kernel zeroing the pages, the
 * fill) count for nothing.
 *
 * Phase A reads A's pages (every cache line) over and over for PHASE_S
 * seconds; phase B then does the same with B. RESIDENT (default 0) more
 * pages, set C, are read in both phases after every 8 pages of the busy
 * set, 2 lines a page: as many reads a page as A or B get, but few enough
 * (16 lines) to stay in the host cache that QEMU's CHMU model puts in front
 * of the device, which then never sees them (tests/qemu/README.md). The
 * first 10 passes of phase A are timed: the guest's cost of an access to
 * the CXL window. Every 250 ms it asks the
 * kernel where each page of the busy set is (move_pages(2) without nodes)
 * and prints the coverage when it changes (and once a second while part
 * of the set is still on the CXL node). After DIR/done it waits for
 * DIR/stopped (the daemon has exited) and checks, as TAP:
 *  - A and B: at least 90 % on DRAM within BOUND_S of their phase's start;
 *  - every cold page (in neither set) at the frame it was filled in;
 *  - with RESIDENT: no page of C moved, busy as it was (only with a CHMU
 *    behind a cache: DAMON or a CHMU that counts CPU accesses moves them);
 *  - every page's bytes as filled.
 * Nothing it does writes to the pages after the fill: the CHMU sees reads.
 *
 * With it, DIR/hot-a lists the HPA of every page of A, one a line (the
 * poison scenario, hb-vm-chmu.sh's FAULTS, picks pages of it). When the
 * script leaves DIR/kept and DIR/released (HPAs, one a line) before
 * DIR/stopped, it checks too that each kept page is at the frame it was
 * filled in (quarantined: never promoted) and that each released one left
 * it (its poison cleared: promoted again, A being hot). A released page's
 * bytes are not checked: clearing poison writes the line anew (zeros).
 *
 * hb-vmchmu msix BDF NODE: an interrupt the CHMU raises while MSI-X is
 * disabled must stay pending. With the daemon gone, it programs the CHMU of
 * the device at BDF itself (instance 0: always-on, threshold 1, fill
 * threshold 1, fill interrupt on) after clearing MSI-X Enable in the
 * function's config space, writes fresh pages on NODE until STATUS shows
 * the fill (their lines miss the host cache: hotlist entries, STATUS fill,
 * an interrupt) and checks, as TAP, that the vector CAP0 names has its bit
 * set in the Pending Bit Array. Then
 * it puts MSI-X Enable back and disables the instance.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vm-lib.h"

/*
 * A and B: every cache line of a page, so that their footprint (1 MiB
 * each) is larger than the host cache the closed loops give QEMU's CHMU
 * model (512 KiB) and they miss it; what a phase migrates (the same 1 MiB,
 * copied through the cache) is then no larger than the sets themselves
 */
#define LINES_PER_PAGE 64
/* set C: 2 lines a page, 16 in all, that stay in the cache */
#define RES_LINES 2
#define SAMPLE_S 0.25

struct phase {
	const char *name;
	size_t *idx;  /* the set's pages */
	double to90;  /* seconds from the phase's start; < 0: never */
	size_t final; /* on DRAM at the phase's end */
};

static char *base;
static size_t npages, nhot, nres;
static size_t *res_idx; /* set C: cache-resident */
static int cxl_node;
static uint64_t psz;

static void wait_for(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK))
		usleep(20000);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* a /proc/vmstat counter, or 0 */
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

static size_t on_dram(struct phase *p)
{
	void *addrs[4096];
	int status[4096];
	size_t n = 0;

	for (size_t i = 0; i < nhot; i++)
		addrs[i] = base + p->idx[i] * psz;
	if (vm_nodes_of(0, nhot, addrs, status) < 0)
		return 0;
	for (size_t i = 0; i < nhot; i++)
		n += status[i] >= 0 && status[i] != cxl_node;
	return n;
}

/* reads lines cache lines of a page, spread over it */
static uint64_t read_page(size_t idx, unsigned int lines)
{
	const volatile uint64_t *pg = (const volatile uint64_t *)(base + idx * psz);
	uint64_t sum = 0;

	for (unsigned int l = 0; l < lines; l++)
		sum += pg[l * (psz / 8 / lines)];
	return sum;
}

/* one pass over the busy set, set C after every 8 of its pages; the reads done */
static size_t pass(const struct phase *p, volatile uint64_t *sink)
{
	size_t reads = 0;

	for (size_t i = 0; i < nhot; i++) {
		*sink += read_page(p->idx[i], LINES_PER_PAGE);
		reads += LINES_PER_PAGE;
		if (i % 8 != 7)
			continue;
		for (size_t r = 0; r < nres; r++)
			*sink += read_page(res_idx[r], RES_LINES);
		reads += nres * RES_LINES;
	}
	return reads;
}

static void run_phase(struct phase *p, double secs, bool timed)
{
	double t0 = vm_now(), next_sample = t0, next_print = t0 + 1, busy = 0;
	volatile uint64_t sink = 0;
	size_t shown = 0, reads = 0;
	unsigned int passes = 0;

	p->to90 = -1;
	while (vm_now() - t0 < secs) {
		struct timespec nap = { 0, 2000000 };
		double ta = vm_now();

		reads += pass(p, &sink);
		busy += vm_now() - ta;
		if (timed && ++passes == 10)
			tap_diag("access cost: the first 10 passes of phase %s, %zu reads (8 bytes), "
				 "%.3f s: %.2f us a read",
				 p->name, reads, busy, busy * 1e6 / (double)reads);
		nanosleep(&nap, NULL);
		if (vm_now() < next_sample)
			continue;
		next_sample += SAMPLE_S;
		p->final = on_dram(p);
		if (p->to90 < 0 && p->final * 10 >= nhot * 9)
			p->to90 = vm_now() - t0;
		/* the table: each change, and once a second while short of the whole set */
		if (p->final != shown || (p->final < nhot && vm_now() >= next_print)) {
			next_print = vm_now() + 1;
			shown = p->final;
			tap_diag("coverage %s t=%4.1f s: %zu/%zu on DRAM", p->name, vm_now() - t0,
				 p->final, nhot);
		}
	}
	p->final = on_dram(p);
	(void)sink;
}

/* BAR bar of the function at bdf: its physical address, or 0 */
static uint64_t bar_phys(const char *bdf, int bar)
{
	char path[256];
	unsigned long long start = 0, end, flags;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	f = fopen(path, "r");
	for (int i = 0; f && i <= bar; i++)
		if (fscanf(f, "%llx %llx %llx", &start, &end, &flags) != 3)
			start = 0;
	if (f)
		fclose(f);
	return start;
}

/* len bytes at off in BAR bar, mapped read-write through /dev/mem; NULL on error */
static volatile uint8_t *map_bar(const char *bdf, int bar, uint64_t off, size_t len)
{
	uint64_t phys = bar_phys(bdf, bar), page = off & ~(uint64_t)(vm_page_size() - 1);
	void *p;
	int fd;

	if (!phys)
		return NULL;
	fd = open("/dev/mem", O_RDWR | O_SYNC);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, len + (off - page), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)(phys + page));
	close(fd);
	return p == MAP_FAILED ? NULL : (volatile uint8_t *)p + (off - page);
}

static int msix(const char *bdf, int node)
{
	/* our model: the CHMU block at BAR 2 + 0x10000, instance 0 at + 0x10 */
	volatile uint8_t *blk = map_bar(bdf, 2, 0x10000, 0x10000), *in, *pba;
	volatile uint64_t *conf0, *conf1, *conf2, *status;
	uint8_t cfg[256];
	char path[256];
	unsigned int cap = 0, vec, types, code;
	uint32_t pba_reg;
	uint16_t ctl, off_ctl;
	uint64_t bm, hl, st;
	bool before, after;
	volatile uint64_t *page;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_RDWR);
	if (!blk || fd < 0 || pread(fd, cfg, sizeof(cfg), 0) != (ssize_t)sizeof(cfg)) {
		tap_ok(false, "the CHMU block and config space of %s (%s)", bdf, strerror(errno));
		return tap_done();
	}
	for (unsigned int p = cfg[0x34] & 0xfc, n = 0; p && n < 48; p = cfg[p + 1] & 0xfc, n++)
		if (cfg[p] == 0x11) {
			cap = p;
			break;
		}
	if (!cap) {
		tap_ok(false, "%s has an MSI-X capability", bdf);
		return tap_done();
	}
	memcpy(&pba_reg, cfg + cap + 8, 4);
	memcpy(&ctl, cfg + cap + 2, 2);
	in = blk + 0x10;
	conf0 = (volatile uint64_t *)(in + 0x40);
	conf1 = (volatile uint64_t *)(in + 0x48);
	conf2 = (volatile uint64_t *)(in + 0x50);
	status = (volatile uint64_t *)(in + 0x60);
	vec = (unsigned int)(*(volatile uint64_t *)in & 0xf);
	/*
	 * a request code CAP0 [13:8] advertises (bit n: code n + 1): all reads
	 * and writes (6), else non-TEE ones (3) on a non-TEE-only device
	 */
	types = (unsigned int)(*(volatile uint64_t *)in >> 8) & 0x3f;
	code = types & 0x20 ? 6 : types & 0x4 ? 3 : (unsigned int)__builtin_ctz(types | 0x40) + 1;
	pba = map_bar(bdf, (int)(pba_reg & 7), pba_reg & ~7u, 4096);
	if (!pba) {
		tap_ok(false, "the Pending Bit Array (BAR %u + %#x) mapped", pba_reg & 7,
		       pba_reg & ~7u);
		return tap_done();
	}
	/* MSI-X Enable (Message Control bit 15) off, before the instance can raise anything */
	off_ctl = ctl & (uint16_t)~0x8000u;
	if (pwrite(fd, &off_ctl, 2, cap + 2) != 2) {
		tap_ok(false, "MSI-X disabled through %s (%s)", path, strerror(errno));
		return tap_done();
	}
	/* instance 0: every range, 4 KiB units, always-on, threshold 1, fill at 1 entry */
	*conf0 = 0;
	bm = *(volatile uint64_t *)(in + 0x10);
	hl = *(volatile uint64_t *)(in + 0x18);
	for (uint64_t o = bm; o < hl; o += 8)
		*(volatile uint64_t *)(in + o) = ~0ULL;
	*conf1 = 12 | 1ULL << 40;
	*conf2 = 1;
	*status = 3ULL << 40;
	*conf0 = code | 1ULL << 10 | 1ULL << 32 | 1ULL << 17;
	*conf0 = code | 1ULL << 10 | 1ULL << 32 | 1ULL << 16;
	/* the PBA takes 4- and 8-byte reads only */
	before = (((const volatile uint32_t *)pba)[vec / 32] >> (vec % 32)) & 1;
	/*
	 * fresh pages, 256 at a time until STATUS shows the fill (at most 64 MiB): the
	 * kernel zeroes them and their lines miss the host cache once more is written
	 * than it holds (a freed page's lines may still be in it), and some land on
	 * this device when the region interleaves
	 */
	page = vm_map_on_node(16384 * (size_t)vm_page_size(), node, -1, false);
	st = *status;
	for (size_t i = 0; page && i < 16384 && !(st & 1ULL << 41); i++) {
		page[i * vm_page_size() / 8] = 1;
		if (i % 256 == 255)
			st = *status;
	}
	st = *status;
	after = (((const volatile uint32_t *)pba)[vec / 32] >> (vec % 32)) & 1;
	(void)!pwrite(fd, &ctl, 2, cap + 2);
	*conf0 = 0;
	close(fd);
	tap_diag("MSI-X at %#x, control %#x, vector %u; request code %u (CAP0 offers %#x); "
		 "STATUS %#llx; pending bit %d before, %d after",
		 cap, ctl, vec, code, types, (unsigned long long)st, before, after);
	tap_ok(page && (st & 1ULL << 41) && !before && after,
	       "an interrupt raised while MSI-X is disabled is pending: STATUS fill %d, vector %u's "
	       "PBA bit %d -> %d",
	       (int)((st >> 41) & 1), vec, before, after);
	return tap_done();
}

/*
 * The pages DIR/name lists (HPAs) that are (moved) or are not (!moved) at
 * another frame than at the fill; -1 when DIR/name is not there
 */
static int listed(const char *dir, const char *name, const uint64_t *pfn0, const uint64_t *pfn1,
		  size_t *ret_n, bool moved)
{
	char path[512];
	unsigned long long hpa;
	size_t n = 0, wrong = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fscanf(f, "%llx", &hpa) == 1) {
		size_t i;

		n++;
		for (i = 0; i < npages && pfn0[i] * psz != hpa; i++)
			;
		if (i == npages || (pfn1[i] != pfn0[i]) != moved) {
			tap_diag("%s: page %#llx (index %zd) %s", name, hpa,
				 i == npages ? (ssize_t)-1 : (ssize_t)i,
				 i == npages ? "not one of ours" :
				 moved       ? "did not move" :
					       "moved");
			wrong++;
		}
	}
	fclose(f);
	*ret_n = n;
	return (int)wrong;
}

/* the pages DIR/released lists whose bytes differ from the fill's */
static size_t rewritten(const char *dir, const uint64_t *pfn0, const uint64_t *sum0)
{
	char path[512];
	unsigned long long hpa;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/released", dir);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fscanf(f, "%llx", &hpa) == 1)
		for (size_t i = 0; i < npages; i++)
			if (pfn0[i] * psz == hpa && vm_sum(base + i * psz) != sum0[i]) {
				tap_diag("page %#llx rewritten by its poison's clear", hpa);
				n++;
			}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	size_t *in_set, stride;
	uint64_t *pfn0, *pfn1, *sum0;
	struct phase a = { "A", NULL, -1, 0 }, b = { "B", NULL, -1, 0 };
	uint64_t migrated0;
	double phase_s, bound_s;
	const char *dir;
	char text[128];
	size_t moved = 0, bad = 0, away = 0, res_moved = 0;

	if (argc == 4 && !strcmp(argv[1], "msix"))
		return msix(argv[2], atoi(argv[3]));
	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: hb-vmchmu NODE PAGES HOT PHASE_S BOUND_S DIR [RESIDENT]\n");
		return 2;
	}
	nres = argc > 7 ? strtoul(argv[7], NULL, 10) : 0;
	cxl_node = atoi(argv[1]);
	npages = strtoul(argv[2], NULL, 10);
	nhot = strtoul(argv[3], NULL, 10);
	phase_s = atof(argv[4]);
	bound_s = atof(argv[5]);
	dir = argv[6];
	psz = vm_page_size();
	if (!nhot || nhot > 4096 || npages < 4 * nhot || nres > nhot) {
		fprintf(stderr, "hb-vmchmu: HOT must be 1..4096, PAGES at least 4 x HOT and "
				"RESIDENT at most HOT\n");
		return 2;
	}
	base = vm_map_on_node(npages * psz, cxl_node, -1, false);
	in_set = calloc(npages, sizeof(*in_set));
	pfn0 = calloc(npages, sizeof(*pfn0));
	pfn1 = calloc(npages, sizeof(*pfn1));
	sum0 = calloc(npages, sizeof(*sum0));
	a.idx = calloc(nhot, sizeof(size_t));
	b.idx = calloc(nhot, sizeof(size_t));
	res_idx = calloc(nres + 1, sizeof(size_t));
	if (!base || !in_set || !pfn0 || !pfn1 || !sum0 || !a.idx || !b.idx || !res_idx) {
		fprintf(stderr, "hb-vmchmu: cannot map %zu pages on node %d: %s\n", npages,
			cxl_node, strerror(errno));
		return 1;
	}
	if (vm_settle("hb-vmchmu", base, npages, 0xc0ffee, sum0, pfn0) < 0)
		return 1;
	/*
	 * A and B spread over the mapping, interleaved with each other and the
	 * cold pages, odd and even pages alike: a fresh node hands out frames
	 * in order, so a 2-way region at 4 KiB granularity puts every other
	 * page on the other device, and a set of even pages only would sit on
	 * one device (the 2-way scenario then saw one CHMU report everything)
	 */
	stride = npages / nhot;
	for (size_t i = 0; i < nhot; i++) {
		a.idx[i] = i * stride + stride / 4 + i % 2;
		b.idx[i] = i * stride + (3 * stride) / 4 + i % 2;
		in_set[a.idx[i]] = 1;
		in_set[b.idx[i]] = 2;
	}
	/* C: cold pages between A's and B's, spread like them (both devices of a 2-way) */
	for (size_t i = 0; i < nres; i++) {
		res_idx[i] = (i * (nhot / nres)) * stride + stride / 2 + i % 2;
		in_set[res_idx[i]] = 3;
	}
	tap_diag("%zu pages on node %d (PFN %#llx..), hot sets A and B of %zu, %.0f s each", npages,
		 cxl_node, (unsigned long long)pfn0[0], nhot, phase_s);
	snprintf(text, sizeof(text), "%#llx %#llx\n", (unsigned long long)(pfn0[a.idx[0]] * psz),
		 (unsigned long long)(pfn0[b.idx[0]] * psz));
	{
		size_t len = 0;
		char *all = malloc(nhot * 20 + 1);

		if (!all)
			return 1;
		for (size_t i = 0; i < nhot; i++)
			len += (size_t)sprintf(all + len, "%#llx\n",
					       (unsigned long long)(pfn0[a.idx[i]] * psz));
		put(dir, "hot-a", all);
		free(all);
	}
	put(dir, "ready", text);
	wait_for(dir, "go");

	migrated0 = vmstat("pgmigrate_success");
	run_phase(&a, phase_s, true);
	put(dir, "phase-b", "");
	run_phase(&b, phase_s, false);
	tap_diag("migrated %llu pages in all (pgmigrate_success) for %zu hot pages: %.2f per hot page",
		 (unsigned long long)(vmstat("pgmigrate_success") - migrated0), 2 * nhot,
		 (double)(vmstat("pgmigrate_success") - migrated0) / (double)(2 * nhot));
	put(dir, "done", "");
	wait_for(dir, "stopped");

	if (vm_pfn_range(getpid(), (uintptr_t)base, npages, pfn1) < 0) {
		fprintf(stderr, "hb-vmchmu: no PFNs from pagemap at the end\n");
		return 1;
	}
	for (size_t i = 0; i < npages; i++) {
		if (vm_sum(base + i * psz) != sum0[i])
			bad++;
		if (in_set[i] == 3)
			res_moved += pfn1[i] != pfn0[i];
		else if (in_set[i])
			away += pfn1[i] != pfn0[i];
		else
			moved += pfn1[i] != pfn0[i];
	}
	tap_diag("time to 90 %%: A %.1f s, B %.1f s (bound %.1f s); at the phase ends %zu/%zu and %zu/%zu on DRAM",
		 a.to90, b.to90, bound_s, a.final, nhot, b.final, nhot);
	tap_ok(a.to90 >= 0 && a.to90 <= bound_s,
	       "hot set A: 90 %% on DRAM after %.1f s (bound %.1f s; %zu/%zu at the end)", a.to90,
	       bound_s, a.final, nhot);
	tap_ok(b.to90 >= 0 && b.to90 <= bound_s,
	       "hot set B, after the workload moved: 90 %% on DRAM after %.1f s (bound %.1f s; %zu/%zu at the end)",
	       b.to90, bound_s, b.final, nhot);
	tap_ok(moved == 0, "every one of the %zu cold pages at its frame (%zu moved)",
	       npages - 2 * nhot - nres, moved);
	if (nres)
		tap_ok(res_moved == 0,
		       "cache-resident set C: none of its %zu pages moved (%zu did), %zu reads a page a "
		       "pass (A and B: %d) but never missing the host cache",
		       nres, res_moved, nhot / 8 * RES_LINES, LINES_PER_PAGE);
	{
		size_t nk = 0, nr = 0;
		int wk = listed(dir, "kept", pfn0, pfn1, &nk, false);
		int wr = listed(dir, "released", pfn0, pfn1, &nr, true);

		bad -= rewritten(dir, pfn0, sum0);

		if (wk >= 0)
			tap_ok(wk == 0 && nk > 0,
			       "quarantined pages of A never promoted: %zu of %zu at their frame",
			       nk - (size_t)wk, nk);
		if (wr >= 0)
			tap_ok(wr == 0 && nr > 0,
			       "pages of A whose poison was cleared promoted again: %zu of %zu",
			       nr - (size_t)wr, nr);
	}
	tap_ok(bad == 0, "every page's bytes intact (%zu of %zu differ); %zu hot pages changed frame",
	       bad, npages, away);
	return tap_done();
}
