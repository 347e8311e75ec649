/* SPDX-License-Identifier: MIT */
/*
 * The daemon's logger: one sink (stderr, with journald's "<N>" prefixes
 * when stderr is the journal, or syslog(3)) and one threshold, a LOG_*
 * priority parsed from the configuration's log_level when it is taken in
 * (start-up and reload), never per message.
 */
#ifndef HB_DAEMON_LOGGER_H
#define HB_DAEMON_LOGGER_H

#include <stdarg.h>
#include <stdbool.h>

#include "util/macro.h"

struct hb_logger {
	int level;    /* LOG_ERR .. LOG_DEBUG: messages at this priority or more urgent */
	bool syslog;  /* log_target = syslog */
	bool journal; /* stderr is the journal */
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

#endif
