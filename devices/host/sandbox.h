/* SPDX-License-Identifier: MIT */
/*
 * The plugin host's confinement (sandbox.c), applied before the plugin is
 * loaded, so its constructors run confined too.
 */
#ifndef HB_HOST_SANDBOX_H
#define HB_HOST_SANDBOX_H

#include <stdint.h>

#include "util/util.h"

/*
 * rlimits (address space mem_limit bytes, 0: none; no core files; 256
 * fds), every capability dropped (the bounding set too, when the host may),
 * PR_SET_NO_NEW_PRIVS, Landlock (no file written, created or removed
 * outside /dev and /sys; a kernel without Landlock: warn says so and the
 * host goes on), then a seccomp filter that allows
 * only what the host and a telemetry plugin need (memory, files and device
 * files, poll and timers, the channel, time, threads, signals to the host
 * itself: the list in sandbox.c, explained in devices/docs/plugins.md).
 * Any other call traps: SIGSYS, whose handler the caller has installed
 * before (a plugin cannot replace it) and which names the call
 * (hb_host_syscall_name()) before the host dies of it. 0, or -errno with
 * err saying which step failed.
 */
int hb_host_sandbox(uint64_t mem_limit, struct hb_err *warn, struct hb_err *err);

/* A syscall's name by number ("?" unknown), async-signal-safe once sandboxed. */
const char *hb_host_syscall_name(long nr);

#endif
