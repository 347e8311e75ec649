/* SPDX-License-Identifier: MIT */
/*
 * Kernel uevents (NETLINK_KOBJECT_UEVENT): the daemon rebuilds its
 * topology when a CXL object (region, decoder, memdev), a dax device or a
 * memory block comes, goes or changes state.
 */
#ifndef HB_UEVENT_H
#define HB_UEVENT_H

#include <stddef.h>

struct hb_uevent {
	char action[16];
	char subsystem[32];
	char devpath[256];
};

/* A non-blocking netlink socket on the kernel's uevent group; -errno. */
int hb_uevent_open(void);

/*
 * Parses one message ("action@devpath" then KEY=VALUE strings, each NUL-
 * terminated). Returns 1 when it concerns the topology (SUBSYSTEM cxl, dax
 * or memory), 0 for other subsystems and udev's own messages, -EINVAL when
 * malformed.
 */
int hb_uevent_parse(const char *buf, size_t len, struct hb_uevent *ev);

#endif
