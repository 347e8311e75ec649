// SPDX-License-Identifier: MIT
/* The plugin host's confinement (sandbox.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cap-ng.h>
#include <seccomp.h>

#include "host/sandbox.h"

/* Landlock ABI 2 and 3 rights (linux/landlock.h), for older headers */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

static int limit(int what, rlim_t v, const char *name, struct hb_err *err)
{
	struct rlimit rl = { v, v }, cur;

	/* never above what the host was given: an unprivileged host cannot raise it */
	if (getrlimit(what, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < v)
		rl.rlim_cur = rl.rlim_max = cur.rlim_max;
	if (setrlimit(what, &rl) < 0)
		return hb_err_set(err, -errno, "setrlimit(%s): %s", name, strerror(errno));
	return 0;
}

/*
 * None, whatever the host was started with: a host started while the
 * daemon is still root in full (start-up) gets every capability of the
 * bounding set from execve, one restarted after the daemon dropped its own
 * gets none; both end with none, so a plugin sees the same every start
 * and never more than the daemon keeps (it keeps at most CAP_SYS_ADMIN,
 * CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, never for a plugin). The host stays
 * uid 0: root-owned device and sysfs files open without a capability.
 */
static int drop_caps(struct hb_err *err)
{
	int r;

	if (capng_get_caps_process() < 0)
		return hb_err_set(err, -EPERM, "reading the capabilities failed");
	if (capng_have_capabilities(CAPNG_SELECT_CAPS) == CAPNG_NONE)
		return 0; /* nothing to drop: an unprivileged host, or a restarted one */
	capng_clear(CAPNG_SELECT_BOTH);
	/* the bounding set needs CAP_SETPCAP, which a daemon past start-up no longer has */
	r = capng_apply(CAPNG_SELECT_BOTH);
	if (r < 0)
		r = capng_apply(CAPNG_SELECT_CAPS);
	if (r < 0)
		return hb_err_set(err, -EPERM, "dropping capabilities failed (capng_apply: %d)", r);
	return 0;
}

/*
 * Landlock: no file created, removed, renamed or opened for writing
 * anywhere but below /dev and /sys (a device's registers, a sysfs knob),
 * so a uid-0 host cannot drop a .so into plugin_dir, a unit into /etc or a
 * file anywhere. Reading is not restricted. -EOPNOTSUPP when the kernel
 * has no Landlock (the caller says so and goes on).
 */
static int fs_writes(struct hb_err *err)
{
	static const char *const writable[] = { "/dev", "/sys" };
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
				     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
				     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
				     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
				     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int rs, r = 0;

	if (abi < 1)
		return hb_err_set(err, -EOPNOTSUPP, "Landlock is not available (%s)",
				  abi < 0 ? strerror(errno) : "ABI 0");
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0)
		return hb_err_set(err, -errno, "landlock_create_ruleset: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(writable) / sizeof(writable[0]) && r == 0; i++) {
		struct landlock_path_beneath_attr pb = {
			.allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE |
					  (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0),
		};

		pb.parent_fd = open(writable[i], O_PATH | O_CLOEXEC);
		if (pb.parent_fd < 0)
			continue; /* no /sys in a container: nothing there to write */
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			r = hb_err_set(err, -errno, "landlock_add_rule(%s): %s", writable[i],
				       strerror(errno));
		close(pb.parent_fd);
	}
	if (r == 0 && syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		r = hb_err_set(err, -errno, "landlock_restrict_self: %s", strerror(errno));
	close(rs);
	return r;
}

/*
 * The allow-list: what the host and a plugin need (devices/docs/plugins.md
 * says why each is there). Anything else traps (SIGSYS): the host names the
 * call on its channel and dies of it, and the daemon says so in status.
 * Names this architecture lacks (open, stat, select on arm64) are skipped.
 */
static const char *const allowed[] = {
	/* memory: malloc, dlopen, a BAR mapped from a device file */
	"brk",
	"mmap",
	"munmap",
	"mremap",
	"mprotect",
	"madvise",
	/* files: device and sysfs files, /proc/self (the host's memory check) */
	"openat",
	"open",
	"close",
	"read",
	"pread64",
	"readv",
	"write",
	"pwrite64",
	"writev",
	"lseek",
	"fstat",
	"newfstatat",
	"stat",
	"lstat",
	"statx",
	"fcntl",
	"dup",
	"dup2",
	"dup3",
	"getdents64",
	"readlink",
	"readlinkat",
	"access",
	"faccessat",
	"faccessat2",
	/* the loop: poll(2) over the plugin's fds, timers, pipes */
	"poll",
	"ppoll",
	"select",
	"pselect6",
	"epoll_create1",
	"epoll_ctl",
	"epoll_wait",
	"epoll_pwait",
	"epoll_pwait2",
	"timerfd_create",
	"timerfd_settime",
	"timerfd_gettime",
	"eventfd2",
	"pipe",
	"pipe2",
	/* the channel to the daemon (an AF_UNIX socketpair, already open) */
	"sendmsg",
	"sendto",
	"recvmsg",
	"recvfrom",
	"shutdown",
	/* time */
	"clock_gettime",
	"clock_getres",
	"clock_nanosleep",
	"nanosleep",
	"gettimeofday",
	"time",
	/* the process and its threads */
	"getpid",
	"gettid",
	"getppid",
	"getuid",
	"geteuid",
	"getgid",
	"getegid",
	"exit",
	"exit_group",
	"rt_sigprocmask",
	"rt_sigreturn",
	"sigaltstack",
	"futex",
	"set_robust_list",
	"rseq",
	"set_tid_address",
	"sched_yield",
	"sched_getaffinity",
	"getrandom",
	"prctl",
	"uname",
	"getrlimit",
	"getcwd",
	"membarrier",
};

struct rule {
	const char *name;
	unsigned int narg;
	struct scmp_arg_cmp cmp;
};

/* the syscall names by number, taken before the filter: the trap handler's */
#define NAMES 512
static char names[NAMES][24];

const char *hb_host_syscall_name(long nr)
{
	return nr >= 0 && nr < NAMES && names[nr][0] ? names[nr] : "?";
}

static void take_names(void)
{
	for (int nr = 0; nr < NAMES; nr++) {
		char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (n)
			snprintf(names[nr], sizeof(names[nr]), "%s", n);
		free(n);
	}
}

static int add(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned int narg,
	       struct scmp_arg_cmp cmp, struct hb_err *err)
{
	int nr = seccomp_syscall_resolve_name(name), r;

	if (nr == __NR_SCMP_ERROR)
		return 0; /* not on this architecture */
	r = narg ? seccomp_rule_add(ctx, action, nr, 1, cmp) : seccomp_rule_add(ctx, action, nr, 0);
	if (r < 0)
		return hb_err_set(err, r, "seccomp rule for %s: %s", name, strerror(-r));
	return 0;
}

static int filter(struct hb_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
	scmp_datum_t self = (scmp_datum_t)getpid();
	/* allowed with one argument checked */
	const struct rule cond[] = {
		/* signals: to the host itself only (raise() and abort() use tgkill) */
		{ "kill", 1, SCMP_A0(SCMP_CMP_EQ, self) },
		{ "tgkill", 1, SCMP_A0(SCMP_CMP_EQ, self) },
		/* any handler but SIGSYS's: the trap stays the host's */
		{ "rt_sigaction", 1, SCMP_A0(SCMP_CMP_NE, SIGSYS) },
		/* threads, not processes */
		{ "clone", 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD) },
		/* a pair of connected AF_UNIX sockets; no socket(2) of any family */
		{ "socketpair", 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX) },
		/* reading a limit, never setting one */
		{ "prlimit64", 1, SCMP_A2(SCMP_CMP_EQ, 0) },
		/* a device's ioctls, but no typing into a terminal the host inherited */
		{ "ioctl", 1, SCMP_A1(SCMP_CMP_NE, TIOCSTI) },
	};
	int r = 0;

	if (!ctx)
		return hb_err_set(err, -ENOMEM, "seccomp_init failed");
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]) && r == 0; i++)
		r = add(ctx, SCMP_ACT_ALLOW, allowed[i], 0, (struct scmp_arg_cmp){ 0 }, err);
	for (size_t i = 0; i < sizeof(cond) / sizeof(cond[0]) && r == 0; i++)
		r = add(ctx, SCMP_ACT_ALLOW, cond[i].name, cond[i].narg, cond[i].cmp, err);
	/*
	 * clone3's flags sit behind a pointer, which a filter cannot read:
	 * ENOSYS, on which glibc falls back to clone (checked above)
	 */
	if (r == 0)
		r = add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, (struct scmp_arg_cmp){ 0 }, err);
	if (r == 0) {
		take_names();
		r = seccomp_load(ctx);
		if (r < 0)
			hb_err_set(err, r, "seccomp_load: %s", strerror(-r));
	}
	seccomp_release(ctx);
	return r;
}

int hb_host_sandbox(uint64_t mem_limit, struct hb_err *warn, struct hb_err *err)
{
	int r;

	if (mem_limit) {
		r = limit(RLIMIT_AS, (rlim_t)mem_limit, "RLIMIT_AS", err);
		if (r < 0)
			return r;
	}
	r = limit(RLIMIT_CORE, 0, "RLIMIT_CORE", err);
	if (r == 0)
		r = limit(RLIMIT_NOFILE, 256, "RLIMIT_NOFILE", err);
	if (r == 0)
		r = drop_caps(err);
	if (r < 0)
		return r;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return hb_err_set(err, -errno, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return hb_err_set(err, -errno, "PR_SET_DUMPABLE: %s", strerror(errno));
	r = fs_writes(err);
	if (r == -EOPNOTSUPP) {
		*warn = *err; /* an old kernel: said, not fatal */
		*err = (struct hb_err){ 0 };
	} else if (r < 0) {
		return r;
	}
	return filter(err);
}
