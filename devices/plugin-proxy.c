// SPDX-License-Identifier: MIT
/*
 * A vendor plugin out of process: the daemon's side of
 * hotbridge-plugin-host (devices/host/). To the daemon it is a source like
 * any other (a struct hb_device_ops named like the plugin, polled each
 * cycle, using only struct hb_host_ops); behind it a host process runs the
 * plugin, and whatever that process does (crash, hang, leak, flood,
 * garbage) costs this source only:
 *  - the channel (devices/host/channel.h) is read through a watch; before
 *    each message the proxy asks backlog_full() and stops reading while
 *    it is 1, so the host feels the daemon's back-pressure;
 *  - a timerfd ticks every TICK_MS: a PING or POLL unanswered for hang_ms
 *    while the channel is empty means the host hangs: it is killed;
 *  - a host that dies (EOF on the channel) is reaped at once (its own
 *    process group, killed whole) and started again after a back-off of 1
 *    s, doubling to 60 s (back to 1 s once a host ran for 60 s);
 *  - each failure is named (hb_plugin_proxy_state()) for status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "devices.h"
#include "host/channel.h"

extern char **environ;

#define TICK_MS 250
#define POLL_WAIT_MS 200 /* a poll waits this long for the host's answer */
#define BACKOFF_MAX_S 60
#define HEALTHY_NS (60ULL * 1000000000ULL)
#define READ_BATCH 64      /* messages per callback: the loop serves the others too */
#define LOG_LINES_PER_S 20 /* the plugin's log() and output lines, per source */
#define OUT_LINE_MAX 512   /* a longer output line is cut there */
#define LOST_WAIT_MS 200   /* EOF on the channel: the host is reaped within this, or lost it */

enum state { ST_STARTING, ST_RUNNING, ST_WAITING, ST_REFUSED };
enum phase { PH_LOAD, PH_OPEN, PH_RUN };

struct proxy {
	const struct hb_host_ops *ops;
	struct hb_host *h;
	char path[PATH_MAX], type[HB_PLUGIN_NAME_MAX], host_path[PATH_MAX];
	char name[64], memdev[32], pci[32];
	char **params;
	struct hb_proxy_limits lim;
	int chan, tfd, out; /* out: the host's stdout and stderr, a pipe */
	pid_t pid;
	enum state state;
	enum phase phase;
	uint64_t started_ns, restart_at_ns, backoff_s;
	uint64_t ping_ns, poll_ns; /* an unanswered PING / POLL went out then (0: none) */
	bool polled;
	bool late;    /* the last POLL's answer did not come within POLL_WAIT_MS */
	int late_rc;  /* a late answer's rc, < 0: the next proxy_poll() says it */
	bool opening; /* in hb_plugin_proxy_open(): a failure there is a failed open */
	int poll_rc, refused_rc;
	char refused[HB_ERR_MSG_MAX]; /* LOADED/OPENED's message when they failed */
	char memory[160];             /* MEMORY's message */
	char seccomp[64];             /* SECCOMP's: the call the filter trapped */
	char last_failure[HB_ERR_MSG_MAX];
	uint64_t restarts, failures, records, bad_records, dropped;
	bool dropped_logged, bad_logged;
	uint64_t log_sec, suppressed; /* the second being counted; lines not logged */
	uint32_t log_lines;           /* lines logged in log_sec */
	size_t outlen;
	char outbuf[OUT_LINE_MAX + 1];
	_Alignas(8) unsigned char buf[HB_CHAN_MSG_MAX + 1]; /* records and events cast in place */
};

