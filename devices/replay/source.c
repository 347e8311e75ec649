// SPDX-License-Identifier: MIT
/*
 * The "replay" source: records from a regular file (from= where to begin:
 * its end (the default; at the start of a line being written), its start,
 * or the offset saved at the last stop in a state file; then read to its
 * end on each poll, so appended lines arrive later; one truncated below what was read
 * is read again from its start, and when the path names another file
 * (rotated: renamed or removed and made anew) the old one's last lines are
 * read, then the new one from its start; each logged once), a FIFO (path=, watched; opened
 * read-write so writers may come and go; part of a frame or line held back
 * over a whole poll interval with no new bytes is a dead writer's, counted
 * bad) or a UNIX stream socket (socket=, mode 0600, one parser per client,
 * up to 64 clients: a 65th takes the place of the one that has sent nothing
 * for the longest time, whose part of a line is counted bad).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "devices.h"
#include "replay-private.h"

#define MAX_CLIENTS 64
/* from=saved: where the offset is kept without state= (StateDirectory=hotbridge) */
#define STATE_DIR "/var/lib/hotbridge"
#define READ_CHUNK (256u << 10)
#define FIFO_PIPE_SIZE (1 << 20)
#define FILE_POLL_MAX (16u << 20)
/*
 * What one callback of a FIFO or socket reads at most: the rest stays in the
 * kernel's buffer for the next one, so one busy writer cannot hold the loop
 * (and the host can push back by not watching the fd for a while).
 */
#define FD_READ_MAX (1u << 20)
/*
 * Push-back (ABI 1.4 backlog_full): asked before each read, so what one read
 * makes must fit the host's headroom. Its records number at most its bytes,
 * with a unit held from the read before, over the shortest record: a line
 * "hpa=0 len=1 count=1\n" (a binary record is 56 bytes).
 */
#define RECORD_MIN_BYTES 20
_Static_assert((READ_CHUNK + HB_REPLAY_FRAME_HEADER_LEN + HB_REPLAY_FRAME_PAYLOAD_MAX +
		HB_REPLAY_LINE_MAX) /
			       RECORD_MIN_BYTES <=
		       HB_HOST_BACKLOG_HEADROOM,
	       "one read's records fit the host's headroom");

struct client {
	int fd;
	struct hb_replay_parser *parser;
	uint64_t bad_counted; /* of the parser's bad units, told the host */
	uint64_t last_ns;     /* CLOCK_MONOTONIC of its connect or last bytes */
	bool closing;         /* reading side shut for a newcomer: read to its end */
	struct replay *owner;
};

struct replay {
	const struct hb_host_ops *ops;
	struct hb_host *host;
	char name[128], path[108];
	int fd;                       /* file, FIFO or listening socket */
	struct hb_unix_listener sock; /* socket=: what to remove at close */
	gid_t sock_gid;               /* socket_group=, or (gid_t)-1 */
	char sock_group[64];          /* as given, for messages */
	bool is_file, is_socket;
	bool file_gone;       /* file: its path names nothing (logged once) */
	bool link_seen;       /* file: its path is a symbolic link, not followed (logged once) */
	int old_fd;           /* from=saved: the file rotated while down, read to its end first */
	char state[PATH_MAX]; /* file, from=saved: where its offset is kept, or "" */
	uint64_t saved[3];    /* what the state file holds: device, inode, offset */
	bool save_failed;     /* a failed save was logged (again once one works) */
	struct hb_replay_parser *parser;
	uint64_t bad_counted;
	uint64_t polled_bytes; /* FIFO: bytes read by the previous poll */
	uint64_t evicted;      /* socket: clients closed for a newcomer */
	uint64_t reported;     /* D7: parser reports this cycle (the first logged) */
	uint64_t bad_cycle;    /* D7: bad units counted this cycle */
	struct client clients[MAX_CLIENTS];
	uint8_t buf[READ_CHUNK];
};

/*
 * Every record parsed is handed over, and the parser goes on whatever the
 * host says: a record the host could not take is counted by it
 * (backlog_full), and stopping mid-read would lose the lines after it
 * uncounted and cut the next one.
 */
static int emit(void *ud, const struct hb_hot_record *r, size_t n)
{
	struct replay *s = ud;

	(void)s->ops->submit(s->host, r, n);
	return 0;
}

/* the host's backlog is full (ABI 1.4): read no more for now */
static bool pushed_back(const struct replay *s)
{
	return s->ops->abi_minor >= 4 && HB_OPS_HAS(s->ops, backlog_full) && s->ops->backlog_full &&
	       s->ops->backlog_full(s->host) > 0;
}

/*
 * D7: a parser's report of bad input. Each parser reports the first bad
 * unit of a read and sums up the rest, but a socket has up to 64 parsers
 * (and clients come and go) and a FIFO's writers make many short reads: one
 * few reports a cycle are logged for the whole source, the others are
 * summed up at the next poll (flush_muted()).
 */
#define REPORTS_PER_CYCLE 4
static void report(void *ud, const char *msg)
{
	struct replay *s = ud;

	if (s->reported++ < REPORTS_PER_CYCLE)
		s->ops->log(s->host, HB_LOG_WARNING, "%s", msg);
}

