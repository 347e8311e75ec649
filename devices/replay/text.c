// SPDX-License-Identifier: MIT
/*
 * The replay text format (replay.h): one record a line,
 *     mem0 dpa=0x1000 len=4096 count=12 [ts=<ns>]
 *     hpa=0x39000b000 len=4096 count=3 [ts=<ns>]
 * parsed into a struct hb_hot_record. The stream (stream.c) finds the lines.
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
		used = parse_num(p, end, &v);
		if (!used || (p + used < end && !is_space(p[used]) && p[used] != '#')) {
			snprintf(why, why_size, "%.*s: not a number (or out of range)", (int)klen,
				 key);
			return -EINVAL;
		}
		p += used;
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
