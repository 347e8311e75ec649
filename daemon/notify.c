// SPDX-License-Identifier: MIT
/* systemd's notifications through libsystemd (notify.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "notify.h"

int hb_notify(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EINVAL;
	r = sd_notify(0, msg); /* 0: no $NOTIFY_SOCKET; > 0: sent */
	return r < 0 ? r : 0;
}

bool hb_notify_enabled(void)
{
	const char *e = getenv("NOTIFY_SOCKET");

	return e && *e;
}

int hb_notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return hb_notify("RELOADING=1\nMONOTONIC_USEC=%llu",
			 (unsigned long long)ts.tv_sec * 1000000ULL +
				 (unsigned long long)ts.tv_nsec / 1000);
}

uint64_t hb_notify_watchdog_period_us(void)
{
	uint64_t usec = 0;

	/* > 0: $WATCHDOG_USEC is set and $WATCHDOG_PID, if set, names us */
	if (sd_watchdog_enabled(0, &usec) <= 0 || usec < 2)
		return 0;
	return usec / 2;
}