/* the cycle's reports beyond the first, as one line; a new cycle begins */
static void flush_muted(struct replay *s)
{
	if (s->reported > REPORTS_PER_CYCLE)
		s->ops->log(s->host, HB_LOG_WARNING,
			    "%s: ... and %" PRIu64 " more bad-input reports this cycle, not logged "
			    "(%" PRIu64 " bad lines, records or frames this cycle in all; bad_input "
			    "counts each)",
			    s->path, s->reported - REPORTS_PER_CYCLE, s->bad_cycle);
	s->reported = 0;
	s->bad_cycle = 0;
}

/* The units p threw away since the last call go to the host (ABI 1.1+). */
static void count_bad(struct replay *s, const struct hb_replay_parser *p, uint64_t *counted)
{
	uint64_t bad = hb_replay_parser_stats(p)->bad;

	if (bad == *counted)
		return;
	if (s->ops->abi_minor >= 1 && HB_OPS_HAS(s->ops, count_bad) && s->ops->count_bad)
		s->ops->count_bad(s->host, bad - *counted);
	s->bad_cycle += bad - *counted;
	*counted = bad;
}

enum { PUMP_MORE, PUMP_EOF, PUMP_PUSHED_BACK };

/*
 * Reads what fd has now, up to max bytes: PUMP_EOF at its end, PUMP_MORE
 * when it has nothing more now or max was read, PUMP_PUSHED_BACK when the
 * host's backlog is full (the rest stays in the file or the kernel's
 * buffer), -errno on error.
 */
static int pump(struct replay *s, int fd, struct hb_replay_parser *p, size_t max)
{
	size_t total = 0;

	while (total < max) {
		ssize_t n;

		if (pushed_back(s))
			return PUMP_PUSHED_BACK;
		n = read(fd, s->buf, sizeof(s->buf));

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? PUMP_MORE : -errno;
		if (n == 0)
			return PUMP_EOF;
		total += (size_t)n;
		(void)hb_replay_parser_feed(p, s->buf, (size_t)n);
	}
	return PUMP_MORE;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* c's part of a line or frame counted bad, its fd closed, its place free */
static void client_close(struct client *c)
{
	hb_replay_parser_finish(c->parser);
	count_bad(c->owner, c->parser, &c->bad_counted);
	c->owner->ops->unwatch_fd(c->owner->host, c->fd);
	close(c->fd);
	c->parser = hb_replay_parser_free(c->parser);
	c->fd = -1;
}

/*
 * A client is done at end-of-file or an error. HB_FD_HUP alone is not the
 * end: the peer may have sent more than one read's worth before closing,
 * and the fd stays readable until that is read and read() returns 0.
 */
static void on_client(void *priv, int fd, uint32_t revents)
{
	struct client *c = priv;
	int r = pump(c->owner, fd, c->parser, FD_READ_MAX);

	c->last_ns = now_ns();
	if (r < 0 || r == PUMP_EOF)
		client_close(c);
	else
		count_bad(c->owner, c->parser, &c->bad_counted);
}

static int waiting(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) < 0 ? -errno : n;
}

/*
 * All places taken: the client that has sent nothing for the longest time
 * (a leaked or stuck connection, most likely) gives its place to the
 * newcomer, whose bytes would otherwise be lost after a connect() and a
 * send() that both succeeded. Only a client with nothing waiting to be
 * read may go: closing one whose bytes sit unread would lose them. Its
 * reading side is shut first, so a send racing the close fails in the
 * client (EPIPE) instead of vanishing; one whose bytes came in before the
 * shutdown is left to be read to its end. NULL when no client can go:
 * the newcomer is refused.
 */
static struct client *evict_idlest(struct replay *s)
{
	uint64_t now = now_ns();

	for (int tries = 0; tries < MAX_CLIENTS; tries++) {
		struct client *c = NULL;

		for (int i = 0; i < MAX_CLIENTS; i++) {
			struct client *o = &s->clients[i];

			if (o->fd < 0 || o->closing || waiting(o->fd) != 0)
				continue;
			if (!c || o->last_ns < c->last_ns)
				c = o;
		}
		if (!c)
			return NULL;
		c->closing = true;
		if (shutdown(c->fd, SHUT_RD) < 0 || waiting(c->fd) != 0)
			continue; /* read to its end by on_client, then closed */
		s->evicted++;
		s->ops->log(s->host, HB_LOG_WARNING,
			    "%s: %d clients already: closed the one idle longest (fd %d, nothing "
			    "sent for %.1f s; %" PRIu64 " closed so) to take a new one",
			    s->name, MAX_CLIENTS, c->fd, (double)(now - c->last_ns) / 1e9,
			    s->evicted);
		client_close(c);
		return c;
	}
	return NULL;
}

