// SPDX-License-Identifier: MIT
/*
 * Proving that the running kernel has move_phys_pages, and which number it
 * has, before anything calls it.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel.h"

#define SYM "__x64_sys_move_phys_pages"
#define SYSFS_DIR "/sys/kernel/mm/move_phys_pages"

HB_DEFINE_CLEANUP(FILE *, fclose)

/* 1: a text symbol, 0: absent, -ENOSYS: a weak stub (compiled out), <0 I/O */
static int kallsyms_has(const char *root)
{
	_hb_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], line[512];
	int found = 0;

	if (snprintf(path, sizeof(path), "%s/proc/kallsyms", root ? root : "") >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
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

static bool tracepoint_has(const char *root)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events/syscalls/sys_enter_move_phys_pages",
		"/sys/kernel/debug/tracing/events/syscalls/sys_enter_move_phys_pages",
	};
	char path[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < HB_ARRAY_SIZE(dirs); i++) {
		if (snprintf(path, sizeof(path), "%s%s", root ? root : "", dirs[i]) >=
		    (int)sizeof(path))
			continue;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return true;
	}
	return false;
}

HB_PRINTF(4, 5)
static int refuse(struct hb_mpp *m, struct hb_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
	return hb_err_set(err, code, "move_phys_pages unavailable: %s", m->why);
}

int hb_mpp_probe(const char *root, long configured_nr, struct hb_mpp *ret, struct hb_err *err)
{
	const char *proof;
	uint64_t sysfs_nr = 0, abi = 0;
	bool have_sysfs_nr;
	int r;

	*ret = (struct hb_mpp){ .available = false, .nr = -1 };

	r = kallsyms_has(root);
	if (r == -ENOSYS)
		return refuse(ret, err, -ENOSYS,
			      "/proc/kallsyms has %s only as a weak stub "
			      "(compiled out: NUMA or MIGRATION off)",
			      SYM);
	if (r == 1)
		proof = "text symbol " SYM " in /proc/kallsyms";
	else if (tracepoint_has(root))
		proof = "syscall tracepoint sys_enter_move_phys_pages";
	else if (r < 0)
		return refuse(ret, err, -ENOSYS,
			      "cannot read /proc/kallsyms (%s) and no "
			      "sys_enter_move_phys_pages tracepoint",
			      strerror(-r));
	else
		return refuse(ret, err, -ENOSYS,
			      "no %s in /proc/kallsyms: this kernel does not "
			      "carry kernel/patches/",
			      SYM);

	r = hb_read_u64(root, SYSFS_DIR "/syscall_nr", 10, &sysfs_nr);
	have_sysfs_nr = r >= 0 && sysfs_nr > 0 && sysfs_nr < 4096;
	if (r >= 0 && !have_sysfs_nr)
		return refuse(ret, err, -EINVAL, "%s/syscall_nr holds %llu, not a syscall number",
			      SYSFS_DIR, (unsigned long long)sysfs_nr);
	if (have_sysfs_nr) {
		r = hb_read_u64(root, SYSFS_DIR "/abi_version", 10, &abi);
		if (r < 0)
			return refuse(ret, err, -EPROTO, "%s/abi_version: %s", SYSFS_DIR,
				      strerror(-r));
		if (abi != HB_MPP_ABI_VERSION)
			return refuse(ret, err, -EPROTO,
				      "kernel speaks move_phys_pages ABI %llu, "
				      "hotbridge speaks %d",
				      (unsigned long long)abi, HB_MPP_ABI_VERSION);
	}

	if (configured_nr > 0 && have_sysfs_nr && (uint64_t)configured_nr != sysfs_nr)
		return refuse(ret, err, -EINVAL,
			      "configured syscall number %ld but the kernel "
			      "declares %llu in %s/syscall_nr",
			      configured_nr, (unsigned long long)sysfs_nr, SYSFS_DIR);
	if (configured_nr <= 0 && !have_sysfs_nr)
		return refuse(ret, err, -EINVAL,
			      "no syscall number configured and no %s/syscall_nr "
			      "(it has no upstream number)",
			      SYSFS_DIR);

	ret->available = true;
	ret->nr = configured_nr > 0 ? configured_nr : (long)sysfs_nr;
	snprintf(ret->why, sizeof(ret->why), "number %ld (%s), proved by %s", ret->nr,
		 configured_nr > 0 ? (have_sysfs_nr ? "configured, matches sysfs" : "configured") :
				     "from sysfs",
		 proof);
	return 0;
}

long hb_mpp_move(const struct hb_mpp *m, unsigned long count, const uint64_t *pages,
		 const int *nodes, int *status, int flags)
{
	if (!m || !m->available)
		return -ENOSYS;
	return hb_sys_move_phys_pages(m->nr, count, pages, nodes, status, flags);
}
