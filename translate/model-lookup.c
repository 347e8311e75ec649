// SPDX-License-Identifier: MIT
/* The topology model's accessors and its two lookups, DPA -> HPA and back (translate.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate-private.h"

size_t hb_topology_nr_memdevs(const struct hb_topology *t)
{
	return t->nr_memdevs;
}
size_t hb_topology_nr_endpoints(const struct hb_topology *t)
{
	return t->nr_eps;
}
size_t hb_topology_nr_regions(const struct hb_topology *t)
{
	return t->nr_regions;
}
size_t hb_topology_nr_roots(const struct hb_topology *t)
{
	return t->nr_roots;
}

const struct hb_memdev *hb_topology_memdev(const struct hb_topology *t, size_t i)
{
	return i < t->nr_memdevs ? &t->memdevs[i] : NULL;
}

const struct hb_endpoint_decoder *hb_topology_endpoint(const struct hb_topology *t, size_t i)
{
	return i < t->nr_eps ? &t->eps[i] : NULL;
}

const struct hb_region *hb_topology_region(const struct hb_topology *t, size_t i)
{
	return i < t->nr_regions ? &t->regions[i] : NULL;
}

const struct hb_region *hb_topology_next_refused(const struct hb_topology *t, size_t *cursor)
{
	while (t && *cursor < t->nr_regions) {
		const struct hb_region *rg = &t->regions[(*cursor)++];

		if (rg->refused[0])
			return rg;
	}
	return NULL;
}

const struct hb_root_decoder *hb_topology_root(const struct hb_topology *t, size_t i)
{
	return i < t->nr_roots ? &t->roots[i] : NULL;
}

struct hb_root_decoder *hb_topology_root_mut(struct hb_topology *t, size_t i)
{
	return (!t->finalized && i < t->nr_roots) ? &t->roots[i] : NULL;
}

int hb_topology_dpa_to_hpa(const struct hb_topology *t, int memdev, uint64_t dpa,
			   struct hb_xlat *ret, struct hb_err *err)
{
	const struct hb_endpoint_decoder *e = NULL;
	const struct hb_region *rg;
	size_t k;

	if (!t->finalized)
		return hb_err_set(err, -EINVAL, "topology is not finalised");
	if (memdev < 0 || (size_t)memdev >= t->nr_memdevs)
		return hb_err_set(err, HB_E_NOMEMDEV, "memdev #%d is not in the topology", memdev);
	for (k = t->md_ep_start[memdev]; k < t->md_ep_start[memdev + 1]; k++) {
		const struct hb_endpoint_decoder *c = &t->eps[t->md_eps[k]];

		if (dpa >= c->dpa_base && dpa - c->dpa_base < c->dpa_size) {
			e = c;
			break;
		}
	}
	if (!e)
		return hb_err_set(err, HB_E_UNMAPPED,
				  "%s: DPA 0x%" PRIx64 " is not in any committed CXL region: "
				  "no committed decoder maps it",
				  t->memdevs[memdev].name, dpa);
	if (e->region < 0)
		return hb_err_set(err, HB_E_NOREGION,
				  "%s: DPA 0x%" PRIx64 " is not in any committed CXL region: "
				  "it is in %s, which is not part of a region",
				  t->memdevs[memdev].name, dpa, e->name);
	rg = &t->regions[e->region];
	if (!rg->committed)
		return hb_err_set(err, HB_E_UNCOMMITTED,
				  "%s: DPA 0x%" PRIx64 " is not in any committed CXL region: "
				  "it is in %s of %s, which is not committed",
				  t->memdevs[memdev].name, dpa, e->name, rg->name);
	if (rg->refused[0])
		return hb_err_set(err, HB_E_REFUSED, "%s: DPA 0x%" PRIx64 " is in %s of %s: %s",
				  t->memdevs[memdev].name, dpa, e->name, rg->name, rg->refused);
	ret->memdev = memdev;
	ret->endpoint = (int)(e - t->eps);
	ret->region = e->region;
	ret->pos = e->pos;
	ret->dpa = dpa;
	ret->hpa = hb_interleave_to_hpa(&rg->il, e->pos, dpa - e->dpa_base);
	return 0;
}

int hb_topology_hpa_to_dpa(const struct hb_topology *t, uint64_t hpa, struct hb_xlat *ret,
			   struct hb_err *err)
{
	size_t lo = 0, hi;
	const struct hb_region *rg = NULL;
	const struct hb_endpoint_decoder *e;
	uint64_t off;
	unsigned pos;

	if (!t->finalized)
		return hb_err_set(err, -EINVAL, "topology is not finalised");
	hi = t->nr_by_hpa;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hb_region *c = &t->regions[t->by_hpa[mid]];

		if (hpa < c->hpa_base) {
			hi = mid;
		} else if (hpa - c->hpa_base >= c->hpa_size) {
			lo = mid + 1;
		} else {
			rg = c;
			break;
		}
	}
	if (!rg) {
		for (size_t i = 0; i < t->nr_regions; i++) {
			const struct hb_region *c = &t->regions[i];

			if (!c->committed && hpa >= c->hpa_base && hpa - c->hpa_base < c->hpa_size)
				return hb_err_set(err, HB_E_UNCOMMITTED,
						  "HPA 0x%" PRIx64 " is not in any committed CXL "
						  "region: it is in %s, which is not committed",
						  hpa, c->name);
		}
		return hb_err_set(err, HB_E_UNMAPPED,
				  "HPA 0x%" PRIx64 " is not in any committed CXL region", hpa);
	}
	if (rg->refused[0])
		return hb_err_set(err, HB_E_REFUSED, "HPA 0x%" PRIx64 " is in %s: %s", hpa,
				  rg->name, rg->refused);
	if (hpa - rg->hpa_base < rg->cache_size)
		return hb_err_set(err, HB_E_REFUSED,
				  "HPA 0x%" PRIx64
				  " is in the extended linear cache of %s (DRAM, HPA 0x%" PRIx64
				  "-0x%" PRIx64 "): it aliases HPA 0x%" PRIx64
				  ", and which of the two the CXL device holds changes as the cache works",
				  hpa, rg->name, rg->hpa_base, rg->hpa_base + rg->cache_size - 1,
				  hpa + rg->cache_size);
	hb_interleave_to_dpa(&rg->il, hpa, &pos, &off);
	e = &t->eps[rg->targets[pos]];
	ret->memdev = e->memdev;
	ret->endpoint = rg->targets[pos];
	ret->region = (int)(rg - t->regions);
	ret->pos = pos;
	ret->dpa = e->dpa_base + off;
	ret->hpa = hpa;
	return 0;
}
