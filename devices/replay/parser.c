// SPDX-License-Identifier: MIT
/* The replay formats: a streaming parser for text lines and binary records. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define BATCH 256

enum mode { MODE_DETECT, MODE_TEXT, MODE_BINARY, MODE_DEAD };

struct hb_replay_parser {
	char name[256];
	int (*emit)(void *ud, const struct hb_hot_record *r, size_t n);
	void (*report)(void *ud, const char *msg);
	void *ud;
	enum mode mode;
	uint8_t carry[HB_REPLAY_LINE_MAX + HB_REPLAY_HEADER_LEN];
	size_t ncarry;
	bool skipping;               /* inside an oversized line */
	uint32_t record_len;
	uint64_t unit;               /* line or record number of the next one */
	struct hb_replay_stats st;
	/* per feed */
	uint64_t burst_bad, burst_last;
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
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->emit = emit;
	p->report = report;
	p->ud = ud;
	p->unit = 1;
	return p;
}

struct hb_replay_parser *hb_replay_parser_free(struct hb_replay_parser *p)
{
	free(p);
	return NULL;
}

const struct hb_replay_stats *hb_replay_parser_stats(const struct hb_replay_parser *p)
{
	return &p->st;
}

static void bad(struct hb_replay_parser *p, uint64_t unit, const char *why)
{
	char msg[512];

	p->st.bad++;
	if (p->burst_bad++ == 0 && p->report) {
		snprintf(msg, sizeof(msg), "%s:%s%llu: %s, skipped", p->name,
			 p->mode == MODE_BINARY ? "record " : "", (unsigned long long)unit, why);
		p->report(p->ud, msg);
	}
	p->burst_last = unit;
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

/* ---- text ---- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* C-style number: 0x hex or decimal; returns chars used, 0 if none/overflow */
static size_t parse_num(const char *s, const char *end, uint64_t *ret)
{
	const char *p = s;
	uint64_t v = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		const char *d = p += 2;

		for (; p < end; p++) {
			unsigned int x;

			if (*p >= '0' && *p <= '9')
				x = (unsigned int)(*p - '0');
			else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
				x = (unsigned int)((*p | 0x20) - 'a' + 10);
			else
				break;
			if (v >> 60)
				return 0;
			v = v << 4 | x;
		}
		if (p == d)
			return 0;
	} else {
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			unsigned int x = (unsigned int)(*p - '0');

			if (v > (UINT64_MAX - x) / 10)
				return 0;
			v = v * 10 + x;
		}
		if (p == s)
			return 0;
	}
	*ret = v;
	return (size_t)(p - s);
}

int hb_replay_parse_line(const char *line, size_t len, struct hb_hot_record *ret, char *why,
			 size_t why_size)
{
	const char *p = line, *end = line + len;
	bool have_addr = false, have_len = false, have_count = false, have_ts = false;

	memset(ret, 0, sizeof(*ret));
	while (p < end && is_space(*p))
		p++;
	if (p == end || *p == '#')
		return 1;
	if (end - p >= 4 && !memcmp(p, "hpa=", 4)) {
		ret->space = HB_SPACE_HPA;
	} else {
		const char *name = p;

		while (p < end && !is_space(*p) && *p != '=' && *p != '#')
			p++;
		if (p < end && *p == '=') {
			snprintf(why, why_size, "expected a memdev name or hpa= first, not '%.*s'",
				 (int)(p - name), name);
			return -EINVAL;
		}
		if ((size_t)(p - name) >= HB_MEMDEV_NAME_MAX) {
			snprintf(why, why_size, "memdev name '%.*s' longer than %d characters",
				 (int)(p - name) > 40 ? 40 : (int)(p - name), name,
				 HB_MEMDEV_NAME_MAX - 1);
			return -EINVAL;
		}
		memcpy(ret->memdev, name, (size_t)(p - name));
		ret->space = HB_SPACE_DPA;
	}
	for (;;) {
		const char *key;
		size_t klen, used;
		uint64_t v;

		while (p < end && is_space(*p))
			p++;
		if (p == end || *p == '#')
			break;
		key = p;
		while (p < end && *p != '=' && !is_space(*p))
			p++;
		klen = (size_t)(p - key);
		if (p == end || *p != '=') {
			snprintf(why, why_size, "'%.*s' is not key=value", (int)klen > 40 ? 40 : (int)klen,
				 key);
			return -EINVAL;
		}
		p++;
		if (!((klen == 3 && (!memcmp(key, "dpa", 3) || !memcmp(key, "hpa", 3) ||
				     !memcmp(key, "len", 3))) ||
		      (klen == 5 && !memcmp(key, "count", 5)) || (klen == 2 && !memcmp(key, "ts", 2)))) {
			snprintf(why, why_size, "unknown key '%.*s'", (int)klen > 40 ? 40 : (int)klen, key);
			return -EINVAL;
		}
		used = parse_num(p, end, &v);
		if (!used || (p + used < end && !is_space(p[used]) && p[used] != '#')) {
			snprintf(why, why_size, "%.*s: not a number (or out of range)", (int)klen, key);
			return -EINVAL;
		}
		p += used;
#define KEY(s) (klen == sizeof(s) - 1 && !memcmp(key, s, sizeof(s) - 1))
		if (KEY("dpa") || KEY("hpa")) {
			if (have_addr || (KEY("dpa") != (ret->space == HB_SPACE_DPA))) {
				if (have_addr)
					snprintf(why, why_size, "a second address (%.*s=)", (int)klen, key);
				else
					snprintf(why, why_size, "address space does not match: %s",
						 KEY("dpa") ? "dpa= needs a memdev first"
							    : "hpa= takes no memdev");
				return -EINVAL;
			}
			have_addr = true;
			ret->addr = v;
		} else if (KEY("len") && !have_len) {
			have_len = true;
			ret->len = v;
		} else if (KEY("count") && !have_count) {
			have_count = true;
			ret->count = v;
		} else if (KEY("ts") && !have_ts) {
			have_ts = true;
			ret->timestamp_ns = v;
		} else {
			snprintf(why, why_size, "repeated key '%.*s'", (int)klen, key);
			return -EINVAL;
		}
#undef KEY
	}
	if (!have_addr || !have_len || !have_count) {
		snprintf(why, why_size, "missing %s", !have_addr ? (ret->space == HB_SPACE_DPA ?
			 "dpa=" : "hpa=") : !have_len ? "len=" : "count=");
		return -EINVAL;
	}
	if (ret->len == 0 || ret->addr + ret->len - 1 < ret->addr) {
		snprintf(why, why_size, "len=%llu: empty or wraps the address space",
			 (unsigned long long)ret->len);
		return -EINVAL;
	}
	return 0;
}

