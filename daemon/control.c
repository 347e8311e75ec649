// SPDX-License-Identifier: MIT
/* The control socket: server (in the daemon's loop), request parser, client. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "control.h"
#include "daemon.h"
#include "history-json.h"
#include "util/macro.h"
#include "util/util.h"

#define MAX_CLIENTS 64
#define CLIENT_TIMEOUT_S 5

static const char *const cmd_names[_HB_CTL_MAX] = {
	[HB_CTL_STATUS] = "status", [HB_CTL_STATS] = "stats", [HB_CTL_SOURCES] = "sources",
	[HB_CTL_EXPLAIN] = "explain", [HB_CTL_PAUSE] = "pause", [HB_CTL_RESUME] = "resume",
	[HB_CTL_RELOAD] = "reload", [HB_CTL_METRICS] = "metrics", [HB_CTL_HISTORY] = "history",
};

const char *hb_control_cmd_to_string(enum hb_control_cmd c)
{
	return (unsigned int)c < _HB_CTL_MAX ? cmd_names[c] : NULL;
}

static int hex_field(json_object *o, const char *key, uint64_t *ret, char *why, size_t why_size)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string) ||
	    hb_parse_u64_base(json_object_get_string(v), 0, ret) < 0) {
		snprintf(why, why_size, "\"%s\" must be a number in a string, e.g. \"0x1000\"", key);
		return -EINVAL;
	}
	return 1;
}

int hb_control_parse(const char *line, size_t len, struct hb_control_req *req, char *why,
		     size_t why_size)
{
	struct json_tokener *tok;
	json_object *o, *v;
	const char *cmd;
	int r = -EINVAL;

	memset(req, 0, sizeof(*req));
	if (len > HB_CONTROL_LINE_MAX) {
		snprintf(why, why_size, "request longer than %d bytes", HB_CONTROL_LINE_MAX);
		return -E2BIG;
	}
	tok = json_tokener_new_ex(8);
	if (!tok) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		size_t end = json_tokener_get_parse_end(tok);
		bool trailing_ws = o != NULL;

		for (size_t i = end; trailing_ws && i < len; i++)
			trailing_ws = line[i] == ' ' || line[i] == '\t' || line[i] == '\r';
		if (!trailing_ws) {
			snprintf(why, why_size, "not one JSON object: %s",
				 o ? "trailing bytes" : json_tokener_error_desc(json_tokener_get_error(tok)));
			goto out;
		}
	}
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "command", &v) || !json_object_is_type(v, json_type_string)) {
		snprintf(why, why_size, "want {\"command\": \"...\"}");
		goto out;
	}
	cmd = json_object_get_string(v);
	for (r = 0; r < _HB_CTL_MAX && strcmp(cmd, cmd_names[r]); r++)
		;
	if (r == _HB_CTL_MAX) {
		snprintf(why, why_size, "unknown command \"%.40s\"", cmd);
		r = -EINVAL;
		goto out;
	}
	req->cmd = (enum hb_control_cmd)r;
	r = 0;
	if (req->cmd == HB_CTL_HISTORY) {
		req->last = HB_HISTORY_REPLY_DEFAULT;
		if (json_object_object_get_ex(o, "last", &v)) {
			int64_t last = json_object_get_int64(v);

			if (!json_object_is_type(v, json_type_int) || last < 1 ||
			    last > HB_HISTORY_REPLY_MAX) {
				snprintf(why, why_size, "\"last\" must be a number of entries in 1..%d",
					 HB_HISTORY_REPLY_MAX);
				r = -EINVAL;
				goto out;
			}
			req->last = (size_t)last;
		}
	}
	if (req->cmd == HB_CTL_EXPLAIN || req->cmd == HB_CTL_HISTORY) {
		int h = hex_field(o, "hpa", &req->hpa, why, why_size), dp;

		if (h < 0) {
			r = h;
			goto out;
		}
		req->has_hpa = h == 1;
		dp = hex_field(o, "dpa", &req->dpa, why, why_size);
		if (dp < 0) {
			r = dp;
			goto out;
		}
		if (json_object_object_get_ex(o, "memdev", &v)) {
			if (!json_object_is_type(v, json_type_string) ||
			    strlen(json_object_get_string(v)) >= sizeof(req->memdev)) {
				snprintf(why, why_size, "\"memdev\" must be a name like \"mem0\"");
				r = -EINVAL;
				goto out;
			}
			strcpy(req->memdev, json_object_get_string(v));
		}
		req->has_address = !(!req->has_hpa && !req->memdev[0] && dp == 0);
		if (req->cmd == HB_CTL_HISTORY && !req->has_address)
			goto out;   /* every page */
		if (!((req->has_hpa && !req->memdev[0] && dp == 0) ||
		      (!req->has_hpa && req->memdev[0] && dp == 1))) {
			snprintf(why, why_size, "%s wants \"hpa\", or \"memdev\" and \"dpa\"",
				 cmd_names[req->cmd]);
			r = -EINVAL;
		}
	}
