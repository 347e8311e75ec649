/* SPDX-License-Identifier: MIT */
/* UTF-8 validation and escaping (utf8.c), for the daemon's JSON and messages. */
#ifndef HB_UTF8_H
#define HB_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* True when s[0..len) is well-formed UTF-8 without NUL bytes. */
bool hb_utf8_valid(const char *s, size_t len);
/*
 * A malloc'ed, NUL-terminated copy of s[0..len) that is valid UTF-8: every
 * byte that starts no well-formed sequence (and every NUL) becomes the four
 * characters \xNN. For echoing untrusted text into JSON. 0 or -ENOMEM.
 */
int hb_utf8_escape(const char *s, size_t len, char **ret);

#endif
