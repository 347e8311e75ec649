// SPDX-License-Identifier: MIT
/*
 * The "emul-chmu" source: an emulated CHMU driven by a workload, read by the
 * real CHMU driver through its registers. For tests and `hotbridge demo`
 * on hosts without CXL hardware. Each poll is one epoch: `accesses` draws
 * from the workload (those to pages the host moved away go to DRAM, and
 * only the ground truth sees them), the epoch ends, the hotlist is drained
 * and submitted.
 *
 * Parameters: capacity (bytes, multiple of 256 MiB; default 1 GiB: the
 * daemon passes its memdev's size instead, source-host.c),
 * workload (uniform | zipf:<s> | moving:<s>; default zipf:1.1),
 * accesses (per epoch; default 200000, at most 1000000: one poll runs
 * them all in the event loop), unit (bytes; 4096), threshold (16),
 * ds (down-sampling factor; 1), move_every (epochs; 10), seed, hotlist
 * (the device's hotlist entries; QEMU's 1024 by default, as many as fit
 * the 16-bit instance length at most). Capacity: at most 16 GiB.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chmu/chmu.h"
#include "emul.h"
#include "devices.h"

struct emul_src {
	const struct hb_host_ops *ops;
	struct hb_host *host;
	struct hb_chmu_emul *emu;
	struct hb_chmu *drv;
	struct hb_workload *wl;
	uint64_t accesses, epoch_ns;
	bool (*away)(void *ud, uint64_t dpa);
	void *away_ud;
	struct hb_hot_record rec[1024];
};

static void emul_close(void *priv)
{
	struct emul_src *s = priv;

	hb_chmu_free(s->drv);
	hb_chmu_emul_free(s->emu);
	hb_workload_free(s->wl);
	free(s);
}

/* the parameters it takes (hb_builtin_params(), check-config) */
const char *const hb_source_emul_chmu_params[] = { "capacity",  "workload", "accesses",   "unit",
						   "threshold", "ds",       "move_every", "seed",
						   "hotlist",   NULL };

struct emul_params {
	struct hb_chmu_emul_params ep;
	struct hb_workload_params wp;
	uint64_t accesses, unit, thr, ds;
};

/*
 * The documented bounds: a cycle's work (accesses draws, each a few tens of
 * ns) stays well under a second in the event loop, and the emulator's
 * arrays (20 bytes a unit, the Zipf table 8 bytes a 4 KiB item, built at
 * open) stay small.
 */
#define EMUL_MAX_ACCESSES 1000000ULL
#define EMUL_MAX_CAPACITY (16ULL << 30)
#define EMUL_UNIT_MIN 4096ULL
#define EMUL_UNIT_MAX (256ULL << 20)
#define EMUL_DS_MAX 32768ULL