static void text_line(struct hb_replay_parser *p, const char *line, size_t len)
{
	struct hb_hot_record r;
	char why[160];
	uint64_t n = p->unit++;
	int rc;

	p->st.lines++;
	rc = hb_replay_parse_line(line, len, &r, why, sizeof(why));
	if (rc == 0)
		good(p, &r);
	else if (rc < 0)
		bad(p, n, why);
}

static void feed_text(struct hb_replay_parser *p, const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;

	while (s < end && !p->stop) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (p->skipping) {
			if (!nl)
				return;
			p->skipping = false;
			s = nl + 1;
			continue;
		}
		if (!nl) {
			size_t rest = (size_t)(end - s);

			if (p->ncarry + rest > HB_REPLAY_LINE_MAX) {
				bad(p, p->unit++, "line longer than 512 bytes");
				p->ncarry = 0;
				p->skipping = true;
				return;
			}
			memcpy(p->carry + p->ncarry, s, rest);
			p->ncarry += rest;
			return;
		}
		if (p->ncarry) {
			size_t part = (size_t)(nl - s);

			if (p->ncarry + part > HB_REPLAY_LINE_MAX) {
				bad(p, p->unit++, "line longer than 512 bytes");
			} else {
				memcpy(p->carry + p->ncarry, s, part);
				text_line(p, (const char *)p->carry, p->ncarry + part);
			}
			p->ncarry = 0;
		} else if ((size_t)(nl - s) > HB_REPLAY_LINE_MAX) {
			bad(p, p->unit++, "line longer than 512 bytes");
		} else {
			text_line(p, s, (size_t)(nl - s));
		}
		s = nl + 1;
	}
}

/* ---- binary ---- */

static uint16_t le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t le64(const uint8_t *b)
{
	return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *b, uint32_t v)
{
	put16(b, (uint16_t)v);
	put16(b + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b + 4, (uint32_t)(v >> 32));
}

void hb_replay_binary_header(uint8_t out[HB_REPLAY_HEADER_LEN])
{
	memcpy(out, HB_REPLAY_MAGIC, 4);
	put16(out + 4, HB_REPLAY_VERSION);
	put16(out + 6, HB_REPLAY_HEADER_LEN);
	put32(out + 8, HB_REPLAY_RECORD_LEN);
	put32(out + 12, 0);
}

void hb_replay_binary_record(const struct hb_hot_record *r, uint8_t out[HB_REPLAY_RECORD_LEN])
{
	put32(out, r->space);
	put32(out + 4, r->flags);
	memcpy(out + 8, r->memdev, HB_MEMDEV_NAME_MAX);
	put64(out + 24, r->addr);
	put64(out + 32, r->len);
	put64(out + 40, r->count);
	put64(out + 48, r->timestamp_ns);
}

static void binary_record(struct hb_replay_parser *p, const uint8_t *b)
{
	struct hb_hot_record r;
	uint64_t n = p->unit++;
	size_t namelen;

	r.space = le32(b);
	r.flags = le32(b + 4);
	memcpy(r.memdev, b + 8, HB_MEMDEV_NAME_MAX);
	r.addr = le64(b + 24);
	r.len = le64(b + 32);
	r.count = le64(b + 40);
	r.timestamp_ns = le64(b + 48);
	namelen = strnlen(r.memdev, HB_MEMDEV_NAME_MAX);
	if (r.space != HB_SPACE_DPA && r.space != HB_SPACE_HPA)
		return bad(p, n, "address space is neither DPA (1) nor HPA (2)");
	if (r.flags)
		return bad(p, n, "reserved flags set");
	if (namelen == HB_MEMDEV_NAME_MAX)
		return bad(p, n, "memdev name not NUL-terminated");
	if ((r.space == HB_SPACE_DPA) != (namelen > 0))
		return bad(p, n, r.space == HB_SPACE_DPA ? "DPA record without a memdev"
							 : "HPA record with a memdev");
	if (r.len == 0 || r.addr + r.len - 1 < r.addr)
		return bad(p, n, "len empty or wraps the address space");
	good(p, &r);
}

