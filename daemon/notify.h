/* SPDX-License-Identifier: MIT */
/*
 * systemd's notification protocol through libsystemd's sd_notify(3): one
 * datagram of "KEY=VALUE" lines to $NOTIFY_SOCKET. The daemon says
 * READY=1 with a STATUS= line once its loop runs, RELOADING=1 (with
 * MONOTONIC_USEC=, which systemd 253 and later want) and READY=1 around a
 * reload, STOPPING=1 at SIGTERM/SIGINT, and WATCHDOG=1 from its loop
 * every half $WATCHDOG_USEC when the unit has WatchdogSec=; every 10 s a
 * STATUS= of what it is doing, watchdog or not (the unit's 60 s watchdog
 * pings only every 30 s). Without $NOTIFY_SOCKET each is nothing.
 */
#ifndef HB_NOTIFY_H
#define HB_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "util/macro.h"

/* one datagram, printf-style; 0, or -errno (nobody listens: ignored by callers) */
int hb_notify(const char *fmt, ...) HB_PRINTF(1, 2);
/* whether there is a $NOTIFY_SOCKET to tell (a service manager listens) */
bool hb_notify_enabled(void);
/* RELOADING=1 with MONOTONIC_USEC= of now */
int hb_notify_reloading(void);
/*
 * The watchdog's period for this process (sd_watchdog_enabled(3):
 * $WATCHDOG_USEC, and $WATCHDOG_PID, when set, naming us): half of it, in
 * microseconds; 0 when there is no watchdog (or the values are bad).
 */
uint64_t hb_notify_watchdog_period_us(void);

#endif
