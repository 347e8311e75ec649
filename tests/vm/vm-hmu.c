// SPDX-License-Identifier: MIT
/*
 * hb-vmhmu: our CHMU perf driver (cxl_hmu, kernel/patches/6.12/0005) from
 * user space, in a guest whose cxl-type3 carries our CHMU model
 * (tests/e2e/hb-vm-hmu-edges.sh runs it). TAP.
 *
 *   hb-vmhmu abi PMU            format/ as the RFC's ABI, cpumask, the block
 *                               claimed in /proc/iomem
 *   hb-vmhmu refuse PMU         every configuration the model's capabilities
 *                               do not offer refused (EINVAL), per-task and
 *                               sampling events refused, an overwrite AUX
 *                               area refused (EOPNOTSUPP), a second reader
 *                               EBUSY
 *   hb-vmhmu defaults PMU BAR   the RFC ABI's defaults (hotness_granual,
 *                               downsampling_factor, both epoch fields 0: the
 *                               smallest the instance offers) open and are
 *                               programmed so; a threshold beyond the 16-bit
 *                               counters refused once the unit size is
 *                               programmed, not at open (review K10, S2).
 *                               PMU must be instance 0 (BAR: its registers)
 *   hb-vmhmu data PMU NODE BAR  an event's hotlist chunks for pages touched
 *                               on NODE; then closed: the instance disabled
 *                               and reset (its registers read through the
 *                               PCI function's resource file BAR)
 *   hb-vmhmu small PMU NODE     a one-page AUX area and more hot units per
 *                               epoch than it holds: the loss counted in
 *                               lost_entries and flagged PARTIAL
 *   hb-vmhmu stall PMU NODE     a one-page AUX area its reader leaves full for
 *                               2 s: the record that filled it TRUNCATED, the
 *                               loss flagged PARTIAL once the reader made room
 *                               and enabled the event again (review K4)
 *   hb-vmhmu nofill PMU NODE    an instance without the fill interrupt still
 *                               delivers every epoch (polled; review K6)
 *   hb-vmhmu alwayson PMU NODE IRQ  always-on, threshold 1: the entries
 *                               arrive in chunks of at most 256, each drain
 *                               bounded (review K7)
 *   hb-vmhmu hotplug PMU NODE IRQ   an event delivering; its CPU (the PMU's
 *                               cpumask) taken offline: the cpumask and
 *                               interrupt IRQ's affinity moved to another CPU,
 *                               the chunks still arriving; the CPU brought
 *                               back online
 *   hb-vmhmu open PMU           can the PMU be opened now (after a reader
 *                               was killed: the instance was released)
 *   hb-vmhmu hold PMU SECONDS   holds an event open, then reports what the
 *                               fd said (the memdev goes away meanwhile):
 *                               poll() must say POLLHUP (review K5)
 *   hb-vmhmu gone PMU           the PMU of a removed instance refuses (ENODEV)
 *   hb-vmhmu regs BAR           prints instance 0's CONF0 and STATUS, read
 *                               through the PCI function's resource file BAR
 *                               (not TAP: "conf0 0x.. status 0x.. enabled N")
 *   hb-vmhmu touch NODE PAGES SECONDS   keeps PAGES pages on NODE busy
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "vm-lib.h"

#define PMU_DIR "/sys/bus/event_source/devices/"
#define DATA_PAGES 8
#define AUX_MAGIC 0xDEADBEEFull

/* the RFC's fields; the model: 16-bit counters, epochs 10 ms - 100 s */
#define CFG(type, access, scale, mult, rds, ds)                                 \
	((uint64_t)(type) | (uint64_t)(access) << 2 | (uint64_t)(scale) << 10 | \
	 (uint64_t)(mult) << 14 | (uint64_t)(rds) << 26 | (uint64_t)(ds) << 27)
#define CFG1(thr, gran) ((uint64_t)(thr) | (uint64_t)(gran) << 32)
#define CFG2(base, size) ((uint64_t)(base) | (uint64_t)(size) << 32)

static const char *pmu;

static uint64_t pmu_u64(const char *file)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), PMU_DIR "%s/%s", pmu, file);
	vm_get(path, buf, sizeof(buf));
	return strtoull(buf, NULL, 0);
}

static int perf_open(uint64_t c, uint64_t c1, uint64_t c2, int pid, int cpu, uint64_t period)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	a.type = (uint32_t)pmu_u64("type");
	a.config = c;
	a.config1 = c1;
	a.config2 = c2;
	a.sample_period = period;
	a.disabled = 1;
	a.watermark = 1;
	a.wakeup_watermark = 1;
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* a good event: epoch 100 ms, all reads and writes, threshold thr, 4 KiB */
static int open_good(uint64_t thr)
{
	return perf_open(CFG(0, 6, 4, 1, 0, 0), CFG1(thr, 12), 0, -1, (int)pmu_u64("cpumask"), 0);
}

