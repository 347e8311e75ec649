// SPDX-License-Identifier: MIT
/*
 * The "cxl-hmu" source: a CHMU instance through the RFC perf driver's PMU
 * (hmu.h). The event is encoded from the PMU's own format/ files, opened
 * system-wide on the PMU's CPU, its ring and AUX area mapped, and enabled;
 * the daemon's loop watches the event's fd, which turns readable whenever
 * the kernel appends to the data ring (every AUX write does: a
 * PERF_RECORD_AUX, with a wake-up watermark of one byte), and each wake-up
 * drains the AUX area into DPA records.
 *
 * Parameters: pmu=<cxl_hmu_memX.Y.Z> (needed when there are several),
 * unit (bytes, a power of two, default 4096), epoch_ms (100), threshold
 * (16), ds (down-sampling factor, a power of two; default the smallest the
 * PMU takes), mode (epoch | always-on), access (nontee-r | nontee-w |
 * nontee-rw | r | w | rw, or the code 1..6; default the first the PMU takes
 * of r, nontee-r, rw, nontee-rw, w, nontee-w: negotiate.c),
 * dpa_range=<start>+<len> (256 MiB aligned; default all the PMU tracks),
 * aux_pages (16), capacity (the memdev's bytes; the daemon fills it from
 * the topology, else the memdev's sysfs ram/ and pmem/ sizes: entries past
 * it are dropped and counted as bad input).
 * Records are named by the PMU's memdev ("cxl_hmu_mem0.0.0" is memdev
 * mem0); a source memdev (memdev =, or pci ='s) that is another is
 * refused. Only a PMU whose name names no memdev takes the source's.
 *
 * Run against our own driver of that ABI (kernel/patches/6.12/0005) in
 * the e2e-chmu-perf-6.12 guests (devices/docs/hmu.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "devices.h"
#include "chmu/chmu.h"
#include "hmu.h"

#define DATA_PAGES 8 /* the data ring only carries AUX/LOST records */
#define BATCH 512

struct hmu_src {
	const struct hb_host_ops *ops;
	struct hb_host *host;
	char name[64]; /* the instance, for messages */
	int fd;
	bool watched;
	void *base; /* meta page + data ring */
	size_t base_len;
	struct hb_hmu_ring ring;
	struct hb_hmu_aux_decoder dec;
	struct hb_hmu_aux_stats st;
	struct hb_hmu_ring_stats rst;
	bool warned_beyond; /* entries past the memdev's capacity were reported */
	struct hb_hot_record rec[BATCH];
};

const char *const hb_source_cxl_hmu_params[] = { "pmu",       "unit",     "epoch_ms", "threshold",
						 "ds",        "mode",     "access",   "dpa_range",
						 "aux_pages", "capacity", NULL };

static int log2_exact(uint64_t v, unsigned int *ret)
{
	if (!v || (v & (v - 1)))
		return -EINVAL;
	*ret = (unsigned int)__builtin_ctzll(v);
	return 0;
}

