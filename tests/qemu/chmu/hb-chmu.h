/* SPDX-License-Identifier: MIT */
/*
 * hb-chmu: a CXL Hotness Monitoring Unit (CXL r3.2 section 8.2.8) as a
 * device model, with no QEMU in it. QEMU's cxl-type3 device (our patch
 * tests/qemu/patches/0002) owns one per device and calls it for each
 * register access, for each access to the device's memory (by DPA, after
 * the device's HDM decoding) and when the epoch timer fires. The unit
 * tests (tests/unit/test-qemu-chmu.c) drive the same calls.
 *
 * The register offsets are written here from the specification's layout,
 * not taken from hotbridge's driver (devices/chmu/regs.h): the guest tests
 * then check the driver against an independent reading of the spec.
 */
#ifndef HB_QEMU_CHMU_H
#define HB_QEMU_CHMU_H

#include <stdbool.h>
#include <stdint.h>

#define HB_QCHMU_MAX_INSTANCES 8
#define HB_QCHMU_NEVER UINT64_MAX

struct hb_qchmu_params {
	uint64_t capacity;          /* DPA bytes the device decodes */
	unsigned int instances;     /* 1..HB_QCHMU_MAX_INSTANCES */
	unsigned int hotlist_size;  /* entries per instance, 2..65535 */
	uint32_t unit_sizes;        /* CAP1 bitmap: bit n is 2^(n+8) bytes */
	uint16_t ds_factors;        /* CAP1 bitmap: bit n is a factor of 2^n */
	unsigned int counter_width; /* bits of count in a hotlist entry, 1..32 */
	unsigned int msi_n;         /* the MSI/MSI-X vector, 0..15 */
	uint64_t seed;              /* randomized down-sampling's generator */
	/* test options (0: none) */
	uint64_t op_ns;      /* enable, disable and reset take this long */
	uint8_t no_fill_irq; /* bit n: instance n lacks the fill-threshold interrupt */
};

/* Counts an instance keeps, for tests and for QEMU's trace output. */
struct hb_qchmu_counts {
	uint64_t accesses; /* accesses that matched the request type and range */
	uint64_t sampled;  /* of those, counted after down-sampling */
	uint64_t entries;  /* hotlist entries written */
	uint64_t dropped;  /* entries lost because the hotlist was full */
	uint64_t epochs;   /* epochs ended */
	uint64_t irqs;     /* interrupts raised */
};

struct hb_qchmu;

void hb_qchmu_params_default(struct hb_qchmu_params *p, uint64_t capacity);
/* 0, or -EINVAL naming nothing: check the parameters with hb_qchmu_check() first */
int hb_qchmu_new(const struct hb_qchmu_params *p, struct hb_qchmu **ret);
/* NULL, or a message naming the bad parameter */
const char *hb_qchmu_check(const struct hb_qchmu_params *p);
void hb_qchmu_free(struct hb_qchmu *c);

/* length of the register block (common registers and every instance) */
uint64_t hb_qchmu_size(const struct hb_qchmu *c);

/* register access: size 1, 2, 4 or 8, naturally aligned */
uint64_t hb_qchmu_read(struct hb_qchmu *c, uint64_t off, unsigned int size);
void hb_qchmu_write(struct hb_qchmu *c, uint64_t off, uint64_t val, unsigned int size,
		    uint64_t now_ns);

/* an access of size bytes at dpa, as the device receives it */
void hb_qchmu_access(struct hb_qchmu *c, uint64_t dpa, unsigned int size, bool write,
		     uint64_t now_ns);

/* end every epoch due by now_ns; returns the next epoch end or HB_QCHMU_NEVER */
uint64_t hb_qchmu_advance(struct hb_qchmu *c, uint64_t now_ns);
/* the next epoch end, or HB_QCHMU_NEVER */
uint64_t hb_qchmu_deadline(const struct hb_qchmu *c);

/* true once per interrupt to raise on vector params.msi_n */
bool hb_qchmu_irq_take(struct hb_qchmu *c);

/* the device's reset: every instance disabled and cleared */
void hb_qchmu_reset(struct hb_qchmu *c);

void hb_qchmu_counts(const struct hb_qchmu *c, unsigned int instance, struct hb_qchmu_counts *ret);

#endif
