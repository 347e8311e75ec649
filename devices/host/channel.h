/* SPDX-License-Identifier: MIT */
/*
 * The channel between the daemon and a plugin host (hotbridge-plugin-host):
 * one SOCK_SEQPACKET socketpair, so every message arrives whole or not at
 * all. Each message is a struct hb_chan_hdr and a payload of hdr.len bytes.
 * Both ends are built from this tree, but the host is a separate file that a
 * package upgrade replaces apart from a running daemon: the version in every
 * header makes a mismatch a named error, not garbage.
 *
 * Host -> daemon: LOADED and OPENED (once each, rc in arg), LOG (arg the
 * priority, the text), RECORDS (arg records of struct hb_hot_record), EVENT
 * (one struct hb_device_event), BAD, OVERFLOW and DROPPED (a uint64_t
 * count), POLLED (arg the plugin's poll() return), PONG, MEMORY (the host
 * is at its memory limit; the text says how far; it exits next), SECCOMP
 * (arg a syscall's number, the text its name: the host's seccomp filter
 * trapped it; the host dies of SIGSYS next).
 * Daemon -> host: POLL (call the plugin's poll once), PING.
 */
#ifndef HB_HOST_CHANNEL_H
#define HB_HOST_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "hb-device.h"

#define HB_CHAN_VERSION 1u
#define HB_CHAN_MAGIC 0x68620000u /* "hb" in the high half, the version below */

enum hb_chan_type {
	HB_CHAN_LOADED = 1,
	HB_CHAN_OPENED,
	HB_CHAN_LOG,
	HB_CHAN_RECORDS,
	HB_CHAN_EVENT,
	HB_CHAN_BAD,
	HB_CHAN_OVERFLOW,
	HB_CHAN_DROPPED,
	HB_CHAN_POLLED,
	HB_CHAN_PONG,
	HB_CHAN_MEMORY,
	HB_CHAN_SECCOMP,
	HB_CHAN_POLL = 32,
	HB_CHAN_PING,
};

struct hb_chan_hdr {
	uint32_t magic; /* HB_CHAN_MAGIC | HB_CHAN_VERSION */
	uint16_t type;  /* enum hb_chan_type */
	uint16_t reserved;
	int32_t arg;  /* rc, priority or record count, by type */
	uint32_t len; /* payload bytes after the header */
};

/* records per RECORDS message: 256 * 64 bytes, well inside a socket buffer */
#define HB_CHAN_BATCH 256u
#define HB_CHAN_TEXT_MAX 1024u
#define HB_CHAN_MSG_MAX (sizeof(struct hb_chan_hdr) + HB_CHAN_BATCH * sizeof(struct hb_hot_record))

/* the fd the host finds its end of the channel on */
#define HB_CHAN_HOST_FD 3

/* the host's exit status when it stopped at its memory limit */
#define HB_HOST_EXIT_MEMORY 75
/* ... when the plugin could not be loaded or opened (LOADED/OPENED said why) */
#define HB_HOST_EXIT_REFUSED 2

/*
 * Checks a received message of n bytes: 0 and its type, or -EPROTO with
 * why (static text) for a wrong version, a length that disagrees with n or
 * with the type's payload, an unknown type.
 */
int hb_chan_check(const void *msg, size_t n, const char **why);

/*
 * Sends one message (MSG_DONTWAIT when nonblock): 0, -EAGAIN (nothing sent),
 * or -errno.
 */
int hb_chan_send(int fd, uint16_t type, int32_t arg, const void *payload, uint32_t len, int nonblock);

#endif
