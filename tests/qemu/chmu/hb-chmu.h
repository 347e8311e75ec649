/* SPDX-License-Identifier: MIT */
/*
 * hb-chmu: a CXL Hotness Monitoring Unit (CXL r3.2 section 8.2.8) as a
 * device model, with no QEMU in it. QEMU's cxl-type3 device (our patch
 * tests/qemu/patches/0002 and 0003) owns one per device and calls it for
 * each register access, for each CPU access to the device's memory (by
 * DPA, after the device's HDM decoding; a host cache model, hb-llc.h,
 * turns those into the requests the device receives) and when the epoch
 * timer fires. The unit
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
/* the default host cache: 32 MiB, 16 ways */
#define HB_QCHMU_LLC_SIZE (32ULL << 20)
#define HB_QCHMU_LLC_WAYS 16
/*
 * The default bound on the host memory a guest's ENABLE can make the model
 * allocate: 8 bytes per unit (count and touched list) summed over the
 * device's enabled instances. An ENABLE past it is refused.
 */
#define HB_QCHMU_COUNTER_BUDGET (64ULL << 20)

struct hb_qchmu_params {
	uint64_t capacity;          /* DPA bytes the device decodes */
	unsigned int instances;     /* 1..HB_QCHMU_MAX_INSTANCES */
	unsigned int hotlist_size;  /* entries per instance, 2..65535 */
	uint32_t unit_sizes;        /* CAP1 bitmap: bit n is 2^(n+8) bytes */
	uint16_t ds_factors;        /* CAP1 bitmap: bit n is a factor of 2^n */
	uint8_t access_types;       /* CAP0 [13:8]: bit n is M2S request code n + 1 */
	unsigned int counter_width; /* bits of count in a hotlist entry, 1..32 */
	unsigned int msi_n;         /* the MSI/MSI-X vector, 0..15 */
	uint64_t seed;              /* randomized down-sampling's generator */
	uint64_t llc_size;          /* the host cache in front (hb-llc.h); 0: none */
	unsigned int llc_ways;      /* its associativity */
	uint64_t counter_budget;    /* bytes of counters all enabled instances may take */
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

/*
 * a CPU load or store of size bytes at dpa: through the host cache, when
 * there is one, to the requests the device receives (hb_qchmu_access())
 */
void hb_qchmu_cpu_access(struct hb_qchmu *c, uint64_t dpa, unsigned int size, bool write,
			 uint64_t now_ns);

/* a request of size bytes at dpa, as the device receives it */
void hb_qchmu_access(struct hb_qchmu *c, uint64_t dpa, unsigned int size, bool write,
		     uint64_t now_ns);

/* true when an instance is enabled (an access can change something) */
bool hb_qchmu_counting(const struct hb_qchmu *c);

/* end every epoch due by now_ns; returns the next epoch end or HB_QCHMU_NEVER */
uint64_t hb_qchmu_advance(struct hb_qchmu *c, uint64_t now_ns);
/* the next epoch end, or HB_QCHMU_NEVER */
uint64_t hb_qchmu_deadline(const struct hb_qchmu *c);

/* true once per interrupt to raise on vector params.msi_n */
bool hb_qchmu_irq_take(struct hb_qchmu *c);

/* the device's reset: every instance disabled and cleared */
void hb_qchmu_reset(struct hb_qchmu *c);

void hb_qchmu_counts(const struct hb_qchmu *c, unsigned int instance, struct hb_qchmu_counts *ret);

/*
 * The requests the device served (hb_qchmu_access(), so after the cache),
 * whether or not an instance counts them, since the model was made: the
 * device's reset does not clear them.
 */
void hb_qchmu_served(const struct hb_qchmu *c, uint64_t *reads, uint64_t *writes);

#endif
