// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: configuration files (daemon/conf/conf.c). The input is
 * written to a fresh private temporary file (mkstemp: the loader refuses
 * writable ones; removed after each run) and loaded over a configuration
 * that must survive a failed load intact.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/hb-fuzz-config-XXXXXX";
	struct hb_config c;
	struct hb_err err = { 0 };
	ssize_t n;
	int fd;

	fd = mkstemp(path); /* 0600, a fresh name: the loader takes it */
	if (fd < 0)
		return 0;
	n = write(fd, data, size);
	close(fd);
	if (n == (ssize_t)size) {
		hb_config_defaults(&c);
		c.interval_ms = 4242;
		if (hb_config_load(&c, path, false, &err) < 0 && c.interval_ms != 4242)
			__builtin_trap(); /* a failed load must not change anything */
		hb_config_done(&c);
	}
	unlink(path);
	return 0;
}
