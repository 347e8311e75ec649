// SPDX-License-Identifier: MIT
/* The CLI side of the control socket: one request, one reply, within a deadline. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "control/control.h"
#include "util/macro.h"
#include "util/util.h"

/* *stop, set by the caller's signal handler: the request is abandoned (NULL: never) */
static bool stopped(const volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

/* Waits for events on fd until deadline: >0 ready, 0 timed out, -ECANCELED (stop), -errno. */
static int wait_fd(int fd, short events, int64_t deadline, const volatile sig_atomic_t *stop)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int64_t left = deadline - (int64_t)hb_now_ms();
		int r;

		if (stopped(stop))
			return -ECANCELED;
		if (left <= 0)
			return 0;
		r = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 ? -errno : r;
	}
}

static const char *connect_hint(int e)
{
	switch (e) {
	case ENOENT: return " (is `hotbridge run` running?)";
	case ECONNREFUSED:
		return " (nothing listens on it: the daemon is not running; a socket left by one that died)";
	case EACCES: return " (the control socket serves root and the daemon's own user only)";
	case ENOTSOCK: return " (not a socket)";
	default: return "";
	}
}

/*
 * The PID of the daemon that holds path's <path>.lock (its flock, as
 * /proc/locks shows it, so that asking takes no lock), 0 when none does.
 */
static pid_t lock_holder(const char *path)
{
	_hb_cleanup_fclose_ FILE *f = NULL;
	char lock[PATH_MAX], want[64], line[256];
	struct stat st;

	if (snprintf(lock, sizeof(lock), "%s.lock", path) >= (int)sizeof(lock) || stat(lock, &st) < 0)
		return 0;
	snprintf(want, sizeof(want), " %02x:%02x:%llu ", major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	f = fopen("/proc/locks", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *at = strstr(line, want);
		long pid;

		if (!strstr(line, " FLOCK ") || !at)
			continue;
		/* "N: FLOCK  ADVISORY  WRITE PID MAJ:MIN:INO START END" */
		while (at > line && at[-1] == ' ')
			at--;
		while (at > line && at[-1] >= '0' && at[-1] <= '9')
			at--;
		pid = strtol(at, NULL, 10);
		if (pid > 0)
			return (pid_t)pid;
	}
	return 0;
}

/* what pid is doing: stopped (state T, SIGSTOP; t, a debugger) or not */
static const char *stopped_or_busy(pid_t pid)
{
	_hb_cleanup_fclose_ FILE *f = NULL;
	char p[64], buf[512], *rp;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "re");
	if (f && fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')) && rp[1] == ' ' &&
	    (rp[2] == 'T' || rp[2] == 't'))
		return "it is stopped (SIGSTOP or a debugger; SIGCONT resumes it)";
	return "it is busy or hung";
}

