/* SPDX-License-Identifier: MIT */
/*
 * The daemon's intake stage (ingest/): the sources' records through
 * ingest.c into the table, in slices (intake.c), the plugin host that
 * calls the sources (source-host.c) and the media events they report
 * (media-events.c). Its state is struct hb_intake, a member of struct
 * hb_daemon (daemon-private.h). Not installed, not for commands.
 */
#ifndef HB_DAEMON_INTAKE_H
#define HB_DAEMON_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct event;
struct hb_candidate;
struct hb_daemon;
struct hb_device_event;
struct hb_ingest;
struct source;

/*
 * Ingestion works in slices of this length per loop turn; what is left waits
 * in its backlog, and the sources' fds are not read until it is worked off.
 */
#define INGEST_SLICE_NS (5ULL * 1000 * 1000)

/**
 * struct hb_intake - the intake's state
 * @ingest: records -> translation -> table, and its backlog (ingest.h)
 * @drain_ev: works the ingestion backlog off, a slice per loop turn
 * @turn_deadline: this loop turn's ingestion slice ends (0: no limit)
 * @throttled: the sources' fds are paused for the backlog
 * @pushed_back: a source was told the backlog is full: @resume_ev polls it
 *	once the backlog is worked off (source-host.c's, so intake.c calls
 *	no source)
 * @resume_ev: polls the sources that were pushed back
 * @full_logged: the backlog's overflow was logged (again once it drained)
 * @submitting: whose records are being taken in (for its warnings)
 */
struct hb_intake {
	struct hb_ingest *ingest;
	struct event *drain_ev;
	uint64_t turn_deadline;
	bool throttled;
	bool pushed_back;
	struct event *resume_ev;
	bool full_logged;
	struct source *submitting;
};

/*
 * a page kept out of promotion, and why (HB_QUARANTINE_* bits; 0: released,
 * its poison cleared, and kept only to remember that: a page poisoned again
 * after a clear is never released again), and its clears
 */
#define HB_QUARANTINE_POISON 1u
#define HB_QUARANTINE_UNCORRECTABLE 2u
struct hb_quarantined {
	uint64_t page;
	uint32_t why;
	uint32_t cleared;
};

/* media-events.c's state: the quarantined pages, the mismatch log's rate */
struct hb_media_state {
	struct hb_quarantined *quar; /* sorted by page */
	size_t nquar, cap;
	uint64_t mismatch_logged_ns, mismatch_quiet;
};

/* media-events.c */
int hb_daemon_media_event(struct hb_daemon *d, const struct hb_device_event *ev);
/* hpa's page when it is kept out of promotion now (NULL: it is not) */
const struct hb_quarantined *hb_daemon_quarantined(const struct hb_daemon *d, uint64_t hpa);
/*
 * c[0..n) with the quarantined pages moved to its end (forgotten by the
 * table too, their order kept); the number of the others, before them
 */
size_t hb_daemon_drop_quarantined(struct hb_daemon *d, struct hb_candidate *c, size_t n);
/*
 * The promotion's decisions dec[0..n) refused for quarantine (those that
 * became quarantined since they were gathered; what they spent given
 * back), then the pages the gathering set aside, c[n..n + nq), as
 * HB_REASON_QUARANTINED decisions after them; the new number of decisions
 */
size_t hb_daemon_refuse_quarantined(struct hb_daemon *d, struct hb_decision *dec, size_t n,
				    const struct hb_candidate *c, size_t nq,
				    struct hb_policy_spent *spent);
void hb_daemon_media_free(struct hb_daemon *d);

/* source-host.c */
int hb_daemon_open_sources(struct hb_daemon *d);
void hb_daemon_poll_sources(struct hb_daemon *d);
void hb_daemon_close_sources(struct hb_daemon *d);
/* Stopped built-in sources opened again (their device back): after a topology rebuild. */
void hb_daemon_reopen_stopped_sources(struct hb_daemon *d);

/* intake.c */
int hb_daemon_intake_new(struct hb_daemon *d, struct hb_err *err);
void hb_daemon_turn_begin(struct hb_daemon *d);
void hb_daemon_turn_end(struct hb_daemon *d);
int hb_daemon_node_of(struct hb_daemon *d, uint64_t hpa);
int hb_daemon_node_of_ud(void *ud, uint64_t hpa);
int hb_daemon_set_ingest_topology(struct hb_daemon *d);

#endif
