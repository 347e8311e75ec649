// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: /proc/iomem and lockdown text (devices/chmu/iomem.c).
 * The input is written to a fresh private temporary file and read both
 * ways; every parsed entry is then looked up as a BAR and as a range.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chmu/chmu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/hb-fuzz-iomem-XXXXXX", mode[32];
	struct hb_err err = { 0 };
	struct hb_iomem m;
	ssize_t n;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	n = write(fd, data, size);
	if (n == (ssize_t)size && hb_iomem_load_fd(fd, path, &m, &err) == 0) {
		for (size_t i = 0; i < m.n; i++) {
			const struct hb_iomem_entry *c = NULL;
			int r = hb_iomem_find_claim(&m, m.v[i].name, m.v[i].start, m.v[i].start,
						    m.v[i].end, &c);

			if (m.v[i].end < m.v[i].start || m.v[i].depth > 256)
				__builtin_trap();
			if (r > 0 && (c < m.v || c >= m.v + m.n || c->start > m.v[i].end ||
				      c->end < m.v[i].start))
				__builtin_trap(); /* a claim must overlap the range asked about */
		}
		hb_iomem_done(&m);
	}
	close(fd);
	if (n == (ssize_t)size) {
		if (hb_iomem_load(path, &m, &err) == 0)
			hb_iomem_done(&m);
		if (hb_lockdown_mode(path, mode, sizeof(mode)) == 0 && strlen(mode) >= sizeof(mode))
			__builtin_trap();
	}
	unlink(path);
	return 0;
}
