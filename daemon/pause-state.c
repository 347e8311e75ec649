// SPDX-License-Identifier: MIT
/*
 * The paused state kept across restarts: `hotbridge pause` writes the file
 * [daemon] pause_state names, `resume` removes it, and run reads it at
 * start, so a crash, Restart=on-failure or a watchdog abort does not undo
 * an operator's pause.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pause-state.h"

#define PAUSED_TEXT "paused by `hotbridge pause`; `hotbridge resume` removes this file\n"

int hb_pause_state_read(const char *path, struct hb_err *err)
{
	struct stat st;

	if (!path[0])
		return 0;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return hb_err_set(err, -errno, "daemon.pause_state=%s: %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return hb_err_set(err, -EINVAL, "daemon.pause_state=%s: not a regular file", path);
	return 1;
}

int hb_pause_state_write(const char *path, bool paused, struct hb_err *err)
{
	int r;

	if (!path[0])
		return 0;
	if (!paused) {
		if (unlink(path) < 0 && errno != ENOENT)
			return hb_err_set(err, -errno, "daemon.pause_state=%s: %s", path,
					  strerror(errno));
		return 0;
	}
	r = hb_mkdir_parent(path, 0755);
	if (r >= 0)
		r = hb_write_file_atomic(path, PAUSED_TEXT, strlen(PAUSED_TEXT), 0644);
	if (r < 0)
		return hb_err_set(err, r, "daemon.pause_state=%s: %s", path, strerror(-r));
	return 0;
}
