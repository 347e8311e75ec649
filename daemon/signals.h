/* SPDX-License-Identifier: MIT */
/*
 * The daemon's signals (signals.c): every catchable one has its fate on
 * purpose, and hotbridge(8) SIGNALS lists them all.
 *   handled by the loop  TERM, INT (finish the cycle, exit 0), HUP (reload),
 *                        USR1 (log the counters line, keep running)
 *   ignored              PIPE (a write to a closed pipe is an error to handle),
 *                        USR2, ALRM, VTALRM, PROF, IO, PWR (nothing of ours
 *                        uses them: a stray one must not kill the daemon)
 *   left to the default  QUIT (a core dump), the faults (SEGV, BUS, FPE,
 *                        ILL, ABRT, TRAP, SYS), XCPU, XFSZ, job control, the
 *                        ignored-by-default CHLD, WINCH, URG, and the
 *                        real-time signals (a plugin's timers may use them)
 */
#ifndef HB_SIGNALS_H
#define HB_SIGNALS_H

#include <signal.h>
#include <stddef.h>

/* the signals the loop handles, in the order of hb_signals_handled[] */
extern const int hb_signals_handled[4];

/*
 * `run` before its set-up: the ignored ones ignored, the handled ones
 * blocked (one that arrives during the set-up waits for the loop, which
 * then acts on it). 0 or -errno.
 */
int hb_signals_prepare(void);
/* the loop's handlers are in: let the handled ones through (0 or -errno) */
int hb_signals_unblock(void);
/*
 * `run` after the loop, before its handlers go: the handled ones blocked
 * again, so that another SIGTERM during the exit waits and is dropped
 * with the process (0 or -errno)
 */
int hb_signals_block(void);

#endif