static void feed_binary(struct hb_replay_parser *p, const uint8_t *b, size_t len)
{
	while (len && !p->stop) {
		size_t want = p->record_len - p->ncarry, take = len < want ? len : want;

		if (p->ncarry == 0 && len >= p->record_len) {
			binary_record(p, b);
			b += p->record_len;
			len -= p->record_len;
			continue;
		}
		/* records longer than ours (newer minor): keep only our part */
		if (p->ncarry < HB_REPLAY_RECORD_LEN) {
			size_t keep = HB_REPLAY_RECORD_LEN - p->ncarry;

			memcpy(p->carry + p->ncarry, b, take < keep ? take : keep);
		}
		p->ncarry += take;
		b += take;
		len -= take;
		if (p->ncarry == p->record_len) {
			binary_record(p, p->carry);
			p->ncarry = 0;
		}
	}
}

static void header(struct hb_replay_parser *p, const uint8_t *h)
{
	uint16_t version = le16(h + 4), hlen = le16(h + 6);
	uint32_t rlen = le32(h + 8), flags = le32(h + 12);
	char why[160];

	if (version != HB_REPLAY_VERSION || hlen != HB_REPLAY_HEADER_LEN ||
	    rlen < HB_REPLAY_RECORD_LEN || rlen > HB_REPLAY_LINE_MAX || flags) {
		snprintf(why, sizeof(why), "binary header: version %u, header %u bytes, records %u "
			 "bytes, flags %#x (this reader: version 1, 16, >= 56 and <= 512, 0); "
			 "ignoring the stream", version, hlen, rlen, flags);
		p->mode = MODE_BINARY;
		bad(p, 0, why);
		p->mode = MODE_DEAD;
		return;
	}
	p->record_len = rlen;
	p->mode = MODE_BINARY;
}

int hb_replay_parser_feed(struct hb_replay_parser *p, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	char msg[512];

	p->burst_bad = 0;
	p->stop = 0;
	p->st.bytes += len;
	if (p->mode == MODE_DETECT) {
		/* the magic needs 4 bytes, the header 16 */
		size_t need = HB_REPLAY_HEADER_LEN - p->ncarry, take = len < need ? len : need;

		memcpy(p->carry + p->ncarry, b, take);
		if (p->ncarry + take >= 4 && memcmp(p->carry, HB_REPLAY_MAGIC, 4)) {
			/* text: replay what we held back */
			size_t held = p->ncarry;

			p->mode = MODE_TEXT;
			p->ncarry = 0;
			if (held) {
				uint8_t tmp[HB_REPLAY_HEADER_LEN];

				memcpy(tmp, p->carry, held);
				feed_text(p, (const char *)tmp, held);
			}
		} else {
			p->ncarry += take;
			b += take;
			len -= take;
			if (p->ncarry < HB_REPLAY_HEADER_LEN)
				return 0;
			p->ncarry = 0;
			header(p, p->carry);
		}
	}
	if (p->mode == MODE_TEXT)
		feed_text(p, (const char *)b, len);
	else if (p->mode == MODE_BINARY)
		feed_binary(p, b, len);
	flush(p);
	if (p->burst_bad > 1 && p->report) {
		snprintf(msg, sizeof(msg), "%s: %llu more bad %s in this burst (the last at %llu), skipped",
			 p->name, (unsigned long long)(p->burst_bad - 1),
			 p->mode == MODE_BINARY ? "records" : "lines",
			 (unsigned long long)p->burst_last);
		p->report(p->ud, msg);
	}
	return p->stop ? -ECANCELED : 0;
}

int hb_replay_parser_finish(struct hb_replay_parser *p)
{
	p->burst_bad = 0;
	if (p->mode == MODE_TEXT && p->ncarry && !p->skipping) {
		text_line(p, (const char *)p->carry, p->ncarry);
	} else if (p->mode == MODE_BINARY && p->ncarry) {
		char why[96];

		snprintf(why, sizeof(why), "truncated record (%zu of %u bytes)", p->ncarry,
			 p->record_len);
		bad(p, p->unit++, why);
	} else if (p->mode == MODE_DETECT && p->ncarry) {
		/* fewer than 16 bytes in all: text unless it is the magic */
		if (p->ncarry >= 4 && !memcmp(p->carry, HB_REPLAY_MAGIC, 4)) {
			p->mode = MODE_BINARY;
			bad(p, 0, "truncated binary header");
		} else {
			p->mode = MODE_TEXT;
			text_line(p, (const char *)p->carry, p->ncarry);
		}
	}
	p->ncarry = 0;
	flush(p);
	return 0;
}