/* the request from the parameters; every refusal names the parameter */
int hb_hmu_request_from_params(const struct hb_dev_info *info, struct hb_hmu_request *q,
			       uint64_t *ret_pages, struct hb_err *err)
{
	const char *mode = hb_dev_param(info, "mode"), *range = hb_dev_param(info, "dpa_range");
	struct hb_chmu_params p;
	uint64_t unit, epoch_ms, thr, ds, capacity;
	int r;

	*q = (struct hb_hmu_request){ 0 }; /* a field no parameter names is 0: no DPA range */
	if ((r = hb_dev_params_check(info, hb_source_cxl_hmu_params, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "unit", 4096, &unit, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "epoch_ms", 100, &epoch_ms, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "threshold", 16, &thr, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "ds", 1, &ds, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "aux_pages", 16, ret_pages, err)) < 0 ||
	    (r = hb_chmu_param_capacity("cxl-hmu", info, &capacity, err)) < 0)
		return r;
	if (mode && strcmp(mode, "epoch") && strcmp(mode, "always-on"))
		return hb_err_set(err, -EINVAL, "cxl-hmu: mode=%s: use epoch or always-on", mode);
	/* the CHMU's own rules, as the chmu source checks them (chmu/rules.c) */
	p = (struct hb_chmu_params){ .unit = unit ? unit : 1,
				     .ds = ds ? ds : 3,
				     .threshold = thr,
				     .epoch_ms = epoch_ms,
				     .epoch = !mode || !strcmp(mode, "epoch"),
				     .capacity = capacity };
	if (!unit || !ds)
		return hb_err_set(err, -EINVAL, "cxl-hmu: %s=0: a power of two",
				  !unit ? "unit" : "ds");
	if ((r = hb_chmu_check_params("cxl-hmu", &p, err)) < 0)
		return r;
	log2_exact(unit, &q->granule_shift);
	log2_exact(ds, &q->ds_shift);
	if ((r = hb_chmu_parse_access("cxl-hmu", hb_dev_param(info, "access"), &q->access_type,
				      err)) < 0)
		return r;
	q->access_given = q->access_type != 0;
	if (!q->access_given)
		q->access_type = 6; /* the first asked for (negotiate.c) */
	q->ds_given = hb_dev_param(info, "ds") != NULL;
	if (log2_exact(*ret_pages, &(unsigned int){ 0 }) < 0 || *ret_pages > 65536)
		return hb_err_set(err, -EINVAL, "cxl-hmu: aux_pages=%llu: a power of two up to 65536",
				  (unsigned long long)*ret_pages);
	q->mode = mode && !strcmp(mode, "always-on");
	q->epoch_ns = epoch_ms * 1000000;
	q->threshold = (uint32_t)thr;
	if (range) {
		const char *bad = NULL;
		char buf[64];
		char *plus;

		snprintf(buf, sizeof(buf), "%s", range);
		plus = strchr(buf, '+');
		if (plus)
			*plus = '\0';
		if (!plus)
			return hb_err_set(err, -EINVAL, "cxl-hmu: dpa_range=%s: not <start>+<len>",
					  range);
		if ((r = hb_parse_u64(buf, &q->dpa_start)) < 0)
			bad = buf;
		else if ((r = hb_parse_u64(plus + 1, &q->dpa_len)) < 0)
			bad = plus + 1;
		if (bad)
			return hb_err_set(err, -EINVAL, "cxl-hmu: dpa_range=%s: %s %s", range, bad,
					  hb_parse_u64_why(bad, r));
		if (!q->dpa_len)
			return hb_err_set(err, -EINVAL, "cxl-hmu: dpa_range=%s: an empty range",
					  range);
		if (q->dpa_start % (256ULL << 20) || q->dpa_len % (256ULL << 20))
			return hb_err_set(err, -EINVAL,
					  "cxl-hmu: dpa_range=%s: not on 256 MiB boundaries (the "
					  "PMU's range_base/range_size count 256 MiB)",
					  range);
		p.ranges = &(struct hb_chmu_range){ q->dpa_start, q->dpa_len };
		p.nranges = 1;
		if ((r = hb_chmu_check_params("cxl-hmu", &p, err)) < 0)
			return r;
	}
	return 0;
}

/* memX of cxl_hmu_memX.Y.Z; "" when the name has another form */
static void memdev_of_pmu(const char *pmu, char *out, size_t size)
{
	const char *p = pmu + strlen(HB_HMU_PMU_PREFIX);
	size_t n = 3;

	out[0] = '\0';
	if (strncmp(pmu, HB_HMU_PMU_PREFIX, strlen(HB_HMU_PMU_PREFIX)) || strncmp(p, "mem", 3))
		return;
	while (p[n] >= '0' && p[n] <= '9')
		n++;
	if (n > 3 && n < size && (p[n] == '.' || !p[n]))
		snprintf(out, size, "%.*s", (int)n, p);
}

/*
 * The source's memdev (memdev =, or the one of pci =) must be the PMU's
 * own: the records are submitted under it, and another memdev's DPA is
 * another host page.
 */
static int check_memdev(const struct hb_dev_info *info, const char *pmu, struct hb_err *err)
{
	char own[32];

	memdev_of_pmu(pmu, own, sizeof(own));
	if (!info->memdev || !own[0] || !strcmp(own, info->memdev))
		return 0;
	return hb_err_set(err, -EINVAL,
			  "cxl-hmu: PMU %s is %s's CHMU, but the source's memdev is %s (memdev = "
			  "or pci =): its records would name the wrong memdev",
			  pmu, own, info->memdev);
}

/* the start-up check (registry.c): the parameters as open reads them */
int hb_source_cxl_hmu_check(const struct hb_dev_info *info, struct hb_err *err)
{
	struct hb_hmu_request q = { 0 };
	const char *pmu = hb_dev_param(info, "pmu");
	uint64_t pages;
	int r;

	if ((r = hb_hmu_request_from_params(info, &q, &pages, err)) < 0)
		return r;
	return pmu ? check_memdev(info, pmu, err) : 0;
}

