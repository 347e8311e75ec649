// SPDX-License-Identifier: MIT
/*
 * Counters as the daemon's JSON replies print them (report.c, status-why.c,
 * explain.c): json-c has no unsigned 64-bit number, so a u64 is clamped to
 * INT64_MAX.
 */
#include <stdint.h>

#include <json-c/json.h>

#include "daemon-private.h"

json_object *hb_daemon_json_u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}