struct mapped {
	int fd;
	void *base;
	size_t base_len, aux_len;
	uint8_t *aux;
};

static int map_event(struct mapped *m, int fd, size_t aux_pages, bool aux_writable)
{
	size_t pg = (size_t)vm_page_size();
	struct perf_event_mmap_page *meta;

	m->fd = fd;
	m->base_len = (1 + DATA_PAGES) * pg;
	m->base = mmap(NULL, m->base_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m->base == MAP_FAILED)
		return -errno;
	meta = m->base;
	meta->aux_offset = m->base_len;
	meta->aux_size = aux_pages * pg;
	m->aux_len = aux_pages * pg;
	m->aux = mmap(NULL, m->aux_len, PROT_READ | (aux_writable ? PROT_WRITE : 0), MAP_SHARED, fd,
		      (off_t)m->base_len);
	if (m->aux == MAP_FAILED) {
		int r = -errno;

		munmap(m->base, m->base_len);
		return r;
	}
	return 0;
}

static void unmap_event(struct mapped *m)
{
	munmap(m->aux, m->aux_len);
	munmap(m->base, m->base_len);
	close(m->fd);
}

struct drained {
	uint64_t chunks, entries, bad, partial, truncated, aux_records;
	uint64_t min_unit, max_unit;
	uint64_t max_chunk; /* entries in the largest chunk */
};

/* what the kernel published since the last call */
static void drain(struct mapped *m, struct drained *d)
{
	struct perf_event_mmap_page *meta = m->base;
	uint8_t *data = (uint8_t *)m->base + vm_page_size();
	size_t dsize = DATA_PAGES * vm_page_size();
	uint64_t head = __atomic_load_n(&meta->aux_head, __ATOMIC_ACQUIRE), tail = meta->aux_tail;
	uint64_t dh = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), dt = meta->data_tail;

	while (tail + 16 <= head) {
		uint64_t h0, h1, n;

		memcpy(&h0, m->aux + (tail % m->aux_len), 8);
		memcpy(&h1, m->aux + ((tail + 8) % m->aux_len), 8);
		n = h0 & 0xffff;
		if (h1 != AUX_MAGIC || !n || (h0 >> 24) || ((h0 >> 16) & 0xff) != 16 ||
		    tail + 16 + n * 8 > head) {
			d->bad++;
			break;
		}
		for (uint64_t i = 0; i < n; i++) {
			uint64_t e, unit;

			memcpy(&e, m->aux + ((tail + 16 + i * 8) % m->aux_len), 8);
			unit = e >> 16;
			if (!d->entries || unit < d->min_unit)
				d->min_unit = unit;
			if (unit > d->max_unit)
				d->max_unit = unit;
			d->entries++;
		}
		d->chunks++;
		if (n > d->max_chunk)
			d->max_chunk = n;
		tail += 16 + n * 8;
	}
	__atomic_store_n(&meta->aux_tail, head, __ATOMIC_RELEASE);
	while (dt + sizeof(struct perf_event_header) <= dh) {
		struct perf_event_header h;
		uint64_t body[3];

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(dt + i) % dsize];
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_AUX && h.size >= sizeof(h) + sizeof(body)) {
			for (size_t i = 0; i < sizeof(body); i++)
				((uint8_t *)body)[i] = data[(dt + sizeof(h) + i) % dsize];
			d->aux_records++;
			if (body[2] & PERF_AUX_FLAG_PARTIAL)
				d->partial++;
			if (body[2] & PERF_AUX_FLAG_TRUNCATED)
				d->truncated++;
		}
		dt += h.size;
	}
	__atomic_store_n(&meta->data_tail, dh, __ATOMIC_RELEASE);
	/* a full area disabled the event (the core's rule): room again, on again */
	ioctl(m->fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* touches npages pages of base for seconds, polling fd and draining */
static void touch_and_drain(volatile uint8_t *base, size_t npages, double seconds, struct mapped *m,
			    struct drained *d, unsigned int *wakeups)
{
	size_t pg = (size_t)vm_page_size();
	double t0 = vm_now();

	while (vm_now() - t0 < seconds) {
		struct pollfd p = { .fd = m ? m->fd : -1, .events = POLLIN };

		for (int rep = 0; rep < 4; rep++)
			for (size_t i = 0; i < npages; i++)
				base[i * pg + (size_t)rep * 64] += 1;
		if (m && poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
			(*wakeups)++;
			drain(m, d);
		}
	}
	if (m)
		drain(m, d);
}

static int t_abi(void)
{
	static const char *const want[][2] = {
		{ "epoch_type", "config:0-1" },
		{ "access_type", "config:2-9" },
		{ "epoch_scale", "config:10-13" },
		{ "epoch_multiplier", "config:14-25" },
		{ "randomized_downsampling", "config:26" },
		{ "downsampling_factor", "config:27-34" },
		{ "hotness_threshold", "config1:0-31" },
		{ "hotness_granual", "config1:32-63" },
		{ "range_base", "config2:0-31" },
		{ "range_size", "config2:32-63" },
	};
	char path[256], buf[64], line[256];
	bool claimed = false;
	FILE *f;
	int bad = 0;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(path, sizeof(path), PMU_DIR "%s/format/%s", pmu, want[i][0]);
		vm_get(path, buf, sizeof(buf));
		if (strcmp(buf, want[i][1])) {
			tap_diag("format/%s: '%s', the RFC says '%s'", want[i][0], buf, want[i][1]);
			bad++;
		}
	}
	tap_ok(!bad, "%s: the 10 format/ fields of the RFC's ABI", pmu);
	snprintf(path, sizeof(path), PMU_DIR "%s/cpumask", pmu);
	vm_get(path, buf, sizeof(buf));
	tap_ok(buf[0] >= '0' && buf[0] <= '9' && !strpbrk(buf, ",-"), "%s: one CPU in cpumask (%s)",
	       pmu, buf);
	f = fopen("/proc/iomem", "r");
	while (f && fgets(line, sizeof(line), f))
		claimed |= strstr(line, " : cxl_hmu") != NULL;
	if (f)
		fclose(f);
	tap_ok(claimed, "the CHMU block is claimed by cxl_hmu in /proc/iomem");
	return tap_done();
}