out:
	json_object_put(o);
	json_tokener_free(tok);
	return r;
}

/* ---- server ---- */

struct client {
	int fd;
	struct event *ev;
	char buf[HB_CONTROL_LINE_MAX + 2];
	size_t len;
	struct timespec deadline;     /* for the request being read */
	struct hb_control *ctl;
};

struct hb_control {
	struct hb_daemon *d;
	struct hb_unix_listener sock;
	struct event *ev;
	struct client clients[MAX_CLIENTS];
	uint64_t refused, malformed;
};

static void client_close(struct client *c)
{
	if (c->fd < 0)
		return;
	event_free(c->ev);
	close(c->fd);
	c->fd = -1;
	c->len = 0;
}

static void reply(int fd, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(s);

	/* best effort, non-blocking: a peer that does not read loses the reply */
	if (send(fd, s, len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len)
		(void)send(fd, "\n", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	json_object_put(o);
}

static void reply_error(int fd, int code, const char *msg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_boolean(false));
	json_object_object_add(o, "error", json_object_new_string(msg));
	json_object_object_add(o, "errno", json_object_new_string(strerrorname_np(-code) ?
								   strerrorname_np(-code) : "EIO"));
	reply(fd, o);
}

static void handle(struct hb_control *ctl, int fd, const char *line, size_t len)
{
	struct hb_control_req req;
	struct hb_err err = { 0 };
	json_object *o, *answer = NULL;
	char why[256];
	int r = hb_control_parse(line, len, &req, why, sizeof(why));

	if (r < 0) {
		ctl->malformed++;
		reply_error(fd, r, why);
		return;
	}
	switch (req.cmd) {
	case HB_CTL_STATUS: answer = hb_daemon_status_json(ctl->d); break;
	case HB_CTL_STATS: answer = hb_daemon_stats_json(ctl->d); break;
	case HB_CTL_SOURCES: answer = hb_daemon_sources_json(ctl->d); break;
	case HB_CTL_METRICS: {
		char *text = NULL;
		size_t tlen = 0;
		FILE *m = open_memstream(&text, &tlen);

		if (!m) {
			reply_error(fd, -ENOMEM, "out of memory");
			return;
		}
		hb_daemon_metrics(ctl->d, m);
		fclose(m);
		answer = json_object_new_string_len(text, (int)tlen);
		free(text);
		break;
	}
	case HB_CTL_PAUSE:
	case HB_CTL_RESUME:
		hb_daemon_pause(ctl->d, req.cmd == HB_CTL_PAUSE);
		break;
	case HB_CTL_RELOAD:
		if (hb_daemon_reload(ctl->d, &err) < 0) {
			reply_error(fd, err.code, err.msg);
			return;
		}
		break;
	case HB_CTL_EXPLAIN:
	case HB_CTL_HISTORY: {
		uint64_t hpa = req.hpa;

		if (req.has_address && !req.has_hpa) {
			const struct hb_topology *t = hb_daemon_topology(ctl->d);
			int md = hb_topology_find_memdev(t, req.memdev);
			struct hb_xlat x;

			if (md < 0) {
				reply_error(fd, -ENODEV, "unknown memdev");
				return;
			}
			if (hb_topology_dpa_to_hpa(t, md, req.dpa, &x, &err) < 0) {
				reply_error(fd, err.code, err.msg);
				return;
			}
			hpa = x.hpa;
		}
		if (req.cmd == HB_CTL_HISTORY)
			r = hb_daemon_history(ctl->d, req.has_address, hpa, req.last, &answer, &err);
		else
			r = hb_daemon_explain(ctl->d, hpa, &answer, &err);
		if (r < 0) {
			reply_error(fd, err.code, err.msg);
			return;
		}
		break;
	}
	default:
		break;
	}
	o = json_object_new_object();
	json_object_object_add(o, "ok", json_object_new_boolean(true));
	json_object_object_add(o, "command", json_object_new_string(cmd_names[req.cmd]));
	if (answer)
		json_object_object_add(o, cmd_names[req.cmd], answer);
	reply(fd, o);
}

/* The next request must be complete CLIENT_TIMEOUT_S from now. */
static void deadline_start(struct client *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->deadline);
	c->deadline.tv_sec += CLIENT_TIMEOUT_S;
}

