// SPDX-License-Identifier: MIT
/*
 * seccomp-deny LIST PROG [ARG]...: PROG under a seccomp filter that kills
 * the process (SIGSYS) at any system call named in LIST (one name a line,
 * as tests/integration/unit-seccomp.sh derives it from the unit's
 * SystemCallFilter=), and allows the rest: a unit's deny-list as systemd
 * applies it (no SystemCallErrorNumber=). Names this architecture lacks
 * are skipped. no_new_privs is set, as NoNewPrivileges=yes does.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char line[128];
	scmp_filter_ctx ctx;
	FILE *f;
	int r, n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: seccomp-deny LIST PROG [ARG]...\n");
		return 2;
	}
	f = fopen(argv[1], "re");
	if (!f) {
		fprintf(stderr, "seccomp-deny: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "seccomp-deny: seccomp_init failed\n");
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		int nr;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		nr = seccomp_syscall_resolve_name(line);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not a call libseccomp knows on any architecture */
		r = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0);
		if (r < 0 && r != -EDOM) { /* -EDOM: not on this architecture */
			fprintf(stderr, "seccomp-deny: %s: %s\n", line, strerror(-r));
			return 2;
		}
		n += r == 0;
	}
	fclose(f);
	r = seccomp_load(ctx);
	if (r < 0) {
		fprintf(stderr, "seccomp-deny: seccomp_load: %s\n", strerror(-r));
		return 2;
	}
	seccomp_release(ctx);
	fprintf(stderr, "seccomp-deny: %d calls kill the process\n", n);
	execvp(argv[2], argv + 2);
	fprintf(stderr, "seccomp-deny: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
