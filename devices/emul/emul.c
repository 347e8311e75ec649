// SPDX-License-Identifier: MIT
/*
 * An emulated CHMU: the registers of regs.h over an in-process device
 * model. Accesses bump per-unit counters; at each epoch end (epoch mode)
 * or when a counter crosses the threshold (always-on) the device appends
 * (unit << counter_width | count) to the hotlist ring, or sets OVERFLOW
 * when the ring is full. The driver sees nothing but the registers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chmu/chmu.h"
#include "chmu/regs.h"
#include "emul.h"

struct inst {
	uint64_t conf0, conf1, conf2, status;
	uint16_t head, tail;
	uint64_t *bitmap; /* range bitmap words */
	uint64_t *ring;
};

struct hb_chmu_emul {
	struct hb_chmu_emul_params p;
	struct inst *inst;
	unsigned int ninst;
	uint64_t bitmap_words, range_off, hotlist_off, inst_len;
	/* the counting state of instance 0 (others are registers only) */
	uint64_t unit_size, nunits, threshold, ds, ds_acc, max_count;
	unsigned int width;
	uint32_t *count;
	uint64_t *truth;
	uint64_t *touched; /* units with count > 0 this epoch */
	uint64_t ntouched;
	uint64_t now_ns, epoch_ns, epoch_end_ns;
	bool enabled;
};

void hb_chmu_emul_params_default(struct hb_chmu_emul_params *p)
{
	*p = (struct hb_chmu_emul_params){
		.capacity = 1ULL << 30,
		.hotlist_size = 1024,
		.unit_sizes = (1u << 4) | (1u << 5), /* 4 KiB, 8 KiB */
		.ds_factors = 1u << 5,               /* 32 */
		.counter_width = 16,
		.epoch_based = true,
		.always_on = false,
		.min_epoch_scale = 4,
		.min_epoch_val = 1, /* 100 ms */
		.max_epoch_scale = 5,
		.max_epoch_val = 100, /* 100 s */
		.instances = 1,
	};
}

static uint64_t cap0(const struct hb_chmu_emul *e)
{
	const struct hb_chmu_emul_params *p = &e->p;

	return HB_CHMU_SET(3, 0, 1) | HB_CHMU_SET(4, 4, 1) | HB_CHMU_SET(5, 5, 1) |
	       HB_CHMU_SET(13, 8, 0x3f) | HB_CHMU_SET(19, 16, p->max_epoch_scale) |
	       HB_CHMU_SET(31, 20, p->max_epoch_val) | HB_CHMU_SET(35, 32, p->min_epoch_scale) |
	       HB_CHMU_SET(47, 36, p->min_epoch_val) | HB_CHMU_SET(63, 48, p->hotlist_size);
}

static uint64_t cap1(const struct hb_chmu_emul *e)
{
	const struct hb_chmu_emul_params *p = &e->p;

	return HB_CHMU_SET(31, 0, p->unit_sizes) | HB_CHMU_SET(47, 32, p->ds_factors) |
	       HB_CHMU_SET(48, 48, p->epoch_based) | HB_CHMU_SET(49, 49, p->always_on);
}

int hb_chmu_emul_new(const struct hb_chmu_emul_params *p, struct hb_chmu_emul **ret,
		     struct hb_err *err)
{
	struct hb_chmu_emul *e;

