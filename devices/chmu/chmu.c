// SPDX-License-Identifier: MIT
/* The CHMU driver: capabilities, programming, draining the hotlist. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chmu.h"
#include "regs.h"

struct hb_chmu {
	struct hb_regwin w;
	uint64_t base; /* instance base offset */
	char memdev[HB_MEMDEV_NAME_MAX];
	struct hb_chmu_caps caps;
	struct hb_chmu_stats stats;
	uint64_t unit_size;
	uint64_t capacity; /* 0: unknown */
	struct hb_chmu_range *ranges;
	size_t nranges;
	bool configured;
};

static int rd(const struct hb_chmu *c, uint64_t rel, unsigned int width, uint64_t *v)
{
	return c->w.read(c->w.priv, c->base + rel, width, v);
}

static int wr(const struct hb_chmu *c, uint64_t rel, unsigned int width, uint64_t v)
{
	return c->w.write(c->w.priv, c->base + rel, width, v);
}

/* how long an enable, disable or reset may take (the RFC driver's bound) */
#define OP_TIMEOUT_NS 100000000LL
#define OP_POLL_NS 10000L

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Waits out the enable, disable or reset STATUS[31:16] says is in
 * progress (review K3): a device may take time over each, and the next
 * write must wait for it. 0, -ETIMEDOUT, or the read's error; *st is the
 * last STATUS read.
 */
static int op_wait(const struct hb_chmu *c, uint64_t *st)
{
	const struct timespec pause = { .tv_nsec = OP_POLL_NS };
	long long t0 = now_ns();
	int r;

	for (;;) {
		r = rd(c, CHMU_STATUS, 8, st);
		if (r < 0 || !STATUS_OP(*st))
			return r < 0 ? r : 0;
		if (now_ns() - t0 > OP_TIMEOUT_NS)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

void hb_chmu_format_sizes(uint32_t bitmap, unsigned int base_shift, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int n = 0; n < 32 && used < size; n++) {
		if (!((bitmap >> n) & 1))
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%llu", used ? "," : "",
					 1ULL << (n + base_shift));
	}
	if (!bitmap)
		snprintf(buf, size, "none");
}

int hb_chmu_open(const struct hb_regwin *w, unsigned int instance, const char *memdev,
		 struct hb_chmu **ret, struct hb_err *err)
{
	struct hb_chmu *c;
	struct hb_chmu_caps *k;
	uint64_t v0, v1, c0, c1, st;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return hb_err_set(err, -ENOMEM, "out of memory");
	c->w = *w;
	snprintf(c->memdev, sizeof(c->memdev), "%s", memdev ? memdev : "");
	k = &c->caps;
	r = w->read(w->priv, CHMU_COMMON_CAP0, 8, &v0);
	if (r >= 0)
		r = w->read(w->priv, CHMU_COMMON_CAP1, 8, &v1);
	if (r < 0) {
		r = hb_err_set(err, r, "CHMU: cannot read the common capability: %s", strerror(-r));
		goto fail;
	}
	k->version = (unsigned int)HB_CHMU_FIELD(v0, 3, 0);
	k->instances = (unsigned int)HB_CHMU_FIELD(v0, 15, 8);
	k->instance_len = (unsigned int)HB_CHMU_FIELD(v1, 15, 0);
	if (k->version == 0 || k->instances == 0 || instance >= k->instances ||
	    k->instance_len < 0x70) {
		r = hb_err_set(err, -EPROTO,
			       "CHMU: version %u, %u instance(s) of %u bytes: no instance %u",
			       k->version, k->instances, k->instance_len, instance);
		goto fail;
	}
	c->base = CHMU_INST0 + (uint64_t)instance * k->instance_len;
	if (w->size && c->base + k->instance_len > w->size) {
		r = hb_err_set(err, -EPROTO,
			       "CHMU: instance %u ends at 0x%llx, beyond the 0x%llx-byte window",
			       instance, (unsigned long long)(c->base + k->instance_len),
			       (unsigned long long)w->size);
		goto fail;
	}
	if ((r = rd(c, CHMU_CAP0, 8, &c0)) < 0 || (r = rd(c, CHMU_CAP1, 8, &c1)) < 0 ||
	    (r = rd(c, CHMU_CAP2, 8, &k->range_off)) < 0 ||
	    (r = rd(c, CHMU_CAP3, 8, &k->hotlist_off)) < 0 || (r = rd(c, CHMU_STATUS, 8, &st)) < 0) {
		r = hb_err_set(err, r, "CHMU: cannot read instance %u capabilities", instance);
		goto fail;
	}
	k->msi_n = (unsigned int)CAP0_MSI_N(c0);
	k->overflow_int = CAP0_OVERFLOW_INT(c0);
	k->level_int = CAP0_LEVEL_INT(c0);
	k->epoch_type = (unsigned int)CAP0_EPOCH_TYPE(c0);
	k->m2s = (unsigned int)CAP0_TRACKED_M2S(c0);
	k->max_epoch_ns = hb_chmu_epoch_scale_ns((unsigned int)CAP0_MAX_EPOCH_SCALE(c0)) *
			  CAP0_MAX_EPOCH_VAL(c0);
	k->min_epoch_ns = hb_chmu_epoch_scale_ns((unsigned int)CAP0_MIN_EPOCH_SCALE(c0)) *
			  CAP0_MIN_EPOCH_VAL(c0);
	k->hotlist_size = (unsigned int)CAP0_HOTLIST_SIZE(c0);
	k->unit_sizes = (uint32_t)CAP1_UNIT_SIZES(c1);
	k->ds_factors = (uint16_t)CAP1_DS_FACTORS(c1);
	k->epoch_based = CAP1_EPOCH_BASED(c1);
	k->always_on = CAP1_ALWAYS_ON(c1);
	k->randomized_ds = CAP1_RANDOMIZED_DS(c1);
	k->overlapping = CAP1_OVERLAPPING(c1);
	k->postponed = CAP1_POSTPONED(c1);
	k->counter_width = (unsigned int)STATUS_COUNTER_WIDTH(st);

