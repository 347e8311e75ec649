/* SPDX-License-Identifier: MIT */
/*
 * daemon/util: what every hotbridge folder shares, the base layer.
 * translate/, devices/ and kernel/ include it as "util/util.h" and use
 * nothing else of daemon/ (tests/unit/test-layering.c). It uses nothing of
 * hotbridge.
 *  - struct hb_err: a negative errno plus a message naming the object that
 *    was wrong; libraries fill it, the program prints it once.
 *  - checked number parsing (no strtol/atoi elsewhere).
 *  - file reading with a root prefix, for sysfs fixtures.
 *  - the monotonic clock, power-of-two sizes, the hash of our hash tables.
 *  - files the daemon creates (create.c, socket.c): never through a
 *    planted symbolic link, never over something that is not ours.
 */
#ifndef HB_UTIL_H
#define HB_UTIL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>

#include "macro.h"

/*
 * Room for a message that names two paths of up to PATH_MAX (a file and its
 * directory, say) and still ends with its reason (newuser r5 E5)
 */
#define HB_ERR_MSG_MAX (2 * PATH_MAX + 512)

struct hb_err {
	int code;                 /* 0 or -errno */
	char msg[HB_ERR_MSG_MAX]; /* empty when code is 0 */
};

/* Record an error; returns code (negative errno) so callers can
 * "return hb_err_set(err, -EINVAL, ...)". err may be NULL. */
int hb_err_set(struct hb_err *err, int code, const char *fmt, ...) HB_PRINTF(3, 4);
void hb_err_clear(struct hb_err *err);

/*
 * The number grammar of every user input (configuration keys, --set,
 * command-line options, control requests, replay text, source parameters;
 * parse.c is its one implementation). An unsigned 64-bit number: decimal,
 * or hex with 0x/0X. Never octal: a decimal with a leading zero ("010",
 * "00") is refused. The whole string must be consumed; ASCII digits only;
 * no sign, no blanks, no empty string. 0, -EINVAL or -ERANGE; *ret is set
 * only on 0.
 */
int hb_parse_u64(const char *s, uint64_t *ret);
/* The same for the len bytes at s (no NUL needed: a field inside a line). */
int hb_parse_u64_n(const char *s, size_t len, uint64_t *ret);
/* With a base: 0 = hb_parse_u64, 10 or 16 = that base only (sysfs, not users). */
int hb_parse_u64_base(const char *s, int base, uint64_t *ret);
/* hb_parse_u64's syntax with an optional leading '-'. */
int hb_parse_i64(const char *s, int64_t *ret);
int hb_parse_int(const char *s, int *ret);
/*
 * A fractional number: [-]digits[.digits][e[+-]digits] with the integer
 * part under the rule above (0.5 and 1e3, not 00.5 or 010); no hex, inf,
 * nan or blanks. 0, -EINVAL or -ERANGE.
 */
int hb_parse_double(const char *s, double *ret);
/*
 * Why s failed hb_parse_u64() with r, as a predicate to follow the quoted
 * text: "'010' is not a number: a leading zero (...)". For every message
 * that refuses a number, so each names the real reason.
 */
const char *hb_parse_u64_why(const char *s, int r);
const char *hb_parse_u64_why_n(const char *s, size_t len, int r);
/* The same for hb_parse_i64() and hb_parse_double() (-EDOM: a sign where none is taken). */
const char *hb_parse_i64_why(const char *s, int r);
const char *hb_parse_double_why(const char *s, int r);
/*
 * A boolean: true, yes or 1; false, no or 0; in any case (TRUE, No). 0 or
 * -EINVAL; HB_BOOL_WANT says so in a message.
 */
int hb_parse_bool(const char *s, bool *ret);
#define HB_BOOL_WANT "want true or false (or yes/no, 1/0; any case)"

/*
 * Read a small text file below root (root may be NULL or "" for "/"),
 * strip the trailing newline. Returns length or -errno.
 */
