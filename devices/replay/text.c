// SPDX-License-Identifier: MIT
/*
 * The replay text format (replay.h): one record a line,
 *     mem0 dpa=0x1000 len=4096 count=12 [ts=<ns>]
 *     hpa=0x39000b000 len=4096 count=3 [ts=<ns>]
 * parsed into a struct hb_hot_record, each value a number of util.h's one
 * grammar (decimal or 0x hex; a leading zero is refused, never read as
 * decimal: a zero-padded address would name another page).
 * The stream (stream.c) finds the lines.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "replay-private.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * What a log line shows of feed bytes (newuser r5 E16: one rule for every
 * field): printable ASCII as it is, any other byte (ESC, tab, CR, UTF-8)
 * and the backslash as \xHH; at most max bytes of s, then "...".
 * out holds max * 4 + 4 bytes.
 */
#define SHOWN_SIZE(max) ((max)*4 + 4)
/*
 * How much of a refused name or key is shown: a short prefix, so a feed
 * path that names some other file (a secret, D6) never has its content
 * logged beyond these bytes of its first word.
 */
#define SHOWN_MAX 12
static const char *shown(char *out, size_t size, const char *s, size_t len, size_t max)
{
	size_t o = 0;

	for (size_t i = 0; i < len && i < max && o + 5 < size; i++) {
		unsigned char u = (unsigned char)s[i];

		if (u >= 0x20 && u < 0x7f && u != '\\')
			out[o++] = (char)u;
		else
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", u);
	}
	out[o] = '\0';
	if (len > max && o + 4 <= size)
		memcpy(out + o, "...", 4);
	return out;
}

/* "key=value" refused: the key and value shown (24 bytes at most) and why */
static void bad_number(char *why, size_t why_size, const char *key, size_t klen, const char *v,
		       size_t vlen, int r)
{
	char k[SHOWN_SIZE(24)], val[SHOWN_SIZE(24)];

	snprintf(why, why_size, "%s: '%s' %s", shown(k, sizeof(k), key, klen, 24),
		 shown(val, sizeof(val), v, vlen, 24), hb_parse_u64_why_n(v, vlen, r));
}

int hb_replay_parse_line(const char *line, size_t len, struct hb_hot_record *ret, char *why,
			 size_t why_size)
{
	const char *p = line, *end = line + len;
	char q[SHOWN_SIZE(SHOWN_MAX)];
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
			snprintf(why, why_size, "expected a memdev name or hpa= first, not '%s'",
				 shown(q, sizeof(q), name, (size_t)(p - name), SHOWN_MAX));
			return -EINVAL;
		}
		if ((size_t)(p - name) >= HB_MEMDEV_NAME_MAX) {
			snprintf(why, why_size, "memdev name '%s' longer than %d characters",
				 shown(q, sizeof(q), name, (size_t)(p - name), SHOWN_MAX),
				 HB_MEMDEV_NAME_MAX - 1);
			return -EINVAL;
		}
		for (const char *c = name; c < p; c++) {
			if (!is_text(*c) || is_space(*c)) {
				snprintf(why, why_size, "memdev name '%s' has a non-text byte",
					 shown(q, sizeof(q), name, (size_t)(p - name), SHOWN_MAX));
				return -EINVAL;
			}
		}
		memcpy(ret->memdev, name, (size_t)(p - name));
		ret->space = HB_SPACE_DPA;
	}
	for (;;) {
		const char *key, *val;
		size_t klen;
		uint64_t v;
		int r;

		while (p < end && is_space(*p))
			p++;
		if (p == end || *p == '#')
			break;
		key = p;
		while (p < end && *p != '=' && !is_space(*p))
			p++;
		klen = (size_t)(p - key);
		if (p == end || *p != '=') {
			snprintf(why, why_size, "'%s' is not key=value",
				 shown(q, sizeof(q), key, klen, SHOWN_MAX));
			return -EINVAL;
		}
		p++;
		if (!((klen == 3 && (!memcmp(key, "dpa", 3) || !memcmp(key, "hpa", 3) ||
				     !memcmp(key, "len", 3))) ||
		      (klen == 5 && !memcmp(key, "count", 5)) ||
		      (klen == 2 && !memcmp(key, "ts", 2)))) {
			snprintf(why, why_size, "unknown key '%s'",
				 shown(q, sizeof(q), key, klen, SHOWN_MAX));
			return -EINVAL;
		}
		/* the value runs to a blank, a comment or the end, under the one grammar */
		val = p;
		while (p < end && !is_space(*p) && *p != '#')
			p++;
		r = hb_parse_u64_n(val, (size_t)(p - val), &v);
		if (r < 0) {
			bad_number(why, why_size, key, klen, val, (size_t)(p - val), r);
			return -EINVAL;
		}
#define KEY(s) (klen == sizeof(s) - 1 && !memcmp(key, s, sizeof(s) - 1))
		if (KEY("dpa") || KEY("hpa")) {
			if (have_addr || (KEY("dpa") != (ret->space == HB_SPACE_DPA))) {
				if (have_addr)
					snprintf(why, why_size, "a second address (%.*s=)",
						 (int)klen, key);
				else
					snprintf(why, why_size, "address space does not match: %s",
						 KEY("dpa") ? "dpa= needs a memdev first" :
							      "hpa= takes no memdev");
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
		snprintf(why, why_size, "missing %s",
			 !have_addr ? (ret->space == HB_SPACE_DPA ? "dpa=" : "hpa=") :
			 !have_len  ? "len=" :
				      "count=");
		return -EINVAL;
	}
	if (ret->count > HB_RECORD_COUNT_MAX) {
		snprintf(why, why_size, "count=%llu: above the largest, 10^12",
			 (unsigned long long)ret->count);
		return -EINVAL;
	}
	if (ret->len == 0) {
		snprintf(why, why_size, "len=0: an empty range");
		return -EINVAL;
	}
	/* the address is what lies past the end: it is named first */
	if (ret->addr + ret->len - 1 < ret->addr) {
		snprintf(why, why_size,
			 "%s=0x%llx len=%llu: the range runs past the end of the address "
			 "space (2^64)",
			 ret->space == HB_SPACE_DPA ? "dpa" : "hpa", (unsigned long long)ret->addr,
			 (unsigned long long)ret->len);
		return -EINVAL;
	}
	return 0;
}