static void refuse(uint64_t c, uint64_t c1, uint64_t c2, const char *what)
{
	int fd = perf_open(c, c1, c2, -1, (int)pmu_u64("cpumask"), 0);
	int e = errno;

	tap_ok(fd < 0 && e == EINVAL, "refused: %s (%s)", what, fd < 0 ? strerror(e) : "opened");
	if (fd >= 0)
		close(fd);
}

static int t_refuse(void)
{
	const uint64_t g1 = CFG1(1, 12);
	struct mapped m;
	int fd, fd2, e, r;

	/* the model: all 6 request types, epochs 10 ms..100 s, ds factors 1..32
	 * (bitmap 0x3f), units 4 and 8 KiB, 16-bit counters, 512 MiB = 2 range bits */
	refuse(CFG(2, 6, 4, 1, 0, 0), g1, 0, "epoch_type 2");
	refuse(CFG(3, 6, 4, 1, 0, 0), g1, 0, "epoch_type 3");
	refuse(CFG(0, 0, 4, 1, 0, 0), g1, 0, "access_type 0");
	refuse(CFG(0, 7, 4, 1, 0, 0), g1, 0, "access_type 7");
	refuse(CFG(0, 255, 4, 1, 0, 0), g1, 0, "access_type 255");
	refuse(CFG(0, 6, 0, 1, 0, 0), g1, 0, "epoch_scale 0");
	refuse(CFG(0, 6, 6, 1, 0, 0), g1, 0, "epoch_scale 6");
	refuse(CFG(0, 6, 15, 1, 0, 0), g1, 0, "epoch_scale 15");
	refuse(CFG(0, 6, 4, 0, 0, 0), g1, 0, "epoch_multiplier 0");
	refuse(CFG(0, 6, 2, 9, 0, 0), g1, 0, "an epoch of 9 ms, below the 10 ms minimum");
	refuse(CFG(0, 6, 5, 101, 0, 0), g1, 0, "an epoch of 101 s, above the 100 s maximum");
	refuse(CFG(1, 6, 4, 1, 0, 0), g1, 0, "always-on with epoch fields set");
	refuse(CFG(0, 6, 4, 1, 0, 6), g1, 0, "downsampling_factor 2^6, not offered");
	refuse(CFG(0, 6, 4, 1, 0, 16), g1, 0, "downsampling_factor 2^16");
	refuse(CFG(0, 6, 4, 1, 0, 255), g1, 0, "downsampling_factor 2^255");
	refuse(CFG(0, 6, 4, 1, 0, 0), CFG1(1, 7), 0, "hotness_granual 7 (128 bytes)");
	refuse(CFG(0, 6, 4, 1, 0, 0), CFG1(1, 11), 0, "hotness_granual 11 (2 KiB, not offered)");
	refuse(CFG(0, 6, 4, 1, 0, 0), CFG1(1, 14), 0, "hotness_granual 14 (16 KiB, not offered)");
	refuse(CFG(0, 6, 4, 1, 0, 0), CFG1(1, 0xffffffffu), 0, "hotness_granual 2^32-1");
	refuse(CFG(0, 6, 4, 1, 0, 0), CFG1(0, 12), 0, "hotness_threshold 0");
	refuse(CFG(0, 6, 4, 1, 0, 0), g1, CFG2(1, 0), "range_base 1 with range_size 0");
	refuse(CFG(0, 6, 4, 1, 0, 0), g1, CFG2(0, 1000), "range_size past the range bitmap");
	refuse(CFG(0, 6, 4, 1, 0, 0), g1, CFG2(0xffffffffu, 0xffffffffu), "range_base+size overflow");
	refuse(CFG(0, 6, 4, 1, 0, 0) | 1ULL << 35, g1, 0, "config bit 35 (no field)");
	refuse(CFG(0, 6, 4, 1, 0, 0) | 1ULL << 63, g1, 0, "config bit 63 (no field)");

	fd = perf_open(CFG(0, 6, 4, 1, 0, 0), g1, 0, 0, -1, 0);
	e = errno;
	tap_ok(fd < 0, "refused: a per-task event (%s)", fd < 0 ? strerror(e) : "opened");
	if (fd >= 0)
		close(fd);
	fd = perf_open(CFG(0, 6, 4, 1, 0, 0), g1, 0, -1, (int)pmu_u64("cpumask"), 1000);
	e = errno;
	tap_ok(fd < 0, "refused: a sampling event (%s)", fd < 0 ? strerror(e) : "opened");
	if (fd >= 0)
		close(fd);

	fd = open_good(1);
	tap_ok(fd >= 0, "a good event opens (%s)", fd < 0 ? strerror(errno) : "ok");
	fd2 = open_good(1);
	e = errno;
	tap_ok(fd2 < 0 && e == EBUSY, "a second reader of the instance: %s",
	       fd2 < 0 ? strerror(e) : "opened");
	if (fd2 >= 0)
		close(fd2);
	if (fd >= 0) {
		/* review K10: not ENOMEM, as a NULL from setup_aux() would say */
		r = map_event(&m, fd, 4, false);
		tap_ok(r == -EOPNOTSUPP, "refused: a read-only (overwrite) AUX area (%s)",
		       r < 0 ? strerror(-r) : "mapped");
		if (r == 0)
			unmap_event(&m);
		else
			close(fd);
	}
	fd = open_good(1);
	tap_ok(fd >= 0, "after the first reader closed, the instance opens again (%s)",
	       fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0)
		close(fd);
	return tap_done();
}

