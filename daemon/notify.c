// SPDX-License-Identifier: MIT
/* systemd's notification datagrams (notify.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "notify.h"
#include "util/util.h"

int hb_notify(const char *fmt, ...)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[512];
	va_list ap;
	size_t len;
	int fd, n, r = 0;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	/* a path, or an abstract name ("@name"); nothing else is ours to use */
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, msg, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		r = -errno;
	close(fd);
	return r;
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
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	uint64_t u, p;

	if (!usec || hb_parse_u64_base(usec, 10, &u) < 0 || u < 2)
		return 0;
	if (pid && *pid && (hb_parse_u64_base(pid, 10, &p) < 0 || p != (uint64_t)getpid()))
		return 0;
	return u / 2;
}
