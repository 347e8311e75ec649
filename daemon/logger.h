/* SPDX-License-Identifier: MIT */
/*
 * The daemon's logger: one sink (the journal through sd_journal_sendv(3)
 * when stderr is the journal's stream, stderr otherwise, or syslog(3)) and
 * one threshold, a LOG_* priority parsed from the configuration's log_level
 * when it is taken in (start-up and reload), never per message. In the
 * journal a record carries PRIORITY=, SYSLOG_IDENTIFIER=hotbridge and the
 * fields its caller names (SOURCE=, MEMDEV=, HPA=, DPA=), so
 * `journalctl -u hotbridge MEMDEV=mem0` finds a device's records; where the
 * journal does not take a record it goes to stderr as a "<N>" line.
 */
#ifndef HB_DAEMON_LOGGER_H
#define HB_DAEMON_LOGGER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/macro.h"

struct hb_logger {
	int level;    /* LOG_ERR .. LOG_DEBUG: messages at this priority or more urgent */
	bool syslog;  /* log_target = syslog */
	bool journal; /* stderr is the journal */
};

#define HB_LOG_NO_ADDR UINT64_MAX

/* what a record is about, as journal fields; NULL and HB_LOG_NO_ADDR: not said */
struct hb_log_fields {
	const char *source; /* SOURCE=: the source's name in the configuration */
	const char *memdev; /* MEMDEV=: mem0 */
	uint64_t hpa, dpa;  /* HPA=, DPA=: 0x hex */
};

/* "err" | "warning" | "notice" | "info" | "debug" -> LOG_*, or -EINVAL */
int hb_log_level_from_string(const char *s);

/*
 * From log_level and log_target (as check-config accepts them); opens
 * syslog when that is the target. -EINVAL for an unknown level or target
 * (the logger is left unchanged).
 */
int hb_logger_init(struct hb_logger *l, const char *level, const char *target);
/* A new threshold (reload); -EINVAL for an unknown level, keeping the old one. */
int hb_logger_set_level(struct hb_logger *l, const char *level);

void hb_logger_vlog(const struct hb_logger *l, int prio, const char *fmt, va_list ap) HB_PRINTF(3, 0);
void hb_logger_log(const struct hb_logger *l, int prio, const char *fmt, ...) HB_PRINTF(3, 4);
/* the same with fields (f may be NULL); the message's text is the same in every sink */
void hb_logger_vlogf(const struct hb_logger *l, int prio, const struct hb_log_fields *f,
		     const char *fmt, va_list ap) HB_PRINTF(4, 0);
void hb_logger_logf(const struct hb_logger *l, int prio, const struct hb_log_fields *f,
		    const char *fmt, ...) HB_PRINTF(4, 5);

#endif