	if (k->hotlist_size < 2) {
		r = hb_err_set(err, -EPROTO, "CHMU: hotlist of %u entries", k->hotlist_size);
		goto fail;
	}
	if (k->counter_width < 1 || k->counter_width > 63) {
		r = hb_err_set(err, -EPROTO, "CHMU: counter width %u (must be 1..63)",
			       k->counter_width);
		goto fail;
	}
	if (!k->unit_sizes || !k->ds_factors || !(k->epoch_based || k->always_on)) {
		r = hb_err_set(err, -EPROTO,
			       "CHMU: no unit size, down-sampling factor or reporting mode");
		goto fail;
	}
	if (k->range_off < 0x70 || k->hotlist_off < k->range_off ||
	    k->hotlist_off + (uint64_t)k->hotlist_size * 8 > k->instance_len) {
		r = hb_err_set(err, -EPROTO,
			       "CHMU: range bitmap at 0x%llx and hotlist at 0x%llx do not fit "
			       "an instance of %u bytes",
			       (unsigned long long)k->range_off, (unsigned long long)k->hotlist_off,
			       k->instance_len);
		goto fail;
	}
	*ret = c;
	return 0;
fail:
	free(c);
	return r;
}

struct hb_chmu *hb_chmu_free(struct hb_chmu *c)
{
	if (c) {
		free(c->ranges);
		free(c);
	}
	return NULL;
}

const struct hb_chmu_caps *hb_chmu_caps(const struct hb_chmu *c)
{
	return &c->caps;
}

const struct hb_chmu_stats *hb_chmu_stats(const struct hb_chmu *c)
{
	return &c->stats;
}

/* The smallest scale that represents ns exactly with a 12-bit value. */
static int encode_epoch(uint64_t ns, unsigned int *scale, unsigned int *val)
{
	for (unsigned int s = 1; s <= 5; s++) {
		uint64_t unit = hb_chmu_epoch_scale_ns(s);

		if (ns % unit == 0 && ns / unit >= 1 && ns / unit <= 0xfff) {
			*scale = s;
			*val = (unsigned int)(ns / unit);
			return 0;
		}
	}
	return -ERANGE;
}

int hb_chmu_disable(struct hb_chmu *c, struct hb_err *err)
{
	uint64_t conf0, st;
	int r = rd(c, CHMU_CONF0, 8, &conf0);

	if (r >= 0)
		r = wr(c, CHMU_CONF0, 8, conf0 & ~CONF0_ENABLE);
	if (r >= 0)
		r = op_wait(c, &st);
	if (r < 0)
		return hb_err_set(err, r, "CHMU: cannot disable: %s", strerror(-r));
	return 0;
}

/* a counter width STATUS reports (when: for the message) that entries can be decoded with */
static int width_check(uint64_t st, const char *when, struct hb_err *err)
{
	unsigned int w = (unsigned int)STATUS_COUNTER_WIDTH(st);

	if (w < 1 || w > 63)
		return hb_err_set(err, -EPROTO, "CHMU: counter width %u %s (must be 1..63)", w, when);
	return 0;
}