static void on_listen(void *priv, int fd, uint32_t revents)
{
	struct replay *s = priv;
	int cfd = hb_unix_accept(&s->sock);
	struct client *c = NULL;
	char name[160];
	uid_t uid = 0;
	int r;

	if (cfd < 0)
		return;
	r = hb_unix_peer_check_group(cfd, s->sock_gid, &uid);
	if (r < 0) {
		if (r == -EPERM)
			s->ops->log(s->host, HB_LOG_WARNING,
				    "%s: a client of uid %u refused: only "
				    "root, the daemon's own user%s%s may feed it",
				    s->name, (unsigned)uid, s->sock_group[0] ? " and group " : "",
				    s->sock_group);
		else
			s->ops->log(s->host, HB_LOG_WARNING,
				    "%s: a client refused: its credentials "
				    "are unknown (%s)",
				    s->name, strerror(-r));
		close(cfd);
		return;
	}
	for (int i = 0; i < MAX_CLIENTS && !c; i++)
		if (s->clients[i].fd < 0)
			c = &s->clients[i];
	if (!c && !(c = evict_idlest(s))) {
		s->ops->log(s->host, HB_LOG_WARNING,
			    "%s: %d clients already, each with bytes still to read: refusing "
			    "another",
			    s->name, MAX_CLIENTS);
		close(cfd);
		return;
	}
	snprintf(name, sizeof(name), "%s[client %d]", s->path, cfd);
	c->parser = hb_replay_parser_new(name, emit, report, s);
	if (!c->parser || s->ops->watch_fd(s->host, cfd, HB_FD_READ, on_client, c) < 0) {
		c->parser = hb_replay_parser_free(c->parser);
		close(cfd);
		return;
	}
	c->fd = cfd;
	c->bad_counted = 0;
	c->closing = false;
	c->last_ns = now_ns();
	c->owner = s;
}

static void on_fifo(void *priv, int fd, uint32_t revents)
{
	struct replay *s = priv;

	(void)pump(s, fd, s->parser, FD_READ_MAX);
	count_bad(s, s->parser, &s->bad_counted);
}

/*
 * socket_group=: a group name, or a number of the one grammar (decimal or
 * 0x hex: "065534" is refused, never read as decimal or octal); 0, or
 * -errno (-ENOENT: no such group)
 */
static int group_param(const struct hb_dev_info *info, gid_t *ret)
{
	const char *v = hb_dev_param(info, "socket_group");
	struct group gr, *found = NULL;
	char buf[4096];
	uint64_t n;
	int r;

	*ret = (gid_t)-1;
	if (!v)
		return 0;
	if (!*v)
		return -EINVAL;
	if (*v >= '0' && *v <= '9') {
		r = hb_parse_u64(v, &n);
		if (r < 0)
			return r;
		if (n >= (gid_t)-1)
			return -ERANGE;
		*ret = (gid_t)n;
		return 0;
	}
	if (getgrnam_r(v, &gr, buf, sizeof(buf), &found) != 0 || !found)
		return -ENOENT;
	*ret = found->gr_gid;
	return 0;
}

/* socket_mode=: an octal mode as systemd's SocketMode= (0660), at most 0777 */
static int mode_param(const struct hb_dev_info *info, bool group, mode_t *ret)
{
	const char *v = hb_dev_param(info, "socket_mode");
	size_t len = v ? strlen(v) : 0;
	mode_t m = 0;

	*ret = group ? 0660 : HB_UNIX_SOCKET_MODE;
	if (!v)
		return 0;
	if (len < 3 || len > 4)
		return -EINVAL;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '7')
			return -EINVAL;
		m = m * 8 + (mode_t)(*c - '0');
	}
	if (m > 0777)
		return -EINVAL;
	*ret = m;
	return 0;
}

/* the group must reach the socket: its directory searchable by it */
static void check_socket_dir(struct replay *s, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (s->sock_gid == (gid_t)-1 || stat(dir, &st) < 0)
		return;
	if ((st.st_mode & S_IXOTH) || ((st.st_mode & S_IXGRP) && st.st_gid == s->sock_gid))
		return;
	s->ops->log(s->host, HB_LOG_WARNING,
		    "socket_group=%s: the socket's directory %s (mode %04o, group %u) does not "
		    "let the group reach it: give the directory that group and mode 0710",
		    s->sock_group, dir, (unsigned)(st.st_mode & 07777), (unsigned)st.st_gid);
}

static int open_socket(struct replay *s, const struct hb_dev_info *info, const char *path,
		       struct hb_err *err)
{
	const char *group = hb_dev_param(info, "socket_group");
	struct hb_err e = { 0 };
	mode_t mode;
	int r;

	if ((r = group_param(info, &s->sock_gid)) < 0 ||
	    (r = mode_param(info, s->sock_gid != (gid_t)-1, &mode)) < 0)
		return hb_err_set(err, r,
				  "replay: socket_group= or socket_mode= (check-config says "
				  "which)");
	snprintf(s->sock_group, sizeof(s->sock_group), "%s", group ? group : "");
	r = hb_unix_listen_as(path, 16, mode, s->sock_gid, &s->sock, &e);
	if (r < 0)
		return hb_err_set(err, r, "replay: socket=%s", e.msg);
	check_socket_dir(s, path);
	s->fd = s->sock.fd;
	return s->ops->watch_fd(s->host, s->fd, HB_FD_READ, on_listen, s);
}

/* the parameters it takes (hb_builtin_params(), check-config) */
const char *const hb_source_replay_params[] = { "path",         "socket",      "from", "state",
						"socket_group", "socket_mode", NULL };

enum from { FROM_END, FROM_START, FROM_SAVED };

/* from=: 0.. an enum from, or -EINVAL */
static int from_param(const struct hb_dev_info *info)
{
	const char *v = hb_dev_param(info, "from");

	if (!v || !strcmp(v, "end"))
		return FROM_END;
	if (!strcmp(v, "start"))
		return FROM_START;
	if (!strcmp(v, "saved"))
		return FROM_SAVED;
	return -EINVAL;
}

