/* SPDX-License-Identifier: MIT */
/*
 * devices/chmu/: the CXL Hotness Monitoring Unit.
 *
 *   register window   16/32/64-bit reads and writes at an offset; backed by
 *                     a PCI BAR (mmio.c) or by the emulator (../emul/)
 *   driver (chmu.c)   decodes capabilities, programs within them (refusing
 *                     what they do not allow, naming what they do), drains
 *                     the hotlist ring into DPA records
 *   registers         regs.h, the one layout the driver and the emulator share
 *
 * The emulator and its workloads are devices/emul/ (emul/emul.h).
 */
#ifndef HB_CHMU_H
#define HB_CHMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hb-device.h"
#include "util/iomem.h"
#include "util/util.h"

/* ---- register window ---- */

struct hb_regwin {
	/*
	 * width in bytes: 2, 4 or 8; 0 or -errno. -ENXIO: the window is gone
	 * (a mapped BAR whose mapping the kernel revoked: the access faulted).
	 */
	int (*read)(void *priv, uint64_t off, unsigned int width, uint64_t *val);
	int (*write)(void *priv, uint64_t off, unsigned int width, uint64_t val);
	void *priv;
	uint64_t size;
};

/*
 * Maps size bytes at offset of a PCI resource file or /dev/mem (needs
 * root). Every access runs in hb_sigbus_guard(): one that faults (SIGBUS:
 * the kernel revoked the mapping when a driver claimed the range) returns
 * -ENXIO, and so does every access after it, without touching the mapping.
 */
int hb_regwin_mmio_open(const char *resource, uint64_t offset, uint64_t size, struct hb_regwin *ret,
			struct hb_err *err);
void hb_regwin_mmio_close(struct hb_regwin *w);
/* an access through w faulted (SIGBUS) since it was opened: w is gone */
bool hb_regwin_mmio_revoked(const struct hb_regwin *w);

/*
 * Runs fn(arg), one access to the mapping [map, map + len), with a SIGBUS
 * handler installed for as long as it lasts (sigbus.c): a SIGBUS at an
 * address in the mapping ends it and returns -EFAULT; 0 otherwise.
 * Thread-safe; fn must do nothing but the access.
 */
int hb_sigbus_guard(void (*fn)(void *), void *arg, const volatile void *map, size_t len);

/* ---- /proc/iomem and lockdown (iomem.c) ---- */

/*
 * The first resource nested under the BAR (the entry named bdf starting at
 * bar_start; nested: listed after it, inside its range) that overlaps
 * [start, end]: 1 and *ret, 0 when none, -ENOENT when the BAR is not listed.
 */
int hb_iomem_find_claim(const struct hb_iomem *m, const char *bdf, uint64_t bar_start,
			uint64_t start, uint64_t end, const struct hb_iomem_entry **ret);
/* The bracketed mode of /sys/kernel/security/lockdown ("none", "integrity", ...). */
int hb_lockdown_mode(const char *path, char *mode, size_t size);

/* ---- mapping the CHMU block (map.c) ---- */

#define HB_CHMU_MAP_PATH_MAX 512

struct hb_chmu_map_req {
	const char *bdf;
	unsigned int bar;
	uint64_t bar_start, bar_size; /* physical; bar_size 0: unknown (a dump) */
	uint64_t offset;              /* of the CHMU block in the BAR */
	/* <root>/sys/bus/pci/devices/<bdf>/resource<bar>, <root>/proc/iomem,
	 * <root>/dev/mem, <root>/sys/kernel/security/lockdown, and the
	 * function's <root>/sys/bus/pci/devices/<bdf>/driver link */
	char resource[HB_CHMU_MAP_PATH_MAX], iomem[HB_CHMU_MAP_PATH_MAX];
	char devmem[HB_CHMU_MAP_PATH_MAX], lockdown[HB_CHMU_MAP_PATH_MAX];
	char driver[HB_CHMU_MAP_PATH_MAX];
	int iomem_fd; /* iomem opened by the caller, or -1 (init) */
};

/* Fills the request; root is "" on a live system, a test tree otherwise. */
void hb_chmu_map_req_init(struct hb_chmu_map_req *q, const char *root, const char *bdf,
			  unsigned int bar, uint64_t bar_start, uint64_t bar_size, uint64_t offset);

enum hb_chmu_map_via {
	HB_CHMU_MAP_SYSFS,  /* the BAR's sysfs resource file */
	HB_CHMU_MAP_DEVMEM, /* only the block's own pages of /dev/mem */
};