/* the instance's registers through the PCI function's resource file */
struct regs {
	uint64_t cap0, cap1, conf0, conf1, status;
	uint16_t head, tail;
};

static int read_regs(const char *bar, struct regs *r)
{
	/* our model: the block at BAR 2 + 0x10000, instance 0 at + 0x10 */
	const size_t inst = 0x10000 + 0x10;
	size_t len = 0x20000;
	volatile uint8_t *p;
	int fd = open(bar, O_RDONLY | O_SYNC);

	if (fd < 0)
		return -errno;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	r->cap0 = *(volatile uint64_t *)(p + inst + 0x00);
	r->cap1 = *(volatile uint64_t *)(p + inst + 0x08);
	r->conf0 = *(volatile uint64_t *)(p + inst + 0x40);
	r->conf1 = *(volatile uint64_t *)(p + inst + 0x48);
	r->status = *(volatile uint64_t *)(p + inst + 0x60);
	r->head = *(volatile uint16_t *)(p + inst + 0x68);
	r->tail = *(volatile uint16_t *)(p + inst + 0x6a);
	munmap((void *)p, len);
	return 0;
}

/*
 * npages pages on node, written once, and a good event of threshold thr
 * with an AUX area of aux_pages (what: "a 16-page"), mapped into m: one TAP
 * line for the event. 0, or -1 when the test cannot go on.
 */
static int busy_event(int node, size_t npages, uint64_t thr, size_t aux_pages, const char *what,
		      uint8_t **basep, struct mapped *m)
{
	size_t pg = (size_t)vm_page_size();
	uint8_t *base;
	int fd, r;

	base = vm_map_on_node(npages * pg, node, -1, false);
	if (!base) {
		tap_ok(false, "map %zu pages on node %d", npages, node);
		return -1;
	}
	memset(base, 1, npages * pg);
	fd = open_good(thr);
	r = fd < 0 ? -errno : map_event(m, fd, aux_pages, true);
	tap_ok(r == 0, "an event with %s AUX area (%s)", what, r ? strerror(-r) : "ok");
	if (r)
		return -1;
	*basep = base;
	return 0;
}

