// SPDX-License-Identifier: MIT
/* Capabilities: after start-up only what the migrator in use needs. */
#include <cap-ng.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon-private.h"

/*
 * After start-up (sources open, BARs mapped, sockets bound) keep only what
 * the migrator in use needs; the daemon never passes MPOL_MF_MOVE_ALL, so
 * CAP_SYS_NICE is never among them:
 *   phys     CAP_SYS_ADMIN        move_phys_pages checks it on every call
 *   pagemap  CAP_SYS_ADMIN        PFNs in /proc/<pid>/pagemap read as 0 without
 *            CAP_SYS_PTRACE       numa_maps, pagemap and move_pages(2) of
 *                                 processes of other users (ptrace read mode)
 *            CAP_DAC_READ_SEARCH  pagemap is mode 0400, owned by the task's uid
 *   damon    none: DAMON sysfs (0600/0400, owned by root), /proc/kpageflags
 *            (0400 root) and /proc/zoneinfo need uid 0, not a capability
 *            (mm/damon/sysfs*.c and fs/proc/page.c check none)
 *   dryrun   none
 */
void hb_daemon_drop_capabilities(struct hb_daemon *d)
{
	enum hb_migrator_kind kind = hb_migrator_kind(d->mig);
	const char *kept = "none";
	int r;

	if (d->env.keep_capabilities || geteuid() != 0)
		return;
	capng_clear(CAPNG_SELECT_BOTH);
	if (kind == HB_MIGRATOR_PHYS) {
		capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SYS_ADMIN);
		kept = "cap_sys_admin";
	} else if (kind == HB_MIGRATOR_PAGEMAP) {
		capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SYS_ADMIN,
			      CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, -1);
		kept = "cap_sys_admin, cap_sys_ptrace, cap_dac_read_search";
	}
	r = capng_apply(CAPNG_SELECT_BOTH);
	if (r < 0)
		hb_dlog(d, LOG_WARNING,
			"could not drop capabilities (capng_apply: %d), keeping them", r);
	else
		hb_dlog(d, LOG_INFO, "capabilities now: %s", kept);
}
