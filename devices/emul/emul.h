/* SPDX-License-Identifier: MIT */
/*
 * devices/emul/: an emulated CHMU and the access workloads that drive it.
 *
 *   emulator (emul.c)   the registers of chmu/regs.h over an in-process
 *                       device model; the driver (chmu/chmu.c) runs
 *                       unchanged against it and learns hot units only
 *                       through the registers
 *   workload.c          access generators: uniform, Zipf, moving Zipf
 *   source-emul.c       the "emul-chmu" source: a workload into the
 *                       emulator, drained by the real driver
 */
#ifndef HB_EMUL_H
#define HB_EMUL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chmu/chmu.h"
#include "hb-device.h"
#include "util/util.h"

/* ---- emulator ---- */

struct hb_chmu_emul_params {
	uint64_t capacity;          /* DPA bytes the device has */
	unsigned int hotlist_size;  /* ring entries (one slot stays empty) */
	uint32_t unit_sizes;        /* CAP1 bitmap */
	uint16_t ds_factors;        /* CAP1 bitmap */
	unsigned int counter_width; /* 1..63 */
	bool epoch_based, always_on;
	unsigned int min_epoch_scale, min_epoch_val, max_epoch_scale, max_epoch_val;
	unsigned int instances; /* 1 unless testing */
	/* hostile-device knobs, for tests and fuzzing */
	unsigned int bad_counter_width; /* reported instead, if nonzero */
	bool bad_head_tail;             /* report a tail outside the ring */
};

/* QEMU's emulated capabilities (notes/chmu.md), on 1 GiB of capacity. */
void hb_chmu_emul_params_default(struct hb_chmu_emul_params *p);

struct hb_chmu_emul;

int hb_chmu_emul_new(const struct hb_chmu_emul_params *p, struct hb_chmu_emul **ret,
		     struct hb_err *err);
struct hb_chmu_emul *hb_chmu_emul_free(struct hb_chmu_emul *e);
/* the emulator's registers, for the driver */
void hb_chmu_emul_window(struct hb_chmu_emul *e, struct hb_regwin *ret);
/* n accesses to dpa (counted when enabled, tracked, after down-sampling) */
void hb_chmu_emul_access(struct hb_chmu_emul *e, uint64_t dpa, uint64_t n);
/*
 * n accesses to dpa's page while the host has it elsewhere (moved to
 * DRAM): they never reach the device, so its counters and hotlist do not
 * see them; the ground truth counts them (when enabled and tracked).
 */
void hb_chmu_emul_access_away(struct hb_chmu_emul *e, uint64_t dpa, uint64_t n);
/* advances device time; ends epochs that are due */
void hb_chmu_emul_advance(struct hb_chmu_emul *e, uint64_t ns);
/* ground truth: every access per unit since enable, before down-sampling */
size_t hb_chmu_emul_truth(const struct hb_chmu_emul *e, const uint64_t **ret);
uint64_t hb_chmu_emul_unit_size(const struct hb_chmu_emul *e);

/* ---- workload ---- */

enum hb_workload_kind {
	HB_WORKLOAD_UNIFORM,
	HB_WORKLOAD_ZIPF,
	HB_WORKLOAD_MOVING, /* Zipf whose hot set shifts every move_every epochs */
};

struct hb_workload_params {
	enum hb_workload_kind kind;
	uint64_t base, size;     /* DPA span */
	uint64_t granule;        /* bytes per item (e.g. 4096) */
	double skew;             /* Zipf exponent s > 0 */
	unsigned int move_every; /* epochs, MOVING */
	uint64_t seed;
};

struct hb_workload;

int hb_workload_new(const struct hb_workload_params *p, struct hb_workload **ret, struct hb_err *err);
struct hb_workload *hb_workload_free(struct hb_workload *w);
uint64_t hb_workload_next(struct hb_workload *w); /* a DPA */
void hb_workload_epoch(struct hb_workload *w);    /* MOVING: count epochs */
int hb_workload_kind_from_string(const char *s, double *ret_skew);

/* the start-up check of the emul-chmu source's parameters (registry.c) */
int hb_source_emul_chmu_check(const struct hb_dev_info *info, struct hb_err *err);

#endif
