/* SPDX-License-Identifier: MIT */
/*
 * What the ingestion files share: ingest.c (set-up and the backlog) and
 * ingest-record.c (one record through translation into the table).
 */
#ifndef HB_INGEST_PRIVATE_H
#define HB_INGEST_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"

/*
 * One step adds at most STEP_PAGES pages; the clock is read every
 * CLOCK_EVERY steps, so a slice overruns its deadline by well under 1 ms.
 */
#define STEP_PAGES 256
#define CLOCK_EVERY 16
#define PEND_MAX 32
#define PREFETCH_AHEAD 8
#define BACKLOG_MIN 1024
#define MD_CACHE 4

_Static_assert(HB_MEMDEV_NAME_MAX == 2 * sizeof(uint64_t), "the memdev cache keys 16 bytes");

struct span {
	uint64_t base, end; /* a committed region's [base, end) */
};

/* A record being worked on: how far, and what happened to it so far. */
struct work {
	struct hb_hot_record r;
	uint64_t off;     /* bytes of r done */
	uint64_t seen_ns; /* when it was submitted */
	uint32_t drops;   /* 1 << enum hb_drop */
	bool added;       /* a page of r entered the table */
	bool checked;     /* its length was checked */
	int md;           /* DPA: its memdev, looked up in topology gen */
	uint64_t gen;
	int src; /* the submitting source's index, or -1 */
};

struct piece {
	uint64_t hpa, len;
	double count;
	int node;
	int src;
};

struct hb_ingest {
	struct hb_ingest_env env;
	const struct hb_topology *topo;
	uint64_t source_mask, node_step, page_mask;
	struct span *spans; /* sorted by base */
	size_t nspans;
	uint64_t cxl_bytes; /* sum of the committed regions' sizes */
	/* the last node lookup: [nb_base, nb_end) is on nb_node */
	uint64_t nb_base, nb_end;
	int nb_node;
	/* recent memdev lookups, keyed by the record's raw name bytes */
	struct md_cache {
		uint64_t key[2];
		int md;
	} mdc[MD_CACHE];
	unsigned int mdc_len, mdc_next;
	uint64_t gen;            /* bumped by every topology */
	uint64_t moved_onto[64]; /* by node: when pages were last moved onto it */
	uint64_t moving_onto;    /* bit n: pages are being moved onto node n */
	struct piece pend[PEND_MAX];
	size_t npend;
	struct work *q; /* ring: q[head..head+len) modulo cap */
	size_t qhead, qlen, qcap;
	size_t qfull, qmax; /* full at qfull records; none taken past qmax */
	/* bad records of the current submit */
	uint64_t burst_bad;
	char burst_first[160];
	struct hb_ingest_stats *st, own;
};

/* the pages [addr, addr + len) touches did not enter the table, for reason */
void hb_ingest_drop_pages(struct hb_ingest *in, struct work *w, enum hb_drop reason, uint64_t addr,
			  uint64_t len);
/* the pieces waiting for the table, into it */
void hb_ingest_flush(struct hb_ingest *in);
/* w is done: its counts, and its latency at now */
void hb_ingest_finish(struct hb_ingest *in, const struct work *w, uint64_t now);
/* Works on w until it is done (true) or the deadline passed (false). */
bool hb_ingest_work(struct hb_ingest *in, struct work *w, uint64_t deadline, unsigned int *steps);

#endif
