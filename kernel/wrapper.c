// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"

#define SYM "__x64_sys_move_phys_pages"

HB_DEFINE_CLEANUP(FILE *, fclose)

/* 1: a text symbol, 0: absent, -ENOSYS: a weak stub (compiled out) */
static int kallsyms_has(const char *root, struct hb_err *err)
{
	_hb_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], line[512];
	int found = 0;

	if (snprintf(path, sizeof(path), "%s/proc/kallsyms", root ? root : "") >= (int)sizeof(path))
		return hb_err_set(err, -ENAMETOOLONG, "path too long");
	f = fopen(path, "re");
	if (!f)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];

		if (sscanf(line, "%*s %c %255s", &type, name) != 2 || strcmp(name, SYM))
			continue;
		if (type == 'T' || type == 't')
			return 1;
		found = -ENOSYS; /* W: COND_SYSCALL stub */
	}
	return found;
}

int hb_mpp_probe(const char *root, long configured_nr, struct hb_mpp *ret, struct hb_err *err)
{
	int r;

	*ret = (struct hb_mpp){ .available = false, .nr = -1 };
	if (configured_nr <= 0)
		return hb_err_set(err, -EINVAL,
				  "no move_phys_pages syscall number configured (it has none upstream)");
	r = kallsyms_has(root, err);
	if (r < 0 && r != -ENOSYS)
		return r;
	if (r == -ENOSYS)
		return hb_err_set(err, -ENOSYS, "kernel has %s only as a stub (compiled out)", SYM);
	if (r == 0)
		return hb_err_set(err, -ENOSYS, "kernel has no %s: not a move_phys_pages kernel", SYM);
	ret->available = true;
	ret->nr = configured_nr;
	return 0;
}

long hb_mpp_move(const struct hb_mpp *m, unsigned long count, const uint64_t *pages,
		 const int *nodes, int *status, int flags)
{
	long r;

	if (!m || !m->available)
		return -ENOSYS;
	r = syscall(m->nr, count, pages, nodes, status, flags);
	return r < 0 ? -errno : r;
}