/* from=saved: the state file, state= or STATE_DIR/replay-NAME.offset */
static void state_path(const struct hb_dev_info *info, char *buf, size_t size)
{
	const char *v = hb_dev_param(info, "state"), *name = info->name ? info->name : "replay";
	size_t len = strlen(STATE_DIR "/replay-");

	if (v) {
		snprintf(buf, size, "%s", v);
		return;
	}
	snprintf(buf, size, STATE_DIR "/replay-%s.offset", name);
	/* a source name is the file's name: nothing that makes it a path */
	for (char *c = buf + (len < size ? len : size - 1); *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			*c = '_';
}

int hb_source_replay_state(const struct hb_dev_info *info, char *buf, size_t size)
{
	if (!hb_dev_param(info, "path") || from_param(info) != FROM_SAVED)
		return 0;
	state_path(info, buf, size);
	return 1;
}

/* from= and state= against path= (st: its stat) or socket= */
static int check_from(const struct hb_dev_info *info, const char *path, const char *sock,
		      const struct stat *st, struct hb_err *err)
{
	const char *from = hb_dev_param(info, "from"), *state = hb_dev_param(info, "state");
	char sp[PATH_MAX], dir[PATH_MAX];
	struct stat dst;
	char *slash;

	if (from_param(info) < 0)
		return hb_err_set(err, -EINVAL,
				  "replay: from=%s: want end (new lines only, the default), "
				  "start or saved",
				  from);
	if (from && sock)
		return hb_err_set(err, -EINVAL,
				  "replay: from=%s: a socket= has no start or end; from= is "
				  "for a path= file",
				  from);
	if (from && path && S_ISFIFO(st->st_mode))
		return hb_err_set(err, -EINVAL,
				  "replay: from=%s: path=%s is a FIFO, read as it comes; "
				  "from= is for a regular file",
				  from, path);
	if (state && from_param(info) != FROM_SAVED)
		return hb_err_set(err, -EINVAL,
				  "replay: state=%s is where from=saved keeps its offset; "
				  "from is %s",
				  state, from ? from : "end (the default)");
	if (from_param(info) != FROM_SAVED)
		return 0;
	if (state && !*state)
		return hb_err_set(err, -EINVAL, "replay: state= is empty");
	state_path(info, sp, sizeof(sp));
	snprintf(dir, sizeof(dir), "%s", sp);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';
	if (stat(dir, &dst) < 0)
		return hb_err_set(err, -errno,
				  "replay: from=saved: the state file %s: its directory %s: "
				  "%s (the unit's StateDirectory= makes " STATE_DIR ")",
				  sp, dir, strerror(errno));
	if (!S_ISDIR(dst.st_mode))
		return hb_err_set(err, -ENOTDIR,
				  "replay: from=saved: the state file %s: %s is not a directory",
				  sp, dir);
	/* saved by rename: a read-only directory would keep nothing (newuser r5 E11) */
	if (access(dir, W_OK | X_OK) < 0)
		return hb_err_set(err, -errno,
				  "replay: from=saved: the state file %s: its directory %s is "
				  "not writable: %s (nothing would be saved)",
				  sp, dir, strerror(errno));
	return 0;
}

/* socket_group= and socket_mode=: for a socket=, a group this host has, an octal mode */
static int check_socket_params(const struct hb_dev_info *info, const char *sock, struct hb_err *err)
{
	const char *group = hb_dev_param(info, "socket_group"),
		   *mode = hb_dev_param(info, "socket_mode");
	gid_t gid;
	mode_t m;
	int r;

	if ((group || mode) && !sock)
		return hb_err_set(err, -EINVAL, "replay: %s= is for a socket=, not a path=",
				  group ? "socket_group" : "socket_mode");
	r = group_param(info, &gid);
	if (r < 0 && group && *group >= '0' && *group <= '9')
		return hb_err_set(err, r,
				  "replay: socket_group: '%s' %s (want a group name or number)",
				  group,
				  r == -ERANGE ? "is above the largest group id" :
						 hb_parse_u64_why(group, r));
	if (r < 0)
		return hb_err_set(err, r,
				  "replay: socket_group=%s: %s (want a group name or number)", group,
				  r == -ENOENT ? "no such group on this host" : "not a group");
	if (mode_param(info, gid != (gid_t)-1, &m) < 0)
		return hb_err_set(err, -EINVAL,
				  "replay: socket_mode=%s: want an octal mode of 3 or 4 digits, at "
				  "most 0777, as systemd's SocketMode= (0660): the one number read "
				  "as octal, by design",
				  mode);
	return 0;
}

/*
 * The start-up check (registry.c, and open first): one of path= and
 * socket=; a path that is a file or FIFO we may read; a socket path that
 * fits sockaddr_un and is not something else already. Opens nothing.
 */
int hb_source_replay_check(const struct hb_dev_info *info, struct hb_err *err)
{
	const char *path = hb_dev_param(info, "path"), *sock = hb_dev_param(info, "socket");
	struct sockaddr_un sa;
	struct stat st;
	int r = hb_dev_params_check(info, hb_source_replay_params, err);

	if (r < 0)
		return r;
	if (!path == !sock)
		return hb_err_set(err, -EINVAL,
				  "replay: give exactly one of path= (file or FIFO) "
				  "and socket=");
	if (path && !*path)
		return hb_err_set(err, -EINVAL, "replay: path= is empty");
	if (path && lstat(path, &st) < 0)
		return hb_err_set(err, -errno, "replay: path=%s: %s", path, strerror(errno));
	/* D6: never followed, at start as at a rotation (O_NOFOLLOW) */
	if (path && S_ISLNK(st.st_mode))
		return hb_err_set(err, -ELOOP,
				  "replay: path=%s is a symbolic link; refusing to follow it (name "
				  "the file or FIFO itself)",
				  path);
	if (path && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return hb_err_set(err, -EINVAL, "replay: path=%s is neither a file nor a FIFO", path);
	if (path && access(path, R_OK) < 0)
		return hb_err_set(err, -errno, "replay: path=%s: %s", path, strerror(errno));
	if (sock && (!*sock || strlen(sock) >= sizeof(sa.sun_path)))
		return hb_err_set(err, -ENAMETOOLONG,
				  "replay: socket=%s: want 1..%zu bytes (a UNIX "
				  "socket's path)",
				  sock, sizeof(sa.sun_path) - 1);
	if (sock && lstat(sock, &st) == 0 && !S_ISSOCK(st.st_mode))
		return hb_err_set(err, -EEXIST, "replay: socket=%s exists and is not a socket", sock);
	if ((r = check_from(info, path, sock, &st, err)) < 0)
		return r;
	return check_socket_params(info, sock, err);
}

/*
 * from=end: the file's end, or the start of the line a writer is in the
 * middle of there (text after the last newline, at most a line's length),
 * so that line is read whole; a binary tail is left to the parser's
 * resynchronisation.
 */
static off_t end_of(int fd, off_t size)
{
	char tail[HB_REPLAY_LINE_MAX];
	off_t from = size > (off_t)sizeof(tail) ? size - (off_t)sizeof(tail) : 0;
	ssize_t n = size ? pread(fd, tail, (size_t)(size - from), from) : 0;

	if (n <= 0 || tail[n - 1] == '\n')
		return size;
	for (ssize_t i = n; i-- > 0;) {
		if (tail[i] == '\n')
			return from + i + 1;
		if (!is_text(tail[i]))
			return size;
	}
	return from == 0 ? 0 : size; /* one line so far, or a line too long */
}

/* where the next record of the open file starts: what the parser holds is re-read */
static uint64_t file_offset(const struct replay *s)
{
	off_t off = lseek(s->fd, 0, SEEK_CUR);
	size_t held = hb_replay_parser_pending(s->parser);

	return off < 0 ? 0 : (uint64_t)off > held ? (uint64_t)off - held : 0;
}

/* from=saved: the open file's identity and offset into the state file, when they changed */
static void save_offset(struct replay *s)
{
	struct stat st;
	char text[96];
	uint64_t now[3];
	int n, r;

	if (!s->state[0] || !s->is_file || fstat(s->fd, &st) < 0)
		return;
	now[0] = (uint64_t)st.st_dev;
	now[1] = (uint64_t)st.st_ino;
	now[2] = file_offset(s);
	if (!memcmp(now, s->saved, sizeof(now)))
		return;
	n = snprintf(text, sizeof(text), "%llu %llu %llu\n", (unsigned long long)now[0],
		     (unsigned long long)now[1], (unsigned long long)now[2]);
	r = hb_write_file_atomic(s->state, text, (size_t)n, 0600);
	if (r < 0) {
		if (!s->save_failed)
			s->ops->log(s->host, HB_LOG_WARNING,
				    "from=saved: cannot save the offset in %s: %s (a restart "
				    "reads again from the last one saved)",
				    s->state, strerror(-r));
		s->save_failed = true;
		return;
	}
	if (s->save_failed)
		s->ops->log(s->host, HB_LOG_NOTICE, "from=saved: the offset is saved in %s again",
			    s->state);
	s->save_failed = false;
	memcpy(s->saved, now, sizeof(now));
}

/* "DEV INO OFFSET\n" from the state file, or -errno */
static int read_saved(const char *path, uint64_t ret[3])
{
	char text[96], *p = text;
	int r = hb_read_text(NULL, path, text, sizeof(text));

	if (r < 0)
		return r;
	for (int i = 0; i < 3; i++) {
		char *sp = strchr(p, ' ');

		if (i < 2 && !sp)
			return -EINVAL;
		if (sp)
			*sp = '\0';
		if (hb_parse_u64_base(p, 10, &ret[i]) < 0)
			return -EINVAL;
		p = sp ? sp + 1 : p;
	}
	return 0;
}

/*
 * D8: from=saved found another file under the path. The one it had read to
 * saved[2] is looked for under the names a rotation gives it, PATH.1 and
 * PATH.old (a regular file, not a link, of the saved device and inode):
 * found, its tail is read from there first (the first poll), so lines
 * appended while the daemon was down are not lost. Not found, what was
 * appended after the saved offset is lost, and said so.
 */
static void find_rotated(struct replay *s, const uint64_t saved[3])
{
	static const char *const suffix[] = { ".1", ".old" };
	char name[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		int fd;

		snprintf(name, sizeof(name), "%s%s", s->path, suffix[i]);
		fd = open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_dev != saved[0] ||
		    (uint64_t)st.st_ino != saved[1] || (uint64_t)st.st_size < saved[2] ||
		    lseek(fd, (off_t)saved[2], SEEK_SET) < 0) {
			close(fd);
			continue;
		}
		s->ops->log(s->host, HB_LOG_NOTICE,
			    "%s: the file read at the last stop is %s now: reading its %llu unread "
			    "bytes first",
			    s->path, name, (unsigned long long)st.st_size - saved[2]);
		s->old_fd = fd;
		return;
	}
	s->ops->log(s->host, HB_LOG_WARNING,
		    "%s: the file read at the last stop (device %llu, inode %llu) is neither %s.1 "
		    "nor %s.old: what was appended to it after byte %llu while the daemon was down "
		    "is left behind unread",
		    s->path, (unsigned long long)saved[0], (unsigned long long)saved[1], s->path,
		    s->path, (unsigned long long)saved[2]);
}

/* Where a followed file is first read from (from=); st is the open file's. */
static int start_file(struct replay *s, const struct hb_dev_info *info, const struct stat *st)
{
	uint64_t saved[3];
	off_t off = 0;
	int r;

	switch (from_param(info)) {
	case FROM_START: break;
	case FROM_SAVED:
		state_path(info, s->state, sizeof(s->state));
		r = read_saved(s->state, saved);
		if (r == -ENOENT) {
			off = end_of(s->fd, st->st_size);
			s->ops->log(s->host, HB_LOG_INFO,
				    "%s: no offset saved in %s yet: reading from its end", s->path,
				    s->state);
		} else if (r < 0) {
			off = end_of(s->fd, st->st_size);
			s->ops->log(s->host, HB_LOG_WARNING,
				    "%s: the offset saved in %s is unreadable (%s): reading from "
				    "its end",
				    s->path, s->state,
				    r == -EINVAL ? "not DEV INO OFFSET" : strerror(-r));
		} else if (saved[0] != (uint64_t)st->st_dev || saved[1] != (uint64_t)st->st_ino) {
			s->ops->log(s->host, HB_LOG_NOTICE,
				    "%s is another file than at the last stop (rotated): reading it "
				    "from its start",
				    s->path);
			find_rotated(s, saved);
		} else if (saved[2] > (uint64_t)st->st_size) {
			s->ops->log(s->host, HB_LOG_NOTICE,
				    "%s shrank below the offset saved at the last stop (%llu > %lld "
				    "bytes: truncated): reading it from its start",
				    s->path, (unsigned long long)saved[2], (long long)st->st_size);
		} else {
			off = (off_t)saved[2];
			s->ops->log(s->host, HB_LOG_INFO,
				    "%s: going on at byte %lld of %lld, where the last run stopped",
				    s->path, (long long)off, (long long)st->st_size);
		}
		break;
	default:
		off = end_of(s->fd, st->st_size);
		/* trial42 #3: run --once over a file written before read nothing, and said nothing */
		if (off)
			s->ops->log(s->host, HB_LOG_NOTICE,
				    "%s: reading from its end (from = end, the default): the %lld "
				    "bytes already there are skipped (from = start reads them)",
				    s->path, (long long)off);
		break;
	}
	if (off && lseek(s->fd, off, SEEK_SET) < 0)
		return -errno;
	save_offset(s);
	return 0;
}

int hb_source_replay_input(const struct hb_dev_info *info, char *ret, size_t size)
{
	const char *path = hb_dev_param(info, "path"), *sock = hb_dev_param(info, "socket");
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash;
	struct stat st;

	if (path) {
		if (stat(path, &st) < 0)
			return -errno;
		snprintf(ret, size, "file %llu %llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		return 0;
	}
	if (!sock)
		return -EINVAL;
	slash = strrchr(sock, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - sock) : 1, slash ? sock : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	snprintf(ret, size, "socket %s/%s", real, slash ? slash + 1 : sock);
	return 0;
}

int hb_source_replay_dir_unsafe(const struct hb_dev_info *info, char *buf, size_t size)
{
	const char *path = hb_dev_param(info, "path"), *slash;
	char dir[PATH_MAX];
	struct stat st;
	mode_t m;

	if (!path || !*path)
		return 0;
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (stat(dir, &st) < 0)
		return 0;
	m = st.st_mode;
	if (st.st_uid != 0 && st.st_uid != geteuid())
		snprintf(buf, size, "owned by uid %u", (unsigned)st.st_uid);
	else if (m & S_IWOTH)
		snprintf(buf, size, "world-writable (mode %04o)", (unsigned)(m & 07777));
	else if ((m & S_IWGRP) && st.st_gid != 0 && st.st_gid != getegid())
		snprintf(buf, size, "writable by group %u (mode %04o)", (unsigned)st.st_gid,
			 (unsigned)(m & 07777));
	else
		return 0;
	{
		char why[96];

		snprintf(why, sizeof(why), "%s", buf);
		snprintf(buf, size,
			 "replay: path=%s: its directory %s is %s: another user may put a file or "
			 "FIFO of their choosing at that name (after a rotation, or at once); keep "
			 "feeds in a directory only root and the daemon's user may write",
			 path, dir, why);
	}
	return 1;
}

static int replay_open(const struct hb_host_ops *ops, struct hb_host *h,
		       const struct hb_dev_info *info, void **ret_priv)
{
	const char *path = hb_dev_param(info, "path"), *sock = hb_dev_param(info, "socket");
	struct hb_err err = { 0 };
	struct replay *s;
	struct stat st;
	int r;

	if ((r = hb_source_replay_check(info, &err)) < 0) {
		ops->log(h, HB_LOG_ERR, "%s", err.msg);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->host = h;
	s->fd = -1;
	s->old_fd = -1;
	s->sock.fd = -1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", info->name ? info->name : "replay");
	snprintf(s->path, sizeof(s->path), "%s", path ? path : sock);
	{
		char why[PATH_MAX + 256];

		if (hb_source_replay_dir_unsafe(info, why, sizeof(why)) > 0)
			ops->log(h, HB_LOG_WARNING, "%s", why);
	}
	if (sock) {
		s->is_socket = true;
		r = open_socket(s, info, sock, &err);
		if (r < 0)
			goto fail;
	} else {
		s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		if (s->fd < 0 || fstat(s->fd, &st) < 0) {
			r = hb_err_set(&err, -errno, "replay: path=%s: %s", path, strerror(errno));
			goto fail;
		}
		s->parser = hb_replay_parser_new(path, emit, report, s);
		if (!s->parser) {
			r = -ENOMEM;
			goto fail;
		}
		if (S_ISFIFO(st.st_mode)) {
			/* O_RDWR: no EOF when the last writer closes */
			close(s->fd);
			s->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
			/* a deeper pipe: fewer wake-ups at millions of records/s
			   (best effort: pipe-max-size may forbid it) */
			if (s->fd >= 0)
				(void)fcntl(s->fd, F_SETPIPE_SZ, FIFO_PIPE_SIZE);
			r = s->fd < 0 ? -errno : ops->watch_fd(h, s->fd, HB_FD_READ, on_fifo, s);
			if (r < 0) {
				hb_err_set(&err, r, "replay: path=%s: %s", path, strerror(-r));
				goto fail;
			}
		} else if (S_ISREG(st.st_mode)) {
			s->is_file = true;
			r = start_file(s, info, &st);
			if (r < 0) {
				hb_err_set(&err, r, "replay: path=%s: %s", path, strerror(-r));
				goto fail;
			}
		} else {
			r = hb_err_set(&err, -EINVAL,
				       "replay: path=%s is neither a file nor a FIFO", path);
			goto fail;
		}
	}
	*ret_priv = s;
	return 0;
fail:
	ops->log(h, HB_LOG_ERR, "%s", err.msg[0] ? err.msg : strerror(-r));
	if (s->is_socket)
		hb_unix_listener_close(&s->sock);
	else if (s->fd >= 0)
		close(s->fd);
	if (s->old_fd >= 0)
		close(s->old_fd);
	hb_replay_parser_free(s->parser);
	free(s);
	return r;
}

/* a fresh parser for input that starts anew; the old one's partial line is bad */
static int new_parser(struct replay *s)
{
	struct hb_replay_parser *p = hb_replay_parser_new(s->path, emit, report, s);

	if (!p)
		return -ENOMEM;
	hb_replay_parser_finish(s->parser);
	count_bad(s, s->parser, &s->bad_counted);
	hb_replay_parser_free(s->parser);
	s->parser = p;
	s->bad_counted = 0;
	return 0;
}

/*
 * A followed file cut below what was read (truncated, maybe written
 * again): read from its start again. Sizes alone cannot see a file cut and
 * rewritten past the old offset before the next poll.
 */
static int check_truncated(struct replay *s)
{
	off_t off = lseek(s->fd, 0, SEEK_CUR);
	struct stat st;

	if (off < 0 || fstat(s->fd, &st) < 0)
		return -errno;
	if (st.st_size >= off)
		return 0;
	s->ops->log(s->host, HB_LOG_NOTICE,
		    "%s shrank from %lld to %lld bytes (truncated): "
		    "reading it again from its start",
		    s->path, (long long)off, (long long)st.st_size);
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return -errno;
	return new_parser(s);
}

/*
 * The path names another file than the one open (rotated: renamed or
 * removed, and made anew): the open one was read to its end, now the new
 * one is read from its start. A path naming nothing keeps the open file
 * (its writer may still append) until a file appears there.
 */
static int check_rotated(struct replay *s)
{
	struct stat now, open_st;
	int fd;

	if (lstat(s->path, &now) < 0) {
		if (errno != ENOENT)
			return -errno;
		if (!s->file_gone)
			s->ops->log(s->host, HB_LOG_NOTICE,
				    "%s is gone (rotated?): reading the file "
				    "that takes its name from its start",
				    s->path);
		s->file_gone = true;
		return 0;
	}
	if (fstat(s->fd, &open_st) < 0)
		return -errno;
	if (now.st_dev == open_st.st_dev && now.st_ino == open_st.st_ino) {
		s->file_gone = false; /* back under its name */
		s->link_seen = false;
		return 0;
	}
	/* D6: the path made a link (by whoever may write its directory) is not followed */
	fd = S_ISLNK(now.st_mode) ? -1 :
				    open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && (S_ISLNK(now.st_mode) || errno == ELOOP)) {
		if (!s->link_seen)
			s->ops->log(s->host, HB_LOG_WARNING,
				    "%s is a symbolic link now: not following it (a feed is never "
				    "read through a link); keeping the old file",
				    s->path);
		s->link_seen = true;
		return 0;
	}
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode)) {
		int r = S_ISREG(now.st_mode) ? -errno : -EINVAL;

		close(fd);
		return r;
	}
	s->ops->log(s->host, HB_LOG_NOTICE,
		    "%s is another file now (rotated): reading it "
		    "from its start",
		    s->path);
	close(s->fd);
	s->fd = fd;
	s->file_gone = false;
	s->link_seen = false;
	return new_parser(s);
}

