// SPDX-License-Identifier: MIT
/* Kernel uevents: the socket and the message parser. */
#include <errno.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/uevent.h"

int hb_uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static void copy(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

int hb_uevent_parse(const char *buf, size_t len, struct hb_uevent *ev)
{
	const char *p = buf, *end = buf + len, *at, *nul;

	memset(ev, 0, sizeof(*ev));
	if (len >= 8 && !memcmp(buf, "libudev", 8))
		return 0; /* udev's rebroadcast, not the kernel's */
	nul = memchr(p, '\0', len);
	if (!nul || !(at = memchr(p, '@', (size_t)(nul - p))) || at == p)
		return -EINVAL;
	copy(ev->action, sizeof(ev->action), p, (size_t)(at - p));
	copy(ev->devpath, sizeof(ev->devpath), at + 1, (size_t)(nul - at - 1));
	for (p = nul + 1; p < end; p = nul + 1) {
		nul = memchr(p, '\0', (size_t)(end - p));
		if (!nul)
			nul = end;
		if ((size_t)(nul - p) > 10 && !memcmp(p, "SUBSYSTEM=", 10))
			copy(ev->subsystem, sizeof(ev->subsystem), p + 10, (size_t)(nul - p - 10));
	}
	return !strcmp(ev->subsystem, "cxl") || !strcmp(ev->subsystem, "dax") ||
	       !strcmp(ev->subsystem, "memory");
}
