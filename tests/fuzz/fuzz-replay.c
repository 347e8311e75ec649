// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the replay parser, text, v2 frames and v1 records in
 * any mix (the first byte picks where the input is split into two feeds,
 * so partial lines, records and frames across feeds are exercised; its low
 * bit declares the input idle in between, as a FIFO whose writer died).
 * Every emitted record must be valid; nothing may be held back at the end.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int emit(void *ud, const struct hb_hot_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((r[i].space != HB_SPACE_DPA && r[i].space != HB_SPACE_HPA) || !r[i].len ||
		    r[i].addr + r[i].len - 1 < r[i].addr ||
		    memchr(r[i].memdev, 0, sizeof(r[i].memdev)) == NULL)
			__builtin_trap();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_replay_parser *p;
	size_t split;

	if (size < 1)
		return 0;
	split = size > 1 ? data[0] % size : 0;
	p = hb_replay_parser_new("fuzz", emit, NULL, NULL);
	hb_replay_parser_feed(p, data + 1, split ? split - 1 : 0);
	if (data[0] & 1)
		hb_replay_parser_idle(p);
	hb_replay_parser_feed(p, data + (split ? split : 1), size - (split ? split : 1));
	hb_replay_parser_finish(p);
	if (hb_replay_parser_pending(p))
		__builtin_trap();
	hb_replay_parser_free(p);
	return 0;
}
