/* SPDX-License-Identifier: MIT */
/*
 * devices/hmu/: the CHMU as the Linux RFC perf driver (drivers/cxl/hmu.c,
 * "CXL Hotness Monitoring Unit perf driver", 2024-11, not merged) offers
 * it: one PMU per CHMU instance, /sys/bus/event_source/devices/
 * cxl_hmu_memX.Y.Z, whose hotlist entries arrive in the event's perf AUX
 * buffer.
 *
 *   AUX decoding (aux.c)   the driver's chunks (16-byte header, then 8-byte
 *                          hotlist entries) into DPA records, strictly
 *                          bounded: a hostile buffer is an error naming the
 *                          byte, and nothing past the last valid chunk is
 *                          submitted
 *   PMU description (pmu.c) the PMU's sysfs directory: its perf type and its
 *                          format/ fields ("config:0-7"), and the event's
 *                          config words encoded from named values
 *   the source (source.c)  "cxl-hmu": perf_event_open() on the PMU, the
 *                          ring and AUX area mmap()ed, drained when the fd
 *                          is readable
 */
#ifndef HB_HMU_H
#define HB_HMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "hb-device.h"
#include "util/util.h"

/* ---- AUX buffer (aux.c) ---- */

/*
 * One chunk, as the RFC driver writes it on each drain, in the CPU's byte
 * order (little-endian on every machine that has CXL):
 *   u64 header[0]: bits 15:0 entries, bits 23:16 counter width, 63:24 zero
 *   u64 header[1]: 0xDEADBEEF
 *   u64 entry[entries]: low counter-width bits the count, the rest the
 *                       unit index; DPA = unit index << hotness_granual
 */
#define HB_HMU_AUX_MAGIC 0xDEADBEEFull
#define HB_HMU_AUX_HEADER_SIZE 16u
#define HB_HMU_AUX_ENTRY_SIZE 8u

struct hb_hmu_aux_decoder {
	char memdev[HB_MEMDEV_NAME_MAX]; /* names the records */
	unsigned int granule_shift;      /* log2 of the unit in bytes, 8..63 */
	uint64_t dpa_start, dpa_len;     /* what was programmed; entries outside are dropped */
	uint64_t capacity;               /* the memdev's bytes, 0 unknown: entries past it too */
};

struct hb_hmu_aux_stats {
	uint64_t chunks, entries, out_of_range, bad_chunks;
	/* entries past the memdev's capacity (or 2^64): garbled, never a real DPA */
	uint64_t beyond_capacity;
};

/* Where the decoded records go; 0 or -errno (stops the decoding). */
typedef int (*hb_hmu_emit_fn)(void *ud, const struct hb_hot_record *r, size_t n);

/*
 * Decodes the chunks of buf[0..len) through out (max records at a time)
 * into emit. Returns 0 when every byte was a valid chunk. A chunk that is
 * not valid (short header, wrong magic, reserved bits, counter width
 * outside 1..63, no entries, entries running past len) ends the decoding:
 * -EBADMSG with err naming its offset and what was wrong; the chunks
 * before it were emitted, nothing of it or after it was. *ret_used
 * (optional) is the length of the valid part. An entry whose DPA lies
 * past d->capacity or 2^64 is dropped and counted in beyond_capacity; one
 * outside the programmed dpa range in out_of_range.
 */
int hb_hmu_aux_decode(const struct hb_hmu_aux_decoder *d, const uint8_t *buf, size_t len,
		      struct hb_hot_record *out, size_t max, hb_hmu_emit_fn emit, void *ud,
		      struct hb_hmu_aux_stats *st, size_t *ret_used, struct hb_err *err);

/* ---- the perf ring and AUX area (ring.c) ---- */

/*
 * What the source maps: the perf_event_mmap_page (meta), the data ring
 * that follows it and the AUX area, all as the kernel shares them (tests
 * build them in ordinary memory). scratch holds aux_size bytes: the AUX
 * bytes are copied out (unwrapped) before they are decoded.
 */
