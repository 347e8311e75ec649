// SPDX-License-Identifier: MIT
/*
 * The replay stream (replay.h): a streaming parser for text lines, v2
 * frames and v1 records, in any mix, that resynchronises after garbage.
 * One line is parsed by text.c, one record or frame header decoded by
 * binary.c.
 *
 * Bytes are parsed where they lie; only an incomplete unit at the end of a
 * feed (a line, a frame, a v1 record: at most CARRY_MAX bytes) is copied
 * aside, and completed from the next feed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-private.h"

#define BATCH 256
#define CARRY_MAX (HB_REPLAY_FRAME_HEADER_LEN + HB_REPLAY_FRAME_PAYLOAD_MAX + HB_REPLAY_LINE_MAX)

/*
 * UNIT: at the start of a line, a frame or a v1 header; V1: at a v1 record
 * boundary; SKIP: in garbage (an overlong line, a bad frame), until the
 * next newline or "HBRB".
 */
enum mode { MODE_UNIT, MODE_V1, MODE_SKIP };
/* what a bad unit was: its number is a line, a record or a byte offset */
enum unit { UNIT_LINE, UNIT_RECORD, UNIT_BYTE };
/* how a scan ends: more may come, end of input, or the input went quiet */
enum end { END_MORE, END_EOF, END_IDLE };

struct hb_replay_parser {
	char name[256];
	int (*emit)(void *ud, const struct hb_hot_record *r, size_t n);
	void (*report)(void *ud, const char *msg);
	void *ud;
	enum mode mode;
	uint32_t record_len; /* V1 */
	bool skip_binary;    /* SKIP: garbage from a binary unit, not a long line */
	bool skip_clean;     /* SKIP: the byte before the held ones was not text */
	uint8_t *carry;      /* CARRY_MAX bytes: an incomplete unit */
	size_t ncarry;
	size_t frame_seen;     /* of the frame pending at carry[0]: bytes checked for a tear */
	uint64_t line, record; /* numbers of the last line and v1/frame record seen */
	uint64_t consumed;     /* bytes parsed before the current scan's start */
	struct hb_replay_stats st;
	/* per feed */
	uint64_t burst_bad, burst_last;
	enum unit burst_kind;
	struct hb_hot_record batch[BATCH];
	size_t nbatch;
	int stop;
};

