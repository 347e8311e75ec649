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

#define SYSFS_DIR "/sys/kernel/mm/move_phys_pages"
#define SYSCALL_NAME "sys_move_phys_pages"

HB_DEFINE_CLEANUP(FILE *, fclose)

/*
 * The call's entry symbol on any architecture: sys_move_phys_pages, or an
 * architecture's wrapper of it (__x64_sys_, __ia32_sys_, __arm64_sys_,
 * __riscv_sys_, __s390x_sys_, and the __do_sys_/__se_sys_ helpers).
 */
static bool is_entry_symbol(const char *name)
{
	size_t n = strlen(name), k = strlen(SYSCALL_NAME);

	return n >= k && !strcmp(name + n - k, SYSCALL_NAME) && (n == k || name[n - k - 1] == '_');
}

/*
 * What /proc/kallsyms says of the call, for a refusal's message only (a
 * symbol proves that the function exists, not which number reaches it):
 * 1 and its name in sym: a text symbol; -ENOSYS: only weak stubs
 * (COND_SYSCALL: compiled out); 0: absent; other < 0: unreadable.
 */
static int kallsyms_has(const char *root, char *sym, size_t size)
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

		if (sscanf(line, "%*s %c %255s", &type, name) != 2 || !is_entry_symbol(name))
			continue;
		if (type == 'T' || type == 't') {
			snprintf(sym, size, "%.63s", name);
			return 1;
		}
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

/* Without syscall_nr: what the kernel shows of the call, for the refusal. */
static void what_the_kernel_shows(const char *root, char *buf, size_t size)
{
	char sym[64] = "";
	int r = kallsyms_has(root, sym, sizeof(sym));
	uint64_t abi;

	if (hb_read_u64(root, SYSFS_DIR "/abi_version", 10, &abi) >= 0)
		snprintf(buf, size, "this architecture does not number the call (abi_version%s%s)",
			 r == 1 ? ", " : "", r == 1 ? sym : "");
	else if (r == -ENOSYS)
		snprintf(buf, size,
			 "/proc/kallsyms has only a weak stub (compiled out: NUMA or MIGRATION off)");
	else if (r == 1)
		snprintf(buf, size, "%s is in /proc/kallsyms: a port without the sysfs patch", sym);
	else if (r < 0 && tracepoint_has(root))
		snprintf(buf, size,
			 "the sys_enter_move_phys_pages tracepoint exists, with no number");
	else if (r < 0)
		snprintf(buf, size, "cannot read /proc/kallsyms (%s)", strerror(-r));
	else
		snprintf(buf, size,
			 "/proc/kallsyms has no " SYSCALL_NAME
			 ": this kernel does not carry kernel/patches/");
}

int hb_mpp_probe(const char *root, long configured_nr, struct hb_mpp *ret, struct hb_err *err)
{
	uint64_t sysfs_nr = 0, abi = 0;
	char shows[128];
	int r;

	*ret = (struct hb_mpp){ .available = false, .nr = -1, .mempolicy = -1 };

	/*
	 * review W2: the kernel's own syscall_nr is the only proof of which
	 * call a number reaches. A symbol or a tracepoint proves that the
	 * function exists, not the number: on a kernel without the series, or
	 * another port, 451 is cachestat (6.5+). A number is never called
	 * without that file, configured or not.
	 */
	r = hb_read_u64(root, SYSFS_DIR "/syscall_nr", 10, &sysfs_nr);
	if (r < 0) {
		char file[96];

		what_the_kernel_shows(root, shows, sizeof(shows));
		snprintf(file, sizeof(file), "%s/syscall_nr%s%s%s", SYSFS_DIR,
			 r == -ENOENT ? "" : " (", r == -ENOENT ? "" : strerror(-r),
			 r == -ENOENT ? "" : ")");
		if (configured_nr > 0)
			return refuse(ret, err, -ENOSYS,
				      "syscall number %ld is not called without %s, the only proof "
				      "of which call it reaches; %s",
				      configured_nr, file, shows);
		return refuse(ret, err, -ENOSYS, "no %s; %s", file, shows);
	}
	if (sysfs_nr == 0 || sysfs_nr >= 4096)
		return refuse(ret, err, -EINVAL, "%s/syscall_nr holds %llu, not a syscall number",
			      SYSFS_DIR, (unsigned long long)sysfs_nr);
	r = hb_read_u64(root, SYSFS_DIR "/abi_version", 10, &abi);
	if (r < 0)
		return refuse(ret, err, -EPROTO, "%s/abi_version: %s", SYSFS_DIR, strerror(-r));
	if (abi != HB_MPP_ABI_VERSION)
		return refuse(ret, err, -EPROTO,
			      "kernel speaks move_phys_pages ABI %llu, "
			      "hotbridge speaks %d",
			      (unsigned long long)abi, HB_MPP_ABI_VERSION);
	if (configured_nr > 0 && (uint64_t)configured_nr != sysfs_nr)
		return refuse(ret, err, -EINVAL,
			      "configured syscall number %ld but the kernel "
			      "declares %llu in %s/syscall_nr",
			      configured_nr, (unsigned long long)sysfs_nr, SYSFS_DIR);

	ret->available = true;
	ret->nr = (long)sysfs_nr;
	snprintf(ret->why, sizeof(ret->why), "number %ld (%s), proved by %s/syscall_nr", ret->nr,
		 configured_nr > 0 ? "configured, matches sysfs" : "from sysfs", SYSFS_DIR);
	return 0;
}

long hb_mpp_move(const struct hb_mpp *m, unsigned long count, const uint64_t *pages,
		 const int *nodes, int *status, int flags)
{
	if (!m || !m->available)
		return -ENOSYS;
	return hb_sys_move_phys_pages(m->nr, count, pages, nodes, status, flags);
}
