/* SPDX-License-Identifier: MIT */
/*
 * devices/cxl-events/: the kernel's CXL trace events (cxl_general_media,
 * cxl_dram, cxl_poison, cxl_overflow) as hotbridge sees them.
 *
 * decode.c: the events' tracefs `format` files and raw records, through
 * libtraceevent: every field is looked up by name in the format (never at
 * a fixed offset), a region's name under either spelling (`region`,
 * `region_name`), and every read is checked against the record's length.
 * source.c: the `cxl-events` source (a tracefs instance of its own).
 */
#ifndef HB_CXL_EVENTS_H
#define HB_CXL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hb-device.h"
#include "util/util.h"

enum hb_cxl_kind {
	HB_CXL_GENERAL_MEDIA,
	HB_CXL_DRAM,
	HB_CXL_POISON,
	HB_CXL_OVERFLOW,
	HB_CXL_KIND_MAX,
};

/* the trace event of each kind ("cxl_general_media", ...) */
const char *hb_cxl_kind_event(enum hb_cxl_kind kind);

/* cxl_poison's trace_type (the kernel's enum cxl_poison_trace_type) */
#define HB_CXL_POISON_LIST 0
#define HB_CXL_POISON_INJECT 1
#define HB_CXL_POISON_CLEAR 2

/* general media / DRAM descriptor bits (CXL r3.0 table 8-43) */
#define HB_CXL_DESC_UNCORRECTABLE 0x01
#define HB_CXL_DESC_THRESHOLD 0x02
#define HB_CXL_DESC_POISON_OVERFLOW 0x04

/* what a media event's DPA covers: the record's address is 64-byte aligned */
#define HB_CXL_MEDIA_GRANULE 64

/* One decoded event. Fields an event does not carry are 0 (hpa: HB_ADDR_NONE). */
struct hb_cxl_record {
	enum hb_cxl_kind kind;
	char memdev[HB_MEMDEV_NAME_MAX];
	char host[64];    /* the memdev's parent device, "" if absent */
	char region[32];  /* "" when the kernel mapped it to no region */
	uint8_t uuid[16]; /* the region's (uuid / region_uuid) */
	uint64_t dpa;
	uint64_t hpa;        /* the kernel's translation, or HB_ADDR_NONE */
	uint64_t dpa_length; /* poison: bytes; media: HB_CXL_MEDIA_GRANULE */
	uint8_t dpa_flags, descriptor, type, transaction_type;
	uint8_t trace_type, source, flags; /* poison */
	uint16_t count;                    /* overflow: records lost */
	uint64_t first_ts, last_ts;        /* overflow */
};

struct hb_cxl_decoder;

int hb_cxl_decoder_new(struct hb_cxl_decoder **ret);
struct hb_cxl_decoder *hb_cxl_decoder_free(struct hb_cxl_decoder *dec);

/*
 * Adds one event's tracefs `format` file (system "cxl"). Refused (-errno,
 * err naming the event and what was wrong): a format libtraceevent cannot
 * parse, an event that is not one of the four, one added twice, one that
 * lacks a field hotbridge needs (memdev; dpa for media and poison events;
 * count for overflow) or has one of the wrong size or kind.
 */
int hb_cxl_decoder_add_format(struct hb_cxl_decoder *dec, const char *buf, size_t len,
			      struct hb_err *err);

/* whether the format of kind was added */
bool hb_cxl_decoder_has(const struct hb_cxl_decoder *dec, enum hb_cxl_kind kind);

/*
 * Decodes one raw record (the event's binary entry, common fields first,
 * as a ring-buffer event carries it) of len bytes. -EBADMSG with err for a
 * record that is too short for its fields, names an unknown event, or whose
 * strings point outside it, lack their NUL or do not fit.
 */
int hb_cxl_decode(const struct hb_cxl_decoder *dec, const void *data, size_t len,
		  struct hb_cxl_record *ret, struct hb_err *err);

/*
 * What the daemon is told of a record (struct hb_device_event): a media
 * event's 64-byte granule, the poisoned range, or the number of records
 * the device lost.
 */
void hb_cxl_record_to_event(const struct hb_cxl_record *rec, struct hb_device_event *ret);

/*
 * ring.c: one sub-buffer (a page read from trace_pipe_raw) walked with
 * libtraceevent's kbuffer; cb gets each event decoded (rec), or the reason
 * it could not be (bad). Returns the number of events, or -EBADMSG for a
 * page whose header does not fit len.
 */
struct hb_cxl_ring;
int hb_cxl_ring_new(struct hb_cxl_ring **ret);
struct hb_cxl_ring *hb_cxl_ring_free(struct hb_cxl_ring *r);
int hb_cxl_ring_walk(struct hb_cxl_ring *r, const struct hb_cxl_decoder *dec, void *page, size_t len,
		     void (*cb)(void *ud, const struct hb_cxl_record *rec, const struct hb_err *bad),
		     void *ud);

/*
 * stale.c: the pid of a source's instance name "hotbridge-<pid>" (decimal,
 * no leading zero), or -EINVAL for any other name.
 */
int hb_cxl_instance_pid(const char *name);

/*
 * stale.c: removes every hotbridge-<pid> below the tracefs instances
 * directory whose pid no process has (a daemon that died without closing);
 * cb is told each one removed (err 0) or that could not be (-errno).
 * Instances of live processes, our own and other names are left. Returns
 * the number removed, or -errno when the directory cannot be read.
 */
int hb_cxl_remove_stale(const char *instances, void (*cb)(void *ud, const char *name, int err),
			void *ud);

/*
 * source.c: whether the cxl-events source can run here: 1, or 0 with why
 * ("not root", "no tracefs mounted", "no cxl trace events (cxl_core not
 * loaded?)") for `hotbridge list`.
 */
int hb_cxl_events_available(char *why, size_t size);

/* the start-up check of a cxl-events source's parameters (registry.c) */
int hb_source_cxl_events_check(const struct hb_dev_info *info, struct hb_err *err);

#endif
