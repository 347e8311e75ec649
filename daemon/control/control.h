/* SPDX-License-Identifier: MIT */
/*
 * The control socket: one JSON request, one JSON reply a line, then the
 * daemon closes the connection (one request per connection), over
 * a UNIX stream socket (mode 0600; peers other than root and the daemon's
 * own user are refused by their SO_PEERCRED uid: util/socket.c). Requests:
 *   {"command":"status"} | "stats" | "sources" | "pause" | "resume" | "reload" | "metrics"
 *   {"command":"explain","hpa":"0x..."}
 *   {"command":"explain","memdev":"mem0","dpa":"0x..."}
 *   {"command":"history"[,"last":N][,"hpa":"0x..." | ,"memdev":"mem0","dpa":"0x..."]}
 *   {"command":"heat"[,"last":N]}: the N hottest pages of the table (default 20)
 * A request may also end at the client's EOF (shutdown(SHUT_WR)) instead of
 * a newline; it must be complete within 5 s of the connection (a deadline
 * for the whole request). Replies carry "ok": true and the answer, or "ok": false with
 * "error" and "errno". Lines longer than HB_CONTROL_LINE_MAX are refused.
 */
#ifndef HB_CONTROL_H
#define HB_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#define HB_CONTROL_LINE_MAX 4096

enum hb_control_cmd {
	HB_CTL_STATUS,
	HB_CTL_STATS,
	HB_CTL_SOURCES,
	HB_CTL_EXPLAIN,
	HB_CTL_PAUSE,
	HB_CTL_RESUME,
	HB_CTL_RELOAD,
	HB_CTL_METRICS,
	HB_CTL_HISTORY,
	HB_CTL_HEAT,
	_HB_CTL_MAX,
};

struct hb_control_req {
	enum hb_control_cmd cmd;
	/* explain, history */
	bool has_address; /* history: false = every page */
	size_t last;      /* history, heat: entries at most */
	bool has_hpa;
	uint64_t hpa;
	char memdev[32];
	uint64_t dpa;
};

/* Parses one request line; -EINVAL with why on anything malformed. */
int hb_control_parse(const char *line, size_t len, struct hb_control_req *req, char *why,
		     size_t why_size);
const char *hb_control_cmd_to_string(enum hb_control_cmd c);

struct event_base;
struct hb_control;
struct hb_err;
struct hb_topology;
struct json_object;

/*
 * What the server asks of its owner, each with the owner's ud. JSON
 * answers are the server's to free (NULL: out of memory); memdev:DPA
 * requests are translated with topology() before history(); explain_dpa()
 * translates its own.
 */
struct hb_control_ops {
	struct json_object *(*status)(void *ud);
	struct json_object *(*stats)(void *ud);
	struct json_object *(*sources)(void *ud);
	void (*metrics)(void *ud, FILE *f); /* Prometheus text */
	void (*pause)(void *ud, bool paused);
	/* *ret: the keys applied and those that need a restart */
	int (*reload)(void *ud, struct json_object **ret, struct hb_err *err);
	const struct hb_topology *(*topology)(void *ud);
	int (*explain)(void *ud, uint64_t hpa, struct json_object **ret, struct hb_err *err);
	/* explain of memdev:DPA, which the owner translates (not topology()) */
	int (*explain_dpa)(void *ud, const char *memdev, uint64_t dpa, struct json_object **ret,
			   struct hb_err *err);
	/* up to last entries, newest first: all pages, or (page_only) hpa's */
	int (*history)(void *ud, bool page_only, uint64_t hpa, size_t last,
		       struct json_object **ret, struct hb_err *err);
	/* the last hottest pages of the heat table, hottest first */
	int (*heat)(void *ud, size_t last, struct json_object **ret, struct hb_err *err);
};

/*
 * Listens on path in base's loop, answering with ops (borrowed, like ud:
 * both must outlive the server); -errno with err.
 */
int hb_control_new(struct event_base *base, const char *path, const struct hb_control_ops *ops,
		   void *ud, struct hb_control **ret, struct hb_err *err);
/* Closes every client and the socket (its path is removed); NULL-safe, returns NULL. */
struct hb_control *hb_control_free(struct hb_control *ctl);

#define HB_CONTROL_CLIENT_TIMEOUT_S 10
/* `hotbridge reload`'s exit status when a changed key waits for a restart */
#define HB_CONTROL_EXIT_RESTART_NEEDED 4
/*
 * The CLI side of command cmd: send one request (then shut our side down),
 * print the reply to stdout, or an error in words to stderr, all within
 * timeout_s seconds. Returns the exit status (0, 1, 2 for a bad path, or
 * HB_CONTROL_EXIT_RESTART_NEEDED for a reload that left keys for a restart).
 */
int hb_control_client(const char *cmd, const char *path, const char *request, unsigned int timeout_s);
/*
 * The same request, its reply kept: 0 and *ret (the whole reply object,
 * "ok": true; the caller's to put), or the exit status with the error in
 * words on errf (a terminal view restores the screen before showing it).
 */
int hb_control_ask(const char *cmd, const char *path, const char *request, unsigned int timeout_s,
		   FILE *errf, struct json_object **ret);
/*
 * hb_control_ask(), abandoned (exit status 1, nothing said) as soon as
 * *stop is set: by a signal handler installed without SA_RESTART, so that
 * a wait in the request is interrupted (hotbridge top's Ctrl-C).
 */
int hb_control_ask_until(const char *cmd, const char *path, const char *request,
			 unsigned int timeout_s, const volatile sig_atomic_t *stop, FILE *errf,
			 struct json_object **ret);

#endif
