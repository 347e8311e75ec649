/* SPDX-License-Identifier: MIT */
/*
 * devices/replay/: hotness records from a file, a FIFO or a UNIX stream
 * socket, in one of two formats (detected from the first bytes):
 *
 * Text, one record a line; '#' starts a comment, blank lines are skipped:
 *     mem0 dpa=0x1000 len=4096 count=12 [ts=<ns>]
 *     hpa=0x39000b000 len=4096 count=3 [ts=<ns>]
 *   Numbers take C prefixes (0x hex, else decimal). Lines are at most
 *   HB_REPLAY_LINE_MAX bytes.
 *
 * Binary, little-endian: a 16-byte header
 *     magic "HBRB", u16 version (1), u16 header_len (16),
 *     u32 record_len (56), u32 flags (0)
 *   then records laid out as struct hb_hot_record (hb-device.h).
 *
 * A bad line or record is skipped and counted; the good ones around it
 * are kept. The first bad one of each feed() is reported with
 * <name>:<line> and the reason, the rest of that feed as one summary.
 */
#ifndef HB_REPLAY_H
#define HB_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "hb-device.h"

#define HB_REPLAY_LINE_MAX 512
#define HB_REPLAY_MAGIC "HBRB"
#define HB_REPLAY_VERSION 1
#define HB_REPLAY_HEADER_LEN 16
#define HB_REPLAY_RECORD_LEN 56

struct hb_replay_stats {
	uint64_t records, bad, bytes, lines;
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
const struct hb_replay_stats *hb_replay_parser_stats(const struct hb_replay_parser *p);

/* One text line (no newline) -> record; 0, 1 for "nothing here", or -EINVAL with why. */
int hb_replay_parse_line(const char *line, size_t len, struct hb_hot_record *ret, char *why,
			 size_t why_size);

/* Encode records for the binary format (header once, then records). */
void hb_replay_binary_header(uint8_t out[HB_REPLAY_HEADER_LEN]);
void hb_replay_binary_record(const struct hb_hot_record *r, uint8_t out[HB_REPLAY_RECORD_LEN]);

#endif