/* Re-arms the client's event with what is left of its deadline; false when none is left. */
static bool deadline_rearm(struct client *c)
{
	struct timespec now;
	struct timeval left;
	int64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (int64_t)(c->deadline.tv_sec - now.tv_sec) * 1000000000 +
	     (c->deadline.tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return false;
	left.tv_sec = (time_t)(ns / 1000000000);
	left.tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
	return event_add(c->ev, &left) == 0;
}

static void on_client(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;
	bool handled = false;
	ssize_t n;
	char *nl;

	if (what & EV_TIMEOUT) {
		reply_error((int)fd, -ETIMEDOUT, "no complete request within 5 s");
		client_close(c);
		return;
	}
	n = recv((int)fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 0 && c->len > 0 && c->len < sizeof(c->buf) - 1) {
		/* the peer shut its side down: what it sent is the request */
		handle(c->ctl, (int)fd, c->buf, c->len);
		c->len = 0;
	}
	if (n <= 0) {
		client_close(c);
		return;
	}
	c->len += (size_t)n;
	while ((nl = memchr(c->buf, '\n', c->len))) {
		size_t line = (size_t)(nl - c->buf);

		handle(c->ctl, (int)fd, c->buf, line);
		memmove(c->buf, nl + 1, c->len - line - 1);
		c->len -= line + 1;
		handled = true;
	}
	if (c->len >= sizeof(c->buf) - 1) {
		c->ctl->malformed++;
		reply_error((int)fd, -E2BIG, "request longer than 4096 bytes");
		client_close(c);
		return;
	}
	/*
	 * A deadline for the whole request, not a timeout per read: a peer
	 * trickling a byte every few seconds is still cut off after 5 s.
	 */
	if (handled)
		deadline_start(c);
	if (!deadline_rearm(c)) {
		reply_error((int)fd, -ETIMEDOUT, "no complete request within 5 s");
		client_close(c);
	}
}

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
	struct hb_control *ctl = arg;
	struct timeval tv = { .tv_sec = CLIENT_TIMEOUT_S };
	struct client *c = NULL;
	int cfd = hb_unix_accept(&ctl->sock);

	if (cfd < 0)
		return;
	if (hb_unix_peer_check(cfd, NULL) < 0) {
		ctl->refused++;
		reply_error(cfd, -EPERM, "permission denied: the control socket serves root and "
			    "the daemon's own user only");
		close(cfd);
		return;
	}
	for (int i = 0; i < MAX_CLIENTS && !c; i++)
		if (ctl->clients[i].fd < 0)
			c = &ctl->clients[i];
	if (!c) {
		ctl->refused++;
		reply_error(cfd, -EBUSY, "too many control clients");
		close(cfd);
		return;
	}
	c->fd = cfd;
	c->len = 0;
	c->ctl = ctl;
	deadline_start(c);
	c->ev = event_new(hb_daemon_base(ctl->d), cfd, EV_READ | EV_PERSIST, on_client, c);
	if (!c->ev || event_add(c->ev, &tv) < 0) {
		if (c->ev)
			event_free(c->ev);
		close(cfd);
		c->fd = -1;
	}
}

int hb_control_listen(struct hb_daemon *d, const char *path, struct hb_err *err)
{
	struct hb_control *ctl;
	int r;

	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return hb_err_set(err, -ENOMEM, "out of memory");
	ctl->d = d;
	for (int i = 0; i < MAX_CLIENTS; i++)
		ctl->clients[i].fd = -1;
	r = hb_unix_listen(path, 128, &ctl->sock, err);
	if (r < 0) {
		free(ctl);
		return r;
	}
	ctl->ev = event_new(hb_daemon_base(d), ctl->sock.fd, EV_READ | EV_PERSIST, on_accept, ctl);
	if (!ctl->ev || event_add(ctl->ev, NULL) < 0) {
		if (ctl->ev)
			event_free(ctl->ev);
		hb_unix_listener_close(&ctl->sock);
		free(ctl);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	hb_daemon_set_control(d, ctl);
	return 0;
}

void hb_control_free(struct hb_control *ctl)
{
	if (!ctl)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++)
		client_close(&ctl->clients[i]);
	if (ctl->ev)
		event_free(ctl->ev);
	hb_unix_listener_close(&ctl->sock);
	free(ctl);
}