static int t_data(int node, const char *bar)
{
	size_t npages = 64;
	struct drained d = { 0 };
	unsigned int wakeups = 0;
	struct regs rg = { 0 };
	struct mapped m;
	uint8_t *base;
	int r;

	if (busy_event(node, npages, 8, 16, "a 16-page", &base, &m))
		return tap_done();
	tap_ok(ioctl(m.fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "enabled");
	if (read_regs(bar, &rg) == 0)
		tap_ok(rg.conf0 & (1ULL << 16) && rg.status & 1 && rg.conf0 & (3ULL << 9),
		       "while open: CONF0 0x%llx enables the instance and both interrupts, STATUS "
		       "0x%llx says enabled",
		       (unsigned long long)rg.conf0, (unsigned long long)rg.status);
	touch_and_drain(base, npages, 3.0, &m, &d, &wakeups);
	tap_ok(d.chunks >= 2 && !d.bad && d.aux_records >= d.chunks && wakeups >= 2,
	       "3 s of 100 ms epochs: %llu chunks, %llu entries, %u wake-ups, %llu AUX records, "
	       "%llu bad",
	       (unsigned long long)d.chunks, (unsigned long long)d.entries, wakeups,
	       (unsigned long long)d.aux_records, (unsigned long long)d.bad);
	tap_ok(d.entries >= npages && d.max_unit - d.min_unit < 1ULL << 17,
	       "the entries name units %#llx..%#llx (%llu entries for %zu busy pages)",
	       (unsigned long long)d.min_unit, (unsigned long long)d.max_unit,
	       (unsigned long long)d.entries, npages);
	tap_ok(!d.partial && pmu_u64("lost_entries") == 0,
	       "nothing lost (%llu partial, "
	       "lost_entries %llu)",
	       (unsigned long long)d.partial, (unsigned long long)pmu_u64("lost_entries"));
	unmap_event(&m);
	r = read_regs(bar, &rg);
	tap_ok(r == 0 && !(rg.conf0 & (1ULL << 16)) && !(rg.status & 1) && rg.head == 0 &&
		       rg.tail == 0 && !(rg.status & (3ULL << 40)),
	       "closed: the instance disabled and reset (CONF0 0x%llx, STATUS 0x%llx, head %u, "
	       "tail %u)%s",
	       (unsigned long long)rg.conf0, (unsigned long long)rg.status, rg.head, rg.tail,
	       r ? " (registers unreadable)" : "");
	return tap_done();
}

static int t_small(int node)
{
	size_t npages = 2048;
	uint64_t lost0 = pmu_u64("lost_entries"), ovf0 = pmu_u64("overflows");
	struct drained d = { 0 };
	unsigned int wakeups = 0;
	struct mapped m;
	uint8_t *base;

	if (busy_event(node, npages, 1, 1, "a one-page", &base, &m))
		return tap_done();
	ioctl(m.fd, PERF_EVENT_IOC_ENABLE, 0);
	touch_and_drain(base, npages, 3.0, &m, &d, &wakeups);
	tap_ok(d.partial > 0 && pmu_u64("lost_entries") + pmu_u64("overflows") > lost0 + ovf0 &&
		       !d.bad,
	       "%zu busy pages a 100 ms epoch, 4 KiB of AUX: %llu entries delivered in %llu "
	       "chunks, %llu PARTIAL records, lost_entries %llu, overflows %llu",
	       npages, (unsigned long long)d.entries, (unsigned long long)d.chunks,
	       (unsigned long long)d.partial, (unsigned long long)(pmu_u64("lost_entries") - lost0),
	       (unsigned long long)(pmu_u64("overflows") - ovf0));
	tap_ok(d.entries > 0, "the event kept delivering after a loss (%llu entries)",
	       (unsigned long long)d.entries);
	unmap_event(&m);
	return tap_done();
}

/*
 * Review K4: the reader leaves its one-page AUX area full for 2 s. The
 * record that filled it says TRUNCATED; the entries that came meanwhile
 * wait in the device, and any the driver had to drop (lost_entries) are
 * flagged PARTIAL in a record after them, once the reader made room.
 */
static int t_stall(int node)
{
	size_t npages = 64;
	uint64_t lost0 = pmu_u64("lost_entries"), lost1;
	struct drained stalled = { 0 }, after = { 0 };
	unsigned int wakeups = 0;
	struct mapped m;
	uint8_t *base;

	if (busy_event(node, npages, 1, 1, "a one-page", &base, &m))
		return tap_done();
	ioctl(m.fd, PERF_EVENT_IOC_ENABLE, 0);
	touch_and_drain(base, npages, 2.0, NULL, NULL, NULL);
	drain(&m, &stalled);
	lost1 = pmu_u64("lost_entries");
	touch_and_drain(base, npages, 2.0, &m, &after, &wakeups);
	tap_diag("stalled 2 s: %llu chunks, %llu entries, %llu truncated, %llu partial; then %llu "
		 "chunks, %llu entries, %llu partial; lost_entries +%llu, +%llu",
		 (unsigned long long)stalled.chunks, (unsigned long long)stalled.entries,
		 (unsigned long long)stalled.truncated, (unsigned long long)stalled.partial,
		 (unsigned long long)after.chunks, (unsigned long long)after.entries,
		 (unsigned long long)after.partial, (unsigned long long)(lost1 - lost0),
		 (unsigned long long)(pmu_u64("lost_entries") - lost1));
	tap_ok(stalled.chunks > 0 && !stalled.bad && stalled.truncated > 0,
	       "the record that filled the area says TRUNCATED (%llu of %llu records)",
	       (unsigned long long)stalled.truncated, (unsigned long long)stalled.aux_records);
	tap_ok(lost1 == lost0 || after.partial > 0,
	       "no entry lost silently while the area was full: lost_entries +%llu, %llu PARTIAL "
	       "records once the reader made room",
	       (unsigned long long)(lost1 - lost0), (unsigned long long)after.partial);
	tap_ok(after.chunks >= 2 && !after.bad,
	       "delivering again after the reader made room: %llu chunks, %llu entries",
	       (unsigned long long)after.chunks, (unsigned long long)after.entries);
	unmap_event(&m);
	return tap_done();
}

/* Review K6: an instance without the fill interrupt (the model's chmu-no-fill-irq) */
static int t_nofill(int node)
{
	struct drained d = { 0 };
	unsigned int wakeups = 0;
	uint64_t ovf0 = pmu_u64("overflows");
	struct mapped m;
	uint8_t *base;

	if (busy_event(node, 64, 8, 16, "a 16-page", &base, &m))
		return tap_done();
	ioctl(m.fd, PERF_EVENT_IOC_ENABLE, 0);
	touch_and_drain(base, 64, 3.0, &m, &d, &wakeups);
	/* 100 ms epochs: about 30; an overflow-driven drain (1024 entries, 64 an epoch) 1-2 */
	tap_ok(d.chunks >= 10 && !d.bad && pmu_u64("overflows") == ovf0,
	       "%s, no fill interrupt: %llu chunks, %llu entries in 3 s of 100 ms epochs, "
	       "%llu overflows",
	       pmu, (unsigned long long)d.chunks, (unsigned long long)d.entries,
	       (unsigned long long)(pmu_u64("overflows") - ovf0));
	unmap_event(&m);
	return tap_done();
}

static uint64_t irq_count(int irq)
{
	char line[512];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		if (strtol(p, &end, 10) != irq || *end != ':')
			continue;
		p = end + 1;
		for (;;) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	if (f)
		fclose(f);
	return sum;
}

/*
 * Review K7: always-on with threshold 1 pushes an entry per access. No
 * drain reads more than 256 entries with interrupts off (a chunk each);
 * the interrupts are reported (the model coalesces them under TCG either
 * way, so they prove nothing here).
 */
static int t_alwayson(int node, int irq)
{
	size_t npages = 64, pg = (size_t)vm_page_size();
	struct drained d = { 0 };
	unsigned int wakeups = 0;
	uint64_t irqs;
	struct mapped m;
	uint8_t *base;
	int fd, r;

	base = vm_map_on_node(npages * pg, node, -1, false);
	if (!base) {
		tap_ok(false, "map %zu pages on node %d", npages, node);
		return tap_done();
	}
	memset(base, 1, npages * pg);
	fd = perf_open(CFG(1, 6, 0, 0, 0, 0), CFG1(1, 12), 0, -1, (int)pmu_u64("cpumask"), 0);
	r = fd < 0 ? -errno : map_event(&m, fd, 64, true);
	tap_ok(r == 0, "an always-on event, threshold 1 (%s)", r ? strerror(-r) : "ok");
	if (r)
		return tap_done();
	irqs = irq_count(irq);
	ioctl(m.fd, PERF_EVENT_IOC_ENABLE, 0);
	touch_and_drain(base, npages, 2.0, &m, &d, &wakeups);
	ioctl(m.fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(&m, &d);
	irqs = irq_count(irq) - irqs;
	tap_ok(d.entries >= 1000 && !d.bad && d.max_chunk <= 256,
	       "%llu entries in %llu chunks of at most %llu entries (256 allowed), %llu interrupts",
	       (unsigned long long)d.entries, (unsigned long long)d.chunks,
	       (unsigned long long)d.max_chunk, (unsigned long long)irqs);
	unmap_event(&m);
	return tap_done();
}

/* CPU hot-unplug of the CPU the event lives on */
static int t_hotplug(int node, int irq)
{
	struct drained before = { 0 }, after = { 0 };
	size_t npages = 64;
	unsigned int wakeups = 0;
	char path[128], aff[64];
	struct mapped m;
	uint8_t *base;
	int cpu, moved, r;
	double t0;

	if (busy_event(node, npages, 8, 16, "a 16-page", &base, &m))
		return tap_done();
	tap_ok(ioctl(m.fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "enabled");
	cpu = (int)pmu_u64("cpumask");
	touch_and_drain(base, npages, 2.0, &m, &before, &wakeups);
	tap_ok(before.chunks >= 1 && !before.bad, "on CPU %d: %llu chunks, %llu entries in 2 s",
	       cpu, (unsigned long long)before.chunks, (unsigned long long)before.entries);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	t0 = vm_now();
	r = vm_put(path, "0");
	tap_ok(r == 0, "CPU %d taken offline with the event open (%s, %.2f s)", cpu,
	       r ? strerror(-r) : "ok", vm_now() - t0);
	if (r) {
		unmap_event(&m);
		return tap_done();
	}
	moved = (int)pmu_u64("cpumask");
	tap_ok(moved != cpu, "the PMU's cpumask moved from CPU %d to CPU %d", cpu, moved);
	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	vm_get(path, aff, sizeof(aff));
	tap_ok(atoi(aff) == moved && !strpbrk(aff, ",-"), "interrupt %d follows to CPU %d (%s)",
	       irq, moved, aff);
	touch_and_drain(base, npages, 3.0, &m, &after, &wakeups);
	tap_ok(after.chunks >= 2 && !after.bad && after.aux_records >= after.chunks,
	       "the event still delivers on CPU %d: %llu chunks, %llu entries, %llu AUX records in "
	       "3 s, %llu bad",
	       moved, (unsigned long long)after.chunks, (unsigned long long)after.entries,
	       (unsigned long long)after.aux_records, (unsigned long long)after.bad);
	unmap_event(&m);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	r = vm_put(path, "1");
	tap_ok(r == 0 && (int)pmu_u64("cpumask") == moved,
	       "CPU %d online again (%s); the PMU stays on CPU %d", cpu, r ? strerror(-r) : "ok",
	       (int)pmu_u64("cpumask"));
	return tap_done();
}

/* an event that says how long it ran: {count, time enabled, time running} */
static int open_timed(uint64_t c, uint64_t c1)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	a.type = (uint32_t)pmu_u64("type");
	a.config = c;
	a.config1 = c1;
	a.disabled = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, -1, (int)pmu_u64("cpumask"), -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static unsigned int low_bit(uint64_t v)
{
	return v ? (unsigned int)__builtin_ctzll(v) : 64;
}

#define FIELD(v, hi, lo) (((v) >> (lo)) & ((1ULL << ((hi) - (lo) + 1)) - 1))

/* enabled for 300 ms: did it run, and is instance 0 enabled now */
static int run_timed(int fd, const char *bar, uint64_t *running, struct regs *rg)
{
	uint64_t v[3] = { 0 };
	ssize_t n;
	int r;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	usleep(300000);
	r = read_regs(bar, rg);
	n = read(fd, v, sizeof(v));
	*running = n == (ssize_t)sizeof(v) ? v[2] : UINT64_MAX;
	return r;
}

static int t_defaults(const char *bar)
{
	unsigned int gran, want_gran, ds, want_ds, sc, want_sc, mult, want_mult;
	struct regs rg = { 0 };
	uint64_t running = 0;
	int fd, r;

	fd = open_timed(CFG(0, 6, 0, 0, 0, 0), CFG1(1, 0));
	tap_ok(fd >= 0,
	       "the RFC ABI's defaults open: hotness_granual 0, downsampling_factor 0, "
	       "epoch_scale and epoch_multiplier 0 (%s)",
	       fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0) {
		r = run_timed(fd, bar, &running, &rg);
		gran = (unsigned int)FIELD(rg.conf1, 31, 0);
		want_gran = low_bit(FIELD(rg.cap1, 31, 0)) + 8;
		ds = (unsigned int)FIELD(rg.conf1, 35, 32);
		want_ds = low_bit(FIELD(rg.cap1, 47, 32));
		sc = (unsigned int)FIELD(rg.conf1, 51, 48);
		want_sc = (unsigned int)FIELD(rg.cap0, 35, 32);
		mult = (unsigned int)FIELD(rg.conf1, 63, 52);
		want_mult = (unsigned int)FIELD(rg.cap0, 47, 36);
		tap_ok(!r && (rg.status & 1) && running > 0 && gran == want_gran && ds == want_ds &&
			       sc == want_sc && mult == want_mult,
		       "programmed as the smallest offered: unit 2^%u (2^%u), downsampling 2^%u "
		       "(2^%u), epoch scale %u x %u (minimum %u x %u); enabled %d, ran %llu ns",
		       gran, want_gran, ds, want_ds, sc, mult, want_sc, want_mult,
		       (int)(rg.status & 1), (unsigned long long)running);
		close(fd);
	}
	/* review S2: the width is known once the unit size is programmed */
	fd = open_timed(CFG(0, 6, 4, 1, 0, 0), CFG1(65536, 12));
	tap_ok(fd >= 0,
	       "hotness_threshold 65536 opens: the counter width is not read before the "
	       "unit size is programmed (%s)",
	       fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0) {
		r = run_timed(fd, bar, &running, &rg);
		tap_ok(!r && !(rg.status & 1) && running == 0,
		       "hotness_threshold 65536, beyond the %u-bit counters of 4 KiB units: its "
		       "start refused (instance 0 enabled %d, the event ran %llu ns)",
		       (unsigned int)FIELD(rg.status, 39, 32), (int)(rg.status & 1),
		       (unsigned long long)running);
		close(fd);
	}
	fd = open_timed(CFG(0, 6, 4, 1, 0, 0), CFG1(65535, 12));
	r = -1;
	if (fd >= 0) {
		r = run_timed(fd, bar, &running, &rg);
		close(fd);
	}
	tap_ok(fd >= 0 && !r && (rg.status & 1) && running > 0,
	       "hotness_threshold 65535, the counters' largest, runs (%s; enabled %d)",
	       fd < 0 ? strerror(errno) : "opened", fd < 0 ? 0 : (int)(rg.status & 1));
	return tap_done();
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "touch")) {
		size_t n = strtoull(argv[3], NULL, 0), pg = (size_t)vm_page_size();
		uint8_t *b = vm_map_on_node(n * pg, atoi(argv[2]), -1, false);

		if (!b)
			return 1;
		memset(b, 1, n * pg);
		touch_and_drain(b, n, argc > 4 ? atof(argv[4]) : 10.0, NULL, NULL, NULL);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "regs")) {
		struct regs rg;
		int r = read_regs(argv[2], &rg);

		if (r) {
			fprintf(stderr, "hb-vmhmu: %s: %s\n", argv[2], strerror(-r));
			return 1;
		}
		printf("conf0 %#llx status %#llx enabled %d\n", (unsigned long long)rg.conf0,
		       (unsigned long long)rg.status,
		       !!(rg.conf0 & (1ULL << 16)) && !!(rg.status & 1));
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr,
			"usage: hb-vmhmu abi|refuse|data|defaults|small|stall|nofill|alwayson|hotplug|"
			"open|gone|hold PMU [...] | regs BAR | touch NODE PAGES [SECONDS]\n");
		return 2;
	}
	pmu = argv[2];
	if (!strcmp(argv[1], "abi"))
		return t_abi();
	if (!strcmp(argv[1], "refuse"))
		return t_refuse();
	if (!strcmp(argv[1], "data") && argc == 5)
		return t_data(atoi(argv[3]), argv[4]);
	if (!strcmp(argv[1], "small") && argc == 4)
		return t_small(atoi(argv[3]));
	if (!strcmp(argv[1], "hotplug") && argc == 5)
		return t_hotplug(atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(argv[1], "stall") && argc == 4)
		return t_stall(atoi(argv[3]));
	if (!strcmp(argv[1], "nofill") && argc == 4)
		return t_nofill(atoi(argv[3]));
	if (!strcmp(argv[1], "alwayson") && argc == 5)
		return t_alwayson(atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(argv[1], "defaults") && argc == 4)
		return t_defaults(argv[3]);
	if (!strcmp(argv[1], "gone")) {
		int fd = open_good(1), e = errno;

		tap_ok(fd < 0 && e == ENODEV, "%s refuses: %s", pmu, fd < 0 ? strerror(e) : "opened");
		if (fd >= 0)
			close(fd);
		return tap_done();
	}
	if (!strcmp(argv[1], "open")) {
		int fd = open_good(1);

		tap_ok(fd >= 0, "%s opens (%s)", pmu, fd < 0 ? strerror(errno) : "ok");
		if (fd >= 0)
			close(fd);
		return tap_done();
	}
	if (!strcmp(argv[1], "hold") && argc == 4) {
		struct drained d = { 0 };
		double t0 = vm_now(), hup = -1;
		struct mapped m;
		int fd = open_good(1), r = fd < 0 ? -errno : map_event(&m, fd, 4, true);

		if (r) {
			tap_ok(false, "open %s: %s", pmu, strerror(-r));
			return tap_done();
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		printf("hb-vmhmu: holding %s\n", pmu);
		fflush(stdout);
		while (vm_now() - t0 < atof(argv[3])) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (hup >= 0) {
				usleep(200000); /* hung up: poll() would return at once */
				continue;
			}
			if (poll(&p, 1, 200) > 0) {
				drain(&m, &d);
				if (p.revents & POLLHUP) {
					hup = vm_now() - t0;
					printf("hb-vmhmu: %s hung up after %.1f s\n", pmu, hup);
					fflush(stdout);
				}
			}
		}
		drain(&m, &d);
		tap_diag("held %s %.0f s: %llu chunks, %llu entries, %llu bad", pmu, vm_now() - t0,
			 (unsigned long long)d.chunks, (unsigned long long)d.entries,
			 (unsigned long long)d.bad);
		tap_ok(hup >= 0, "the reader of the removed instance was told: poll() said POLLHUP%s",
		       hup >= 0 ? "" : " never");
		tap_ok(!d.bad, "the held event's buffers stayed valid");
		unmap_event(&m);
		return tap_done();
	}
	fprintf(stderr, "hb-vmhmu: unknown mode %s\n", argv[1]);
	return 2;
}
