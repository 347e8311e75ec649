// SPDX-License-Identifier: MIT
/*
 * hb-chmu: a CXL Hotness Monitoring Unit (CXL r3.2 section 8.2.8) as a
 * device model. See hb-chmu.h for how QEMU uses it, and tests/qemu/README.md
 * for the spec sections it follows and the choices the spec leaves open.
 *
 * One register block: the common capability (two 64-bit registers), then
 * the instances, each INSTANCE_LENGTH bytes:
 *
 *   +0x00 CAP0  +0x08 CAP1  +0x10 CAP2 (range bitmap offset)
 *   +0x18 CAP3 (hotlist offset)  +0x40 CONF0  +0x48 CONF1  +0x50 CONF2
 *   +0x60 STATUS  +0x68 HEAD (16 bits)  +0x6a TAIL (16 bits)
 *   +0x70 range bitmap (a bit per 256 MiB of DPA)  then the hotlist ring
 *
 * Every instance counts on its own: its request type, ranges, unit size,
 * down-sampling, threshold, epoch and hotlist.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hb-chmu.h"
#include "hb-llc.h"

#define FIELD(v, hi, lo) (((v) >> (lo)) & ((2ULL << ((hi) - (lo))) - 1))
#define SET(hi, lo, x) (((uint64_t)(x) & ((2ULL << ((hi) - (lo))) - 1)) << (lo))

#define COMMON_CAP0 0x00
#define COMMON_CAP1 0x08
#define INST_BASE 0x10
#define R_CAP0 0x00
#define R_CAP1 0x08
#define R_CAP2 0x10
#define R_CAP3 0x18
#define R_CONF0 0x40
#define R_CONF1 0x48
#define R_CONF2 0x50
#define R_STATUS 0x60
#define R_HEADTAIL 0x68
#define R_BITMAP 0x70

#define CONF0_RANDOMIZE (1ULL << 8)
#define CONF0_INT_OVERFLOW (1ULL << 9)
#define CONF0_INT_FILL (1ULL << 10)
#define CONF0_ENABLE (1ULL << 16)
#define CONF0_RESET (1ULL << 17)
#define CONF0_WRITABLE                                                                    \
	(0xffULL | CONF0_RANDOMIZE | CONF0_INT_OVERFLOW | CONF0_INT_FILL | CONF0_ENABLE | \
	 SET(63, 32, 0xffffffffULL))
#define STATUS_ENABLED (1ULL << 0)
#define STATUS_OP_MASK SET(31, 16, 0xffff)
#define OP_ENABLE 1
#define OP_DISABLE 2
#define OP_RESET 3
#define STATUS_OVERFLOW (1ULL << 40)
#define STATUS_LEVEL (1ULL << 41)

#define RANGE_GRANULE (256ULL << 20)
#define MODE_EPOCH 0
#define MODE_ALWAYS_ON 1

/* the epochs this model offers: 10 ms (scale 3, value 1) to 100 s (scale 5, 100) */
#define MIN_EPOCH_SCALE 3
#define MIN_EPOCH_VAL 1
#define MAX_EPOCH_SCALE 5
#define MAX_EPOCH_VAL 100

struct inst {
	uint64_t conf0, conf1, conf2, status;
	uint16_t head, tail;
	uint64_t *bitmap;
	uint64_t *ring;
	/* the state taken when the instance was enabled */
	bool enabled;
	unsigned int unit_shift, ds_mask, m2s, mode;
	uint64_t threshold, epoch_ns, epoch_end;
	uint64_t nunits;
	uint32_t *count;
	uint32_t *touched; /* units whose count left 0 this epoch (epoch mode) */
	uint64_t ntouched;
	uint32_t *heap; /* the epoch end's selection: hotlist_size - 1 units */
	uint64_t ds_acc, rng;
	struct hb_qchmu_counts n;
	/* an operation in progress (params.op_ns): OP_* until op_end */
	unsigned int op;
	uint64_t op_end;
};

struct hb_qchmu {
	struct hb_qchmu_params p;
	uint64_t bitmap_words, hotlist_off, inst_len;
	uint64_t max_count;
	bool irq;
	struct hb_qllc *llc;
	uint64_t served[2]; /* requests the device received: reads, writes */
	uint64_t now_ns;    /* hb_qchmu_cpu_access()'s, for its requests */
	struct inst inst[HB_QCHMU_MAX_INSTANCES];
};

