/* SPDX-License-Identifier: MIT */
/*
 * Ingestion: a source's records -> (DPA -> HPA) -> the pages that lie in a
 * committed CXL region on a source node -> the hotness table.
 *
 * A record's cost is bounded by the CXL memory it overlaps, never by its
 * length: the parts outside every committed region are skipped in O(1) each
 * (counted `unmapped`), a length longer than the CXL memory it could name is
 * bad input. Work is done in slices: hb_ingest_submit() stops at the caller's
 * deadline and keeps the rest, in order, in a bounded backlog that
 * hb_ingest_drain() works off later, so the loop stays responsive under any
 * feed. The backlog is full at env.backlog records (hb_ingest_backlog_full():
 * the host stops reading its sources then), and takes up to
 * HB_HOST_BACKLOG_HEADROOM more, what a source read before it asked; only
 * past that is a record lost (`backlog_full`).
 *
 * Counting (struct hb_ingest_stats): every record counts once in `records`
 * when it is accepted; once finished, in `translated` if any of its pages
 * entered the table, else in `dropped_records` (so both are subsets of
 * `records`, and records = translated + dropped_records + the backlog), in
 * `partial` if translated and part of it was dropped, and once in
 * dropped[reason] for each reason a part of it was dropped for (a record
 * may have several). Input a source could not make records of is not a
 * record: the host counts it in `bad_input` only. Pages are counted too:
 * `pages` that entered the table, pages_dropped[reason] that did not (the
 * pages each dropped part touches, in the table's page size; a bad
 * record's are not counted, its length being what is wrong). For a
 * page-aligned record the two add up to its length in pages.
 */
#ifndef HB_INGEST_H
#define HB_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "hb-device.h"
#include "translate.h"

enum hb_drop {
	HB_DROP_UNKNOWN_MEMDEV, /* memdev not in the topology */
	HB_DROP_UNMAPPED,       /* DPA/HPA in no committed region */
	HB_DROP_NO_NODE,        /* HPA on no NUMA node (not online as RAM) */
	HB_DROP_BAD_RECORD,     /* space or length the host cannot use */
	HB_DROP_NOT_SOURCE,     /* HPA online on a node that is not a source node */
	HB_DROP_BACKLOG_FULL,   /* arrived while the backlog was full */
	HB_DROP_STALE,          /* taken before pages were moved onto its node */
	_HB_DROP_MAX,
};

const char *hb_drop_to_string(enum hb_drop r);

struct hb_ingest_stats {
	uint64_t records, translated, partial, pages;
	uint64_t dropped_records; /* records none of whose pages entered the table */
	uint64_t bad_input;       /* not records: units sources could not parse (the host's) */
	uint64_t deferred;        /* records that waited in the backlog */
	uint64_t dropped[_HB_DROP_MAX];
	uint64_t pages_dropped[_HB_DROP_MAX];
};

struct hb_ingest_env {
	struct hb_heat_table *heat;             /* not taken */
	struct hb_latency *lat;                 /* record -> table latency; may be NULL */
	struct hb_ingest_stats *stats;          /* where to count; NULL: its own */
	uint64_t page_size;                     /* the table's; 0: 4096 */
	int (*node_of)(void *ud, uint64_t hpa); /* online node of hpa, or -1 */
	void *ud;
	/* called once per submit that carried bad records, with a message */
	void (*report)(void *ud, const char *msg);
	void *report_ud;
	size_t backlog; /* records at which the backlog is full; 0: the default */
};

struct hb_ingest;

int hb_ingest_new(const struct hb_ingest_env *env, struct hb_ingest **ret, struct hb_err *err);
struct hb_ingest *hb_ingest_free(struct hb_ingest *in);
HB_DEFINE_CLEANUP(struct hb_ingest *, hb_ingest_free)

/*
 * The topology records are translated with (not taken; must outlive its
 * use), the nodes pages may come from (bit n: node n), and how far one
 * node lookup holds (a memory block's size; 0: one page).
 */
int hb_ingest_set_topology(struct hb_ingest *in, const struct hb_topology *t, uint64_t source_mask,
			   uint64_t node_step);

/*
 * Pages were moved onto node at now_ns (CLOCK_MONOTONIC): a record taken
 * before (its timestamp_ns, or when it was submitted) that names a page on
 * that node is dropped as stale: the frame it names may hold another page
 * now (a demotion's, say), which it would heat. Records already in the
 * table are not touched.
 */
void hb_ingest_moved_onto(struct hb_ingest *in, int node, uint64_t now_ns);
/*
 * Pages are being moved onto node (a batch of moves is out, off the loop's
 * thread): until it is over (moving false, then hb_ingest_moved_onto()
 * with its end), every record naming a page there is dropped as stale, as
 * one read after the batch would be.
 */
void hb_ingest_moving_onto(struct hb_ingest *in, int node, bool moving);

/*
 * Takes n records: works on them until deadline_ns (CLOCK_MONOTONIC; 0: no
 * deadline), then queues the rest. While a backlog exists, new records go
 * behind it. Returns 0, or -ENOBUFS when some were dropped as backlog_full.
 */
int hb_ingest_submit(struct hb_ingest *in, const struct hb_hot_record *r, size_t n,
		     uint64_t deadline_ns);
/* the same from source src (the daemon's index of it): the table keeps it for explain */
int hb_ingest_submit_from(struct hb_ingest *in, const struct hb_hot_record *r, size_t n, int src,
			  uint64_t deadline_ns);
/* Works the backlog until deadline_ns (0: all of it); returns what is left. */
size_t hb_ingest_drain(struct hb_ingest *in, uint64_t deadline_ns);
size_t hb_ingest_backlog(const struct hb_ingest *in);
/* the backlog holds env.backlog records or more: sources are to stop reading */
bool hb_ingest_backlog_full(const struct hb_ingest *in);
const struct hb_ingest_stats *hb_ingest_stats(const struct hb_ingest *in);

/* the backlog's default full level, in records (memory: about 100 bytes each) */
#define HB_INGEST_BACKLOG_DEFAULT (1u << 18)
/* the smallest full level env.backlog may give */
#define HB_INGEST_BACKLOG_MIN 1024u

#endif
