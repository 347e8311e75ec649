/* SPDX-License-Identifier: MIT */
/*
 * The control socket: one JSON request a line, one JSON reply a line, over
 * a UNIX stream socket (mode 0600; peers other than root and the daemon's
 * own user are refused by their SO_PEERCRED uid: util/socket.c). Requests:
 *   {"command":"status"} | "stats" | "sources" | "pause" | "resume" | "reload" | "metrics"
 *   {"command":"explain","hpa":"0x..."}
 *   {"command":"explain","memdev":"mem0","dpa":"0x..."}
 *   {"command":"history"[,"last":N][,"hpa":"0x..." | ,"memdev":"mem0","dpa":"0x..."]}
 * A request may also end at the client's EOF (shutdown(SHUT_WR)) instead of
 * a newline; each must be complete within 5 s (a deadline for the whole
 * request). Replies carry "ok": true and the answer, or "ok": false with
 * "error" and "errno". Lines longer than HB_CONTROL_LINE_MAX are refused.
 */
#ifndef HB_CONTROL_H
#define HB_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	_HB_CTL_MAX,
};

struct hb_control_req {
	enum hb_control_cmd cmd;
	/* explain, history */
	bool has_address;            /* history: false = every page */
	size_t last;                 /* history: entries at most */
	bool has_hpa;
	uint64_t hpa;
	char memdev[32];
	uint64_t dpa;
};

/* Parses one request line; -EINVAL with why on anything malformed. */
int hb_control_parse(const char *line, size_t len, struct hb_control_req *req, char *why,
		     size_t why_size);
const char *hb_control_cmd_to_string(enum hb_control_cmd c);

struct hb_daemon;
/* Starts listening (called by hb_daemon_run); -errno with err. */
struct hb_err;
int hb_control_listen(struct hb_daemon *d, const char *path, struct hb_err *err);

#define HB_CONTROL_CLIENT_TIMEOUT_S 10
/*
 * The CLI side of command cmd: send one request (then shut our side down),
 * print the reply to stdout, or an error in words to stderr, all within
 * timeout_s seconds. Returns the exit status (0, 1, or 2 for a bad path).
 */
int hb_control_client(const char *cmd, const char *path, const char *request,
		      unsigned int timeout_s);

#endif