/* the memdev's ram and pmem sizes in sysfs (the DPA space); 0 when unknown */
static uint64_t memdev_capacity(const char *root, const char *memdev)
{
	static const char *const parts[] = { "ram", "pmem" };
	uint64_t total = 0;

	for (size_t i = 0; i < HB_ARRAY_SIZE(parts); i++) {
		char path[PATH_MAX], buf[64];
		uint64_t v;

		snprintf(path, sizeof(path), "/sys/bus/cxl/devices/%s/%s/size", memdev, parts[i]);
		if (hb_read_text(root, path, buf, sizeof(buf)) > 0 && hb_parse_u64(buf, &v) == 0 &&
		    v <= UINT64_MAX - total)
			total += v;
	}
	return total;
}

/* the first CPU of the PMU's cpumask ("0", "0-3", "2,5"); 0 without one */
static int pmu_cpu(const char *root, const char *pmu)
{
	char path[PATH_MAX], buf[64];
	uint64_t cpu = 0;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpumask", pmu);
	if (hb_read_text(root, path, buf, sizeof(buf)) > 0) {
		buf[strspn(buf, "0123456789")] = '\0';
		if (hb_parse_u64(buf, &cpu) < 0 || cpu > INT32_MAX)
			cpu = 0;
	}
	return (int)cpu;
}

/* the PMU to open and the event's attributes, from the tree under root */
int hb_hmu_source_prepare(const char *root, const struct hb_dev_info *info,
			  struct hb_hmu_pmu *ret_pmu, uint64_t config[HB_HMU_CONFIG_WORDS],
			  struct hb_hmu_aux_decoder *ret_dec, uint64_t *ret_pages, struct hb_err *err)
{
	struct hb_hmu_request q = { 0 };
	const char *name = hb_dev_param(info, "pmu");
	char first[64];
	int r, n;

	if ((r = hb_hmu_request_from_params(info, &q, ret_pages, err)) < 0)
		return r;
	n = hb_hmu_pmu_find(root, first, sizeof(first));
	if (!name && n > 1)
		return hb_err_set(err, -EINVAL,
				  "cxl-hmu: %d CHMU PMUs (%s, ...): say which with "
				  "pmu=",
				  n, first);
	if (!name && n == 0) {
		char why[256];

		hb_hmu_available(root, why, sizeof(why));
		return hb_err_set(err, -ENODEV, "cxl-hmu: %s", why);
	}
	if (name && strncmp(name, HB_HMU_PMU_PREFIX, strlen(HB_HMU_PMU_PREFIX)))
		return hb_err_set(err, -EINVAL, "cxl-hmu: pmu=%s is not a %s* PMU", name,
				  HB_HMU_PMU_PREFIX);
	if ((r = hb_hmu_pmu_load(root, name ? name : first, ret_pmu, err)) < 0 ||
	    (r = check_memdev(info, ret_pmu->name, err)) < 0 ||
	    (r = hb_hmu_request_encode(ret_pmu, &q, config, err)) < 0)
		return r;
	*ret_dec = (struct hb_hmu_aux_decoder){ .granule_shift = q.granule_shift,
						.dpa_start = q.dpa_start,
						.dpa_len = q.dpa_len };
	if (info->memdev && strlen(info->memdev) < sizeof(ret_dec->memdev))
		snprintf(ret_dec->memdev, sizeof(ret_dec->memdev), "%s", info->memdev);
	else
		memdev_of_pmu(ret_pmu->name, ret_dec->memdev, sizeof(ret_dec->memdev));
	if (!ret_dec->memdev[0])
		return hb_err_set(err, -EINVAL,
				  "cxl-hmu: PMU %s names no memdev: give the source "
				  "one",
				  ret_pmu->name);
	if ((r = hb_chmu_param_capacity("cxl-hmu", info, &ret_dec->capacity, err)) < 0)
		return r;
	if (!ret_dec->capacity)
		ret_dec->capacity = memdev_capacity(root, ret_dec->memdev);
	return 0;
}

static int emit(void *ud, const struct hb_hot_record *r, size_t n)
{
	struct hmu_src *s = ud;
	int ret = s->ops->submit(s->host, r, n);

	return ret == -ENOBUFS ? 0 : ret; /* the host counted what it dropped */
}

