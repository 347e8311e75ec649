// SPDX-License-Identifier: MIT
/* UTF-8 validation and escaping, so text echoed into JSON stays valid JSON. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "utf8.h"

/* Length of the well-formed UTF-8 sequence at s (n bytes left), or 0
 * (Unicode 15, table 3-7: no overlongs, no surrogates, <= U+10FFFF). NUL
 * counts as not well-formed here: C strings cannot carry it. */
static size_t seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need;

	if (c == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < need + 1 || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i <= need; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return need + 1;
}

bool hb_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0, k; i < len; i += k) {
		k = seq_len(p + i, len - i);
		if (!k)
			return false;
	}
	return true;
}

int hb_utf8_escape(const char *s, size_t len, char **ret)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;

	if (len > (SIZE_MAX - 1) / 4)
		return -ENOMEM;
	out = malloc(len * 4 + 1);
	if (!out)
		return -ENOMEM;
	o = out;
	for (size_t i = 0, k; i < len; i += k) {
		k = seq_len(p + i, len - i);
		if (!k) {
			o += sprintf(o, "\\x%02x", p[i]);
			k = 1;
			continue;
		}
		for (size_t j = 0; j < k; j++)
			*o++ = (char)p[i + j];
	}
	*o = '\0';
	*ret = out;
	return 0;
}