int hb_read_text(const char *root, const char *path, char *buf, size_t size);
int hb_read_u64(const char *root, const char *path, int base, uint64_t *ret);
/*
 * Read a whole file into a malloc'ed buffer (NUL-terminated), at most max
 * bytes. hb_read_text() and hb_read_file() read regular files only, never
 * waiting in open() for a FIFO's writer: -EISDIR for a directory, -EINVAL
 * for a FIFO, device or socket (newuser r5 E22).
 */
int hb_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len);
/* strerror(-r), "not a regular file ..." for hb_read_file()'s -EINVAL */
const char *hb_read_file_strerror(int r);

/* mkdir the directory path is in (one level), mode; 0 when it exists. */
int hb_mkdir_parent(const char *path, mode_t mode);
/*
 * Replace path with data, atomically: a fresh temporary ".BASE.XXXXXXXX" in
 * the same directory (O_CREAT|O_EXCL|O_NOFOLLOW), written, fsync'ed, given
 * mode, renamed over path (which replaces a symbolic link at path rather
 * than following it), then the directory fsync'ed. Readers see the old file
 * or the new one, never a part. 0 or -errno; on error no temporary is left.
 */
int hb_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);
/*
 * Removes the temporaries of path that a killed hb_write_file_atomic() left
 * (".BASE.XXXXXXXX", eight hex digits, regular files of this user): only
 * while no one else writes path (the daemon, holding its lock). The number
 * removed, or -errno (newuser r5 E17).
 */
int hb_remove_temporaries(const char *path);

/*
 * A listening UNIX stream socket and the node it bound, to remove only that
 * (device, inode and change time: an inode number alone may be reused).
 */
struct hb_unix_listener {
	int fd; /* -1 when closed */
	char path[108];
	dev_t dev;
	ino_t ino;
	struct timespec ctime;
};
/*
 * The one permission policy of every socket hotbridge listens on (the
 * control socket, the replay source's socket=): its owner only. Its
 * directory, when created, is 0700.
 */
#define HB_UNIX_SOCKET_MODE 0600
/*
 * Listen on path (non-blocking, close-on-exec) with the node's mode
 * HB_UNIX_SOCKET_MODE from bind on. Something at path that is not a socket
 * (a file, a symbolic link) is refused with -EEXIST; a socket another
 * process listens on with -EADDRINUSE; a dead listener's socket is replaced.
 */
int hb_unix_listen(const char *path, int backlog, struct hb_unix_listener *ret, struct hb_err *err);
/*
 * The same with the node's mode (from bind on) and, unless gid is
 * (gid_t)-1, its group (set before it listens): a feed socket a group may
 * write to (the replay source's socket_mode, socket_group).
 */
int hb_unix_listen_as(const char *path, int backlog, mode_t mode, gid_t gid,
		      struct hb_unix_listener *ret, struct hb_err *err);
/*
 * Accept a connection on it: the new fd (non-blocking, close-on-exec) or
 * -errno. Then hb_unix_peer_check() before serving it.
 */
int hb_unix_accept(const struct hb_unix_listener *l);
/*
 * The peer policy of the same sockets: root, or a process of our own
 * effective uid (SO_PEERCRED). 0, -EPERM for anyone else (*ret_uid, which
 * may be NULL, says who), or -errno when the kernel does not say.
 */
int hb_unix_peer_check(int fd, uid_t *ret_uid);
/*
 * The same, and unless gid is (gid_t)-1 a process whose group or one of
 * whose supplementary groups is gid (SO_PEERCRED, SO_PEERGROUPS).
 */
int hb_unix_peer_check_group(int fd, gid_t gid, uid_t *ret_uid);
/* Closes it and unlinks path only if it still is the socket we bound. */
void hb_unix_listener_close(struct hb_unix_listener *l);
/* Unlink path only if it is a socket: -ENOTSOCK for anything else. */
int hb_unix_unlink(const char *path);
/*
 * Trusted paths (trust.c): what plugins and configuration files must be
 * before the daemon reads them. A trusted path is not a symlink, is a
 * regular file (a directory with HB_TRUST_DIR), is owned by `owner` (or by
 * root too with HB_TRUST_ROOT) and is not group- or world-writable, a
 * sticky directory (/tmp) included: others may create files there (a
 * name a configuration or plugin is expected under). -EPERM (or -errno)
 * with err naming the path and why.
 */
