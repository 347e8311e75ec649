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

/* "key=value" refused: the value quoted (non-text bytes as '?', 24 at most) and why */
static void bad_number(char *why, size_t why_size, const char *key, size_t klen, const char *v,
		       size_t vlen, int r)
{
	char shown[25];
	size_t n = vlen < sizeof(shown) - 1 ? vlen : sizeof(shown) - 1;

	for (size_t i = 0; i < n; i++)
		shown[i] = is_text(v[i]) && v[i] != '\t' && v[i] != '\r' ? v[i] : '?';
	shown[n] = '\0';
	snprintf(why, why_size, "%.*s: '%s%s' %s", (int)klen, key, shown, vlen > n ? "..." : "",
		 hb_parse_u64_why_n(v, vlen, r));
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
		for (const char *c = name; c < p; c++) {
			if (!is_text(*c) || is_space(*c)) {
				snprintf(why, why_size, "memdev name has a non-text byte 0x%02x",
					 (unsigned int)(unsigned char)*c);
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
			snprintf(why, why_size, "'%.*s' is not key=value",
				 (int)klen > 40 ? 40 : (int)klen, key);
			return -EINVAL;
		}
		p++;
		if (!((klen == 3 && (!memcmp(key, "dpa", 3) || !memcmp(key, "hpa", 3) ||
				     !memcmp(key, "len", 3))) ||
		      (klen == 5 && !memcmp(key, "count", 5)) ||
		      (klen == 2 && !memcmp(key, "ts", 2)))) {
			snprintf(why, why_size, "unknown key '%.*s'",
				 (int)klen > 40 ? 40 : (int)klen, key);
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
