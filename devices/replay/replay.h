/* SPDX-License-Identifier: MIT */
/*
 * devices/replay/: hotness records from a file, a FIFO or a UNIX stream
 * socket, as text lines and binary frames in any mix:
 *
 * Text, one record a line; '#' starts a comment, blank lines are skipped:
 *     mem0 dpa=0x1000 len=4096 count=12 [ts=<ns>]
 *     hpa=0x39000b000 len=4096 count=3 [ts=<ns>]
 *   Numbers are util.h's one grammar, as in the configuration and on the
 *   command line: decimal or 0x hex; a leading zero ("010", zero-padded
 *   hex without 0x) makes the line bad, never a decimal. Lines are at
 *   most HB_REPLAY_LINE_MAX bytes. The binary formats below carry numbers
 *   as fixed-width little-endian integers only: nothing there is text.
 *   ts= (and a binary record's timestamp_ns) is CLOCK_MONOTONIC of this
 *   boot, as clock_gettime() gives it, not the wall clock; count= is at
 *   most HB_RECORD_COUNT_MAX (10^12), more is a bad line. The host drops
 *   a record with a ts over 1 s ahead (bad_record) or over 60 s old
 *   (stale): hb-device.h. A bad line's message shows its bytes as they
 *   are when printable ASCII, any other byte (and the backslash) as \xHH.
 *
 * Binary, little-endian, in self-delimiting frames (v2): each frame is a
 * 24-byte header
 *     magic "HBRB", u16 version (2), u16 header_len (24),
 *     u32 record_len (56), u32 nrecords (>= 1),
 *     u32 payload_crc (CRC-32 of the payload, zlib's crc32()),
 *     u32 header_crc (CRC-32 of header bytes 0..19)
 *   then nrecords records of record_len bytes laid out as struct
 *   hb_hot_record (hb-device.h), at most HB_REPLAY_FRAME_PAYLOAD_MAX bytes.
 * Frames and text lines may follow one another in any order, so several
 * writers can share a FIFO: a writer that writes each frame (or line) with
 * one write() of at most PIPE_BUF (4096) bytes, i.e. up to
 * HB_REPLAY_FRAME_ATOMIC_RECORDS records a frame, is never interleaved
 * with another. A frame that fails its checks (a writer died in it, or a
 * larger write was interleaved) is counted bad once and the reader
 * resynchronises: it scans on for the next "HBRB" with a valid header, or
 * the next line of text only. A line right after such garbage is read from the first
 * byte after the garbage's last non-text byte (a writer that starts each
 * write with '\n' is never merged with a dead writer's bytes). A frame or
 * a line cut by a dead writer that is still incomplete when the reader
 * goes idle (hb_replay_parser_idle()) is counted bad, and what followed it
 * is read.
 *
 * The v1 format is read too: a 16-byte header
 *     magic "HBRB", u16 version (1), u16 header_len (16),
 *     u32 record_len (56), u32 flags (0)
 *   then bare records. v1 has no sync marker: "HBRB" at a record boundary
 *   starts a new header (frame or v1), a record whose first four bytes are
 *   text ends the v1 records (a line follows), an invalid record holding
 *   "HBRB" resynchronises there; after a torn v1 record the records that
 *   follow are misaligned, and those that still validate are misread. Use
 *   frames when writers share a FIFO.
 *
 * A bad line, record or frame is skipped and counted; the good ones around
 * it are kept. The first bad one of each feed() is reported with
 * <name>:<line> (text), <name>:record <n> (binary) or <name>:byte <offset>
 * (frames, garbage) and the reason, the rest of that feed as one summary.
 */
#ifndef HB_REPLAY_H
#define HB_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "hb-device.h"
#include "util/util.h"

#define HB_REPLAY_LINE_MAX 512
#define HB_REPLAY_MAGIC "HBRB"
#define HB_REPLAY_VERSION 1 /* the v1 stream header */
#define HB_REPLAY_HEADER_LEN 16
#define HB_REPLAY_RECORD_LEN 56
#define HB_REPLAY_FRAME_VERSION 2
#define HB_REPLAY_FRAME_HEADER_LEN 24
#define HB_REPLAY_FRAME_PAYLOAD_MAX 65536
/* records in a frame that one write() of PIPE_BUF (4096) bytes carries */
#define HB_REPLAY_FRAME_ATOMIC_RECORDS ((4096 - HB_REPLAY_FRAME_HEADER_LEN) / HB_REPLAY_RECORD_LEN)

struct hb_replay_stats {
	uint64_t records, bad, bytes, lines, frames;
};

struct hb_replay_parser;

/*
 * emit(ud, records, n) gets each batch of good records (return < 0 to stop
 * the feed); report(ud, message) gets the rate-limited complaints.
 */
struct hb_replay_parser *hb_replay_parser_new(const char *name,
					      int (*emit)(void *ud, const struct hb_hot_record *r,
							  size_t n),
					      void (*report)(void *ud, const char *msg), void *ud);
struct hb_replay_parser *hb_replay_parser_free(struct hb_replay_parser *p);
/* Parses len more bytes; partial lines and records wait for the next feed. */
int hb_replay_parser_feed(struct hb_replay_parser *p, const void *buf, size_t len);
/* End of input: a partial line is parsed, a partial binary record is bad. */
int hb_replay_parser_finish(struct hb_replay_parser *p);
/*
 * The input has been quiet for a while (a FIFO whose writers may die): a
 * partial line, record or frame held back is counted bad as torn, and the
 * bytes held after it are read. Returns the bytes that were held back.
 */
size_t hb_replay_parser_idle(struct hb_replay_parser *p);
/* Bytes held back waiting for the rest of a line, record or frame. */
size_t hb_replay_parser_pending(const struct hb_replay_parser *p);
const struct hb_replay_stats *hb_replay_parser_stats(const struct hb_replay_parser *p);

/* One text line (no newline) -> record; 0, 1 for "nothing here", or -EINVAL with why. */
int hb_replay_parse_line(const char *line, size_t len, struct hb_hot_record *ret, char *why,
			 size_t why_size);

/* Encode records for the v1 binary format (header once, then records). */
void hb_replay_binary_header(uint8_t out[HB_REPLAY_HEADER_LEN]);
void hb_replay_binary_record(const struct hb_hot_record *r, uint8_t out[HB_REPLAY_RECORD_LEN]);

/* The bytes of a frame of n records (n >= 1). */
#define HB_REPLAY_FRAME_SIZE(n) (HB_REPLAY_FRAME_HEADER_LEN + (size_t)(n)*HB_REPLAY_RECORD_LEN)
/*
 * Encodes n records (1 <= n, n * 56 <= HB_REPLAY_FRAME_PAYLOAD_MAX) as one
 * v2 frame into out (HB_REPLAY_FRAME_SIZE(n) bytes); returns its size, or
 * 0 when n is out of range.
 */
size_t hb_replay_frame(const struct hb_hot_record *r, size_t n, uint8_t *out);

/* the start-up check of a replay source's parameters (registry.c) */
int hb_source_replay_check(const struct hb_dev_info *info, struct hb_err *err);

#endif