static const char *sig_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" },   { SIGILL, "SIGILL" },
		{ SIGFPE, "SIGFPE" },   { SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" },
		{ SIGTERM, "SIGTERM" }, { SIGSYS, "SIGSYS" },   { SIGXCPU, "SIGXCPU" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return "a signal";
}

/* ---- the host's executable ---- */

static bool executable(const char *p)
{
	return access(p, X_OK) == 0;
}

int hb_plugin_host_path(char *ret, size_t size)
{
	const char *env = secure_getenv("HB_PLUGIN_HOST");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (!ret || !size)
		return -EINVAL;
	if (env && *env) {
		snprintf(ret, size, "%s", env);
		return executable(ret) ? 0 : -ENOENT;
	}
	/* next to the running binary (the build tree), then below it as installed */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(ret, size, "%s/hotbridge-plugin-host", exe);
			if (executable(ret))
				return 0;
			snprintf(ret, size, "%s/%s/hotbridge-plugin-host", exe, HB_BINDIR_TO_LIBEXEC);
			if (executable(ret))
				return 0;
		}
	}
	snprintf(ret, size, "%s/hotbridge-plugin-host", HB_PLUGIN_HOST_DIR);
	return executable(ret) ? 0 : -ENOENT;
}

/* ---- the plugin's lines: log() and its host's stdout/stderr ---- */

/* says how many lines were suppressed, once their second is over */
static void log_suppressed(struct proxy *p, uint64_t sec)
{
	if (sec == p->log_sec)
		return;
	if (p->suppressed)
		p->ops->log(p->h, HB_LOG_WARNING,
			    "%llu lines of the plugin suppressed (at most %d a second)",
			    (unsigned long long)p->suppressed, LOG_LINES_PER_S);
	p->suppressed = 0;
	p->log_sec = sec;
	p->log_lines = 0;
}

/* at most LOG_LINES_PER_S lines a second, the rest counted */
static bool log_allowed(struct proxy *p)
{
	log_suppressed(p, hb_now_ns() / 1000000000ULL);
	if (p->log_lines >= LOG_LINES_PER_S) {
		p->suppressed++;
		return false;
	}
	p->log_lines++;
	return true;
}

static void out_line(struct proxy *p, const char *line, size_t len)
{
	if (log_allowed(p))
		p->ops->log(p->h, HB_LOG_NOTICE, "plugin output: %.*s", (int)len, line);
}

/*
 * The host's stdout and stderr: whole lines, each logged as the source's
 * own (never bytes between the daemon's); a line longer than
 * OUT_LINE_MAX is cut; at EOF the rest is a line too.
 */
static void read_out(struct proxy *p)
{
	for (int i = 0; i < 64 && p->out >= 0; i++) {
		ssize_t n = read(p->out, p->outbuf + p->outlen, OUT_LINE_MAX - p->outlen);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			if (p->outlen)
				out_line(p, p->outbuf, p->outlen);
			p->outlen = 0;
			(void)p->ops->unwatch_fd(p->h, p->out);
			close(p->out);
			p->out = -1;
			return;
		}
		p->outlen += (size_t)n;
		while ((nl = memchr(p->outbuf, '\n', p->outlen))) {
			size_t len = (size_t)(nl - p->outbuf);

			out_line(p, p->outbuf, len);
			memmove(p->outbuf, nl + 1, p->outlen - len - 1);
			p->outlen -= len + 1;
		}
		if (p->outlen == OUT_LINE_MAX) {
			out_line(p, p->outbuf, p->outlen);
			p->outlen = 0;
		}
	}
}

static void on_out(void *priv, int fd, uint32_t revents)
{
	(void)fd;
	(void)revents;
	read_out(priv);
}

static void close_out(struct proxy *p)
{
	if (p->out < 0)
		return;
	read_out(p); /* what a dead host wrote last */
	if (p->out < 0)
		return;
	if (p->outlen)
		out_line(p, p->outbuf, p->outlen);
	p->outlen = 0;
	(void)p->ops->unwatch_fd(p->h, p->out);
	close(p->out);
	p->out = -1;
}

/* ---- start and stop ---- */

static void on_chan(void *priv, int fd, uint32_t revents);

