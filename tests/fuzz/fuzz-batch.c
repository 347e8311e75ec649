// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: `translate --batch` input (daemon/cmd/batch.c) and the
 * echo of each line (daemon/util/utf8.c). Properties: exactly one line per
 * '\n' (plus an unterminated last one), never more than HB_BATCH_LINE_MAX
 * bytes kept, and every echoed line is valid UTF-8 that json-c reads back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmd/batch.h"
#include "util/util.h"
#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_batch_line line = { 0 };
	unsigned long want = 0;
	FILE *f;
	int r;

	if (!size)
		return 0;
	for (size_t i = 0; i < size; i++)
		want += data[i] == '\n';
	want += data[size - 1] != '\n';
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	while ((r = hb_batch_read_line(f, &line)) > 0) {
		struct hb_batch_query q;
		char why[256], *echo = NULL;
		json_object *o, *back;
		const char *s;

		if (line.len > HB_BATCH_LINE_MAX || line.len > line.total)
			__builtin_trap();
		r = hb_batch_parse_line(&line, &q, why, sizeof(why));
		if (r == HB_BATCH_QUERY && (memchr(line.text, '\0', line.len) || !q.addr[0]))
			__builtin_trap();
		if (hb_utf8_escape(line.text, line.len, &echo) < 0)
			continue;
		if (!hb_utf8_valid(echo, strlen(echo)))
			__builtin_trap();
		o = json_object_new_string(echo);
		s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
		back = json_tokener_parse(s);
		if (!back || strcmp(json_object_get_string(back), echo))
			__builtin_trap();
		json_object_put(back);
		json_object_put(o);
		free(echo);
	}
	if (r < 0 || line.lineno != want)
		__builtin_trap();
	fclose(f);
	return 0;
}
