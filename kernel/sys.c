// SPDX-License-Identifier: MIT
/*
 * The system-call seam. Nothing else in hotbridge enters the kernel for
 * migration; unit tests replace these two functions with -Wl,--wrap.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"

long hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
			    const int *nodes, int *status, int flags)
{
	long r = syscall(nr, count, pages, nodes, status, flags);

	return r < 0 ? -errno : r;
}

long hb_sys_move_pages(pid_t pid, unsigned long count, void **pages, const int *nodes,
		       int *status, int flags)
{
	long r = syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);

	return r < 0 ? -errno : r;
}
