// SPDX-License-Identifier: MIT
/*
 * The replay binary formats (replay.h): v1 headers and records and v2
 * frames encoded, records and frame headers decoded and checked. The
 * stream (stream.c) finds them among the lines and resynchronises.
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "replay-private.h"

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *b, uint32_t v)
{
	put16(b, (uint16_t)v);
	put16(b + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b + 4, (uint32_t)(v >> 32));
}

void hb_replay_binary_header(uint8_t out[HB_REPLAY_HEADER_LEN])
{
	memcpy(out, HB_REPLAY_MAGIC, MAGIC_LEN);
	put16(out + 4, HB_REPLAY_VERSION);
	put16(out + 6, HB_REPLAY_HEADER_LEN);
	put32(out + 8, HB_REPLAY_RECORD_LEN);
	put32(out + 12, 0);
}

void hb_replay_binary_record(const struct hb_hot_record *r, uint8_t out[HB_REPLAY_RECORD_LEN])
{
	put32(out, r->space);
	put32(out + 4, r->flags);
	memcpy(out + 8, r->memdev, HB_MEMDEV_NAME_MAX);
	put64(out + 24, r->addr);
	put64(out + 32, r->len);
	put64(out + 40, r->count);
	put64(out + 48, r->timestamp_ns);
}

uint32_t hb_replay_crc(const uint8_t *b, size_t len)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)len);
}

size_t hb_replay_frame(const struct hb_hot_record *r, size_t n, uint8_t *out)
{
	size_t payload = n * HB_REPLAY_RECORD_LEN;

	if (!n || n > HB_REPLAY_FRAME_PAYLOAD_MAX / HB_REPLAY_RECORD_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		hb_replay_binary_record(&r[i],
					out + HB_REPLAY_FRAME_HEADER_LEN + i * HB_REPLAY_RECORD_LEN);
	memcpy(out, HB_REPLAY_MAGIC, MAGIC_LEN);
	put16(out + 4, HB_REPLAY_FRAME_VERSION);
	put16(out + 6, HB_REPLAY_FRAME_HEADER_LEN);
	put32(out + 8, HB_REPLAY_RECORD_LEN);
	put32(out + 12, (uint32_t)n);
	put32(out + 16, hb_replay_crc(out + HB_REPLAY_FRAME_HEADER_LEN, payload));
	put32(out + 20, hb_replay_crc(out, 20));
	return HB_REPLAY_FRAME_HEADER_LEN + payload;
}

/* A binary record decoded into r: NULL if valid, else why not. */
const char *hb_replay_record_check(const uint8_t *b, struct hb_hot_record *r)
{
	size_t namelen;

	r->space = le32(b);
	r->flags = le32(b + 4);
	memcpy(r->memdev, b + 8, HB_MEMDEV_NAME_MAX);
	r->addr = le64(b + 24);
	r->len = le64(b + 32);
	r->count = le64(b + 40);
	r->timestamp_ns = le64(b + 48);
	namelen = strnlen(r->memdev, HB_MEMDEV_NAME_MAX);
	if (r->space != HB_SPACE_DPA && r->space != HB_SPACE_HPA)
		return "address space is neither DPA (1) nor HPA (2)";
	if (r->flags)
		return "reserved flags set";
	if (namelen == HB_MEMDEV_NAME_MAX)
		return "memdev name not NUL-terminated";
	if ((r->space == HB_SPACE_DPA) != (namelen > 0))
		return r->space == HB_SPACE_DPA ? "DPA record without a memdev" :
						  "HPA record with a memdev";
	if (r->len == 0)
		return "len 0: an empty range";
	if (r->count > HB_RECORD_COUNT_MAX)
		return "count above the largest, 10^12";
	if (r->addr + r->len - 1 < r->addr)
		return "addr + len runs past the end of the address space (2^64)";
	return NULL;
}

/* A checked v2 header: its frame's size, or 0 with why. */
size_t hb_replay_frame_header(const uint8_t *h, char *why, size_t why_size)
{
	uint16_t hlen = le16(h + 6);
	uint32_t rlen = le32(h + 8), nrec = le32(h + 12);

	if (hb_replay_crc(h, 20) != le32(h + 20)) {
		snprintf(why, why_size,
			 "frame header checksum mismatch (a torn or interleaved "
			 "frame)");
		return 0;
	}
	if (hlen != HB_REPLAY_FRAME_HEADER_LEN || rlen < HB_REPLAY_RECORD_LEN ||
	    rlen > HB_REPLAY_LINE_MAX || !nrec ||
	    (uint64_t)nrec * rlen > HB_REPLAY_FRAME_PAYLOAD_MAX) {
		snprintf(why, why_size,
			 "frame header: %u bytes, %u records of %u bytes (this "
			 "reader: 24, 1 or more records of 56 to 512 bytes, at most %u bytes)",
			 hlen, nrec, rlen, HB_REPLAY_FRAME_PAYLOAD_MAX);
		return 0;
	}
	return HB_REPLAY_FRAME_HEADER_LEN + (size_t)nrec * rlen;
}
