/* SPDX-License-Identifier: MIT */
/*
 * The decision history as the daemon keeps and shows it: one cycle's
 * decisions into the ring (core/history.c), entries out as JSON for
 * `hotbridge history` and `explain`.
 */
#ifndef HB_HISTORY_JSON_H
#define HB_HISTORY_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

/* `history --last N`: at most this many entries a reply */
#define HB_HISTORY_REPLY_MAX 200
#define HB_HISTORY_REPLY_DEFAULT 20

struct hb_topology;
struct json_object;

struct hb_history_cycle {
	uint64_t time_ns;                   /* CLOCK_REALTIME of the decision */
	const struct hb_topology *topology; /* for memdev:DPA; NULL: not known */
	const struct hb_decision *dec;      /* the cycle's decisions */
	size_t n;
	const int *status;       /* the migrator's per-page results, one */
	size_t np;               /* per HB_REASON_PROMOTE or _DEMOTE, in order */
	unsigned int min_epochs; /* policy.min_epochs then (too_few_epochs says it) */
};

/*
 * Records the decisions acted on (promote, with the migrator's result) or
 * refused by a rule. Pages held back (hysteresis, on target, refused by
 * the kernel) are not recorded again: the entry that held them says why.
 * Returns the number recorded.
 */
size_t hb_history_record(struct hb_history *h, const struct hb_history_cycle *c);

/* a page's move status in words: strerror(), but EXDEV is the memory-policy refusal */
const char *hb_move_strerror(int e);
/* "EACCES" for EACCES; "unknown" when the C library has no name */
const char *hb_errno_name(int e);

/* the daemon's source names by index, for an entry's hotness_source */
struct hb_source_names {
	const char *const *name;
	size_t n;
};

struct json_object *hb_history_entry_json(const struct hb_history_entry *e, uint64_t now_ns,
					  const struct hb_source_names *names);
/* up to last entries, newest first, of all pages or of hpa's page: an array */
struct json_object *hb_history_find_json(const struct hb_history *h, bool page_only, uint64_t hpa,
					 uint64_t page_size, size_t last, uint64_t now_ns,
					 const struct hb_source_names *names);

#endif
