// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "cmd/batch.h"

int hb_batch_read_line(FILE *in, struct hb_batch_line *line)
{
	size_t n = 0;
	int c;

	errno = 0;
	for (;;) {
		c = getc_unlocked(in);
		if (c == EOF || c == '\n')
			break;
		if (n < HB_BATCH_LINE_MAX)
			line->text[n] = (char)c;
		n++;
	}
	if (c == EOF && ferror(in))
		return errno > 0 ? -errno : -EIO;
	if (c == EOF && n == 0)
		return 0;
	line->total = n;
	line->len = n < HB_BATCH_LINE_MAX ? n : HB_BATCH_LINE_MAX;
	line->text[line->len] = '\0';
	line->lineno++;
	return 1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* the next word of s[*i..len), as [start, end); false when none is left */
static bool next_word(const char *s, size_t len, size_t *i, size_t *start, size_t *end)
{
	while (*i < len && is_blank(s[*i]))
		(*i)++;
	if (*i == len)
		return false;
	*start = *i;
	while (*i < len && !is_blank(s[*i]))
		(*i)++;
	*end = *i;
	return true;
}

int hb_batch_parse_line(const struct hb_batch_line *line, struct hb_batch_query *ret, char *why,
			size_t why_size)
{
	const char *s = line->text, *nul;
	size_t len = line->len, i = 0, ws[2] = { 0 }, we[2] = { 0 }, a, b;
	int words = 0;

	if (line->total > HB_BATCH_LINE_MAX) {
		snprintf(why, why_size, "line %lu: %zu bytes, longer than the %d a query may have",
			 line->lineno, line->total, HB_BATCH_LINE_MAX);
		return -EINVAL;
	}
	nul = memchr(s, '\0', len);
	if (nul) {
		snprintf(why, why_size, "line %lu: NUL byte at column %zu", line->lineno,
			 (size_t)(nul - s) + 1);
		return -EINVAL;
	}
	while (next_word(s, len, &i, &a, &b)) {
		if (words == 0 && s[a] == '#')
			return HB_BATCH_COMMENT;
		if (words < 2) {
			ws[words] = a;
			we[words] = b;
		}
		words++;
	}
	if (words == 0) {
		snprintf(why, why_size, "line %lu: empty, expected 'MEMDEV DPA' or 'hpa HPA'",
			 line->lineno);
		return -EINVAL;
	}
	if (words != 2) {
		snprintf(why, why_size, "line %lu: %d word%s, expected 'MEMDEV DPA' or 'hpa HPA'",
			 line->lineno, words, words == 1 ? "" : "s");
		return -EINVAL;
	}
	ret->hpa = we[0] - ws[0] == 3 && !memcmp(s + ws[0], "hpa", 3);
	if (ret->hpa)
		ret->memdev[0] = '\0';
	else
		snprintf(ret->memdev, sizeof(ret->memdev), "%.*s", (int)(we[0] - ws[0]), s + ws[0]);
	snprintf(ret->addr, sizeof(ret->addr), "%.*s", (int)(we[1] - ws[1]), s + ws[1]);
	return HB_BATCH_QUERY;
}
