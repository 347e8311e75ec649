// SPDX-License-Identifier: MIT
/* The plugin host's confinement (sandbox.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cap-ng.h>
#include <seccomp.h>

#include "host/sandbox.h"

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

static int drop_caps(struct hb_err *err)
{
	static const unsigned int keep[] = { CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_SYS_RAWIO };
	bool have[sizeof(keep) / sizeof(keep[0])];
	int r;

	if (capng_get_caps_process() < 0)
		return hb_err_set(err, -EPERM, "reading the capabilities failed");
	if (capng_have_capabilities(CAPNG_SELECT_CAPS) == CAPNG_NONE)
		return 0; /* nothing to drop: an unprivileged host (tests) */
	/* only what the daemon still has can be kept (it drops its own after start-up) */
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		have[i] = capng_have_capability(CAPNG_PERMITTED, keep[i]);
	capng_clear(CAPNG_SELECT_BOTH);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (have[i])
			capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, keep[i]);
	/* the bounding set needs CAP_SETPCAP, which a daemon past start-up no longer has */
	r = capng_apply(CAPNG_SELECT_BOTH);
	if (r < 0)
		r = capng_apply(CAPNG_SELECT_CAPS);
	if (r < 0)
		return hb_err_set(err, -EPERM, "dropping capabilities failed (capng_apply: %d)", r);
	return 0;
}

/* never needed to read telemetry: refused with EPERM */
static const char *const denied[] = {
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"process_madvise",
	"pidfd_getfd",
	"mount",
	"umount2",
	"pivot_root",
	"chroot",
	"setns",
	"unshare",
	"open_tree",
	"move_mount",
	"fsopen",
	"fsmount",
	"fsconfig",
	"fspick",
	"mount_setattr",
	"kexec_load",
	"kexec_file_load",
	"init_module",
	"finit_module",
	"delete_module",
	"bpf",
	"keyctl",
	"add_key",
	"request_key",
	"reboot",
	"swapon",
	"swapoff",
	"acct",
	"settimeofday",
	"clock_settime",
	"clock_adjtime",
	"adjtimex",
	"move_pages",
	"migrate_pages",
	"userfaultfd",
	"personality",
	"tkill",
	"setuid",
	"setgid",
	"setreuid",
	"setregid",
	"setresuid",
	"setresgid",
	"setgroups",
	"quotactl",
	"lookup_dcookie",
	"syslog",
	"vhangup",
	"sethostname",
	"setdomainname",
	"iopl",
	"ioperm",
	"kcmp",
};

static int filter(struct hb_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	scmp_datum_t self = (scmp_datum_t)getpid();
	int r = 0;

	if (!ctx)
		return hb_err_set(err, -ENOMEM, "seccomp_init failed");
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]) && r == 0; i++) {
		int nr = seccomp_syscall_resolve_name(denied[i]);

		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (r < 0)
			hb_err_set(err, r, "seccomp rule for %s: %s", denied[i], strerror(-r));
	}
	/* signals: to the host itself only (raise() and abort() use tgkill) */
	if (r == 0) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1,
				     SCMP_A0(SCMP_CMP_NE, self));
		if (r == 0)
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tgkill), 1,
					     SCMP_A0(SCMP_CMP_NE, self));
		if (r == 0)
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
					     SCMP_SYS(pidfd_send_signal), 0);
		if (r < 0)
			hb_err_set(err, r, "seccomp rule for signals: %s", strerror(-r));
	}
	if (r == 0) {
		r = seccomp_load(ctx);
		if (r < 0)
			hb_err_set(err, r, "seccomp_load: %s", strerror(-r));
	}
	seccomp_release(ctx);
	return r;
}

int hb_host_sandbox(uint64_t mem_limit, struct hb_err *err)
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
	return filter(err);
}