	if (!p->capacity || p->capacity % CHMU_RANGE_GRANULE)
		return hb_err_set(err, -EINVAL,
				  "emulated CHMU: capacity must be a multiple of 256 MiB");
	if (p->hotlist_size < 2 || p->hotlist_size > 0xffff)
		return hb_err_set(err, -EINVAL, "emulated CHMU: hotlist size %u not in 2..65535",
				  p->hotlist_size);
	if (!p->unit_sizes || p->counter_width < 1 || p->counter_width > 63)
		return hb_err_set(err, -EINVAL, "emulated CHMU: bad unit sizes or counter width");
	e = calloc(1, sizeof(*e));
	if (!e)
		return hb_err_set(err, -ENOMEM, "out of memory");
	e->p = *p;
	e->ninst = p->instances ? p->instances : 1;
	e->bitmap_words = (p->capacity / CHMU_RANGE_GRANULE + 63) / 64;
	e->range_off = 0x70;
	e->hotlist_off = e->range_off + e->bitmap_words * 8;
	e->inst_len = e->hotlist_off + (uint64_t)p->hotlist_size * 8;
	if (e->inst_len > 0xffff) {
		free(e);
		return hb_err_set(
			err, -EINVAL,
			"emulated CHMU: an instance of %llu bytes does not fit "
			"the 16-bit INSTANCE_LENGTH (hotlist at most 8176 entries on 1 GiB)",
			(unsigned long long)((0x70 +
					      ((p->capacity / CHMU_RANGE_GRANULE + 63) / 64) * 8) +
					     (uint64_t)p->hotlist_size * 8));
	}
	e->inst = calloc(e->ninst, sizeof(*e->inst));
	if (!e->inst)
		goto oom;
	for (unsigned int i = 0; i < e->ninst; i++) {
		e->inst[i].bitmap = calloc(e->bitmap_words, 8);
		e->inst[i].ring = calloc(p->hotlist_size, 8);
		if (!e->inst[i].bitmap || !e->inst[i].ring)
			goto oom;
		e->inst[i].status = STATUS_SET_COUNTER_WIDTH(
			p->bad_counter_width ? p->bad_counter_width : p->counter_width);
	}
	*ret = e;
	return 0;
oom:
	hb_chmu_emul_free(e);
	return hb_err_set(err, -ENOMEM, "out of memory");
}

struct hb_chmu_emul *hb_chmu_emul_free(struct hb_chmu_emul *e)
{
	if (!e)
		return NULL;
	for (unsigned int i = 0; e->inst && i < e->ninst; i++) {
		free(e->inst[i].bitmap);
		free(e->inst[i].ring);
	}
	free(e->inst);
	free(e->count);
	free(e->truth);
	free(e->touched);
	free(e);
	return NULL;
}

static void push(struct hb_chmu_emul *e, uint64_t unit, uint64_t count)
{
	struct inst *in = &e->inst[0];
	uint16_t next = (uint16_t)((in->tail + 1) % e->p.hotlist_size);
	unsigned int used;
	uint64_t fill = in->conf2 & 0xffff;

	if (next == in->head) {
		in->status |= STATUS_OVERFLOW;
		return;
	}
	if (count > e->max_count)
		count = e->max_count;
	in->ring[in->tail] = (unit << e->width) | count;
	in->tail = next;
	used = (unsigned int)((in->tail + e->p.hotlist_size - in->head) % e->p.hotlist_size);
	if (fill && used >= fill)
		in->status |= STATUS_LEVEL;
}

static void end_epoch(struct hb_chmu_emul *e)
{
	for (uint64_t i = 0; i < e->ntouched; i++) {
		uint64_t u = e->touched[i];

		if (e->count[u] >= e->threshold)
			push(e, u, e->count[u]);
		e->count[u] = 0;
	}
	e->ntouched = 0;
}

static bool tracked(const struct hb_chmu_emul *e, uint64_t dpa)
{
	uint64_t g = dpa / CHMU_RANGE_GRANULE;

	return dpa < e->p.capacity && (e->inst[0].bitmap[g / 64] >> (g % 64)) & 1;
}

void hb_chmu_emul_access(struct hb_chmu_emul *e, uint64_t dpa, uint64_t n)
{
	uint64_t u, counted;

	if (!e->enabled || !tracked(e, dpa))
		return;
	u = dpa / e->unit_size;
	e->truth[u] += n;
	e->ds_acc += n;
	counted = e->ds_acc / e->ds;
	e->ds_acc %= e->ds;
	if (!counted)
		return;
	if (!e->count[u])
		e->touched[e->ntouched++] = u;
	e->count[u] =
		e->count[u] + counted > UINT32_MAX ? UINT32_MAX : (uint32_t)(e->count[u] + counted);
	if (CONF1_GET_MODE(e->inst[0].conf1) == HB_CHMU_MODE_ALWAYS_ON &&
	    e->count[u] >= e->threshold) {
		while (e->count[u] >= e->threshold) {
			push(e, u, e->threshold);
			e->count[u] -= (uint32_t)e->threshold;
		}
	}
}