static int spawn(struct proxy *p, struct hb_err *err)
{
	char limit[32];
	const char *argv[16 + HB_PROXY_MAX_PARAMS];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int sv[2], op[2], r, k = 0;

	/*
	 * every start, the first and each restart, passes every check of
	 * start-up first: a file replaced since (writable, a symlink, another
	 * owner) is never loaded
	 */
	r = hb_plugin_trust(p->path, p->type, p->lim.owner, err);
	if (r < 0)
		return r;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return hb_err_set(err, -errno, "socketpair: %s", strerror(errno));
	if (sv[1] <= HB_CHAN_HOST_FD) { /* dup2 onto itself would keep CLOEXEC */
		int hi = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);

		close(sv[1]);
		sv[1] = hi;
		if (hi < 0) {
			r = -errno;
			close(sv[0]);
			return hb_err_set(err, r, "fcntl: %s", strerror(-r));
		}
	}
	if (pipe2(op, O_CLOEXEC) < 0) {
		r = -errno;
		close(sv[0]);
		close(sv[1]);
		return hb_err_set(err, r, "pipe2: %s", strerror(-r));
	}
	snprintf(limit, sizeof(limit), "%llu", (unsigned long long)p->lim.mem_limit);
	argv[k++] = p->host_path;
	argv[k++] = "--plugin";
	argv[k++] = p->path;
	argv[k++] = "--type";
	argv[k++] = p->type;
	argv[k++] = "--name";
	argv[k++] = p->name;
	if (p->memdev[0]) {
		argv[k++] = "--memdev";
		argv[k++] = p->memdev;
	}
	if (p->pci[0]) {
		argv[k++] = "--pci";
		argv[k++] = p->pci;
	}
	argv[k++] = "--mem-limit";
	argv[k++] = limit;
	argv[k++] = "--";
	for (size_t i = 0; p->params && p->params[i]; i++)
		argv[k++] = p->params[i];
	argv[k] = NULL;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], HB_CHAN_HOST_FD);
	/* stdout and stderr: a pipe the daemon reads line by line */
	posix_spawn_file_actions_adddup2(&fa, op[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, op[1], STDERR_FILENO);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					      POSIX_SPAWN_SETPGROUP);
	r = posix_spawn(&p->pid, p->host_path, &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	close(op[1]);
	if (r) {
		close(op[0]);
		close(sv[0]);
		p->pid = 0;
		return hb_err_set(err, -r, "cannot start %s: %s", p->host_path, strerror(r));
	}
	p->chan = sv[0];
	(void)fcntl(p->chan, F_SETFL, O_NONBLOCK);
	p->out = op[0];
	p->outlen = 0;
	(void)fcntl(p->out, F_SETFL, O_NONBLOCK);
	r = p->ops->watch_fd(p->h, p->chan, HB_FD_READ, on_chan, p);
	if (r == 0) {
		r = p->ops->watch_fd(p->h, p->out, HB_FD_READ, on_out, p);
		if (r < 0)
			(void)p->ops->unwatch_fd(p->h, p->chan);
	}
	if (r < 0) {
		close(p->out);
		p->out = -1;
		(void)kill(-p->pid, SIGKILL);
		(void)waitpid(p->pid, NULL, 0);
		close(p->chan);
		p->chan = -1;
		p->pid = 0;
		return hb_err_set(err, r, "watching the channel: %s", strerror(-r));
	}
	p->state = ST_STARTING;
	p->phase = PH_LOAD;
	p->started_ns = hb_now_ns();
	p->ping_ns = p->poll_ns = 0;
	p->late = false;
	p->refused[0] = p->memory[0] = p->seccomp[0] = '\0';
	p->refused_rc = 0;
	return 0;
}

static void schedule(struct proxy *p, const char *what)
{
	uint64_t now = hb_now_ns();

	if (p->state == ST_RUNNING && now - p->started_ns >= HEALTHY_NS)
		p->backoff_s = 0;
	p->backoff_s = p->backoff_s ? p->backoff_s * 2 : 1;
	if (p->backoff_s > BACKOFF_MAX_S)
		p->backoff_s = BACKOFF_MAX_S;
	p->restart_at_ns = now + p->backoff_s * 1000000000ULL;
	p->state = ST_WAITING;
	if (p->opening)
		return; /* hb_plugin_proxy_open() says it: the source is not opened */
	p->ops->log(p->h, HB_LOG_WARNING, "plugin host %s; starting it again in %llu s", what,
		    (unsigned long long)p->backoff_s);
}