void hb_qchmu_params_default(struct hb_qchmu_params *p, uint64_t capacity)
{
	*p = (struct hb_qchmu_params){
		.capacity = capacity,
		.instances = 1,
		.hotlist_size = 1024,
		.unit_sizes = (1u << 4) | (1u << 5), /* 4 KiB, 8 KiB */
		.ds_factors = 0x3f,                  /* 1, 2, 4, 8, 16, 32 */
		.access_types = 0x3f,                /* codes 1-6: non-TEE and all, R/W/RW */
		.counter_width = 16,
		.seed = 0x9e3779b97f4a7c15ULL,
		.llc_size = HB_QCHMU_LLC_SIZE,
		.llc_ways = HB_QCHMU_LLC_WAYS,
		.counter_budget = HB_QCHMU_COUNTER_BUDGET,
	};
}

static uint64_t bitmap_words(uint64_t capacity)
{
	return (capacity / RANGE_GRANULE + 63) / 64;
}

const char *hb_qchmu_check(const struct hb_qchmu_params *p)
{
	if (!p->capacity || p->capacity % RANGE_GRANULE)
		return "the device's capacity is not a multiple of 256 MiB";
	if (p->instances < 1 || p->instances > HB_QCHMU_MAX_INSTANCES)
		return "chmu-instances must be 1..8";
	if (p->hotlist_size < 2 || p->hotlist_size > 0xffff)
		return "chmu-hotlist-size must be 2..65535";
	if (!p->unit_sizes)
		return "chmu-unit-sizes must name at least one unit size";
	if (!p->ds_factors)
		return "chmu-ds-factors must name at least one down-sampling factor";
	if (!p->access_types || p->access_types > 0x3f)
		return "chmu-access-types must name request codes 1-6 (bits 0-5), at least one";
	if (p->counter_width < 1 || p->counter_width > 32)
		return "the counter width must be 1..32";
	if (p->msi_n > 15)
		return "the interrupt message number must be 0..15";
	if (R_BITMAP + bitmap_words(p->capacity) * 8 + (uint64_t)p->hotlist_size * 8 > 0xffff)
		return "an instance (range bitmap and hotlist) does not fit the 16-bit INSTANCE_LENGTH: "
		       "make chmu-hotlist-size smaller";
	return hb_qllc_check(p->llc_size, p->llc_ways);
}