struct hb_hmu_ring {
	void *meta; /* struct perf_event_mmap_page */
	uint8_t *data;
	size_t data_size; /* a power of two */
	uint8_t *aux;
	size_t aux_size; /* a power of two */
	uint8_t *scratch;
};

struct hb_hmu_ring_stats {
	uint64_t drains, aux_bytes, truncated, lost, bad_bytes;
	uint64_t partial; /* AUX writes with gaps: entries the driver dropped */
};

/*
 * Takes what the kernel published since the last call: the AUX bytes
 * [aux_tail, aux_head) decoded (hb_hmu_aux_decode()) into emit, the data
 * ring's records walked for PERF_RECORD_AUX flags (truncated, collided;
 * partial: the driver dropped hotlist entries, its AUX area being full or
 * the CHMU's hotlist having overflowed) and PERF_RECORD_LOST; then both tails advanced, so a bad chunk is
 * reported once and skipped with everything after it up to aux_head
 * (-EBADMSG, err; its bytes in bad_bytes). A head more than the area's
 * size past its tail is -EIO.
 */
int hb_hmu_ring_drain(struct hb_hmu_ring *rg, const struct hb_hmu_aux_decoder *d,
		      struct hb_hot_record *out, size_t max, hb_hmu_emit_fn emit, void *ud,
		      struct hb_hmu_aux_stats *st, struct hb_hmu_ring_stats *rst, struct hb_err *err);

/* ---- the PMU's sysfs description (pmu.c) ---- */

#define HB_HMU_PMU_PREFIX "cxl_hmu_"
#define HB_HMU_FIELD_NAME_MAX 32
#define HB_HMU_FIELDS_MAX 32
#define HB_HMU_CONFIG_WORDS 4 /* config, config1, config2, config3 */

/* One format/ file: the field's bits, least significant first. */
struct hb_hmu_field {
	char name[HB_HMU_FIELD_NAME_MAX];
	unsigned int word;  /* 0 config, 1 config1, ... */
	uint64_t mask;      /* its bits in that word */
	unsigned int width; /* popcount(mask) */
};

struct hb_hmu_pmu {
	char name[64]; /* "cxl_hmu_mem0.0.0" */
	uint32_t type; /* perf_event_attr.type, from `type` */
	struct hb_hmu_field fields[HB_HMU_FIELDS_MAX];
	size_t nfields;
};

/*
 * One format/ spec, "config:0-7", "config1:32-63", "config:0,8-11": a word
 * (config, config1, config2, config3) and bit ranges, lowest value bits
 * in the first. -EINVAL naming name and what was wrong.
 */
int hb_hmu_format_parse(const char *name, const char *spec, struct hb_hmu_field *ret,
			struct hb_err *err);

/*
 * Reads <dir>/type and every <dir>/format/ file of one PMU directory
 * (root "" on a live system). -ENOENT when it has no such PMU, -EINVAL
 * naming the file that is wrong.
 */
int hb_hmu_pmu_load(const char *root, const char *name, struct hb_hmu_pmu *ret, struct hb_err *err);

/*
 * The CHMU PMUs under <root>/sys/bus/event_source/devices: the number
 * found; the first one's name in first (size bytes), "" when none.
 */
int hb_hmu_pmu_find(const char *root, char *first, size_t size);

/* The field called name, or NULL. */
const struct hb_hmu_field *hb_hmu_pmu_field(const struct hb_hmu_pmu *p, const char *name);

/*
 * Puts value into the field called name of config[] (the words the event
 * is opened with): -ENOENT when the PMU has no such field, -ERANGE when
 * value needs more bits than the field has; both named in err.
 */
int hb_hmu_config_set(const struct hb_hmu_pmu *p, const char *name, uint64_t value,
		      uint64_t config[HB_HMU_CONFIG_WORDS], struct hb_err *err);

