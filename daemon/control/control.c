// SPDX-License-Identifier: MIT
/* The control socket's server, in its owner's loop (requests: control-codec.c). */
#define _GNU_SOURCE
#include <errno.h>
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

#include "control/control.h"
#include "util/macro.h"
#include "translate.h"
#include "util/util.h"

#define MAX_CLIENTS 64
#define CLIENT_TIMEOUT_S 5

struct client {
	int fd;
	struct event *ev;
	char buf[HB_CONTROL_LINE_MAX + 2];
	size_t len;
	struct timespec deadline; /* for the request being read */
	struct hb_control *ctl;
};

struct hb_control {
	struct event_base *base;
	const struct hb_control_ops *ops;
	void *ud;
	struct hb_unix_listener sock;
	struct event *ev;
	struct client clients[MAX_CLIENTS];
	uint64_t refused, malformed;
};

static bool timespec_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

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
	json_object_object_add(o, "errno",
			       json_object_new_string(
				       strerrorname_np(-code) ? strerrorname_np(-code) : "EIO"));
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
	case HB_CTL_STATUS: answer = ctl->ops->status(ctl->ud); break;
	case HB_CTL_STATS: answer = ctl->ops->stats(ctl->ud); break;
	case HB_CTL_SOURCES: answer = ctl->ops->sources(ctl->ud); break;
	case HB_CTL_METRICS: {
		char *text = NULL;
		size_t tlen = 0;
		FILE *m = open_memstream(&text, &tlen);

		if (!m) {
			reply_error(fd, -ENOMEM, "out of memory");
			return;
		}
		ctl->ops->metrics(ctl->ud, m);
		fclose(m);
		answer = json_object_new_string_len(text, (int)tlen);
		free(text);
		break;
	}
	case HB_CTL_PAUSE:
	case HB_CTL_RESUME: ctl->ops->pause(ctl->ud, req.cmd == HB_CTL_PAUSE); break;
	case HB_CTL_RELOAD:
		if (ctl->ops->reload(ctl->ud, &answer, &err) < 0) {
			reply_error(fd, err.code, err.msg);
			return;
		}
		break;
	case HB_CTL_EXPLAIN:
	case HB_CTL_HISTORY: {
		uint64_t hpa = req.hpa;

		if (req.cmd == HB_CTL_EXPLAIN && !req.has_hpa) {
			/* explain translates itself: a DPA in no region is an answer */
			r = ctl->ops->explain_dpa(ctl->ud, req.memdev, req.dpa, &answer, &err);
			if (r < 0) {
				reply_error(fd, err.code, err.msg);
				return;
			}
			break;
		}
		if (req.has_address && !req.has_hpa) {
			const struct hb_topology *t = ctl->ops->topology(ctl->ud);
			int md = hb_topology_find_memdev(t, req.memdev);
			struct hb_xlat x;

			if (md < 0) {
				snprintf(why, sizeof(why), HB_MEMDEV_UNKNOWN_FMT, req.memdev);
				reply_error(fd, md, why);
				return;
			}
			if (hb_topology_dpa_to_hpa(t, md, req.dpa, &x, &err) < 0) {
				reply_error(fd, err.code, err.msg);
				return;
			}
			hpa = x.hpa;
		}
		if (req.cmd == HB_CTL_HISTORY)
			r = ctl->ops->history(ctl->ud, req.has_address, hpa, req.last, &answer, &err);
		else
			r = ctl->ops->explain(ctl->ud, hpa, &answer, &err);
		if (r < 0) {
			reply_error(fd, err.code, err.msg);
			return;
		}
		break;
	}
	case HB_CTL_HEAT:
		if (ctl->ops->heat(ctl->ud, req.last, &answer, &err) < 0) {
			reply_error(fd, err.code, err.msg);
			return;
		}
		break;
	default: break;
	}
	o = json_object_new_object();
	json_object_object_add(o, "ok", json_object_new_boolean(true));
	json_object_object_add(o, "command",
			       json_object_new_string(hb_control_cmd_to_string(req.cmd)));
	if (answer)
		json_object_object_add(o, hb_control_cmd_to_string(req.cmd), answer);
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
	if (n == 0 && c->len > 0 && c->len < sizeof(c->buf) - 1)
		/* the peer shut its side down: what it sent is the request */
		handle(c->ctl, (int)fd, c->buf, c->len);
	if (n <= 0) {
		client_close(c);
		return;
	}
	c->len += (size_t)n;
	nl = memchr(c->buf, '\n', c->len);
	if (nl) {
		/* one request, one reply, then the daemon closes: nothing after it */
		handle(c->ctl, (int)fd, c->buf, (size_t)(nl - c->buf));
		client_close(c);
		return;
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
		reply_error(cfd, -EPERM,
			    "permission denied: the control socket serves root and "
			    "the daemon's own user only");
		close(cfd);
		return;
	}
	for (int i = 0; i < MAX_CLIENTS && !c; i++)
		if (ctl->clients[i].fd < 0)
			c = &ctl->clients[i];
	if (!c) {
		/*
		 * All taken: the newcomer gets the place of the client that has
		 * waited longest without a whole request (the earliest deadline),
		 * so that idle connections cannot lock `hotbridge status` out
		 */
		c = &ctl->clients[0];
		for (int i = 1; i < MAX_CLIENTS; i++)
			if (timespec_before(&ctl->clients[i].deadline, &c->deadline))
				c = &ctl->clients[i];
		reply_error(c->fd, -EBUSY,
			    "closed: the longest without a request when all control client "
			    "places were taken and another client came");
		client_close(c);
	}
	c->fd = cfd;
	c->len = 0;
	c->ctl = ctl;
	deadline_start(c);
	c->ev = event_new(ctl->base, cfd, EV_READ | EV_PERSIST, on_client, c);
	if (!c->ev || event_add(c->ev, &tv) < 0) {
		if (c->ev)
			event_free(c->ev);
		close(cfd);
		c->fd = -1;
	}
}

int hb_control_new(struct event_base *base, const char *path, const struct hb_control_ops *ops,
		   void *ud, struct hb_control **ret, struct hb_err *err)
{
	struct hb_control *ctl;
	int r;

	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return hb_err_set(err, -ENOMEM, "out of memory");
	ctl->base = base;
	ctl->ops = ops;
	ctl->ud = ud;
	for (int i = 0; i < MAX_CLIENTS; i++)
		ctl->clients[i].fd = -1;
	r = hb_unix_listen(path, 128, &ctl->sock, err);
	if (r < 0) {
		free(ctl);
		return r;
	}
	ctl->ev = event_new(base, ctl->sock.fd, EV_READ | EV_PERSIST, on_accept, ctl);
	if (!ctl->ev || event_add(ctl->ev, NULL) < 0) {
		if (ctl->ev)
			event_free(ctl->ev);
		hb_unix_listener_close(&ctl->sock);
		free(ctl);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	*ret = ctl;
	return 0;
}

struct hb_control *hb_control_free(struct hb_control *ctl)
{
	if (!ctl)
		return NULL;
	for (int i = 0; i < MAX_CLIENTS; i++)
		client_close(&ctl->clients[i]);
	if (ctl->ev)
		event_free(ctl->ev);
	hb_unix_listener_close(&ctl->sock);
	free(ctl);
	return NULL;
}
