// SPDX-License-Identifier: MIT
/* The plugin host's channel (channel.h): one message checked, one sent. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "host/channel.h"

int hb_chan_check(const void *msg, size_t n, const char **why)
{
	struct hb_chan_hdr h;

	if (n < sizeof(h)) {
		*why = "a message shorter than its header";
		return -EPROTO;
	}
	memcpy(&h, msg, sizeof(h));
	if ((h.magic & 0xffff0000u) != HB_CHAN_MAGIC) {
		*why = "not a channel message (bad magic)";
		return -EPROTO;
	}
	if ((h.magic & 0xffffu) != HB_CHAN_VERSION) {
		*why = "another channel version (host and daemon from different builds)";
		return -EPROTO;
	}
	if (h.len != n - sizeof(h)) {
		*why = "a length that disagrees with the message";
		return -EPROTO;
	}
	switch (h.type) {
	case HB_CHAN_RECORDS:
		if (h.arg <= 0 || (uint32_t)h.arg > HB_CHAN_BATCH ||
		    h.len != (uint32_t)h.arg * sizeof(struct hb_hot_record)) {
			*why = "a records message whose count disagrees with its length";
			return -EPROTO;
		}
		return h.type;
	case HB_CHAN_EVENT:
		if (h.len != sizeof(struct hb_device_event)) {
			*why = "an event message of the wrong size";
			return -EPROTO;
		}
		return h.type;
	case HB_CHAN_BAD:
	case HB_CHAN_OVERFLOW:
	case HB_CHAN_DROPPED:
		if (h.len != sizeof(uint64_t)) {
			*why = "a counter message of the wrong size";
			return -EPROTO;
		}
		return h.type;
	case HB_CHAN_LOADED:
	case HB_CHAN_OPENED:
	case HB_CHAN_LOG:
	case HB_CHAN_MEMORY:
	case HB_CHAN_SECCOMP:
		if (h.len > HB_CHAN_TEXT_MAX) {
			*why = "a text message longer than the channel allows";
			return -EPROTO;
		}
		return h.type;
	case HB_CHAN_POLLED:
	case HB_CHAN_PONG:
	case HB_CHAN_POLL:
	case HB_CHAN_PING:
		if (h.len) {
			*why = "a payload on a message that has none";
			return -EPROTO;
		}
		return h.type;
	default: *why = "an unknown message type"; return -EPROTO;
	}
}

int hb_chan_send(int fd, uint16_t type, int32_t arg, const void *payload, uint32_t len, int nonblock)
{
	struct hb_chan_hdr h = {
		.magic = HB_CHAN_MAGIC | HB_CHAN_VERSION, .type = type, .arg = arg, .len = len
	};
	struct iovec iov[2] = { { .iov_base = &h, .iov_len = sizeof(h) },
				{ .iov_base = (void *)payload, .iov_len = len } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

	for (;;) {
		ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL | (nonblock ? MSG_DONTWAIT : 0));

		if (w >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
}
