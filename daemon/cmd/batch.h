/* SPDX-License-Identifier: MIT */
/*
 * The input of `hotbridge translate --batch`: lines, and the query in each.
 * Every input line gets exactly one answer, so the reader never merges or
 * skips lines: a NUL byte, an over-long line or an empty one is a line like
 * any other, which the parser then refuses with a reason.
 */
#ifndef HB_BATCH_H
#define HB_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define HB_BATCH_LINE_MAX 256

struct hb_batch_line {
	char text[HB_BATCH_LINE_MAX + 1]; /* first len bytes of the line, then NUL;
					     may hold NUL bytes of its own */
	size_t len;                       /* bytes kept: min(total, HB_BATCH_LINE_MAX) */
	size_t total;                     /* the line's length, without its '\n' */
	unsigned long lineno;             /* 1-based; kept across calls */
};

/*
 * Read the next line into line ('\n' or the end of input ends it; the rest
 * of an over-long line is read and dropped). 1: a line, 0: end of input,
 * -errno: read error (EISDIR for a directory on stdin, EIO when unknown).
 */
int hb_batch_read_line(FILE *in, struct hb_batch_line *line);

enum hb_batch_kind {
	HB_BATCH_QUERY = 0,   /* ret holds the query */
	HB_BATCH_COMMENT = 1, /* first non-blank character is '#' */
};

struct hb_batch_query {
	bool hpa;                           /* "hpa ADDR"; else "MEMDEV ADDR" */
	char memdev[HB_BATCH_LINE_MAX + 1]; /* empty for hpa */
	char addr[HB_BATCH_LINE_MAX + 1];   /* not parsed yet */
};

/*
 * Split a line into a query. Returns HB_BATCH_QUERY, HB_BATCH_COMMENT, or
 * -EINVAL with why set to "line N: ..." naming what was wrong: too long,
 * a NUL byte (and its column), empty, or not two words.
 */
int hb_batch_parse_line(const struct hb_batch_line *line, struct hb_batch_query *ret, char *why,
			size_t why_size);

#endif
