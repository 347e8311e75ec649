// SPDX-License-Identifier: MIT
/*
 * Instances a crashed daemon left behind: the cxl-events source names its
 * tracefs instance hotbridge-<pid>, and removes it at close. A daemon that
 * was killed (SIGKILL, a crash) cannot; its instance keeps its events
 * enabled and its buffers allocated. At open, every instances/hotbridge-<pid>
 * whose pid no process has is removed; one whose process lives (another
 * daemon, or a pid reused since) is left alone.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cxl-events.h"
#include "util/macro.h"

#define PREFIX "hotbridge-"

int hb_cxl_instance_pid(const char *name)
{
	uint64_t pid;

	if (strncmp(name, PREFIX, strlen(PREFIX)))
		return -EINVAL;
	name += strlen(PREFIX);
	/* decimal digits only: no sign, no 0x, no leading zero */
	if (!*name || *name == '0' || strspn(name, "0123456789") != strlen(name) ||
	    hb_parse_u64_base(name, 10, &pid) < 0 || pid > 0x3fffffff)
		return -EINVAL;
	return (int)pid;
}

int hb_cxl_remove_stale(const char *instances, void (*cb)(void *ud, const char *name, int err),
			void *ud)
{
	_hb_cleanup_closedir_ DIR *d = opendir(instances);
	struct dirent *de;
	int removed = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[4096];
		int pid = hb_cxl_instance_pid(de->d_name);

		if (pid <= 0)
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue; /* alive (or not ours to signal): in use */
		if (snprintf(path, sizeof(path), "%s/%s", instances, de->d_name) >= (int)sizeof(path))
			continue;
		if (rmdir(path) < 0) {
			cb(ud, de->d_name, -errno);
			continue;
		}
		cb(ud, de->d_name, 0);
		removed++;
	}
	return removed;
}