int hb_qchmu_new(const struct hb_qchmu_params *p, struct hb_qchmu **ret)
{
	struct hb_qchmu *c;

	if (hb_qchmu_check(p))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->p = *p;
	c->bitmap_words = bitmap_words(p->capacity);
	c->hotlist_off = R_BITMAP + c->bitmap_words * 8;
	c->inst_len = c->hotlist_off + (uint64_t)p->hotlist_size * 8;
	c->max_count = (1ULL << p->counter_width) - 1;
	for (unsigned int i = 0; i < p->instances; i++) {
		struct inst *in = &c->inst[i];

		in->bitmap = calloc(c->bitmap_words, 8);
		in->ring = calloc(p->hotlist_size, 8);
		in->heap = calloc(p->hotlist_size, sizeof(*in->heap));
		if (!in->bitmap || !in->ring || !in->heap) {
			hb_qchmu_free(c);
			return -ENOMEM;
		}
		in->status = SET(39, 32, p->counter_width);
		in->rng = p->seed + i * 0x9e3779b97f4a7c15ULL;
		if (!in->rng)
			in->rng = 1;
	}
	if (p->llc_size && hb_qllc_new(p->llc_size, p->llc_ways, &c->llc) < 0) {
		hb_qchmu_free(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

static void counters_free(struct inst *in)
{
	free(in->count);
	free(in->touched);
	in->count = NULL;
	in->touched = NULL;
	in->nunits = in->ntouched = 0;
}

void hb_qchmu_free(struct hb_qchmu *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < HB_QCHMU_MAX_INSTANCES; i++) {
		counters_free(&c->inst[i]);
		free(c->inst[i].bitmap);
		free(c->inst[i].ring);
		free(c->inst[i].heap);
	}
	hb_qllc_free(c->llc);
	free(c);
}

uint64_t hb_qchmu_size(const struct hb_qchmu *c)
{
	return INST_BASE + c->inst_len * c->p.instances;
}

static uint64_t epoch_scale_ns(uint64_t code)
{
	static const uint64_t ns[] = { 0, 100000, 1000000, 10000000, 100000000, 1000000000 };

	return code < sizeof(ns) / sizeof(ns[0]) ? ns[code] : 0;
}

static uint64_t cap0(const struct hb_qchmu *c)
{
	return SET(3, 0, c->p.msi_n) | SET(4, 4, 1) | SET(5, 5, 1) | SET(7, 6, 0) |
	       SET(13, 8, c->p.access_types) | SET(19, 16, MAX_EPOCH_SCALE) |
	       SET(31, 20, MAX_EPOCH_VAL) | SET(35, 32, MIN_EPOCH_SCALE) |
	       SET(47, 36, MIN_EPOCH_VAL) | SET(63, 48, c->p.hotlist_size);
}

static uint64_t cap1(const struct hb_qchmu *c)
{
	/* epoch-based, always-on, randomized down-sampling, overlapping ranges */
	return SET(31, 0, c->p.unit_sizes) | SET(47, 32, c->p.ds_factors) | SET(48, 48, 1) |
	       SET(49, 49, 1) | SET(50, 50, 1) | SET(51, 51, 1);
}

/* CAP0 of one instance: without the fill interrupt where params say so */
static uint64_t inst_cap0(const struct hb_qchmu *c, const struct inst *in)
{
	if ((c->p.no_fill_irq >> (in - c->inst)) & 1)
		return cap0(c) & ~SET(5, 5, 1);
	return cap0(c);
}

/*
 * Operations that take time (params.op_ns): while one is in progress,
 * STATUS[31:16] names it, ENABLED shows the state before it, and writes
 * to CONF0-2 and the range bitmap are dropped (the spec has software wait).
 */
static bool op_busy(const struct inst *in)
{
	return in->op != 0;
}

static uint64_t status_view(const struct inst *in)
{
	uint64_t s = in->status & ~STATUS_OP_MASK;

	if (!in->op)
		return s;
	s = (s & ~STATUS_ENABLED) | (in->op == OP_DISABLE ? STATUS_ENABLED : 0);
	if (in->op == OP_RESET)
		s |= in->status & STATUS_ENABLED;
	return s | SET(31, 16, in->op);
}

static void op_begin(const struct hb_qchmu *c, struct inst *in, bool was_enabled, uint64_t val,
		     uint64_t now_ns)
{
	if (!c->p.op_ns)
		return;
	if (val & CONF0_RESET)
		in->op = OP_RESET;
	else if (!was_enabled && in->enabled)
		in->op = OP_ENABLE;
	else if (was_enabled && !in->enabled)
		in->op = OP_DISABLE;
	else
		return;
	in->op_end = now_ns + c->p.op_ns;
}

static void ops_finish(struct hb_qchmu *c, uint64_t now_ns)
{
	for (unsigned int i = 0; i < c->p.instances; i++)
		if (c->inst[i].op && now_ns >= c->inst[i].op_end)
			c->inst[i].op = 0;
}

/* the instance at off and off's offset in it, or NULL */
static struct inst *inst_at(struct hb_qchmu *c, uint64_t off, uint64_t *rel)
{
	uint64_t i;

	if (off < INST_BASE)
		return NULL;
	i = (off - INST_BASE) / c->inst_len;
	if (i >= c->p.instances)
		return NULL;
	*rel = (off - INST_BASE) % c->inst_len;
	return &c->inst[i];
}

static uint16_t used(const struct hb_qchmu *c, const struct inst *in)
{
	return (uint16_t)((in->tail + c->p.hotlist_size - in->head) % c->p.hotlist_size);
}

/* the 64-bit register (or bitmap word, hotlist entry) holding rel */
static uint64_t inst_qword(const struct hb_qchmu *c, const struct inst *in, uint64_t rel)
{
	switch (rel) {
	case R_CAP0: return inst_cap0(c, in);
	case R_CAP1: return cap1(c);
	case R_CAP2: return R_BITMAP;
	case R_CAP3: return c->hotlist_off;
	case R_CONF0: return in->conf0;
	case R_CONF1: return in->conf1;
	case R_CONF2: return in->conf2;
	case R_STATUS: return status_view(in);
	case R_HEADTAIL: return (uint64_t)in->head | (uint64_t)in->tail << 16;
	}
	if (rel >= R_BITMAP && rel < c->hotlist_off)
		return in->bitmap[(rel - R_BITMAP) / 8];
	if (rel >= c->hotlist_off && rel < c->inst_len)
		return in->ring[(rel - c->hotlist_off) / 8];
	return 0; /* reserved */
}

static uint64_t size_mask(unsigned int size)
{
	return size >= 8 ? UINT64_MAX : (1ULL << (size * 8)) - 1;
}

uint64_t hb_qchmu_read(struct hb_qchmu *c, uint64_t off, unsigned int size)
{
	uint64_t q = 0, rel;
	struct inst *in;
	unsigned int shift = (unsigned int)(off & 7) * 8;

	if (off - (off & 7) == COMMON_CAP0)
		q = SET(3, 0, 1) | SET(15, 8, c->p.instances);
	else if (off - (off & 7) == COMMON_CAP1)
		q = SET(15, 0, c->inst_len);
	else if ((in = inst_at(c, off - (off & 7), &rel)))
		q = inst_qword(c, in, rel);
	return (q >> shift) & size_mask(size);
}

static void raise_irq(struct hb_qchmu *c, struct inst *in)
{
	c->irq = true;
	in->n.irqs++;
}

/* n entries lost to a full ring */
static void drop(struct hb_qchmu *c, struct inst *in, uint64_t n)
{
	in->n.dropped += n;
	if (n && !(in->status & STATUS_OVERFLOW)) {
		in->status |= STATUS_OVERFLOW;
		if (in->conf0 & CONF0_INT_OVERFLOW)
			raise_irq(c, in);
	}
}

static void push(struct hb_qchmu *c, struct inst *in, uint64_t unit, uint64_t count)
{
	uint16_t next = (uint16_t)((in->tail + 1) % c->p.hotlist_size);
	uint64_t fill = FIELD(in->conf2, 15, 0);

	if (next == in->head) {
		drop(c, in, 1);
		return;
	}
	if (count > c->max_count)
		count = c->max_count;
	in->ring[in->tail] = unit << c->p.counter_width | count;
	in->tail = next;
	in->n.entries++;
	if (fill && used(c, in) >= fill && !(in->status & STATUS_LEVEL)) {
		in->status |= STATUS_LEVEL;
		if (in->conf0 & CONF0_INT_FILL)
			raise_irq(c, in);
	}
}

/* the host memory an instance's counters take */
static uint64_t counter_bytes(const struct inst *in)
{
	return in->nunits * sizeof(*in->count) * (in->touched ? 2 : 1);
}

/*
 * Whether nunits more counters (and their touched list, in epoch mode) fit
 * the device's budget beside the other enabled instances': a guest's
 * ENABLE must not make the host allocate without bound (8 instances of a
 * 64 GiB device at 256-byte units would be 16 GiB).
 */
static bool within_budget(const struct hb_qchmu *c, uint64_t nunits, uint64_t mode)
{
	uint64_t used = 0, want = nunits * sizeof(uint32_t) * (mode == MODE_EPOCH ? 2 : 1);

	for (unsigned int i = 0; i < c->p.instances; i++)
		if (c->inst[i].enabled)
			used += counter_bytes(&c->inst[i]);
	return used <= c->p.counter_budget && want <= c->p.counter_budget - used;
}

/* CONF0.ENABLE 0 -> 1: take the configuration, or stay disabled */
static void enable(struct hb_qchmu *c, struct inst *in, uint64_t now_ns)
{
	uint64_t shift = FIELD(in->conf1, 31, 0), ds = FIELD(in->conf1, 35, 32);
	uint64_t mode = FIELD(in->conf1, 47, 40), m2s = FIELD(in->conf0, 7, 0);
	uint64_t scale = FIELD(in->conf1, 51, 48), val = FIELD(in->conf1, 63, 52);
	uint64_t epoch = epoch_scale_ns(scale) * val, thr = FIELD(in->conf0, 63, 32);
	uint64_t min = epoch_scale_ns(MIN_EPOCH_SCALE) * MIN_EPOCH_VAL;
	uint64_t max = epoch_scale_ns(MAX_EPOCH_SCALE) * MAX_EPOCH_VAL;
	uint64_t units;

	if (shift < 8 || shift > 39 || !((c->p.unit_sizes >> (shift - 8)) & 1))
		return;
	if (!((c->p.ds_factors >> ds) & 1))
		return;
	if (m2s < 1 || m2s > 6 || !((c->p.access_types >> (m2s - 1)) & 1) || thr < 1 ||
	    thr > c->max_count)
		return;
	if (mode == MODE_EPOCH ? (epoch < min || epoch > max) : mode != MODE_ALWAYS_ON)
		return;
	counters_free(in);
	units = (c->p.capacity + (1ULL << shift) - 1) >> shift;
	if (units > UINT32_MAX || !within_budget(c, units, mode))
		return; /* refused: STATUS.ENABLED stays 0 */
	in->nunits = units;
	in->count = calloc(in->nunits, sizeof(*in->count));
	/* always-on pushes as it counts: no list of touched units */
	in->touched = mode == MODE_EPOCH ? calloc(in->nunits, sizeof(*in->touched)) : NULL;
	if (!in->count || (mode == MODE_EPOCH && !in->touched)) {
		counters_free(in);
		return;
	}
	in->unit_shift = (unsigned int)shift;
	in->ds_mask = (1u << ds) - 1;
	in->ds_acc = 0;
	in->m2s = (unsigned int)m2s;
	in->mode = (unsigned int)mode;
	in->threshold = thr;
	in->epoch_ns = mode == MODE_EPOCH ? epoch : 0;
	in->epoch_end = mode == MODE_EPOCH ? now_ns + epoch : HB_QCHMU_NEVER;
	in->enabled = true;
	in->status |= STATUS_ENABLED;
}

static void disable(struct inst *in)
{
	in->enabled = false;
	in->status &= ~STATUS_ENABLED;
	in->epoch_end = HB_QCHMU_NEVER;
	counters_free(in);
}

static void clear_counts(struct inst *in)
{
	if (in->mode == MODE_ALWAYS_ON) {
		/* no touched list in this mode: RESET is rare, a pass is fine */
		memset(in->count, 0, in->nunits * sizeof(*in->count));
		return;
	}
	for (uint64_t i = 0; i < in->ntouched; i++)
		in->count[in->touched[i]] = 0;
	in->ntouched = 0;
}

static void write_conf0(struct hb_qchmu *c, struct inst *in, uint64_t val, uint64_t mask,
			uint64_t now_ns)
{
	uint64_t v = (in->conf0 & ~mask) | (val & mask);

	if (val & mask & CONF0_RESET) {
		in->head = in->tail = 0;
		in->status &= ~(STATUS_OVERFLOW | STATUS_LEVEL);
		if (in->enabled) {
			clear_counts(in);
			if (in->mode == MODE_EPOCH)
				in->epoch_end = now_ns + in->epoch_ns;
		}
	}
	in->conf0 = v & CONF0_WRITABLE;
	if (!in->enabled && (v & CONF0_ENABLE))
		enable(c, in, now_ns); /* a refused configuration leaves STATUS.ENABLED 0 */
	else if (in->enabled && !(v & CONF0_ENABLE))
		disable(in);
	else if (in->enabled)
		in->threshold = FIELD(in->conf0, 63, 32) ? FIELD(in->conf0, 63, 32) : in->threshold;
}

void hb_qchmu_write(struct hb_qchmu *c, uint64_t off, uint64_t val, unsigned int size, uint64_t now_ns)
{
	unsigned int shift = (unsigned int)(off & 7) * 8;
	uint64_t mask = size_mask(size) << shift, rel;
	struct inst *in = inst_at(c, off - (off & 7), &rel);

	val <<= shift;
	if (!in)
		return; /* the common capability is read-only */
	ops_finish(c, now_ns);
	if (op_busy(in) && (rel == R_CONF0 || rel == R_CONF1 || rel == R_CONF2 ||
			    (rel >= R_BITMAP && rel < c->hotlist_off)))
		return;
	switch (rel) {
	case R_CONF0: {
		bool was = in->enabled;

		/* no fill interrupt to enable where CAP0 offers none */
		write_conf0(c, in, val,
			    mask & ~(inst_cap0(c, in) & SET(5, 5, 1) ? 0 : CONF0_INT_FILL), now_ns);
		op_begin(c, in, was, val & mask, now_ns);
		return;
	}
	case R_CONF1:
	case R_CONF2:
		if (in->enabled)
			return; /* the configuration is frozen while enabled */
		if (rel == R_CONF1)
			in->conf1 = (in->conf1 & ~mask) | (val & mask);
		else
			in->conf2 = ((in->conf2 & ~mask) | (val & mask)) & 0xffff;
		return;
	case R_STATUS: in->status &= ~(val & mask & (STATUS_OVERFLOW | STATUS_LEVEL)); return;
	case R_HEADTAIL:
		if ((mask & 0xffff) == 0xffff && (val & 0xffff) < c->p.hotlist_size)
			in->head = (uint16_t)(val & 0xffff);
		return; /* TAIL is the device's */
	}
	if (rel >= R_BITMAP && rel < c->hotlist_off && !in->enabled) {
		uint64_t *w = &in->bitmap[(rel - R_BITMAP) / 8];

		*w = (*w & ~mask) | (val & mask);
	}
	/* capabilities, hotlist entries and reserved space are read-only */
}

static bool wanted(unsigned int m2s, bool write)
{
	/* no TEE requests reach an emulated device: non-TEE and all count alike */
	switch (m2s) {
	case 1:
	case 4: return !write;
	case 2:
	case 5: return write;
	default: return true;
	}
}

static bool sampled(struct inst *in)
{
	if (!in->ds_mask)
		return true;
	if (in->conf0 & CONF0_RANDOMIZE) {
		/* xorshift64 */
		in->rng ^= in->rng << 13;
		in->rng ^= in->rng >> 7;
		in->rng ^= in->rng << 17;
		return !(in->rng & in->ds_mask);
	}
	return !(++in->ds_acc & in->ds_mask);
}

void hb_qchmu_access(struct hb_qchmu *c, uint64_t dpa, unsigned int size, bool write, uint64_t now_ns)
{
	uint64_t g = dpa / RANGE_GRANULE;

	(void)size;
	if (dpa >= c->p.capacity)
		return;
	c->served[write]++;
	for (unsigned int i = 0; i < c->p.instances; i++) {
		struct inst *in = &c->inst[i];
		uint64_t u;

		if (!in->enabled || !wanted(in->m2s, write) ||
		    !((in->bitmap[g / 64] >> (g % 64)) & 1))
			continue;
		/* an epoch that ended before this access is closed first */
		if (in->mode == MODE_EPOCH && now_ns >= in->epoch_end)
			hb_qchmu_advance(c, now_ns);
		in->n.accesses++;
		if (!sampled(in))
			continue;
		in->n.sampled++;
		u = dpa >> in->unit_shift;
		if (in->mode == MODE_ALWAYS_ON) {
			if (++in->count[u] >= in->threshold) {
				push(c, in, u, in->count[u]);
				in->count[u] = 0;
			}
			continue;
		}
		if (!in->count[u])
			in->touched[in->ntouched++] = (uint32_t)u;
		if (in->count[u] < c->max_count)
			in->count[u]++;
	}
}

static void cpu_request(void *opaque, uint64_t dpa, bool write)
{
	struct hb_qchmu *c = opaque;

	hb_qchmu_access(c, dpa, (unsigned int)HB_QLLC_LINE, write, c->now_ns);
}

void hb_qchmu_cpu_access(struct hb_qchmu *c, uint64_t dpa, unsigned int size, bool write,
			 uint64_t now_ns)
{
	if (!c->llc) {
		hb_qchmu_access(c, dpa, size, write, now_ns);
		return;
	}
	c->now_ns = now_ns;
	hb_qllc_access(c->llc, dpa, size, write, cpu_request, c);
}

bool hb_qchmu_counting(const struct hb_qchmu *c)
{
	for (unsigned int i = 0; i < c->p.instances; i++)
		if (c->inst[i].enabled)
			return true;
	return false;
}

/* hottest first, then by unit: when the hotlist fills, the hottest get in */
static bool hotter(const uint32_t *count, uint32_t a, uint32_t b)
{
	return count[a] != count[b] ? count[a] > count[b] : a < b;
}

/* heap[0..n) with the least hot unit at the root */
static void sift_down(uint32_t *heap, uint64_t n, uint64_t i, const uint32_t *count)
{
	for (;;) {
		uint64_t l = 2 * i + 1, m = i;
		uint32_t t;

		if (l < n && hotter(count, heap[m], heap[l]))
			m = l;
		if (l + 1 < n && hotter(count, heap[m], heap[l + 1]))
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

/*
 * The epoch's end: the k hottest units at or above the threshold, k being
 * the free slots of the ring, are selected with a heap of k (the least hot
 * at its root), in one pass over the units touched this epoch: O(n log k)
 * under the BQL, not a sort of every hot unit. The rest would not fit:
 * they are dropped, as pushing them one by one would have.
 */
static void end_epoch(struct hb_qchmu *c, struct inst *in)
{
	uint64_t k = c->p.hotlist_size - 1 - used(c, in), n = 0, hot = 0;
	uint32_t *heap = in->heap;

	for (uint64_t i = 0; i < in->ntouched; i++) {
		uint32_t u = in->touched[i];

		if (in->count[u] < in->threshold)
			continue;
		hot++;
		if (n < k) {
			/* sift up */
			uint64_t j = n++;

			for (; j && hotter(in->count, heap[(j - 1) / 2], u); j = (j - 1) / 2)
				heap[j] = heap[(j - 1) / 2];
			heap[j] = u;
		} else if (k && hotter(in->count, u, heap[0])) {
			heap[0] = u;
			sift_down(heap, n, 0, in->count);
		}
	}
	/* heap sort in place: the least hot goes last, the hottest first */
	for (uint64_t m = n; m > 1; m--) {
		uint32_t t = heap[0];

		heap[0] = heap[m - 1];
		heap[m - 1] = t;
		sift_down(heap, m - 1, 0, in->count);
	}
	for (uint64_t i = 0; i < n; i++)
		push(c, in, heap[i], in->count[heap[i]]);
	drop(c, in, hot - n);
	clear_counts(in);
	in->n.epochs++;
}

uint64_t hb_qchmu_advance(struct hb_qchmu *c, uint64_t now_ns)
{
	ops_finish(c, now_ns);
	for (unsigned int i = 0; i < c->p.instances; i++) {
		struct inst *in = &c->inst[i];

		if (!in->enabled || in->mode != MODE_EPOCH || now_ns < in->epoch_end)
			continue;
		end_epoch(c, in);
		/* epochs missed while the machine was stopped end empty, at once */
		in->epoch_end += in->epoch_ns * ((now_ns - in->epoch_end) / in->epoch_ns + 1);
	}
	return hb_qchmu_deadline(c);
}

uint64_t hb_qchmu_deadline(const struct hb_qchmu *c)
{
	uint64_t d = HB_QCHMU_NEVER;

	for (unsigned int i = 0; i < c->p.instances; i++)
		if (c->inst[i].enabled && c->inst[i].epoch_end < d)
			d = c->inst[i].epoch_end;
	return d;
}

bool hb_qchmu_irq_take(struct hb_qchmu *c)
{
	bool r = c->irq;

	c->irq = false;
	return r;
}

void hb_qchmu_reset(struct hb_qchmu *c)
{
	for (unsigned int i = 0; i < c->p.instances; i++) {
		struct inst *in = &c->inst[i];

		disable(in);
		in->conf0 = in->conf1 = in->conf2 = 0;
		in->status = SET(39, 32, c->p.counter_width);
		in->head = in->tail = 0;
		memset(in->bitmap, 0, c->bitmap_words * 8);
		memset(in->ring, 0, (size_t)c->p.hotlist_size * 8);
		memset(&in->n, 0, sizeof(in->n));
		in->op = 0;
	}
	c->irq = false;
}

void hb_qchmu_counts(const struct hb_qchmu *c, unsigned int instance, struct hb_qchmu_counts *ret)
{
	*ret = instance < c->p.instances ? c->inst[instance].n : (struct hb_qchmu_counts){ 0 };
}

void hb_qchmu_served(const struct hb_qchmu *c, uint64_t *reads, uint64_t *writes)
{
	*reads = c->served[0];
	*writes = c->served[1];
}