void hb_chmu_emul_access_away(struct hb_chmu_emul *e, uint64_t dpa, uint64_t n)
{
	if (e->enabled && tracked(e, dpa))
		e->truth[dpa / e->unit_size] += n;
}

void hb_chmu_emul_advance(struct hb_chmu_emul *e, uint64_t ns)
{
	e->now_ns += ns;
	if (!e->enabled || CONF1_GET_MODE(e->inst[0].conf1) != HB_CHMU_MODE_EPOCH)
		return;
	while (e->now_ns >= e->epoch_end_ns) {
		end_epoch(e);
		e->epoch_end_ns += e->epoch_ns;
	}
}

size_t hb_chmu_emul_truth(const struct hb_chmu_emul *e, const uint64_t **ret)
{
	*ret = e->truth;
	return e->truth ? e->nunits : 0;
}

uint64_t hb_chmu_emul_unit_size(const struct hb_chmu_emul *e)
{
	return e->unit_size;
}

/* CONF0.ENABLE 0 -> 1: take the configuration, or stay disabled if invalid. */
static void try_enable(struct hb_chmu_emul *e)
{
	struct inst *in = &e->inst[0];
	uint64_t shift = CONF1_GET_UNIT_SIZE(in->conf1), ds = CONF1_GET_DS(in->conf1);
	uint64_t mode = CONF1_GET_MODE(in->conf1);
	uint64_t epoch = hb_chmu_epoch_scale_ns((unsigned int)CONF1_GET_EPOCH_SCALE(in->conf1)) *
			 CONF1_GET_EPOCH_VAL(in->conf1);

	if (shift < 8 || shift > 39 || !((e->p.unit_sizes >> (shift - 8)) & 1))
		return;
	if (ds > 15 || !((e->p.ds_factors >> ds) & 1))
		return;
	if ((mode == HB_CHMU_MODE_EPOCH && (!e->p.epoch_based || !epoch)) ||
	    (mode == HB_CHMU_MODE_ALWAYS_ON && !e->p.always_on) || mode > 1)
		return;
	if (!CONF0_GET_THRESHOLD(in->conf0))
		return;
	free(e->count);
	free(e->truth);
	free(e->touched);
	e->unit_size = 1ULL << shift;
	e->nunits = (e->p.capacity + e->unit_size - 1) / e->unit_size;
	e->count = calloc(e->nunits, sizeof(*e->count));
	e->truth = calloc(e->nunits, sizeof(*e->truth));
	e->touched = calloc(e->nunits, sizeof(*e->touched));
	if (!e->count || !e->truth || !e->touched)
		return;
	e->ntouched = 0;
	e->ds = 1ULL << ds;
	e->ds_acc = 0;
	e->threshold = CONF0_GET_THRESHOLD(in->conf0);
	e->width = e->p.counter_width;
	e->max_count = (1ULL << e->width) - 1;
	e->epoch_ns = epoch;
	e->epoch_end_ns = e->now_ns + epoch;
	e->enabled = true;
	in->status |= STATUS_ENABLED;
}

