// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the CXL trace-event decoder (devices/cxl-events/decode.c).
 * The input (after a first byte kept for the seeds' layout) is a raw
 * record, decoded against the four format files of
 * tests/data/tracefs/6.12. A decoded record must hold a memdev name
 * that fits, NUL-terminated, and strings that fit theirs. Format files are
 * not fuzzed: they come from the running kernel, and libtraceevent 1.7.1
 * itself leaks on some malformed ones (found by an earlier version of this
 * target; its parser, not our code).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxl-events/cxl-events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hb_cxl_decoder *fixed;

static void load_fixed(void)
{
	struct hb_err err = { 0 };

	if (hb_cxl_decoder_new(&fixed) < 0)
		abort();
	for (int k = 0; k < HB_CXL_KIND_MAX; k++) {
		char path[4096], *buf = NULL;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s.format", HB_FUZZ_TRACEFS, hb_cxl_kind_event(k));
		if (hb_read_file(path, 1 << 20, &buf, &len) < 0 ||
		    hb_cxl_decoder_add_format(fixed, buf, len, &err) < 0) {
			fprintf(stderr, "fuzz-cxl-events: %s: %s\n", path, err.msg);
			abort();
		}
		free(buf);
	}
}

static void check(const struct hb_cxl_record *r)
{
	struct hb_device_event ev;

	if (!memchr(r->memdev, 0, sizeof(r->memdev)) || !r->memdev[0] ||
	    !memchr(r->host, 0, sizeof(r->host)) || !memchr(r->region, 0, sizeof(r->region)))
		__builtin_trap();
	hb_cxl_record_to_event(r, &ev);
	if (ev.size != sizeof(ev) || ev.kind < HB_EVENT_MEDIA || ev.kind > HB_EVENT_OVERFLOW)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_err err = { 0 };
	struct hb_cxl_record r;

	if (!fixed)
		load_fixed();
	if (size < 1)
		return 0;
	if (hb_cxl_decode(fixed, data + 1, size - 1, &r, &err) == 0)
		check(&r);
	return 0;
}
