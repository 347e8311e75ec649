// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "util.h"

static bool is_hex_prefix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int hb_parse_u64_base(const char *s, int base, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	if (base == 0) {
		/* decimal or 0x hex; never octal: "010" is refused, not 8 */
		if (is_hex_prefix(s))
			base = 16;
		else if (s[0] == '0' && s[1])
			return -EINVAL;
		else
			base = 10;
	}
	if (base == 16 && is_hex_prefix(s) && !s[2])
		return -EINVAL;
	/* strtoull skips blanks and takes a sign after a prefix: "0x -1" */
	if (base == 16 && is_hex_prefix(s) && !isxdigit((unsigned char)s[2]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int hb_parse_u64(const char *s, uint64_t *ret)
{
	return hb_parse_u64_base(s, 0, ret);
}

int hb_parse_i64(const char *s, int64_t *ret)
{
	bool neg = s && *s == '-';
	uint64_t v;
	int r;

	r = hb_parse_u64(neg ? s + 1 : s, &v);
	if (r < 0)
		return r;
	if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
		return -ERANGE;
	*ret = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int hb_parse_int(const char *s, int *ret)
{
	int64_t v;
	int r;

	r = hb_parse_i64(s, &v);
	if (r < 0)
		return r;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

const char *hb_parse_u64_why(const char *s, int r)
{
	if (r == -ERANGE)
		return "is above 2^64 - 1";
	if (!s || !*s)
		return "is empty, not a number";
	if (isspace((unsigned char)*s))
		return "is not a number: it starts with a blank";
	if (*s == '-' || *s == '+')
		return "is not a number: no sign is taken";
	if (is_hex_prefix(s) && !isxdigit((unsigned char)s[2]))
		return "is not a number: 0x without hex digits";
	if (s[0] == '0' && isdigit((unsigned char)s[1]))
		return "is not a number: a leading zero (decimal has none, octal is never read, "
		       "hex starts 0x)";
	return "is not a number (decimal or 0x hex)";
}