/*
 * Maps the CHMU block: the sysfs resource file first; when the kernel
 * refuses that (EINVAL: the BAR's first page is claimed, under
 * IO_STRICT_DEVMEM; EPERM), the block's own pages from /dev/mem, but only
 * when /proc/iomem shows no claim on them and lockdown is none. A block
 * a kernel driver has claimed is refused (-EBUSY) on either path, naming
 * the claimant. Either way the window is the block's own pages (common
 * capabilities plus every instance), at most 1 MiB and never past the BAR.
 */
struct hb_chmu_mapping {
	enum hb_chmu_map_via via;
	char why[320]; /* HB_CHMU_MAP_DEVMEM: why sysfs was refused */
};

int hb_chmu_map_block(const struct hb_chmu_map_req *q, struct hb_regwin *ret,
		      struct hb_chmu_mapping *ret_how, struct hb_err *err);
/*
 * Before each use of the window: a driver that claims the range later
 * makes the kernel revoke user mappings of it, /dev/mem and sysfs
 * resource files alike (both use iomem_get_mapping(); the next access is
 * SIGBUS, which the window's guard turns into -ENXIO) unless iomem=relaxed.
 * The chmu source calls it before and after each drain.
 * -EBUSY (naming the claimant) once /proc/iomem shows a claim on the
 * block's len bytes; 0 otherwise, also when /proc/iomem cannot tell.
 */
int hb_chmu_map_recheck(const struct hb_chmu_map_req *q, uint64_t len, struct hb_err *err);

/* ---- driver ---- */

struct hb_chmu_caps {
	unsigned int version, instances, instance_len;
	/* of the opened instance */
	unsigned int hotlist_size;
	uint32_t unit_sizes; /* bit n: 2^(n+8) bytes */
	uint16_t ds_factors; /* bit n: factor 2^n */
	bool epoch_based, always_on, randomized_ds, overlapping, postponed;
	bool overflow_int, level_int;
	unsigned int epoch_type, msi_n, m2s;
	uint64_t min_epoch_ns, max_epoch_ns;
	uint64_t range_off, hotlist_off;
	/* from STATUS: at open, then the configured unit's (hb_chmu_configure) */
	unsigned int counter_width;
};

#define HB_CHMU_MODE_EPOCH 0
#define HB_CHMU_MODE_ALWAYS_ON 1

struct hb_chmu_range {
	uint64_t start, len; /* DPA */
};

/*
 * A source's CHMU parameters, for hb_chmu_check_params(): unit and ds 0
 * (not given: the device's smallest) are not checked; epoch_ms only when
 * epoch is set (epoch mode).
 */
struct hb_chmu_params {
	uint64_t unit, ds, threshold, epoch_ms;
	bool epoch;
	const struct hb_chmu_range *ranges;
	size_t nranges;
	uint64_t capacity; /* the memdev's bytes (capacity=); 0: unknown */
};

/*
 * What every CHMU refuses whatever its capabilities, -EINVAL naming the
 * key (who: "chmu", "cxl-hmu"): unit a power of two 256..2^39, ds a power
 * of two up to 32768, threshold 1..2^32-1, an epoch the CONF1 fields
 * express, DPA ranges neither empty, past 2^64, past the memdev's capacity
 * (when known: the device counts nothing there) nor overlapping.
 */
int hb_chmu_check_params(const char *who, const struct hb_chmu_params *p, struct hb_err *err);

/*
 * The M2S request types a CHMU may track (CONF0; CAP0 bit code - 1 says the
 * device does), as a source's access= names them: nontee-r (1),
 * nontee-w (2), nontee-rw (3), r (4), w (5), rw (6), or the code itself.
 * hb_chmu_parse_access(): NULL is 0 (not given); anything else not one of
 * those is -EINVAL naming who and the values.
 */
int hb_chmu_parse_access(const char *who, const char *s, unsigned int *ret, struct hb_err *err);
/* "nontee-rw" for 3; "?" outside 1..6 */
const char *hb_chmu_access_name(unsigned int code);
/* "nontee-r (1), nontee-w (2)" style list of a CAP0 bitmap, "none" when empty */
void hb_chmu_format_access(unsigned int bitmap, char *buf, size_t size);
/*
 * The code a source takes when access= is not given, the first the
 * bitmap offers of r, nontee-r, rw, nontee-rw, w, nontee-w (reads first:
 * writes are write-backs, at the cache's time; rules.c); -ENOTSUP when it
 * offers none of them.
 */
int hb_chmu_pick_access(unsigned int bitmap);
/*
 * The memdev's capacity from a source's capacity= (bytes; the daemon fills
 * it from the topology): 0 when not given (entries are then not bounded).
 */
int hb_chmu_param_capacity(const char *who, const struct hb_dev_info *info, uint64_t *ret,
			   struct hb_err *err);

