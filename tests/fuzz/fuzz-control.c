// SPDX-License-Identifier: MIT
/* libFuzzer target: control-socket requests (daemon/control/control-codec.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

#include "control/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_control_req req;
	char why[256];

	if (hb_control_parse((const char *)data, size, &req, why, sizeof(why)) == 0 &&
	    (unsigned int)req.cmd >= _HB_CTL_MAX)
		__builtin_trap();
	return 0;
}