static int emul_read(void *priv, uint64_t off, unsigned int width, uint64_t *val)
{
	struct hb_chmu_emul *e = priv;
	uint64_t rel;
	struct inst *in;

	if (width != 2 && width != 4 && width != 8)
		return -EINVAL;
	if (off == CHMU_COMMON_CAP0 && width == 8) {
		*val = HB_CHMU_SET(3, 0, 1) | HB_CHMU_SET(15, 8, e->ninst);
		return 0;
	}
	if (off == CHMU_COMMON_CAP1 && width == 8) {
		*val = HB_CHMU_SET(15, 0, e->inst_len);
		return 0;
	}
	if (off < CHMU_INST0 || (off - CHMU_INST0) / e->inst_len >= e->ninst)
		return -ERANGE;
	in = &e->inst[(off - CHMU_INST0) / e->inst_len];
	rel = (off - CHMU_INST0) % e->inst_len;
	if (rel == CHMU_HEAD && width == 2) {
		*val = in->head;
		return 0;
	}
	if (rel == CHMU_TAIL && width == 2) {
		*val = e->p.bad_head_tail ? e->p.hotlist_size + 7u : in->tail;
		return 0;
	}
	if (width != 8 || rel % 8)
		return -EINVAL;
	switch (rel) {
	case CHMU_CAP0: *val = cap0(e); return 0;
	case CHMU_CAP1: *val = cap1(e); return 0;
	case CHMU_CAP2: *val = e->range_off; return 0;
	case CHMU_CAP3: *val = e->hotlist_off; return 0;
	case CHMU_CONF0: *val = in->conf0; return 0;
	case CHMU_CONF1: *val = in->conf1; return 0;
	case CHMU_CONF2: *val = in->conf2; return 0;
	case CHMU_STATUS: *val = in->status; return 0;
	}
	if (rel >= e->range_off && rel < e->hotlist_off) {
		*val = in->bitmap[(rel - e->range_off) / 8];
		return 0;
	}
	if (rel >= e->hotlist_off && rel < e->inst_len) {
		*val = in->ring[(rel - e->hotlist_off) / 8];
		return 0;
	}
	*val = 0;
	return 0;
}

static int emul_write(void *priv, uint64_t off, unsigned int width, uint64_t val)
{
	struct hb_chmu_emul *e = priv;
	struct inst *in;
	uint64_t rel;
	bool inst0;

	if (off < CHMU_INST0 || (off - CHMU_INST0) / e->inst_len >= e->ninst)
		return -ERANGE;
	inst0 = (off - CHMU_INST0) / e->inst_len == 0;
	in = &e->inst[(off - CHMU_INST0) / e->inst_len];
	rel = (off - CHMU_INST0) % e->inst_len;
	if (rel == CHMU_HEAD && width == 2) {
		in->head = (uint16_t)(val % e->p.hotlist_size);
		return 0;
	}
	if (width != 8 || rel % 8)
		return -EINVAL;
	switch (rel) {
	case CHMU_CONF0:
		if (val & CONF0_RESET) {
			in->head = in->tail = 0;
			in->status &= ~(STATUS_OVERFLOW | STATUS_LEVEL);
			if (inst0 && e->count) {
				memset(e->count, 0, e->nunits * sizeof(*e->count));
				e->ntouched = 0;
			}
		}
		if (!(val & CONF0_ENABLE)) {
			in->conf0 = val & ~CONF0_RESET;
			in->status &= ~STATUS_ENABLED;
			if (inst0)
				e->enabled = false;
			return 0;
		}
		if (in->status & STATUS_ENABLED)
			return 0; /* configuration is frozen while enabled */
		in->conf0 = val & ~CONF0_RESET;
		if (inst0)
			try_enable(e);
		return 0;
	case CHMU_CONF1:
	case CHMU_CONF2:
		if (in->status & STATUS_ENABLED)
			return 0;
		*(rel == CHMU_CONF1 ? &in->conf1 : &in->conf2) = val;
		return 0;
	case CHMU_STATUS: in->status &= ~(val & (STATUS_OVERFLOW | STATUS_LEVEL)); return 0;
	}
	if (rel >= e->range_off && rel < e->hotlist_off) {
		if (!(in->status & STATUS_ENABLED))
			in->bitmap[(rel - e->range_off) / 8] = val;
		return 0;
	}
	return 0; /* read-only or reserved: ignored, as hardware does */
}

void hb_chmu_emul_window(struct hb_chmu_emul *e, struct hb_regwin *ret)
{
	*ret = (struct hb_regwin){
		.read = emul_read,
		.write = emul_write,
		.priv = e,
		.size = CHMU_INST0 + e->inst_len * e->ninst,
	};
}