/* The host is gone or must go: killed (its whole group), reaped, its end named. */
static void stop(struct proxy *p, const char *why)
{
	static const char *const at[] = { "failed at load: ", "failed at open: ", "" };
	char reason[HB_ERR_MSG_MAX];
	int st = 0;

	if (p->chan >= 0) {
		(void)p->ops->unwatch_fd(p->h, p->chan);
		close(p->chan);
		p->chan = -1;
	}
	if (p->pid > 0 && !why) {
		/*
		 * EOF, no reason known: a host that is dying closed its end on
		 * the way (reaped within a moment, its signal or status is the
		 * reason); one still alive after LOST_WAIT_MS closed it itself
		 * (a plugin that closed every fd): it lost its channel
		 */
		pid_t w = 0;

		for (int i = 0; i < LOST_WAIT_MS / 5 && w == 0; i++) {
			w = waitpid(p->pid, &st, WNOHANG);
			if (w == 0)
				(void)poll(NULL, 0, 5);
		}
		if (w == p->pid)
			p->pid = -p->pid; /* reaped (it cannot fork: nothing left in its group) */
		else
			why = "lost its channel to the daemon (the plugin closed it); killed";
	}
	if (p->pid > 0) {
		(void)kill(-p->pid, SIGKILL);
		while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (p->pid < 0)
		p->pid = -p->pid;
	close_out(p);
	if (why)
		snprintf(reason, sizeof(reason), "%s", why);
	else if (p->memory[0])
		snprintf(reason, sizeof(reason), "memory limit (%s)", p->memory);
	else if (p->seccomp[0])
		snprintf(reason, sizeof(reason),
			 "stopped by the seccomp allow-list: syscall %s, which a plugin host may not "
			 "make",
			 p->seccomp);
	else if (WIFSIGNALED(st))
		snprintf(reason, sizeof(reason), "killed by %s", sig_name(WTERMSIG(st)));
	else if (WIFEXITED(st) && WEXITSTATUS(st) == HB_HOST_EXIT_REFUSED && p->refused[0])
		snprintf(reason, sizeof(reason), "%s", p->refused);
	else if (WIFEXITED(st))
		snprintf(reason, sizeof(reason), "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(reason, sizeof(reason), "ended");
	snprintf(p->last_failure, sizeof(p->last_failure), "%s%s", at[p->phase], reason);
	p->failures++;
	{
		char what[HB_ERR_MSG_MAX + 32];

		snprintf(what, sizeof(what), "(pid %d) %s", (int)p->pid, p->last_failure);
		p->pid = 0;
		schedule(p, what);
	}
}

/* ---- the channel ---- */

static bool record_ok(struct hb_hot_record *r)
{
	bool terminated = memchr(r->memdev, '\0', sizeof(r->memdev)) != NULL;

	r->memdev[sizeof(r->memdev) - 1] = '\0'; /* the daemon reads a string */
	if (r->space == HB_SPACE_DPA)
		return terminated && r->memdev[0] && r->len && r->count <= HB_RECORD_COUNT_MAX;
	return r->space == HB_SPACE_HPA && terminated && !r->memdev[0] && r->len &&
	       r->count <= HB_RECORD_COUNT_MAX;
}

static void take_records(struct proxy *p, struct hb_hot_record *r, size_t n)
{
	uint64_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += !record_ok(&r[i]);
	p->records += n;
	p->bad_records += bad;
	if (bad && !p->bad_logged) {
		p->bad_logged = true;
		p->ops->log(p->h, HB_LOG_WARNING,
			    "the plugin submits records the host cannot use (bad_records in "
			    "status); dropped and counted");
	}
	(void)p->ops->submit(p->h, r, n);
}

static uint64_t count_of(const unsigned char *payload)
{
	uint64_t n;

	memcpy(&n, payload, sizeof(n));
	return n;
}

/* one checked message */
static void take(struct proxy *p, const struct hb_chan_hdr *hdr, unsigned char *payload)
{
	switch (hdr->type) {
	case HB_CHAN_LOADED:
	case HB_CHAN_OPENED:
		if (hdr->arg < 0) {
			p->refused_rc = hdr->arg;
			snprintf(p->refused, sizeof(p->refused), "%.*s", (int)hdr->len,
				 (const char *)payload);
		} else if (hdr->type == HB_CHAN_LOADED) {
			p->phase = PH_OPEN;
		} else {
			p->phase = PH_RUN;
			p->state = ST_RUNNING;
			p->started_ns = hb_now_ns();
			if (p->failures)
				p->restarts++;
			p->ops->log(p->h, HB_LOG_INFO, "plugin host (pid %d) running %s",
				    (int)p->pid, p->path);
		}
		break;
	case HB_CHAN_LOG:
		if (!log_allowed(p))
			break;
		p->ops->log(p->h,
			    hdr->arg < HB_LOG_ERR ? HB_LOG_ERR :
			    hdr->arg > 7          ? 7 :
						    hdr->arg,
			    "%.*s", (int)hdr->len, (const char *)payload);
		break;
	case HB_CHAN_RECORDS:
		take_records(p, (struct hb_hot_record *)payload, (size_t)hdr->arg);
		break;
	case HB_CHAN_EVENT:
		if (HB_OPS_HAS(p->ops, submit_event) && p->ops->submit_event)
			(void)p->ops->submit_event(p->h, (const struct hb_device_event *)payload);
		break;
	case HB_CHAN_BAD:
		if (HB_OPS_HAS(p->ops, count_bad) && p->ops->count_bad)
			p->ops->count_bad(p->h, count_of(payload));
		break;
	case HB_CHAN_OVERFLOW:
		if (HB_OPS_HAS(p->ops, count_overflow) && p->ops->count_overflow)
			p->ops->count_overflow(p->h, count_of(payload));
		break;
	case HB_CHAN_DROPPED:
		p->dropped += count_of(payload);
		if (!p->dropped_logged) {
			p->dropped_logged = true;
			p->ops->log(p->h, HB_LOG_WARNING,
				    "the plugin went on submitting while told the backlog is "
				    "full: records dropped in its host (dropped in status)");
		}
		break;
	case HB_CHAN_POLLED:
		p->polled = true;
		p->poll_rc = hdr->arg;
		p->poll_ns = 0;
		if (p->late && hdr->arg < 0)
			p->late_rc = hdr->arg;
		p->late = false;
		break;
	case HB_CHAN_PONG: p->ping_ns = 0; break;
	case HB_CHAN_MEMORY:
		snprintf(p->memory, sizeof(p->memory), "%.*s", (int)hdr->len, (const char *)payload);
		break;
	case HB_CHAN_SECCOMP:
		snprintf(p->seccomp, sizeof(p->seccomp), "%.*s (%d)",
			 (int)(hdr->len < 32 ? hdr->len : 32), (const char *)payload, hdr->arg);
		break;
	default: break;
	}
}

/*
 * Up to max messages, as long as the daemon's backlog has room: 1 when
 * the host ended (stopped), 0 otherwise.
 */
static int read_some(struct proxy *p, int max)
{
	for (int i = 0; i < max && p->chan >= 0; i++) {
		struct hb_chan_hdr hdr;
		const char *why;
		ssize_t n;

		if (HB_OPS_HAS(p->ops, backlog_full) && p->ops->backlog_full &&
		    p->ops->backlog_full(p->h))
			return 0;
		n = recv(p->chan, p->buf, sizeof(p->buf), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			stop(p, NULL);
			return 1;
		}
		if ((size_t)n > sizeof(p->buf) - 1 || hb_chan_check(p->buf, (size_t)n, &why) < 0) {
			char what[HB_ERR_MSG_MAX];

			snprintf(what, sizeof(what), "bad messages on its channel: %s",
				 (size_t)n > sizeof(p->buf) - 1 ? "a message too long" : why);
			stop(p, what);
			return 1;
		}
		memcpy(&hdr, p->buf, sizeof(hdr));
		take(p, &hdr, p->buf + sizeof(hdr));
	}
	return 0;
}

static void on_chan(void *priv, int fd, uint32_t revents)
{
	(void)fd;
	(void)revents;
	(void)read_some(priv, READ_BATCH);
}

/* Reads until done(p) or timeout_ms passed or the host ended or the backlog is full. */
static void wait_for(struct proxy *p, bool (*done)(const struct proxy *p), int timeout_ms)
{
	uint64_t end = hb_now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	while (p->chan >= 0 && !done(p)) {
		struct pollfd pfd = { .fd = p->chan, .events = POLLIN };
		uint64_t now = hb_now_ns();

		if (now >= end)
			return;
		if (poll(&pfd, 1, (int)((end - now + 999999) / 1000000)) < 0 && errno != EINTR)
			return;
		if (HB_OPS_HAS(p->ops, backlog_full) && p->ops->backlog_full &&
		    p->ops->backlog_full(p->h))
			return;
		if (read_some(p, READ_BATCH))
			return;
	}
}

static bool is_polled(const struct proxy *p)
{
	return p->polled;
}

static bool is_open(const struct proxy *p)
{
	return p->state == ST_RUNNING || p->refused[0];
}

/* ---- the tick: hangs, restarts ---- */

static bool chan_has_data(const struct proxy *p)
{
	struct pollfd pfd = { .fd = p->chan, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

static void on_tick(void *priv, int fd, uint32_t revents)
{
	struct proxy *p = priv;
	uint64_t now = hb_now_ns(), hang = (uint64_t)p->lim.hang_ms * 1000000ULL, exp;
	char what[128];

	(void)revents;
	while (read(fd, &exp, sizeof(exp)) < 0 && errno == EINTR)
		;
	log_suppressed(p, now / 1000000000ULL);
	switch (p->state) {
	case ST_REFUSED: return;
	case ST_WAITING: {
		struct hb_err err = { 0 };
		int r;

		if (now < p->restart_at_ns)
			return;
		r = spawn(p, &err);
		if (r == -EPERM || r == -ENOENT) {
			/* the file no longer passes the checks: never loaded, never again */
			snprintf(p->last_failure, sizeof(p->last_failure), "refused at restart: %.*s",
				 (int)sizeof(p->last_failure) - 32, err.msg);
			p->failures++;
			p->state = ST_REFUSED;
			p->ops->log(p->h, HB_LOG_ERR,
				    "plugin host not started again: %s; source disabled", err.msg);
		} else if (r < 0) {
			snprintf(p->last_failure, sizeof(p->last_failure), "failed at load: %.*s",
				 (int)sizeof(p->last_failure) - 32, err.msg);
			p->failures++;
			schedule(p, p->last_failure);
		}
		return;
	}
	case ST_STARTING:
		if (now - p->started_ns > hang + HB_PROXY_LOAD_GRACE_MS * 1000000ULL) {
			snprintf(what, sizeof(what), "hung (no answer in %llu ms)",
				 (unsigned long long)((now - p->started_ns) / 1000000));
			stop(p, what);
		}
		return;
	case ST_RUNNING: break;
	}
	/* unread data: the daemon holds the channel (its backlog), not the host */
	if (chan_has_data(p)) {
		p->ping_ns = p->ping_ns ? now : 0;
		p->poll_ns = p->poll_ns ? now : 0;
		return;
	}
	if ((p->ping_ns && now - p->ping_ns > hang) || (p->poll_ns && now - p->poll_ns > hang)) {
		snprintf(what, sizeof(what), "hung (no answer in %u ms)", p->lim.hang_ms);
		stop(p, what);
		return;
	}
	if (!p->ping_ns && hb_chan_send(p->chan, HB_CHAN_PING, 0, NULL, 0, 1) == 0)
		p->ping_ns = now;
}

/* ---- the source ---- */

static int proxy_poll(void *priv)
{
	struct proxy *p = priv;
	int r;

	if (p->state == ST_REFUSED)
		return -EPERM; /* its file was refused: the daemon disables the source */
	if (p->late_rc < 0) {
		/* a poll that failed, answered after the daemon stopped waiting */
		r = p->late_rc;
		p->late_rc = 0;
		return r;
	}
	if (p->state != ST_RUNNING || p->poll_ns)
		return 0; /* a host that is not there, or still busy, fails nothing here */
	if (hb_chan_send(p->chan, HB_CHAN_POLL, 0, NULL, 0, 1) < 0)
		return 0;
	p->poll_ns = hb_now_ns();
	p->polled = false;
	wait_for(p, is_polled, POLL_WAIT_MS);
	p->late = !p->polled;
	return p->polled ? p->poll_rc : 0;
}

static void free_params(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void proxy_close(void *priv)
{
	struct proxy *p = priv;

	if (!p)
		return;
	if (p->tfd >= 0) {
		(void)p->ops->unwatch_fd(p->h, p->tfd);
		close(p->tfd);
	}
	if (p->chan >= 0) {
		/* EOF asks the host to close the plugin; it gets a moment, then SIGKILL */
		struct pollfd pfd = { .fd = p->chan, .events = POLLIN };
		uint64_t end = hb_now_ns() + 500000000ULL;

		(void)p->ops->unwatch_fd(p->h, p->chan);
		(void)shutdown(p->chan, SHUT_WR);
		while (hb_now_ns() < end && poll(&pfd, 1, 50) >= 0)
			if ((pfd.revents & POLLIN) && recv(p->chan, p->buf, sizeof(p->buf), 0) <= 0)
				break;
		close(p->chan);
	}
	if (p->pid > 0) {
		(void)kill(-p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close_out(p);
	log_suppressed(p, p->log_sec + 1);
	free_params(p->params);
	free(p);
}

static int proxy_open_direct(const struct hb_host_ops *ops, struct hb_host *h,
			     const struct hb_dev_info *info, void **ret_priv)
{
	(void)ops;
	(void)h;
	(void)info;
	(void)ret_priv;
	return -ENOTSUP; /* hb_plugin_proxy_open() opens these */
}

const struct hb_device_ops *hb_plugin_proxy_ops(struct hb_plugin *plugin)
{
	plugin->proxy = (struct hb_device_ops){
		.abi_major = HB_DEVICE_ABI_MAJOR,
		.abi_minor = HB_DEVICE_ABI_MINOR,
		.size = sizeof(struct hb_device_ops),
		.name = plugin->name,
		.caps = HB_DEV_CAP_POLL | HB_DEV_CAP_DPA | HB_DEV_CAP_HPA,
		.open = proxy_open_direct,
		.poll = proxy_poll,
		.close = proxy_close,
	};
	return &plugin->proxy;
}

bool hb_plugin_proxy_is(const struct hb_device_ops *ops)
{
	return ops && ops->poll == proxy_poll;
}

int hb_plugin_proxy_open(const struct hb_plugin *plugin, const struct hb_proxy_limits *lim,
			 const struct hb_host_ops *ops, struct hb_host *h,
			 const struct hb_dev_info *info, void **ret_priv, struct hb_err *err)
{
	struct itimerspec its = { .it_interval = { 0, TICK_MS * 1000000L },
				  .it_value = { 0, TICK_MS * 1000000L } };
	struct proxy *p = calloc(1, sizeof(*p));
	size_t np = 0;
	int r;

	*ret_priv = NULL;
	if (!p)
		return hb_err_set(err, -ENOMEM, "out of memory");
	p->ops = ops;
	p->h = h;
	p->lim = *lim;
	p->chan = p->tfd = p->out = -1;
	snprintf(p->path, sizeof(p->path), "%s", plugin->path);
	snprintf(p->type, sizeof(p->type), "%s", plugin->name);
	snprintf(p->name, sizeof(p->name), "%s", info->name ? info->name : "");
	snprintf(p->memdev, sizeof(p->memdev), "%s", info->memdev ? info->memdev : "");
	snprintf(p->pci, sizeof(p->pci), "%s", info->pci_bdf ? info->pci_bdf : "");
	while (info->params && info->params[np])
		np++;
	if (np > HB_PROXY_MAX_PARAMS) {
		free(p);
		return hb_err_set(err, -E2BIG, "%s: more than %d parameters", plugin->path,
				  HB_PROXY_MAX_PARAMS);
	}
	p->params = calloc(np + 1, sizeof(*p->params));
	for (size_t i = 0; p->params && i < np; i++)
		if (!(p->params[i] = strdup(info->params[i]))) {
			free_params(p->params);
			p->params = NULL;
		}
	if (!p->params) {
		free(p);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	r = hb_plugin_host_path(p->host_path, sizeof(p->host_path));
	if (r < 0) {
		r = hb_err_set(err, r,
			       "%s (%s): no hotbridge-plugin-host to run it in (looked for %s; "
			       "isolate = no runs it in the daemon)",
			       plugin->path, plugin->name, p->host_path);
		goto fail;
	}
	p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (p->tfd < 0 || timerfd_settime(p->tfd, 0, &its, NULL) < 0) {
		r = hb_err_set(err, -errno, "timerfd: %s", strerror(errno));
		goto fail;
	}
	r = ops->watch_fd(h, p->tfd, HB_FD_READ, on_tick, p);
	if (r < 0) {
		(void)hb_err_set(err, r, "watching a timer: %s", strerror(-r));
		close(p->tfd);
		p->tfd = -1;
		goto fail;
	}
	p->opening = true;
	r = spawn(p, err);
	if (r < 0)
		goto fail;
	wait_for(p, is_open, (int)(lim->hang_ms + HB_PROXY_LOAD_GRACE_MS));
	if (p->state == ST_RUNNING) {
		p->opening = false;
		*ret_priv = p;
		return 0;
	}
	if (p->refused[0]) {
		/* the plugin said no (a bad ABI, a bad parameter): no retry helps */
		r = hb_err_set(err, p->refused_rc, "%s", p->refused);
		goto fail;
	}
	/*
	 * it crashed or hangs before its first open: a failed open, as one
	 * that returns an error (only a host that opened once is restarted)
	 */
	if (p->state == ST_STARTING) {
		char what[128];
		bool hung = p->chan >= 0 && !chan_has_data(p);

		if (hung)
			snprintf(what, sizeof(what), "hung (no answer in %llu ms)",
				 (unsigned long long)(lim->hang_ms + HB_PROXY_LOAD_GRACE_MS));
		stop(p, hung ? what : NULL);
	}
	r = hb_err_set(err, -EIO, "%s: plugin host %s", plugin->path, p->last_failure);
fail:
	proxy_close(p);
	return r;
}

void hb_plugin_proxy_state(const void *priv, struct hb_proxy_state *ret)
{
	const struct proxy *p = priv;

	*ret = (struct hb_proxy_state){
		.state = p->state == ST_RUNNING  ? "running" :
			 p->state == ST_STARTING ? "starting" :
			 p->state == ST_REFUSED  ? "disabled" :
						   "waiting to restart",
		.pid = p->pid,
		.restarts = p->restarts,
		.failures = p->failures,
		.records = p->records,
		.bad_records = p->bad_records,
		.dropped = p->dropped,
		.backoff_s = p->state == ST_WAITING ? p->backoff_s : 0,
	};
	if (p->state == ST_WAITING) {
		uint64_t now = hb_now_ns();

		ret->retry_in_s = p->restart_at_ns > now ?
					  (p->restart_at_ns - now + 999999999ULL) / 1000000000ULL :
					  0;
	}
	snprintf(ret->last_failure, sizeof(ret->last_failure), "%s", p->last_failure);
	if (p->state != ST_RUNNING)
		snprintf(ret->problem, sizeof(ret->problem), "%s", p->last_failure);
	else if (p->bad_records)
		snprintf(ret->problem, sizeof(ret->problem), "bad records: %llu of %llu",
			 (unsigned long long)p->bad_records, (unsigned long long)p->records);
	else if (p->dropped)
		snprintf(ret->problem, sizeof(ret->problem),
			 "records dropped past a full backlog: %llu", (unsigned long long)p->dropped);
	else if (p->failures)
		snprintf(ret->problem, sizeof(ret->problem), "restarted after: %s", p->last_failure);
}
