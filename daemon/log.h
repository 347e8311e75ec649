/* SPDX-License-Identifier: MIT */
/*
 * Log lines on stderr, for a terminal or for journald. When stderr is the
 * journal, each line starts with its syslog priority ("<3>"), which
 * journald turns into the entry's PRIORITY (sd-daemon(3)); no libsystemd.
 * The daemon's logger and the start-up errors before it exists share this.
 */
#ifndef HB_LOG_H
#define HB_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/macro.h"

/*
 * True when the value of $JOURNAL_STREAM ("DEV:INO", both decimal, as
 * systemd sets it) names the file with that device and inode. NULL or
 * anything malformed: false.
 */
bool hb_log_journal_stream_matches(const char *journal_stream, uint64_t dev, uint64_t ino);
/* The decision for stderr now: $JOURNAL_STREAM matches fd 2 (fstat). */
bool hb_log_stderr_is_journal(void);

/*
 * One line on stderr: "<prio>" first when journal is true, then "who: "
 * unless who is NULL, the message and a newline, written as one piece.
 * A line stderr does not take (its reader gone, or closed) goes to syslog.
 */
void hb_log_vstderr(bool journal, int prio, const char *who, const char *fmt, va_list ap)
	HB_PRINTF(4, 0);
/* Before the daemon's logger exists: hb_log_vstderr() with the decision above. */
void hb_log_early(int prio, const char *who, const char *fmt, ...) HB_PRINTF(3, 4);

#endif /* HB_LOG_H */