int hb_chmu_configure(struct hb_chmu *c, const struct hb_chmu_config *cfg, struct hb_err *err)
{
	const struct hb_chmu_caps *k = &c->caps;
	uint64_t words = (k->hotlist_off - k->range_off) / 8;
	unsigned int us_bit, ds_bit, scale = 0, val = 0;
	uint64_t conf0, conf1, st;
	char allowed[256];
	int m2s, r;

	if (!hb_is_pow2(cfg->unit_size) || hb_ilog2(cfg->unit_size) < 8 ||
	    hb_ilog2(cfg->unit_size) > 39 ||
	    !((k->unit_sizes >> (hb_ilog2(cfg->unit_size) - 8)) & 1)) {
		hb_chmu_format_sizes(k->unit_sizes, 8, allowed, sizeof(allowed));
		return hb_err_set(err, -EINVAL, "CHMU: unit size %llu not supported (allowed: %s)",
				  (unsigned long long)cfg->unit_size, allowed);
	}
	us_bit = hb_ilog2(cfg->unit_size);
	if (!hb_is_pow2(cfg->ds_factor) || hb_ilog2(cfg->ds_factor) > 15 ||
	    !((k->ds_factors >> hb_ilog2(cfg->ds_factor)) & 1)) {
		hb_chmu_format_sizes(k->ds_factors, 0, allowed, sizeof(allowed));
		return hb_err_set(err, -EINVAL,
				  "CHMU: down-sampling factor %u not supported "
				  "(allowed: %s)",
				  cfg->ds_factor, allowed);
	}
	ds_bit = hb_ilog2(cfg->ds_factor);
	if (cfg->mode == HB_CHMU_MODE_EPOCH) {
		if (!k->epoch_based)
			return hb_err_set(err, -EINVAL,
					  "CHMU: epoch mode not supported (always-on only)");
		if (cfg->epoch_ns < k->min_epoch_ns || cfg->epoch_ns > k->max_epoch_ns ||
		    encode_epoch(cfg->epoch_ns, &scale, &val) < 0)
			return hb_err_set(err, -EINVAL,
					  "CHMU: epoch %llu ns not supported (allowed: "
					  "%llu..%llu ns, in steps the scales 100 us..1 s express)",
					  (unsigned long long)cfg->epoch_ns,
					  (unsigned long long)k->min_epoch_ns,
					  (unsigned long long)k->max_epoch_ns);
	} else if (cfg->mode == HB_CHMU_MODE_ALWAYS_ON) {
		if (!k->always_on)
			return hb_err_set(err, -EINVAL,
					  "CHMU: always-on mode not supported (epoch only)");
	} else {
		return hb_err_set(err, -EINVAL, "CHMU: reporting mode %u unknown", cfg->mode);
	}
	if (cfg->threshold == 0)
		return hb_err_set(err, -EINVAL, "CHMU: hotness threshold must be at least 1");
	if (cfg->fill_threshold >= k->hotlist_size)
		return hb_err_set(err, -EINVAL,
				  "CHMU: fill threshold %u not below the hotlist size %u",
				  cfg->fill_threshold, k->hotlist_size);
	m2s = cfg->m2s ? (int)cfg->m2s : hb_chmu_pick_access(k->m2s);
	if (m2s < 1 || m2s > 6 || !((k->m2s >> (m2s - 1)) & 1)) {
		hb_chmu_format_access(k->m2s, allowed, sizeof(allowed));
		return hb_err_set(err, -EINVAL,
				  "CHMU: access type %s (code %d) not tracked (the device tracks: "
				  "%s; CAP0 0x%x)",
				  hb_chmu_access_name((unsigned int)m2s), m2s, allowed, k->m2s);
	}
	if (!cfg->nranges)
		return hb_err_set(err, -EINVAL, "CHMU: no DPA ranges to track");
	for (size_t i = 0; i < cfg->nranges; i++) {
		uint64_t last = (cfg->ranges[i].start + cfg->ranges[i].len - 1) / CHMU_RANGE_GRANULE;

		if (!cfg->ranges[i].len || last / 64 >= words)
			return hb_err_set(err, -EINVAL,
					  "CHMU: DPA range 0x%llx+0x%llx is beyond the %llu "
					  "GiB the range bitmap covers",
					  (unsigned long long)cfg->ranges[i].start,
					  (unsigned long long)cfg->ranges[i].len,
					  (unsigned long long)(words * 64 / 4));
	}

	/* program: disabled, bitmap, conf1/2, then conf0 with reset + enable */
	r = hb_chmu_disable(c, err);
	if (r < 0)
		return r;
	for (uint64_t wd = 0; wd < words; wd++) {
		uint64_t bits = 0;

		for (size_t i = 0; i < cfg->nranges; i++) {
			uint64_t g0 = cfg->ranges[i].start / CHMU_RANGE_GRANULE;
			uint64_t g1 =
				(cfg->ranges[i].start + cfg->ranges[i].len - 1) / CHMU_RANGE_GRANULE;

			for (uint64_t g = g0; g <= g1; g++)
				if (g / 64 == wd)
					bits |= 1ULL << (g % 64);
		}
		r = wr(c, k->range_off + wd * 8, 8, bits);
		if (r < 0)
			return hb_err_set(err, r, "CHMU: cannot write the range bitmap");
	}
	conf1 = CONF1_UNIT_SIZE(us_bit) | CONF1_DS(ds_bit) | CONF1_MODE(cfg->mode) |
		CONF1_EPOCH_SCALE(scale) | CONF1_EPOCH_VAL(val);
	conf0 = CONF0_M2S(m2s) | CONF0_THRESHOLD(cfg->threshold);
	if ((r = wr(c, CHMU_CONF1, 8, conf1)) < 0 ||
	    (r = wr(c, CHMU_CONF2, 8,
		    cfg->fill_threshold ? cfg->fill_threshold : k->hotlist_size / 2)) < 0 ||
	    (r = rd(c, CHMU_STATUS, 8, &st)) < 0)
		return hb_err_set(err, r, "CHMU: programming failed: %s", strerror(-r));
	/*
	 * review S2: the counter width may depend on the unit size just
	 * programmed (the RFC driver reads it only after CONF1: "Only after
	 * granual is set can the width be known"); the CXL r3.2 text was not
	 * available to us to say otherwise. So the threshold is checked
	 * against the width read now, and the entries are decoded with the
	 * width read once enabled, which each drain checks again.
	 */
	if ((r = width_check(st, "once the unit size is programmed", err)) < 0)
		return r;
	if (cfg->threshold > (1ULL << STATUS_COUNTER_WIDTH(st)) - 1)
		return hb_err_set(err, -EINVAL,
				  "CHMU: threshold %u exceeds the %u-bit counters (max "
				  "%llu) of unit size %llu",
				  cfg->threshold, (unsigned int)STATUS_COUNTER_WIDTH(st),
				  (unsigned long long)((1ULL << STATUS_COUNTER_WIDTH(st)) - 1),
				  (unsigned long long)cfg->unit_size);
	if ((r = wr(c, CHMU_CONF0, 8, conf0 | CONF0_RESET)) < 0 || (r = op_wait(c, &st)) < 0 ||
	    (r = wr(c, CHMU_HEAD, 2, 0)) < 0 ||
	    (r = wr(c, CHMU_CONF0, 8, conf0 | CONF0_ENABLE)) < 0 || (r = op_wait(c, &st)) < 0)
		return hb_err_set(err, r, "CHMU: programming failed: %s", strerror(-r));
	if (!(st & STATUS_ENABLED))
		return hb_err_set(err, -EIO,
				  "CHMU: device did not enable with unit %llu, epoch %llu "
				  "ns, threshold %u (status 0x%llx)",
				  (unsigned long long)cfg->unit_size,
				  (unsigned long long)cfg->epoch_ns, cfg->threshold,
				  (unsigned long long)st);
	r = width_check(st, "once enabled", err);
	if (r == 0 && cfg->threshold > (1ULL << STATUS_COUNTER_WIDTH(st)) - 1)
		r = hb_err_set(err, -EPROTO,
			       "CHMU: the counters narrowed to %u bits at enable, below threshold %u",
			       (unsigned int)STATUS_COUNTER_WIDTH(st), cfg->threshold);
	if (r < 0) {
		(void)hb_chmu_disable(c, NULL);
		return r;
	}
	c->caps.counter_width = (unsigned int)STATUS_COUNTER_WIDTH(st);
	free(c->ranges);
	c->ranges = calloc(cfg->nranges, sizeof(*c->ranges));
	if (!c->ranges)
		return hb_err_set(err, -ENOMEM, "out of memory");
	memcpy(c->ranges, cfg->ranges, cfg->nranges * sizeof(*c->ranges));
	c->nranges = cfg->nranges;
	c->unit_size = cfg->unit_size;
	c->capacity = cfg->capacity;
	c->configured = true;
	return 0;
}

