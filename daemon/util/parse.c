// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "util.h"

int hb_parse_u64_base(const char *s, int base, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && !s[2])
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

int hb_parse_int(const char *s, int *ret)
{
	long v;
	char *end;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}