struct hb_replay_parser *hb_replay_parser_new(const char *name,
					      int (*emit)(void *ud, const struct hb_hot_record *r,
							  size_t n),
					      void (*report)(void *ud, const char *msg), void *ud)
{
	struct hb_replay_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->carry = malloc(CARRY_MAX);
	if (!p->carry) {
		free(p);
		return NULL;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->emit = emit;
	p->report = report;
	p->ud = ud;
	return p;
}

struct hb_replay_parser *hb_replay_parser_free(struct hb_replay_parser *p)
{
	if (!p)
		return NULL;
	free(p->carry);
	free(p);
	return NULL;
}

const struct hb_replay_stats *hb_replay_parser_stats(const struct hb_replay_parser *p)
{
	return &p->st;
}

size_t hb_replay_parser_pending(const struct hb_replay_parser *p)
{
	return p->ncarry;
}

static const char *const unit_prefix[] = {
	[UNIT_LINE] = "",
	[UNIT_RECORD] = "record ",
	[UNIT_BYTE] = "byte ",
};

static void bad(struct hb_replay_parser *p, enum unit kind, uint64_t unit, const char *why)
{
	char msg[512];

	p->st.bad++;
	if (p->burst_bad++ == 0 && p->report) {
		snprintf(msg, sizeof(msg), "%s:%s%llu: %s, skipped", p->name, unit_prefix[kind],
			 (unsigned long long)unit, why);
		p->report(p->ud, msg);
	}
	p->burst_last = unit;
	p->burst_kind = kind;
}

static void flush(struct hb_replay_parser *p)
{
	if (p->nbatch && !p->stop && p->emit)
		p->stop = p->emit(p->ud, p->batch, p->nbatch) < 0;
	p->nbatch = 0;
}

static void good(struct hb_replay_parser *p, const struct hb_hot_record *r)
{
	p->batch[p->nbatch++] = *r;
	p->st.records++;
	if (p->nbatch == BATCH)
		flush(p);
}

/* One binary record (v1, or in a frame) -> good or bad. */
static void binary_record(struct hb_replay_parser *p, const uint8_t *b)
{
	struct hb_hot_record r;
	const char *why = hb_replay_record_check(b, &r);

	p->record++;
	if (why)
		bad(p, UNIT_RECORD, p->record, why);
	else
		good(p, &r);
}

/* ---- the stream: units, v1 records, garbage ---- */

static bool is_magic(const uint8_t *b)
{
	return !memcmp(b, HB_REPLAY_MAGIC, MAGIC_LEN);
}

/* b (n bytes) could begin "HBRB" */
static bool magic_prefix(const uint8_t *b, size_t n)
{
	return !memcmp(b, HB_REPLAY_MAGIC, n < MAGIC_LEN ? n : MAGIC_LEN);
}

/* the first "HBRB" in b[0, n), or n */
static size_t find_magic(const uint8_t *b, size_t n)
{
	const uint8_t *m = n >= MAGIC_LEN ? memmem(b, n, HB_REPLAY_MAGIC, MAGIC_LEN) : NULL;

	return m ? (size_t)(m - b) : n;
}

/* a valid v1 header or v2 frame header starts at b (n >= 24 bytes) */
static bool header_at(const uint8_t *b)
{
	char why[200];

	if (!is_magic(b))
		return false;
	if (le16(b + 4) == HB_REPLAY_FRAME_VERSION)
		return hb_replay_frame_header(b, why, sizeof(why)) > 0;
	return le16(b + 4) == HB_REPLAY_VERSION && le16(b + 6) == HB_REPLAY_HEADER_LEN &&
	       le32(b + 8) >= HB_REPLAY_RECORD_LEN && le32(b + 8) <= HB_REPLAY_LINE_MAX &&
	       !le32(b + 12);
}

/* garbage starts at offset at: counted once, then skipped to a newline or "HBRB" */
static size_t garbage(struct hb_replay_parser *p, uint64_t at, const char *why, size_t used)
{
	bad(p, UNIT_BYTE, at, why);
	p->mode = MODE_SKIP;
	p->skip_binary = true;
	p->skip_clean = false;
	p->frame_seen = 0;
	return used;
}

/*
 * A frame or a v1 header at b[0] ("HBRB"): returns the bytes used, 0 when
 * more are needed.
 */
static size_t binary_unit(struct hb_replay_parser *p, const uint8_t *b, size_t n, enum end end,
			  uint64_t at)
{
	char why[200];
	uint16_t version;
	size_t size;

	if (n < 8 || (n < HB_REPLAY_FRAME_HEADER_LEN && le16(b + 4) != HB_REPLAY_VERSION) ||
	    n < HB_REPLAY_HEADER_LEN) {
		if (end == END_MORE)
			return 0;
		return garbage(p, at, "truncated binary header", n);
	}
	version = le16(b + 4);
	if (version == HB_REPLAY_VERSION) {
		if (!header_at(b)) {
			snprintf(why, sizeof(why),
				 "binary header: version 1, header %u bytes, records "
				 "%u bytes, flags %#x (this reader: 16, >= 56 and <= 512, 0)",
				 le16(b + 6), le32(b + 8), le32(b + 12));
			return garbage(p, at, why, MAGIC_LEN);
		}
		p->mode = MODE_V1;
		p->record_len = le32(b + 8);
		return HB_REPLAY_HEADER_LEN;
	}
	if (version != HB_REPLAY_FRAME_VERSION) {
		snprintf(why, sizeof(why), "binary header: version %u (this reader: 1 and 2)",
			 version);
		return garbage(p, at, why, MAGIC_LEN);
	}
	size = hb_replay_frame_header(b, why, sizeof(why));
	if (!size)
		return garbage(p, at, why, MAGIC_LEN);
	if (n < size) {
		/* a valid header inside the payload: this frame was torn */
		size_t from = p->frame_seen > MAGIC_LEN ? p->frame_seen : MAGIC_LEN;

		while (end == END_MORE && from + HB_REPLAY_FRAME_HEADER_LEN <= n) {
			size_t m = from + find_magic(b + from, n - from);

			if (m + HB_REPLAY_FRAME_HEADER_LEN > n) {
				from = m < n ? m : n - (MAGIC_LEN - 1);
				break;
			}
			if (header_at(b + m)) {
				snprintf(why, sizeof(why),
					 "torn frame (%zu of %zu bytes before the "
					 "next header)",
					 m, size);
				return garbage(p, at, why, MAGIC_LEN);
			}
			from = m + 1;
		}
		if (end == END_MORE) {
			p->frame_seen = from;
			return 0;
		}
		snprintf(why, sizeof(why), "truncated frame (%zu of %zu bytes)", n, size);
		return garbage(p, at, why, MAGIC_LEN);
	}
	p->frame_seen = 0;
	if (hb_replay_crc(b + HB_REPLAY_FRAME_HEADER_LEN, size - HB_REPLAY_FRAME_HEADER_LEN) !=
	    le32(b + 16))
		return garbage(p, at, "frame payload checksum mismatch (a torn or interleaved frame)",
			       MAGIC_LEN);
	p->st.frames++;
	for (size_t off = HB_REPLAY_FRAME_HEADER_LEN; off < size; off += le32(b + 8))
		binary_record(p, b + off);
	return size;
}

/* A line at b[0]: returns the bytes used (its newline included), 0 when more are needed. */
static size_t line_unit(struct hb_replay_parser *p, const uint8_t *b, size_t n, enum end end,
			uint64_t at)
{
	const uint8_t *nl = memchr(b, '\n', n < HB_REPLAY_LINE_MAX + 1 ? n : HB_REPLAY_LINE_MAX + 1);
	size_t len = nl ? (size_t)(nl - b) : n, m, lim;
	struct hb_hot_record r;
	char why[160];
	int rc;

	if (!nl && n <= HB_REPLAY_LINE_MAX) {
		if (end == END_MORE)
			return 0;
		if (end == END_IDLE) {
			p->line++;
			p->st.lines++;
			bad(p, UNIT_LINE, p->line,
			    "incomplete line (no newline before the input "
			    "went quiet)");
			return n;
		}
	}
	if (nl || n <= HB_REPLAY_LINE_MAX) {
		rc = hb_replay_parse_line((const char *)b, len, &r, why, sizeof(why));
		if (rc >= 0) {
			p->line++;
			p->st.lines++;
			if (rc == 0)
				good(p, &r);
			return nl ? len + 1 : len;
		}
	}
	/* a line cut short by a frame: the frame starts where its magic does */
	lim = nl ? len : n < HB_REPLAY_LINE_MAX + 1 ? n : HB_REPLAY_LINE_MAX + 1;
	m = lim > 1 ? find_magic(b + 1, lim - 1) + 1 : lim;
	if (m < lim) {
		p->line++;
		p->st.lines++;
		bad(p, UNIT_LINE, p->line, "line cut short by a binary header");
		return m;
	}
	p->line++;
	p->st.lines++;
	if (!nl && n > HB_REPLAY_LINE_MAX) {
		bad(p, UNIT_LINE, p->line, "line longer than 512 bytes");
		p->mode = MODE_SKIP; /* from its start: to its newline or "HBRB" */
		p->skip_binary = false;
		p->skip_clean = false;
		return 0;
	}
	bad(p, UNIT_LINE, p->line, why);
	return nl ? len + 1 : len;
}

/* A v1 record at b[0]: the bytes used, 0 when more are needed (or the records ended). */
static size_t v1_unit(struct hb_replay_parser *p, const uint8_t *b, size_t n, enum end end,
		      uint64_t at)
{
	struct hb_hot_record r;
	const char *why;
	size_t m;

	if (n >= MAGIC_LEN && (is_magic(b) || (is_text((char)b[0]) && is_text((char)b[1]) &&
					       is_text((char)b[2]) && is_text((char)b[3])))) {
		p->mode = MODE_UNIT; /* a header, or a line: v1 records end */
		return 0;
	}
	if (n < p->record_len) {
		char msg[96];

		if (end == END_MORE)
			return 0;
		snprintf(msg, sizeof(msg), "truncated record (%zu of %u bytes)", n, p->record_len);
		bad(p, UNIT_RECORD, ++p->record, msg);
		p->mode = MODE_UNIT;
		return n;
	}
	why = hb_replay_record_check(b, &r);
	p->record++;
	if (!why) {
		good(p, &r);
		return p->record_len;
	}
	m = find_magic(b + 1, p->record_len - 1) + 1;
	if (m < p->record_len) {
		/* misaligned: a header inside a record */
		bad(p, UNIT_RECORD, p->record, "a binary header inside a record (misaligned)");
		return m;
	}
	bad(p, UNIT_RECORD, p->record, why);
	return p->record_len;
}

/* the last byte in b[0, n) that no text line holds, or n */
static size_t last_non_text(const uint8_t *b, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (!is_text((char)b[i]))
			return i;
	return n;
}

/*
 * Garbage at b[0]: after a long line, skipped up to its newline; after a
 * binary unit, up to a line of text only. Either ends at "HBRB". Returns
 * the bytes used.
 */
static size_t skip_unit(struct hb_replay_parser *p, const uint8_t *b, size_t n, enum end end,
			uint64_t at)
{
	const uint8_t *nl = memchr(b, '\n', n);
	size_t len = nl ? (size_t)(nl - b) : n, m = find_magic(b, len), j;

	if (m < len) {
		p->mode = MODE_UNIT;
		return m;
	}
	if (!nl) {
		j = p->skip_binary ? last_non_text(b, n) : n;
		if (p->skip_binary && j == n && p->skip_clean) {
			p->mode = MODE_UNIT; /* text from where a line may start: a line */
			return 0;
		}
		if (end != END_MORE) {
			p->mode = MODE_UNIT;
			return n;
		}
		if (n < MAGIC_LEN)
			return 0;
		/* keep what may be the start of a line or of "HBRB" */
		p->skip_clean =
			j < n && j + 1 <= n - (MAGIC_LEN - 1) && n - (j + 1) <= HB_REPLAY_LINE_MAX;
		return p->skip_clean ? j + 1 : n - (MAGIC_LEN - 1);
	}
	if (!p->skip_binary) {
		p->mode = MODE_UNIT;
		return len + 1;
	}
	/*
	 * Binary garbage goes on until a newline starts a line of text only:
	 * that is read as a line. One with a non-text byte is garbage, but
	 * what follows its last non-text byte may be a live writer's line.
	 */
	j = last_non_text(b, len);
	if (j == len && p->skip_clean) {
		p->mode = MODE_UNIT;
		return 0;
	}
	if (j + 1 < len) {
		struct hb_hot_record r;
		char why[160];

		if (hb_replay_parse_line((const char *)b + j + 1, len - j - 1, &r, why,
					 sizeof(why)) == 0) {
			p->line++;
			p->st.lines++;
			good(p, &r);
		}
	}
	p->skip_clean = true;
	return len + 1;
}

/* Parses the complete units of b[0, n); returns the bytes used. */
static size_t scan(struct hb_replay_parser *p, const uint8_t *b, size_t n, enum end end)
{
	size_t i = 0;

	while (i < n && !p->stop) {
		enum mode was = p->mode;
		uint64_t at = p->consumed + i;
		size_t used;

		switch (p->mode) {
		case MODE_UNIT:
			used = magic_prefix(b + i, n - i) ? binary_unit(p, b + i, n - i, end, at) :
							    line_unit(p, b + i, n - i, end, at);
			break;
		case MODE_V1: used = v1_unit(p, b + i, n - i, end, at); break;
		default: used = skip_unit(p, b + i, n - i, end, at); break;
		}
		if (!used && p->mode == was)
			break;
		i += used;
	}
	if (end != END_MORE && !p->stop)
		i = n; /* nothing waits beyond the end */
	p->consumed += i;
	return i;
}

/* How many more bytes the unit held in carry needs, as far as one can tell. */
static size_t wanted(const struct hb_replay_parser *p, const uint8_t *b, size_t len)
{
	const uint8_t *c = p->carry, *nl;
	char why[200];
	size_t size;

	if (p->mode == MODE_V1)
		return p->ncarry < p->record_len ? p->record_len - p->ncarry : 1;
	if (p->mode == MODE_UNIT && magic_prefix(c, p->ncarry)) {
		if (p->ncarry < HB_REPLAY_FRAME_HEADER_LEN)
			return HB_REPLAY_FRAME_HEADER_LEN - p->ncarry;
		size = le16(c + 4) == HB_REPLAY_FRAME_VERSION ?
			       hb_replay_frame_header(c, why, sizeof(why)) :
			       0;
		return size > p->ncarry ? size - p->ncarry : 1;
	}
	nl = memchr(b, '\n', len < HB_REPLAY_LINE_MAX + 1 ? len : HB_REPLAY_LINE_MAX + 1);
	return nl ? (size_t)(nl - b) + 1 : HB_REPLAY_LINE_MAX + 1;
}

int hb_replay_parser_feed(struct hb_replay_parser *p, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	char msg[512];

	p->burst_bad = 0;
	p->stop = 0;
	p->st.bytes += len;
	while (len && !p->stop) {
		size_t used, old = p->ncarry, k;

		if (!old) {
			used = scan(p, b, len, END_MORE);
			b += used;
			len -= used;
			if (p->stop)
				break;
			/* an incomplete unit: less than CARRY_MAX (scan's units are) */
			memcpy(p->carry, b, len);
			p->ncarry = len;
			break;
		}
		/* complete the held unit with as few bytes as it seems to need */
		k = wanted(p, b, len);
		k = k < len ? k : len;
		k = k < CARRY_MAX - old ? k : CARRY_MAX - old;
		memcpy(p->carry + old, b, k);
		p->ncarry += k;
		used = scan(p, p->carry, p->ncarry, END_MORE);
		if (used >= old) {
			/* past what was held: go on where the input lies */
			b += used - old;
			len -= used - old;
			p->ncarry = 0;
			p->frame_seen = 0;
			continue;
		}
		memmove(p->carry, p->carry + used, p->ncarry - used);
		p->ncarry -= used;
		if (used)
			p->frame_seen = 0;
		b += k;
		len -= k;
	}
	flush(p);
	if (p->burst_bad > 1 && p->report) {
		snprintf(msg, sizeof(msg),
			 "%s: %llu more bad %s in this burst (the last at %s%llu), "
			 "skipped",
			 p->name, (unsigned long long)(p->burst_bad - 1),
			 p->burst_kind == UNIT_LINE   ? "lines" :
			 p->burst_kind == UNIT_RECORD ? "records" :
							"units",
			 unit_prefix[p->burst_kind], (unsigned long long)p->burst_last);
		p->report(p->ud, msg);
	}
	return p->stop ? -ECANCELED : 0;
}

static size_t end_input(struct hb_replay_parser *p, enum end end)
{
	size_t held = p->ncarry;

	p->burst_bad = 0;
	p->stop = 0;
	if (held)
		(void)scan(p, p->carry, held, end);
	p->ncarry = 0;
	p->frame_seen = 0;
	flush(p);
	return held;
}

int hb_replay_parser_finish(struct hb_replay_parser *p)
{
	(void)end_input(p, END_EOF);
	return 0;
}

size_t hb_replay_parser_idle(struct hb_replay_parser *p)
{
	return end_input(p, END_IDLE);
}