static bool in_ranges(const struct hb_chmu *c, uint64_t dpa)
{
	for (size_t i = 0; i < c->nranges; i++)
		if (dpa >= c->ranges[i].start && dpa - c->ranges[i].start < c->ranges[i].len)
			return true;
	return false;
}

int hb_chmu_drain(struct hb_chmu *c, struct hb_hot_record *out, size_t max, size_t *ret_n,
		  struct hb_err *err)
{
	const struct hb_chmu_caps *k = &c->caps;
	uint64_t head, tail, st, mask = (1ULL << k->counter_width) - 1;
	size_t n = 0;
	int r;

	*ret_n = 0;
	if (!c->configured)
		return hb_err_set(err, -EINVAL, "CHMU: drain before configure");
	if ((r = rd(c, CHMU_HEAD, 2, &head)) < 0 || (r = rd(c, CHMU_TAIL, 2, &tail)) < 0 ||
	    (r = rd(c, CHMU_STATUS, 8, &st)) < 0)
		return hb_err_set(err, r, "CHMU: cannot read the hotlist pointers: %s", strerror(-r));
	if (head >= k->hotlist_size || tail >= k->hotlist_size)
		return hb_err_set(err, -EIO,
				  "CHMU: device reports head %llu, tail %llu outside a "
				  "ring of %u entries",
				  (unsigned long long)head, (unsigned long long)tail,
				  k->hotlist_size);
	/* review S2: entries are decoded with the width of the configured unit, never another */
	if (STATUS_COUNTER_WIDTH(st) != k->counter_width)
		return hb_err_set(err, -EPROTO,
				  "CHMU: the counter width changed from %u to %u bits while enabled "
				  "(nothing here reprogrammed it): the hotlist is not decoded",
				  k->counter_width, (unsigned int)STATUS_COUNTER_WIDTH(st));
	c->stats.drains++;
	while (head != tail && n < max) {
		uint64_t e, unit;

		r = rd(c, k->hotlist_off + head * 8, 8, &e);
		if (r < 0)
			return hb_err_set(err, r, "CHMU: cannot read hotlist entry %llu: %s",
					  (unsigned long long)head, strerror(-r));
		head = (head + 1) % k->hotlist_size;
		unit = e >> k->counter_width;
		/* no device has such a DPA: the entry is garbled (the width read, the unit) */
		if (unit > UINT64_MAX / c->unit_size ||
		    (c->capacity && unit * c->unit_size >= c->capacity)) {
			c->stats.beyond_capacity++;
			continue;
		}
		if (!in_ranges(c, unit * c->unit_size)) {
			c->stats.out_of_range++;
			continue;
		}
		out[n] = (struct hb_hot_record){
			.space = HB_SPACE_DPA,
			.addr = unit * c->unit_size,
			.len = c->unit_size,
			.count = e & mask,
		};
		memcpy(out[n].memdev, c->memdev, sizeof(out[n].memdev));
		n++;
	}
	c->stats.entries += n;
	if ((r = wr(c, CHMU_HEAD, 2, head)) < 0)
		return hb_err_set(err, r, "CHMU: cannot advance the hotlist head: %s", strerror(-r));
	if (st & (STATUS_OVERFLOW | STATUS_LEVEL)) {
		c->stats.overflows += !!(st & STATUS_OVERFLOW);
		c->stats.fill_events += !!(st & STATUS_LEVEL);
		(void)wr(c, CHMU_STATUS, 8, st & (STATUS_OVERFLOW | STATUS_LEVEL));
	}
	*ret_n = n;
	return 0;
}

int hb_chmu_drain_submit(struct hb_chmu *c, struct hb_hot_record *buf, size_t max,
			 const struct hb_host_ops *ops, struct hb_host *h,
			 int (*after)(void *arg, size_t n, struct hb_err *err), void *arg,
			 struct hb_err *err)
{
	uint64_t overflows;
	size_t n;
	int r;

	do {
		overflows = c->stats.overflows;
		r = hb_chmu_drain(c, buf, max, &n, err);
		if (r < 0)
			return r;
		if (after && (r = after(arg, n, err)) < 0)
			return r;
		/* the hotlist was full and the device dropped hotness: the host counts it */
		if (c->stats.overflows > overflows && HB_OPS_HAS(ops, count_overflow) &&
		    ops->count_overflow)
			ops->count_overflow(h, c->stats.overflows - overflows);
		if (n && (r = ops->submit(h, buf, n)) < 0)
			return r; /* the host says why itself */
	} while (n == max);
	return 0;
}