static void on_readable(void *priv, int fd, uint32_t revents)
{
	struct hmu_src *s = priv;
	struct hb_err err = { 0 };
	uint64_t bad = s->st.bad_chunks, trunc = s->rst.truncated, lost = s->rst.lost;
	uint64_t partial = s->rst.partial, beyond = s->st.beyond_capacity;
	int r;

	r = hb_hmu_ring_drain(&s->ring, &s->dec, s->rec, BATCH, emit, s, &s->st, &s->rst, &err);
	if (r < 0)
		s->ops->log(s->host, HB_LOG_ERR, "%s: %s", s->name, err.msg);
	if (s->st.bad_chunks > bad && HB_OPS_HAS(s->ops, count_bad) && s->ops->count_bad)
		s->ops->count_bad(s->host, s->st.bad_chunks - bad);
	/* no device has such a DPA: bad input of its own kind, the likely cause said once */
	if (s->st.beyond_capacity > beyond && HB_OPS_HAS(s->ops, count_bad) && s->ops->count_bad)
		s->ops->count_bad(s->host, s->st.beyond_capacity - beyond);
	if (s->st.beyond_capacity > beyond && !s->warned_beyond) {
		s->warned_beyond = true;
		s->ops->log(s->host, HB_LOG_WARNING,
			    "%s: %llu AUX entries name a DPA past %s's capacity (0x%llx bytes): "
			    "dropped and counted as bad input (said once). No device reports such "
			    "a DPA: the driver or device garbles entries, reading each 8-byte entry "
			    "at another width (the RFC driver's two 4-byte reads on x86) or with "
			    "another unit size (hotness_granual) than the device uses",
			    s->name, (unsigned long long)(s->st.beyond_capacity - beyond),
			    s->dec.memdev, (unsigned long long)s->dec.capacity);
	}
	if (s->rst.truncated > trunc)
		s->ops->log(s->host, HB_LOG_WARNING,
			    "%s: the kernel truncated %llu AUX writes (the AUX area is full: "
			    "raise aux_pages)",
			    s->name, (unsigned long long)(s->rst.truncated - trunc));
	/* PERF_RECORD_LOST: records that did not fit the data ring, AUX ones among them */
	if (s->rst.lost > lost)
		s->ops->log(s->host, HB_LOG_WARNING,
			    "%s: the kernel lost %llu records of the data ring (%llu so far): the "
			    "flags of the AUX writes among them (partial, truncated) are unknown",
			    s->name, (unsigned long long)(s->rst.lost - lost),
			    (unsigned long long)s->rst.lost);
	if (s->rst.partial > partial)
		s->ops->log(s->host, HB_LOG_WARNING,
			    "%s: the kernel dropped hotlist entries in %llu "
			    "AUX writes (%llu so far): its AUX area was too small for a drain, or the "
			    "CHMU's hotlist overflowed; raise aux_pages or lower the hot units per epoch "
			    "(the PMU's lost_entries and overflows count them)",
			    s->name, (unsigned long long)(s->rst.partial - partial),
			    (unsigned long long)s->rst.partial);
	/*
	 * A full AUX area makes the kernel disable the event (the record that
	 * filled it says TRUNCATED, counted above): the drain made room, so
	 * enable it again. A no-op while the event runs (review K4).
	 */
	if (!(revents & HB_FD_HUP) && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		s->ops->log(s->host, HB_LOG_WARNING, "%s: enabling the event again: %s", s->name,
			    strerror(errno));
	if (revents & HB_FD_HUP) {
		/* the event is gone (its instance removed): stop, or the loop would spin */
		s->ops->log(s->host, HB_LOG_ERR,
			    "%s: the perf event hung up (its PMU went away); "
			    "the source stops",
			    s->name);
		s->ops->unwatch_fd(s->host, fd);
		s->watched = false;
	}
}

static void hmu_close(void *priv)
{
	struct hmu_src *s = priv;

	if (s->fd >= 0)
		(void)ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	if (s->watched)
		s->ops->unwatch_fd(s->host, s->fd);
	if (s->ring.aux)
		munmap(s->ring.aux, s->ring.aux_size);
	if (s->base)
		munmap(s->base, s->base_len);
	if (s->fd >= 0)
		close(s->fd);
	free(s->ring.scratch);
	free(s);
}

struct perf_open {
	uint32_t type;
	int cpu;
};

/* the event, disabled (enabled once the AUX area is mapped): an fd or -errno */
static int perf_open(void *ud, const uint64_t config[HB_HMU_CONFIG_WORDS], bool probe)
{
	const struct perf_open *po = ud;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int fd;

	if (config[3])
		return -EINVAL; /* this build's perf_event_attr has no config3 */
	attr.type = po->type;
	attr.config = config[0];
	attr.config1 = config[1];
	attr.config2 = config[2];
	attr.disabled = 1;
	attr.watermark = 1;
	attr.wakeup_watermark = 1; /* every PERF_RECORD_AUX wakes the loop */
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, po->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (probe) {
		close(fd);
		return 0;
	}
	return fd;
}

static int hmu_open(const struct hb_host_ops *ops, struct hb_host *h,
		    const struct hb_dev_info *info, void **ret_priv)
{
	struct hb_hmu_request q = { 0 }, want = { 0 };
	struct perf_open po;
	uint64_t config[HB_HMU_CONFIG_WORDS], pages;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct hb_err err = { 0 };
	struct hb_hmu_pmu pmu;
	struct hmu_src *s;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->host = h;
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", info->name ? info->name : "cxl-hmu");
	if ((r = hb_hmu_source_prepare("", info, &pmu, config, &s->dec, &pages, &err)) < 0)
		goto fail;
	if (config[3]) {
		r = hb_err_set(&err, -EOPNOTSUPP,
			       "cxl-hmu: PMU %s wants config3, which this "
			       "build's perf_event_attr lacks",
			       pmu.name);
		goto fail;
	}
	po = (struct perf_open){ .type = pmu.type, .cpu = pmu_cpu("", pmu.name) };
	if ((r = hb_hmu_request_from_params(info, &want, &pages, &err)) < 0)
		goto fail;
	s->fd = hb_hmu_negotiate(&pmu, &want, config, perf_open, &po, &q, &err);
	if (s->fd < 0 && !err.msg[0]) {
		r = hb_err_set(&err, s->fd,
			       "cxl-hmu: perf_event_open(%s, type %u, config 0x%llx, "
			       "config1 0x%llx, config2 0x%llx): %s%s",
			       pmu.name, pmu.type, (unsigned long long)config[0],
			       (unsigned long long)config[1], (unsigned long long)config[2],
			       strerror(-s->fd),
			       s->fd == -EACCES || s->fd == -EPERM ?
				       " (system-wide events need "
				       "CAP_PERFMON or perf_event_paranoid <= 0)" :
				       "");
		goto fail;
	}
	if (s->fd < 0) {
		r = s->fd;
		goto fail;
	}
	s->base_len = (1 + DATA_PAGES) * page;
	s->base = mmap(NULL, s->base_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		r = hb_err_set(&err, -errno, "cxl-hmu: mmap of %s's ring: %s", pmu.name,
			       strerror(errno));
		goto fail;
	}
	s->ring.meta = s->base;
	s->ring.data = (uint8_t *)s->base + page;
	s->ring.data_size = DATA_PAGES * page;
	s->ring.aux_size = pages * page;
	((struct perf_event_mmap_page *)s->base)->aux_offset = s->base_len;
	((struct perf_event_mmap_page *)s->base)->aux_size = s->ring.aux_size;
	/* writable: a read-only AUX area is overwrite mode, which the driver refuses */
	s->ring.aux = mmap(NULL, s->ring.aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
			   (off_t)s->base_len);
	if (s->ring.aux == MAP_FAILED) {
		s->ring.aux = NULL;
		r = hb_err_set(&err, -errno, "cxl-hmu: mmap of %s's AUX area (%zu bytes): %s",
			       pmu.name, s->ring.aux_size, strerror(errno));
		goto fail;
	}
	s->ring.scratch = malloc(s->ring.aux_size);
	if (!s->ring.scratch) {
		r = hb_err_set(&err, -ENOMEM, "cxl-hmu: out of memory");
		goto fail;
	}
	if ((r = ops->watch_fd(h, s->fd, HB_FD_READ, on_readable, s)) < 0) {
		hb_err_set(&err, r, "cxl-hmu: cannot watch the event's fd");
		goto fail;
	}
	s->watched = true;
	if (ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		r = hb_err_set(&err, -errno, "cxl-hmu: enabling %s: %s", pmu.name, strerror(errno));
		goto fail;
	}
	ops->log(h, HB_LOG_INFO,
		 "%s: %s (perf type %u) enabled, %zu-byte AUX area, records for %s, access %s "
		 "(%u)%s, ds %llu%s",
		 s->name, pmu.name, pmu.type, s->ring.aux_size, s->dec.memdev,
		 hb_chmu_access_name(q.access_type), q.access_type,
		 q.access_given ? "" : " (the first the PMU took)", 1ULL << q.ds_shift,
		 q.ds_given ? "" : " (the first the PMU took)");
	*ret_priv = s;
	return 0;
fail:
	ops->log(h, HB_LOG_ERR, "%s: %s", s->name, err.msg);
	hmu_close(s);
	return r;
}

const struct hb_device_ops hb_source_cxl_hmu = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_device_ops),
	.name = "cxl-hmu",
	.caps = HB_DEV_CAP_FD | HB_DEV_CAP_DPA,
	.open = hmu_open,
	.close = hmu_close,
};