/*
 * D5: the FIFO's path names another node than the one open (removed and
 * made anew under the daemon): what the old one still holds is read, then
 * the new one is opened (O_NOFOLLOW, read-write as at start) and watched
 * instead, logged once. A path naming nothing, a link or something else
 * keeps the old FIFO (logged once) until a FIFO takes the name again.
 */
static int check_fifo_replaced(struct replay *s)
{
	struct stat now, open_st;
	int fd, r;

	if (fstat(s->fd, &open_st) < 0)
		return -errno;
	if (lstat(s->path, &now) == 0 && now.st_dev == open_st.st_dev &&
	    now.st_ino == open_st.st_ino) {
		s->file_gone = false;
		return 0;
	}
	fd = lstat(s->path, &now) == 0 && S_ISFIFO(now.st_mode) ?
		     open(s->path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW) :
		     -1;
	if (fd < 0 || fstat(fd, &now) < 0 || !S_ISFIFO(now.st_mode)) {
		if (fd >= 0)
			close(fd);
		if (!s->file_gone)
			s->ops->log(s->host, HB_LOG_WARNING,
				    "%s no longer names the FIFO open (removed or replaced by "
				    "something else): reading the old one until a FIFO takes its "
				    "name",
				    s->path);
		s->file_gone = true;
		return 0;
	}
	(void)pump(s, s->fd, s->parser, FD_READ_MAX);
	s->ops->log(s->host, HB_LOG_NOTICE,
		    "%s is another FIFO now (made anew): reading the new one (what writers "
		    "still hold open on the old one is not read)",
		    s->path);
	s->ops->unwatch_fd(s->host, s->fd);
	close(s->fd);
	s->fd = fd;
	s->file_gone = false;
	(void)fcntl(s->fd, F_SETPIPE_SZ, FIFO_PIPE_SIZE);
	r = s->ops->watch_fd(s->host, s->fd, HB_FD_READ, on_fifo, s);
	if (r < 0)
		return r;
	r = new_parser(s);
	s->polled_bytes = 0;
	return r;
}

