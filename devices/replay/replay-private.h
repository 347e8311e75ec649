/* SPDX-License-Identifier: MIT */
/*
 * What the replay format files share (text.c, binary.c, stream.c); not
 * for anyone outside devices/replay/.
 */
#ifndef HB_REPLAY_PRIVATE_H
#define HB_REPLAY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define MAGIC_LEN 4

_Static_assert(sizeof(struct hb_hot_record) == HB_REPLAY_RECORD_LEN, "the record layout");

/* ---- text (text.c) ---- */

/* a byte a text line may hold: printable ASCII, tab, CR */
static inline bool is_text(char c)
{
	unsigned char u = (unsigned char)c;

	return (u >= 0x20 && u < 0x7f) || u == '\t' || u == '\r';
}

/* ---- binary (binary.c) ---- */

static inline uint16_t le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t le64(const uint8_t *b)
{
	return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
}

/* CRC-32 (zlib's crc32()) of len bytes */
uint32_t hb_replay_crc(const uint8_t *b, size_t len);
/* A binary record decoded into r: NULL if valid, else why not. */
const char *hb_replay_record_check(const uint8_t *b, struct hb_hot_record *r);
/* A checked v2 header: its frame's size, or 0 with why. */
size_t hb_replay_frame_header(const uint8_t *h, char *why, size_t why_size);

#endif
