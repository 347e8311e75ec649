// SPDX-License-Identifier: MIT
/*
 * Inspecting a plugin in a child process: the child dlopens it (its
 * constructors run there, not in the caller), checks its ops table and
 * writes a fixed-size answer over a pipe. A crash, an early exit or a hang
 * becomes a refusal naming the file; the caller never maps the plugin.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devices.h"

struct answer {
	int32_t code; /* 0: desc is valid; <0: msg says why */
	struct hb_plugin_desc desc;
	char msg[HB_ERR_MSG_MAX];
};

static const char *signal_name(int sig, char *buf, size_t size)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" },   { SIGILL, "SIGILL" },
		{ SIGFPE, "SIGFPE" },   { SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" },
		{ SIGTERM, "SIGTERM" }, { SIGTRAP, "SIGTRAP" }, { SIGSYS, "SIGSYS" },
		{ SIGPIPE, "SIGPIPE" }, { SIGINT, "SIGINT" },   { SIGXCPU, "SIGXCPU" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(buf, size, "signal %d", sig);
	return buf;
}

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

static __attribute__((noreturn)) void child(const struct hb_plugin *p, int fd)
{
	const struct rlimit no_core = { 0, 0 };
	struct hb_err err = { 0 };
	struct hb_plugin copy;
	struct answer a = { 0 };

	/* a crash is expected and reported: no core file; die with the parent;
	 * whatever the plugin prints must not end up in the caller's stdout */
	static const int crash_signals[] = { SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
					     SIGABRT, SIGTRAP, SIGSYS };
	sigset_t none;

	/* the caller's handlers (a test harness's, say) must not catch the
	 * plugin's crash: it has to kill the child for the parent to see it */
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		(void)signal(crash_signals[i], SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setrlimit(RLIMIT_CORE, &no_core);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)dup2(STDERR_FILENO, STDOUT_FILENO);
	copy = *p;
	copy.handle = NULL;
	copy.ops = NULL;
	a.code = hb_plugin_open(&copy, &err);
	if (a.code < 0 && a.code > -4096) {
		snprintf(a.msg, sizeof(a.msg), "%s", err.msg);
	} else {
		snprintf(a.desc.name, sizeof(a.desc.name), "%s", copy.ops->name);
		a.desc.abi_major = copy.ops->abi_major;
		a.desc.abi_minor = copy.ops->abi_minor;
		a.desc.caps = copy.ops->caps;
	}
	write_all(fd, &a, sizeof(a));
	_exit(0);
}

/* Reads the answer until EOF, a full answer or the deadline: bytes read, or -ETIMEDOUT. */
static ssize_t read_answer(int fd, struct answer *a, int timeout_ms)
{
	long long deadline = (long long)hb_now_ms() + timeout_ms;
	size_t got = 0;

	while (got < sizeof(*a)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - (long long)hb_now_ms();
		ssize_t r;
		int pr;

		if (left <= 0)
			return -ETIMEDOUT;
		pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -errno;
		if (pr == 0)
			return -ETIMEDOUT;
		r = read(fd, (char *)a + got, sizeof(*a) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int wait_child(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int hb_plugin_inspect(const struct hb_plugin *p, int timeout_ms, struct hb_plugin_desc *ret,
		      struct hb_err *err)
{
	struct answer a;
	char buf[32];
	int fds[2], status = 0, r;
	ssize_t got;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return hb_err_set(err, -errno, "%s: pipe: %s", p->path, strerror(errno));
	fflush(NULL); /* the child must not flush the caller's buffers again */
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return hb_err_set(err, r, "%s: fork: %s", p->path, strerror(-r));
	}
	if (pid == 0) {
		close(fds[0]);
		child(p, fds[1]);
	}
	close(fds[1]);
	memset(&a, 0, sizeof(a));
	got = read_answer(fds[0], &a, timeout_ms);
	close(fds[0]);
	if (got == -ETIMEDOUT)
		(void)kill(pid, SIGKILL);
	r = wait_child(pid, &status);
	if (r < 0)
		return hb_err_set(err, r, "%s: waiting for its inspection: %s", p->path,
				  strerror(-r));
	if (got == -ETIMEDOUT)
		return hb_err_set(err, -ETIMEDOUT,
				  "%s: no answer within %d ms while loading; refusing", p->path,
				  timeout_ms);
	if (WIFSIGNALED(status))
		return hb_err_set(err, -ECHILD, "%s: crashed (%s) while loading; refusing", p->path,
				  signal_name(WTERMSIG(status), buf, sizeof(buf)));
	if (got != (ssize_t)sizeof(a))
		return hb_err_set(err, -ECHILD,
				  "%s: exited (status %d) without an answer while "
				  "loading; refusing",
				  p->path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (a.code < 0 && a.code > -4096) {
		a.msg[sizeof(a.msg) - 1] = '\0';
		return hb_err_set(err, a.code, "%s", a.msg);
	}
	a.desc.name[sizeof(a.desc.name) - 1] = '\0';
	*ret = a.desc;
	return 0;
}