/* ---- client ---- */

/* Waits for events on fd until deadline: >0 ready, 0 timed out, -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int64_t left = deadline - (int64_t)hb_now_ms();
		int r;

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
	case ECONNREFUSED: return " (nothing listens on it: a daemon that has exited?)";
	case EACCES: return " (the control socket serves root only)";
	case ENOTSOCK: return " (not a socket)";
	default: return "";
	}
}

static int connect_until(int fd, const struct sockaddr_un *sa, int64_t deadline)
{
	for (;;) {
		if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
			return 0;
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

static int send_until(int fd, const char *data, size_t len, int64_t deadline)
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
		r = wait_fd(fd, POLLOUT, deadline);
		if (r <= 0)
			return r < 0 ? r : -ETIMEDOUT;
	}
	return 0;
}

/* Reads one reply line into buf (NUL-terminated): its length, -ETIMEDOUT, -errno. */
static ssize_t recv_until(int fd, char *buf, size_t size, int64_t deadline)
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
		r = wait_fd(fd, POLLIN, deadline);
		if (r <= 0)
			return r < 0 ? r : -ETIMEDOUT;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

int hb_control_client(const char *cmd, const char *path, const char *request,
		      unsigned int timeout_s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_hb_cleanup_close_ int fd = -1;
	_hb_cleanup_free_ char *buf = NULL;
	int64_t deadline = (int64_t)hb_now_ms() + (int64_t)timeout_s * 1000;
	json_object *o, *ok, *v;
	ssize_t len;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hotbridge %s: %s: too long for a UNIX socket path\n", cmd, path);
		return 2;
	}
	strcpy(sa.sun_path, path);
	buf = malloc(1 << 16);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!buf || fd < 0) {
		fprintf(stderr, "hotbridge %s: %s\n", cmd, strerror(buf ? errno : ENOMEM));
		return 1;
	}
	r = connect_until(fd, &sa, deadline);
	if (r < 0) {
		fprintf(stderr, "hotbridge %s: cannot reach the daemon at %s: %s%s\n", cmd, path,
			r == -ETIMEDOUT ? "it accepts no connection" : strerror(-r),
			connect_hint(-r));
		return 1;
	}
	/* one request, then our end of the stream: the daemon answers at the newline or EOF */
	r = send_until(fd, request, strlen(request), deadline);
	if (r == 0)
		r = send_until(fd, "\n", 1, deadline);
	if (r == 0 && shutdown(fd, SHUT_WR) < 0)
		r = -errno;
	if (r < 0 && r != -EPIPE && r != -ECONNRESET) {
		fprintf(stderr, "hotbridge %s: sending the request to %s: %s\n", cmd, path,
			r == -ETIMEDOUT ? "timed out" : strerror(-r));
		return 1;
	}
	len = recv_until(fd, buf, 1 << 16, deadline);
	if (len == -ETIMEDOUT) {
		fprintf(stderr, "hotbridge %s: no reply from %s within %u s: is it a hotbridge "
			"control socket? (--timeout SEC waits longer)\n", cmd, path, timeout_s);
		return 1;
	}
	if (len < 0) {
		fprintf(stderr, "hotbridge %s: reading the reply from %s: %s\n", cmd, path,
			strerror((int)-len));
		return 1;
	}
	if (len == 0) {
		fprintf(stderr, "hotbridge %s: %s closed the connection without a reply: is it a "
			"hotbridge control socket?\n", cmd, path);
		return 1;
	}
	o = json_tokener_parse(buf);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "ok", &ok)) {
		fprintf(stderr, "hotbridge %s: %s did not answer like a hotbridge daemon (no JSON "
			"reply with \"ok\"): is it a hotbridge control socket?\n", cmd, path);
		json_object_put(o);
		return 1;
	}
	if (!json_object_get_boolean(ok)) {
		fprintf(stderr, "hotbridge %s: the daemon refused: %s\n", cmd,
			json_object_object_get_ex(o, "error", &v) ? json_object_get_string(v) :
			"no reason given");
		json_object_put(o);
		return 1;
	}
	if (json_object_object_get_ex(o, "metrics", &v) && json_object_is_type(v, json_type_string))
		fputs(json_object_get_string(v), stdout);
	else
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_SPACED |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}
