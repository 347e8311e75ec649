// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: configuration files (daemon/conf.c). The input is
 * written to a private temporary file (the loader refuses writable ones)
 * and loaded over a configuration that must survive a failed load intact.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct hb_config c;
	struct hb_err err = { 0 };
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/hb-fuzz-config-%d.conf", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	hb_config_defaults(&c);
	c.interval_ms = 4242;
	if (hb_config_load(&c, path, false, &err) < 0 && c.interval_ms != 4242)
		__builtin_trap();     /* a failed load must not change anything */
	hb_config_done(&c);
	return 0;
}