static int connect_until(int fd, const struct sockaddr_un *sa, int64_t deadline,
			 const volatile sig_atomic_t *stop)
{
	for (;;) {
		if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
			return 0;
		if (stopped(stop))
			return -ECANCELED;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		/* the listener's backlog is full: try again until the deadline */
		if ((int64_t)hb_now_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

static int send_until(int fd, const char *data, size_t len, int64_t deadline,
		      const volatile sig_atomic_t *stop)
{
	while (len) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
		int r;

		if (n >= 0) {
			data += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		r = wait_fd(fd, POLLOUT, deadline, stop);
		if (r <= 0)
			return r < 0 ? r : -ETIMEDOUT;
	}
	return 0;
}

/* Reads one reply line into buf (NUL-terminated): its length, -ETIMEDOUT, -errno. */
static ssize_t recv_until(int fd, char *buf, size_t size, int64_t deadline,
			  const volatile sig_atomic_t *stop)
{
	size_t len = 0;

	while (len < size - 1) {
		ssize_t n = recv(fd, buf + len, size - 1 - len, 0);
		int r;

		if (n > 0) {
			len += (size_t)n;
			if (memchr(buf + len - n, '\n', (size_t)n))
				break;
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		r = wait_fd(fd, POLLIN, deadline, stop);
		if (r <= 0)
			return r < 0 ? r : -ETIMEDOUT;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

/*
 * A reload that left changes for a restart: their keys on stderr and
 * HB_CONTROL_EXIT_RESTART_NEEDED, so that no one takes them as applied.
 */
static int restart_needed(const char *cmd, json_object *o)
{
	json_object *v, *keys;
	size_t n;

	if (strcmp(cmd, "reload") || !json_object_object_get_ex(o, "reload", &v) ||
	    !json_object_object_get_ex(v, "restart_needed", &keys) ||
	    !json_object_is_type(keys, json_type_array))
		return 0;
	n = json_object_array_length(keys);
	if (!n)
		return 0;
	fprintf(stderr,
		"hotbridge reload: changed but needs a restart (the running values are kept): ");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : "",
			json_object_get_string(json_object_array_get_idx(keys, i)));
	fputc('\n', stderr);
	return HB_CONTROL_EXIT_RESTART_NEEDED;
}

int hb_control_ask(const char *cmd, const char *path, const char *request, unsigned int timeout_s,
		   FILE *errf, struct json_object **ret)
{
	return hb_control_ask_until(cmd, path, request, timeout_s, NULL, errf, ret);
}

int hb_control_ask_until(const char *cmd, const char *path, const char *request,
			 unsigned int timeout_s, const volatile sig_atomic_t *stop, FILE *errf,
			 struct json_object **ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_hb_cleanup_close_ int fd = -1;
	_hb_cleanup_free_ char *buf = NULL;
	int64_t deadline = (int64_t)hb_now_ms() + (int64_t)timeout_s * 1000;
	json_object *o, *ok, *v;
	struct stat st;
	pid_t holder;
	ssize_t len;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(errf, "hotbridge %s: %s: too long for a UNIX socket path\n", cmd, path);
		return 2;
	}
	strcpy(sa.sun_path, path);
	buf = malloc(1 << 16);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!buf || fd < 0) {
		fprintf(errf, "hotbridge %s: %s\n", cmd, strerror(buf ? errno : ENOMEM));
		return 1;
	}
	r = connect_until(fd, &sa, deadline, stop);
	if (r == -ECANCELED)
		return 1; /* the caller was told to stop: nothing to say */
	if (r < 0 && stat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		/* connect(2) says ECONNREFUSED for a file or a directory too */
		fprintf(errf,
			"hotbridge %s: %s is not a socket (%s): --socket names the "
			"daemon's control socket\n",
			cmd, path,
			S_ISDIR(st.st_mode)  ? "a directory" :
			S_ISREG(st.st_mode)  ? "a regular file" :
			S_ISFIFO(st.st_mode) ? "a FIFO" :
			S_ISCHR(st.st_mode)  ? "a character device" :
			S_ISBLK(st.st_mode)  ? "a block device" :
					       "not a socket");
		return 1;
	}
	if (r < 0) {
		fprintf(errf, "hotbridge %s: cannot reach the daemon at %s: %s%s\n", cmd, path,
			r == -ETIMEDOUT ? "it accepts no connection" : strerror(-r),
			connect_hint(-r));
		return 1;
	}
	/* one request, then our end of the stream: the daemon answers at the newline or EOF */
	r = send_until(fd, request, strlen(request), deadline, stop);
	if (r == 0)
		r = send_until(fd, "\n", 1, deadline, stop);
	if (r == -ECANCELED)
		return 1;
	if (r == 0 && shutdown(fd, SHUT_WR) < 0)
		r = -errno;
	if (r < 0 && r != -EPIPE && r != -ECONNRESET) {
		fprintf(errf, "hotbridge %s: sending the request to %s: %s\n", cmd, path,
			r == -ETIMEDOUT ? "timed out" : strerror(-r));
		return 1;
	}
	len = recv_until(fd, buf, 1 << 16, deadline, stop);
	if (len == -ECANCELED)
		return 1;
	if (len == -ETIMEDOUT && (holder = lock_holder(path)) > 0) {
		fprintf(errf,
			"hotbridge %s: the daemon at %s (pid %d) accepted the connection but did "
			"not answer within %u s: %s (--timeout SEC waits longer)\n",
			cmd, path, (int)holder, timeout_s, stopped_or_busy(holder));
		return 1;
	}
	if (len == -ETIMEDOUT) {
		fprintf(errf,
			"hotbridge %s: no reply from %s within %u s: is it a hotbridge "
			"control socket? (--timeout SEC waits longer)\n",
			cmd, path, timeout_s);
		return 1;
	}
	if (len < 0) {
		fprintf(errf, "hotbridge %s: reading the reply from %s: %s\n", cmd, path,
			strerror((int)-len));
		return 1;
	}
	if (len == 0) {
		fprintf(errf,
			"hotbridge %s: %s closed the connection without a reply: is it a "
			"hotbridge control socket?\n",
			cmd, path);
		return 1;
	}
	o = json_tokener_parse(buf);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "ok", &ok)) {
		fprintf(errf,
			"hotbridge %s: %s did not answer like a hotbridge daemon (no JSON "
			"reply with \"ok\"): is it a hotbridge control socket?\n",
			cmd, path);
		json_object_put(o);
		return 1;
	}
	if (!json_object_get_boolean(ok)) {
		fprintf(errf, "hotbridge %s: the daemon refused: %s\n", cmd,
			json_object_object_get_ex(o, "error", &v) ? json_object_get_string(v) :
								    "no reason given");
		json_object_put(o);
		return 1;
	}
	*ret = o;
	return 0;
}

int hb_control_client(const char *cmd, const char *path, const char *request, unsigned int timeout_s)
{
	json_object *o, *v;
	int r = hb_control_ask(cmd, path, request, timeout_s, stderr, &o);

	if (r)
		return r;
	if (json_object_object_get_ex(o, "metrics", &v) && json_object_is_type(v, json_type_string))
		fputs(json_object_get_string(v), stdout);
	else
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	r = restart_needed(cmd, o);
	json_object_put(o);
	return r;
}