static int poll_file(struct replay *s)
{
	int r;

	if (s->old_fd >= 0) { /* D8: the rotated file's tail first */
		r = pump(s, s->old_fd, s->parser, FILE_POLL_MAX);
		count_bad(s, s->parser, &s->bad_counted);
		if (r != PUMP_EOF)
			return r < 0 ? r : 0;
		close(s->old_fd);
		s->old_fd = -1;
		if ((r = new_parser(s)) < 0)
			return r;
	}
	r = check_truncated(s);

	if (r >= 0)
		r = pump(s, s->fd, s->parser, FILE_POLL_MAX);
	/* the old file's last lines are in (not when pushed back before its
	   end); then the new one, if rotated */
	if (r == PUMP_EOF && (r = check_rotated(s)) >= 0 && !s->file_gone)
		r = pump(s, s->fd, s->parser, FILE_POLL_MAX);
	count_bad(s, s->parser, &s->bad_counted);
	save_offset(s);
	return r < 0 ? r : 0;
}

static int replay_poll(void *priv)
{
	struct replay *s = priv;
	int r;

	flush_muted(s); /* what came between the cycles */
	if (s->is_socket)
		return 0; /* socket input arrives through watch_fd */
	if (!s->is_file) {
		/*
		 * FIFO input arrives through watch_fd. Quiet for a whole poll
		 * interval with part of a line or frame held back: its writer
		 * died in it (a live one writes whole frames and lines), so it
		 * is counted bad and what the others wrote after it is read.
		 */
		uint64_t bytes;

		r = check_fifo_replaced(s);
		if (r < 0)
			return r;
		bytes = hb_replay_parser_stats(s->parser)->bytes;
		/* what waits in the pipe first (its fd may have been paused) */
		r = pump(s, s->fd, s->parser, FD_READ_MAX);
		/* pushed back, the rest of a line may still be in the pipe */
		if (r != PUMP_PUSHED_BACK && bytes == s->polled_bytes &&
		    hb_replay_parser_stats(s->parser)->bytes == bytes &&
		    hb_replay_parser_pending(s->parser))
			(void)hb_replay_parser_idle(s->parser);
		s->polled_bytes = hb_replay_parser_stats(s->parser)->bytes;
		count_bad(s, s->parser, &s->bad_counted);
		return 0;
	}
	r = poll_file(s);
	flush_muted(s);
	return r;
}

/*
 * A line, record or frame held back at the stop was cut by the daemon
 * stopping, not by its producer: it is not parsed (nor counted bad, after
 * the exit summary). A followed file's saved offset points at its start.
 */
static void replay_close(void *priv)
{
	struct replay *s = priv;

	if (s->is_file)
		save_offset(s);
	if (s->old_fd >= 0)
		close(s->old_fd);
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (s->clients[i].fd < 0)
			continue;
		s->ops->unwatch_fd(s->host, s->clients[i].fd);
		close(s->clients[i].fd);
		hb_replay_parser_free(s->clients[i].parser);
	}
	if (s->fd >= 0 && !s->is_file)
		s->ops->unwatch_fd(s->host, s->fd);
	if (s->is_socket)
		hb_unix_listener_close(&s->sock); /* only the socket it made */
	else if (s->fd >= 0)
		close(s->fd);
	hb_replay_parser_free(s->parser);
	free(s);
}

const struct hb_device_ops hb_source_replay = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_device_ops),
	.name = "replay",
	.caps = HB_DEV_CAP_POLL | HB_DEV_CAP_FD | HB_DEV_CAP_DPA | HB_DEV_CAP_HPA,
	.open = replay_open,
	.poll = replay_poll,
	.close = replay_close,
};
