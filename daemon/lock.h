/* SPDX-License-Identifier: MIT */
/* The daemon's PID lock file (lock.c). */
#ifndef HB_LOCK_H
#define HB_LOCK_H

#include <sys/types.h>

#include "util/util.h"

/*
 * Take the PID lock file path (created 0644, its directory 0700): opened
 * O_NOFOLLOW, refused unless a regular file owned by us, flock'ed
 * exclusively without waiting, our PID written in it. *ret_fd holds the
 * lock until hb_pid_lock_release(). -EWOULDBLOCK when another process holds
 * it: *ret_holder (may be NULL) is then its PID, 0 if it wrote none yet.
 */
int hb_pid_lock_take(const char *path, int *ret_fd, pid_t *ret_holder, struct hb_err *err);
/* Drops the lock (the file stays); returns -1 for "fd = hb_pid_lock_release(fd)". */
int hb_pid_lock_release(int fd);

#endif
