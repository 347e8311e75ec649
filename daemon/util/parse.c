// SPDX-License-Identifier: MIT
/*
 * The one number grammar of every user input (util.h): configuration keys,
 * --set, command-line options, control requests, replay text and source
 * parameters all come here, so one string gets one verdict everywhere.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

static bool is_hex_prefix(const char *s, size_t len)
{
	return len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* the value of an ASCII digit of base 16 (full-width and other digits are not) */
static unsigned int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned int)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned int)(c - 'A' + 10);
	return 16;
}

int hb_parse_u64_n(const char *s, size_t len, uint64_t *ret)
{
	bool hex = s && is_hex_prefix(s, len);
	unsigned int base = hex ? 16 : 10;
	size_t i = hex ? 2 : 0;
	uint64_t v = 0;

	if (!s || i == len)
		return -EINVAL;
	/* decimal has no leading zero: "010" is refused, never read as 8 (or 10) */
	if (!hex && s[0] == '0' && len > 1)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned int d = digit_value(s[i]);

		if (d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*ret = v;
	return 0;
}

int hb_parse_u64(const char *s, uint64_t *ret)
{
	return hb_parse_u64_n(s, s ? strlen(s) : 0, ret);
}

int hb_parse_u64_base(const char *s, int base, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (base == 0)
		return hb_parse_u64(s, ret);
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	if (base == 16 && is_hex_prefix(s, strlen(s)) && !s[2])
		return -EINVAL;
	/* strtoull skips blanks and takes a sign after a prefix: "0x -1" */
	if (base == 16 && is_hex_prefix(s, strlen(s)) && !isxdigit((unsigned char)s[2]))
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

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

#define LEADING_ZERO \
	"is not a number: a leading zero (decimal has none, octal is never read, hex starts 0x)"

const char *hb_parse_u64_why_n(const char *s, size_t len, int r)
{
	if (r == -ERANGE)
		return "is above 2^64 - 1";
	if (!s || !len)
		return "is empty, not a number";
	if (isspace((unsigned char)*s))
		return "is not a number: it starts with a blank";
	if (*s == '-' || *s == '+')
		return "is not a number: no sign is taken";
	if (is_hex_prefix(s, len) && (len == 2 || digit_value(s[2]) > 15))
		return "is not a number: 0x without hex digits";
	if (len > 1 && s[0] == '0' && is_digit(s[1]))
		return LEADING_ZERO;
	return "is not a number (decimal or 0x hex)";
}

const char *hb_parse_u64_why(const char *s, int r)
{
	return hb_parse_u64_why_n(s, s ? strlen(s) : 0, r);
}

const char *hb_parse_i64_why(const char *s, int r)
{
	if (r == -ERANGE)
		return "is out of range";
	return hb_parse_u64_why(s && *s == '-' ? s + 1 : s, r);
}

/*
 * A fractional number: [-]digits[.digits][e[+-]digits], its integer part
 * under the integer rule (no leading zero: 0.5 is fine, 00.5 and 010 are
 * not), no hex, inf or nan (strtod would take them), no blanks.
 */
static bool plain_decimal(const char *s)
{
	if (*s == '-')
		s++;
	if (!is_digit(*s) || (s[0] == '0' && is_digit(s[1])))
		return false;
	while (is_digit(*s))
		s++;
	if (*s == '.') {
		if (!is_digit(*++s))
			return false;
		while (is_digit(*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!is_digit(*s))
			return false;
		while (is_digit(*s))
			s++;
	}
	return !*s;
}

int hb_parse_double(const char *s, double *ret)
{
	char *end;
	double v;

	if (!s || !plain_decimal(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

const char *hb_parse_double_why(const char *s, int r)
{
	const char *q = s && *s == '-' ? s + 1 : s;

	if (r == -ERANGE)
		return "is out of range";
	if (!s || !*s)
		return "is empty, not a number";
	if (isspace((unsigned char)*s))
		return "is not a number: it starts with a blank";
	if (r == -EDOM && *s == '-')
		return "is not a number here: no sign is taken";
	if (*s == '+')
		return "is not a number: no sign is taken";
	if (q[0] == '0' && is_digit(q[1]))
		return LEADING_ZERO;
	return "is not a number (decimal, e.g. 0.5, 12 or 1e3)";
}

int hb_parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "true", "yes", "1" }, *const no[] = { "false", "no", "0" };

	for (size_t i = 0; s && i < HB_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*ret = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}