struct hb_chmu_config {
	uint64_t unit_size;                 /* bytes, a power of two the caps allow */
	uint64_t epoch_ns;                  /* epoch mode */
	uint32_t threshold;                 /* hotness threshold, >= 1 */
	uint32_t ds_factor;                 /* down-sampling factor the caps allow */
	unsigned int mode;                  /* HB_CHMU_MODE_* */
	uint16_t fill_threshold;            /* 0 = hotlist size / 2 */
	const struct hb_chmu_range *ranges; /* the memdev's decoded DPA */
	size_t nranges;
	unsigned int m2s;  /* request type, 1..6; 0: hb_chmu_pick_access() of the caps */
	uint64_t capacity; /* the memdev's bytes; 0: unknown */
};

struct hb_chmu_stats {
	uint64_t drains, entries, overflows, fill_events, out_of_range;
	/* entries whose DPA lies past the memdev's capacity: garbled, never real */
	uint64_t beyond_capacity;
};

struct hb_chmu;

/* Reads and validates the capabilities of one instance; memdev names records. */
int hb_chmu_open(const struct hb_regwin *w, unsigned int instance, const char *memdev,
		 struct hb_chmu **ret, struct hb_err *err);
struct hb_chmu *hb_chmu_free(struct hb_chmu *c);
const struct hb_chmu_caps *hb_chmu_caps(const struct hb_chmu *c);
const struct hb_chmu_stats *hb_chmu_stats(const struct hb_chmu *c);
/* "4096,8192" style lists of what the caps allow, for messages and `list` */
void hb_chmu_format_sizes(uint32_t bitmap, unsigned int base_shift, char *buf, size_t size);

/*
 * Disables, programs, sets the range bitmap, resets and enables. The
 * counter width is read again once the unit size is programmed (the
 * threshold must fit it) and once enabled (what the drain decodes with).
 */
int hb_chmu_configure(struct hb_chmu *c, const struct hb_chmu_config *cfg, struct hb_err *err);
int hb_chmu_disable(struct hb_chmu *c, struct hb_err *err);

/*
 * Copies up to max hotlist entries [head, tail) into records (DPA =
 * unit index x unit size, len = unit size, count = the entry's count),
 * advances HEAD past them, and clears and counts overflow / fill status.
 * A head or tail outside the ring is -EIO, a STATUS counter width other
 * than the one configure read is -EPROTO (nothing decoded, HEAD kept);
 * entries past the configured capacity are dropped and counted in
 * beyond_capacity, the others beyond the tracked ranges in out_of_range.
 */
int hb_chmu_drain(struct hb_chmu *c, struct hb_hot_record *out, size_t max, size_t *ret_n,
		  struct hb_err *err);

/*
 * Drains everything the hotlist holds, in batches of max records through
 * buf, into the host's submit(). after, when not NULL, runs once a batch
 * of n is drained and before the host has it: a negative return (with err
 * set) drops the batch and ends the drain (the chmu source re-reads
 * /proc/iomem there). A drain that found STATUS overflow set goes to the
 * host's count_overflow() (ABI 1.3; not called on an older host). Errors
 * are returned in err, for the caller to log; a refusal of the host's
 * submit() is returned as it is, err untouched (the host says why itself).
 */
int hb_chmu_drain_submit(struct hb_chmu *c, struct hb_hot_record *buf, size_t max,
			 const struct hb_host_ops *ops, struct hb_host *h,
			 int (*after)(void *arg, size_t n, struct hb_err *err), void *arg,
			 struct hb_err *err);

/*
 * The "chmu" source (source-hw.c). hooks, NULL in the daemon, point it at
 * test files instead of the machine: pci_dump, an lspci -xxxx file for the
 * bus; sysfs_root, the root of sys/, proc/iomem and dev/mem.
 */
struct hb_chmu_test_hooks {
	const char *pci_dump;
	const char *sysfs_root;
};
int hb_chmu_source_open(const struct hb_host_ops *ops, struct hb_host *h,
			const struct hb_dev_info *info, const struct hb_chmu_test_hooks *hooks,
			void **ret_priv);
int hb_chmu_source_poll(void *priv);
void hb_chmu_source_close(void *priv);
/* its parameters that only test binaries take: pci_dump, sysfs_root */
extern const char *const hb_source_chmu_test_params[];
/*
 * Test binaries only (source-hw-test.c, in hb-devices-test, which hotbridge
 * never links): "chmu" taking pci_dump= and sysfs_root= as hooks.
 */
extern const struct hb_device_ops hb_source_chmu_test;

/* the start-up check of the chmu source's parameters (registry.c) */
int hb_source_chmu_check(const struct hb_dev_info *info, struct hb_err *err);

#endif