/* What the source asks of the PMU, in our terms (see source.c). */
struct hb_hmu_request {
	unsigned int mode;        /* 0 epoch, 1 always-on (the RFC's epoch_type) */
	unsigned int access_type; /* M2S requests tracked: 1..6, 6 = all R+W */
	uint64_t epoch_ns;        /* epoch mode */
	uint32_t threshold;
	unsigned int granule_shift;  /* log2 of the unit in bytes */
	unsigned int ds_shift;       /* log2 of the down-sampling factor */
	uint64_t dpa_start, dpa_len; /* 256 MiB aligned; len 0: everything */
	bool access_given, ds_given; /* access=, ds= said; otherwise negotiated */
};

/*
 * Encodes a request into config[] through the PMU's own fields
 * (epoch_type, access_type, epoch_scale, epoch_multiplier,
 * downsampling_factor, hotness_threshold, hotness_granual, range_base,
 * range_size): an epoch the CHMU's scales cannot express, a DPA range not
 * on 256 MiB, a field the PMU lacks or a value too wide for it are
 * -EINVAL/-ENOENT/-ERANGE naming it.
 */
int hb_hmu_request_encode(const struct hb_hmu_pmu *p, const struct hb_hmu_request *q,
			  uint64_t config[HB_HMU_CONFIG_WORDS], struct hb_err *err);

/* hb_hmu_available(): in devices.h, for `hotbridge list` */

/* ---- the source (source.c) ---- */

/*
 * What the cxl-hmu source would open for instance info on the tree under
 * root ("" live): the PMU (pmu= or the only one), the event's config words
 * and the AUX decoder. Every refusal names the parameter, the PMU or the
 * format field. The perf system calls come after this, in open().
 */
int hb_hmu_source_prepare(const char *root, const struct hb_dev_info *info,
			  struct hb_hmu_pmu *ret_pmu, uint64_t config[HB_HMU_CONFIG_WORDS],
			  struct hb_hmu_aux_decoder *ret_dec, uint64_t *ret_pages,
			  struct hb_err *err);
/*
 * The request and AUX pages from the parameters (check-config and open
 * alike): every refusal names the parameter.
 */
int hb_hmu_request_from_params(const struct hb_dev_info *info, struct hb_hmu_request *q,
			       uint64_t *ret_pages, struct hb_err *err);
/*
 * Opens the event the PMU takes for want (hb_hmu_request_from_params();
 * negotiate.c; open_fn: perf_event_open() of config,
 * an fd or -errno; probe true: close it again at once). Neither driver of
 * the ABI publishes the CHMU's capabilities, and both refuse at open
 * (EINVAL) a request type or down-sampling factor the device does not
 * offer: so what access= and ds= leave unsaid is asked for in turn (access
 * r, nontee-r, rw, nontee-rw, w, nontee-w; ds 1, 2, 4, ... 32768) and the
 * first the PMU takes kept; config[] is left as opened and *ret_q says what
 * it asked for. When nothing opens with EINVAL, each request type and
 * factor is tried alone to name what the device takes: -EINVAL naming
 * access= or ds= and what works, or every choice refused (another
 * parameter). Another error of open_fn is returned as it is, err untouched.
 */
typedef int (*hb_hmu_open_fn)(void *ud, const uint64_t config[HB_HMU_CONFIG_WORDS], bool probe);
int hb_hmu_negotiate(const struct hb_hmu_pmu *p, const struct hb_hmu_request *want,
		     uint64_t config[HB_HMU_CONFIG_WORDS], hb_hmu_open_fn open_fn, void *ud,
		     struct hb_hmu_request *ret_q, struct hb_err *err);
extern const char *const hb_source_cxl_hmu_params[];
extern const struct hb_device_ops hb_source_cxl_hmu;

/* the start-up check of a cxl-hmu source's parameters (registry.c) */
int hb_source_cxl_hmu_check(const struct hb_dev_info *info, struct hb_err *err);

#endif
