/* SPDX-License-Identifier: MIT */
/*
 * The paused state kept across restarts (pause-state.c): [daemon]
 * pause_state names a file that exists while promotion is paused.
 */
#ifndef HB_PAUSE_STATE_H
#define HB_PAUSE_STATE_H

#include <stdbool.h>

#include "util/util.h"

/*
 * Whether path says paused: 1 (a regular file is there), 0 (nothing is
 * there, nor its directory) or a negative errno with err naming what is
 * there instead. An empty path keeps nothing: 0.
 */
int hb_pause_state_read(const char *path, struct hb_err *err);
/* Keep paused in path: the file written (atomically) or removed. 0 or -errno. */
int hb_pause_state_write(const char *path, bool paused, struct hb_err *err);

#endif
