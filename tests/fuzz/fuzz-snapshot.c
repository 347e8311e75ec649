// SPDX-License-Identifier: MIT
/* libFuzzer target: the `cxl list` JSON loader, then every lookup it allows. */
#include <stddef.h>
#include <stdint.h>

#include "translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_topology *t = NULL;
	struct hb_err err = { 0 };

	if (hb_topology_load_json((const char *)data, size, NULL, &t, &err) < 0)
		return 0;
	for (size_t i = 0; i < hb_topology_nr_regions(t); i++) {
		const struct hb_region *rg = hb_topology_region(t, i);
		struct hb_xlat x, y;

		/* a refused region answers nothing; a cache's DRAM half (its first
		 * cache_size bytes) has no DPA */
		if (!rg->committed || rg->refused[0])
			continue;
		for (uint64_t off = rg->cache_size;
		     off < rg->hpa_size && off < rg->cache_size + (1u << 20); off += 4093) {
			if (hb_topology_hpa_to_dpa(t, rg->hpa_base + off, &x, &err) < 0)
				__builtin_trap();
			if (hb_topology_dpa_to_hpa(t, x.memdev, x.dpa, &y, &err) < 0 ||
			    y.hpa != rg->hpa_base + off)
				__builtin_trap();
		}
	}
	hb_topology_free(t);
	return 0;
}