#define HB_TRUST_DIR 1u
#define HB_TRUST_ROOT 2u
struct stat;
int hb_trust_stat(const char *path, const struct stat *st, unsigned flags, uid_t owner,
		  struct hb_err *err);
/* fstat(fd) when fd >= 0 (a file opened with O_NOFOLLOW), else lstat(path) */
int hb_trust_check(const char *path, int fd, unsigned flags, uid_t owner, struct hb_err *err);
/* the directory path lies in (followed through symlinks), as a HB_TRUST_DIR */
int hb_trust_parent(const char *path, unsigned flags, uid_t owner, struct hb_err *err);

/*
 * The clocks (clock.c), one API for every folder:
 *  - hb_now_ns/us/ms: the machine's clock, CLOCK_MONOTONIC. Durations,
 *    deadlines, latencies, uptime, log rate limits, and the records'
 *    timestamp_ns (hb-device.h), so also the ingestion's stale-record rule,
 *    which compares a record's time with a demotion's.
 *  - hb_daemon_clock(d) (daemon/daemon-private.h): the rule clock. What a
 *    rule of the daemon times by the cycle (hysteresis, the promotion and
 *    demotion rate limits, back-offs, `explain` and `status` of them) reads
 *    it and nothing else: it is hb_now_ns() on a live host and the
 *    simulated clock in hb_daemon_simulate() (`hotbridge demo`), which
 *    advances interval_ms a cycle whatever the machine does
 *    (tests/unit/daemon/test-simulate.c fails if a rule reads another).
 *  - hb_wall_ns: CLOCK_REALTIME, only for times people read (the decision
 *    history's); nothing is timed by it.
 */
uint64_t hb_now_ns(void);
uint64_t hb_now_us(void);
uint64_t hb_now_ms(void);
uint64_t hb_wall_ns(void);

/* Sizes */
static inline bool hb_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* floor(log2(v)), v > 0 */
static inline unsigned hb_ilog2(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

/*
 * The capacity of a power-of-two table: the smallest power of two that is
 * at least n and at least min (itself a power of two); 0 when none fits in
 * a size_t.
 */
static inline size_t hb_pow2_at_least(size_t n, size_t min)
{
	size_t cap = min;

	while (cap && cap < n)
		cap <<= 1;
	return cap;
}

/*
 * A fresh allocation's pages made resident now, a write a page (calloc's
 * fresh pages are not): a table touched first at random on the event loop
 * takes a page fault an access, and under TCG with DRAM short a fault took
 * about 1 ms (a fold of 32 pages, 32 faults, 30-45 ms). Volatile stores: a
 * compiler drops a memset of calloc's memory. Not in transparent huge
 * pages: in them the mostly-zero 12 MB hold table faulted again under
 * memory pressure (2123 faults in one fold), which stopped with
 * MADV_NOHUGEPAGE; most likely 6.12's shrinker of underused THPs, which
 * splits them and maps their zero-filled pages to the zero page.
 */
static inline void hb_fault_in(void *p, size_t bytes)
{
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095,
		  e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < bytes; off += 4096)
		((volatile char *)p)[off] = 0;
}

/*
 * Hash: the slot of key in an open-addressed table of cap slots (a power of
 * two), by Fibonacci hashing: key times 2^64 / phi, the bits from shift up.
 * Each table keeps its shift; the same key always lands in the same slot.
 */
#define HB_HASH_GOLDEN 0x9E3779B97F4A7C15ULL

static inline size_t hb_hash_slot(uint64_t key, unsigned shift, size_t cap)
{
	return (size_t)((key * HB_HASH_GOLDEN) >> shift) & (cap - 1);
}

/*
 * Backward-shift deletion in such a table (linear probing): slot hole was
 * emptied, and the entry in a later slot s of its run, at home in slot h,
 * stays where it is when h lies cyclically in (hole, s] (it may not move
 * up to hole); otherwise it moves there and its slot is the next hole.
 */
static inline bool hb_hash_stays(size_t hole, size_t s, size_t h)
{
	return hole <= s ? (h > hole && h <= s) : (h > hole || h <= s);
}

#endif /* HB_UTIL_H */