static int refuse(const char *key, uint64_t v, const char *want, struct hb_err *err)
{
	return hb_err_set(err, -EINVAL, "emul-chmu: %s=%llu: %s", key, (unsigned long long)v, want);
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * The parameters, each refusal naming the key: open and the start-up check
 * (check-config, run) call this one function, and it refuses everything
 * the emulator, the driver's configure and the workload would refuse later.
 */
static int emul_params(const struct hb_dev_info *info, struct emul_params *q, struct hb_err *err)
{
	const char *wls = hb_dev_param(info, "workload");
	uint64_t move, seed, hotlist, words;
	int kind, r;

	q->wp = (struct hb_workload_params){ .granule = 4096, .move_every = 10 };
	hb_chmu_emul_params_default(&q->ep);
	q->ep.ds_factors = 0xffff;
	q->ep.unit_sizes = 0x1ffff0; /* 4 KiB .. 256 MiB */
	if ((r = hb_dev_params_check(info, hb_source_emul_chmu_params, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "capacity", 1ULL << 30, &q->ep.capacity, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "accesses", 200000, &q->accesses, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "unit", 4096, &q->unit, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "threshold", 16, &q->thr, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "ds", 1, &q->ds, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "move_every", 10, &move, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "seed", 1, &seed, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "hotlist", q->ep.hotlist_size, &hotlist, err)) < 0)
		return r;
	if (!q->ep.capacity || q->ep.capacity % (256ULL << 20) || q->ep.capacity > EMUL_MAX_CAPACITY)
		return refuse("capacity", q->ep.capacity,
			      "a multiple of 256 MiB (268435456), at most 16 GiB", err);
	if (q->accesses > EMUL_MAX_ACCESSES)
		return refuse("accesses", q->accesses, "at most 1000000 a cycle", err);
	if (!pow2(q->unit) || q->unit < EMUL_UNIT_MIN || q->unit > EMUL_UNIT_MAX)
		return refuse("unit", q->unit, "a power of two from 4096 to 268435456 (256 MiB)",
			      err);
	if (q->unit > q->ep.capacity)
		return refuse("unit", q->unit, "larger than capacity=", err);
	if (!pow2(q->ds) || q->ds > EMUL_DS_MAX)
		return refuse("ds", q->ds, "a power of two from 1 to 32768", err);
	if (!q->thr || q->thr > UINT32_MAX)
		return refuse("threshold", q->thr, "1..4294967295", err);
	if (move > UINT32_MAX)
		return refuse("move_every", move, "0..4294967295 cycles (0: never moves)", err);
	/* the instance (registers, range bitmap, hotlist) fits 16 bits of length */
	words = (q->ep.capacity / (256ULL << 20) + 63) / 64;
	if (hotlist < 2 || hotlist > (0xffff - 0x70 - words * 8) / 8)
		return refuse("hotlist", hotlist,
			      "want 2..8176 entries (what fits the CHMU's 16-bit instance "
			      "length)",
			      err);
	q->ep.hotlist_size = (unsigned int)hotlist;
	kind = hb_workload_kind_from_string(wls ? wls : "zipf:1.1", &q->wp.skew);
	if (kind < 0)
		return hb_err_set(err, -EINVAL,
				  "emul-chmu: workload=%s: use uniform, zipf:<s> or moving:<s> "
				  "(0 < s < 10)",
				  wls);
	q->wp.kind = kind;
	q->wp.size = q->ep.capacity;
	q->wp.granule = q->unit < 4096 ? q->unit : 4096;
	q->wp.move_every = (unsigned int)move;
	q->wp.seed = seed;
	return 0;
}

int hb_source_emul_chmu_check(const struct hb_dev_info *info, struct hb_err *err)
{
	struct emul_params q;

	return emul_params(info, &q, err);
}

static int emul_open(const struct hb_host_ops *ops, struct hb_host *h,
		     const struct hb_dev_info *info, void **ret_priv)
{
	struct emul_params q;
	struct hb_chmu_emul_params ep;
	struct hb_workload_params wp;
	struct hb_chmu_range range;
	struct hb_chmu_config cfg = { .epoch_ns = 100000000, .mode = HB_CHMU_MODE_EPOCH };
	uint64_t unit, thr, ds;
	struct hb_err err = { 0 };
	struct emul_src *s;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->host = h;
	if ((r = emul_params(info, &q, &err)) < 0)
		goto fail;
	ep = q.ep;
	wp = q.wp;
	unit = q.unit;
	thr = q.thr;
	ds = q.ds;
	s->accesses = q.accesses;
	if ((r = hb_chmu_emul_new(&ep, &s->emu, &err)) < 0)
		goto fail;
	{
		struct hb_regwin w;

		hb_chmu_emul_window(s->emu, &w);
		r = hb_chmu_open(&w, 0, info->memdev ? info->memdev : "mem0", &s->drv, &err);
		if (r < 0)
			goto fail;
	}
	range = (struct hb_chmu_range){ 0, ep.capacity };
	cfg.unit_size = unit;
	cfg.threshold = (uint32_t)thr;
	cfg.ds_factor = (uint32_t)ds;
	cfg.ranges = &range;
	cfg.nranges = 1;
	if ((r = hb_chmu_configure(s->drv, &cfg, &err)) < 0 ||
	    (r = hb_workload_new(&wp, &s->wl, &err)) < 0)
		goto fail;
	s->epoch_ns = cfg.epoch_ns;
	*ret_priv = s;
	return 0;
fail:
	ops->log(h, HB_LOG_ERR, "%s", err.msg);
	emul_close(s);
	return r;
}

static int emul_poll(void *priv)
{
	struct emul_src *s = priv;
	struct hb_err err = { 0 };
	int r;

	for (uint64_t i = 0; i < s->accesses; i++) {
		uint64_t dpa = hb_workload_next(s->wl);

		if (s->away && s->away(s->away_ud, dpa))
			hb_chmu_emul_access_away(s->emu, dpa, 1);
		else
			hb_chmu_emul_access(s->emu, dpa, 1);
	}
	hb_chmu_emul_advance(s->emu, s->epoch_ns);
	hb_workload_epoch(s->wl);
	r = hb_chmu_drain_submit(s->drv, s->rec, HB_ARRAY_SIZE(s->rec), s->ops, s->host, NULL, NULL,
				 &err);
	if (r < 0 && err.msg[0])
		s->ops->log(s->host, HB_LOG_ERR, "%s", err.msg);
	return r;
}

const struct hb_device_ops hb_source_emul_chmu = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_device_ops),
	.name = "emul-chmu",
	.caps = HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
	.open = emul_open,
	.poll = emul_poll,
	.close = emul_close,
};

size_t hb_source_emul_truth(void *priv, const uint64_t **ret, uint64_t *ret_unit)
{
	struct emul_src *s = priv;

	*ret_unit = hb_chmu_emul_unit_size(s->emu);
	return hb_chmu_emul_truth(s->emu, ret);
}

void hb_source_emul_set_away(void *priv, bool (*away)(void *ud, uint64_t dpa), void *ud)
{
	struct emul_src *s = priv;

	s->away = away;
	s->away_ud = ud;
}
