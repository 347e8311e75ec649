// SPDX-License-Identifier: MIT
/*
 * The topology model's validation (private.h): hb_topology_finalize()
 * checks the objects against each other and builds the indexes the
 * lookups use; hb_topology_complete() is every loader's tail.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate-private.h"

#define SZ_256M (256ull << 20)

static int cmp_region_base(const void *a, const void *b)
{
	const struct hb_region *x = a, *y = b;

	if (x->hpa_base != y->hpa_base)
		return x->hpa_base < y->hpa_base ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

static int check_roots(struct hb_topology *t, struct hb_err *err)
{
	for (size_t i = 0; i < t->nr_roots; i++)
		for (size_t j = i + 1; j < t->nr_roots; j++)
			if (overlaps(t->roots[i].hpa_base, t->roots[i].hpa_size,
				     t->roots[j].hpa_base, t->roots[j].hpa_size))
				return hb_err_set(err, -EINVAL,
						  "root decoders %s and %s: windows overlap",
						  t->roots[i].name, t->roots[j].name);
	return 0;
}

static int resolve_endpoints(struct hb_topology *t, struct hb_err *err)
{
	for (size_t i = 0; i < t->nr_eps; i++) {
		struct hb_endpoint_decoder *e = &t->eps[i];

		if (!e->memdev_name[0])
			continue;
		e->memdev = hb_topology_find_memdev(t, e->memdev_name);
		if (e->memdev < 0)
			return hb_err_set(err, -EINVAL,
					  "decoder %s: names memdev %s, which is not listed",
					  e->name, e->memdev_name);
	}
	return 0;
}

static int check_region_targets(struct hb_topology *t, struct hb_region *rg, int ri,
				struct hb_err *err)
{
	for (unsigned pos = 0; pos < rg->ways; pos++) {
		struct hb_endpoint_decoder *e;
		int ei;

		if (!rg->target_names[pos][0])
			return hb_err_set(err, -EINVAL,
					  "region %s: %u interleave ways but no target at position %u "
					  "(was the snapshot taken without -T?)",
					  rg->name, rg->ways, pos);
		ei = hb_model_find_endpoint(t, rg->target_names[pos]);
		if (ei < 0)
			return hb_err_set(
				err, -EINVAL,
				"region %s: position %u names endpoint decoder %s, which is not listed",
				rg->name, pos, rg->target_names[pos]);
		e = &t->eps[ei];
		if (e->region >= 0)
			return hb_err_set(err, -EINVAL, "region %s: %s is mapped twice (also by %s)",
					  rg->name, e->name, t->regions[e->region].name);
		if (e->region_name[0] && strcmp(e->region_name, rg->name))
			return hb_err_set(err, -EINVAL, "region %s: target %s says it belongs to %s",
					  rg->name, e->name, e->region_name);
		if (rg->target_memdevs[pos][0]) {
			int md = hb_topology_find_memdev(t, rg->target_memdevs[pos]);

			if (md < 0)
				return hb_err_set(
					err, -EINVAL,
					"region %s: position %u names memdev %s, which is not listed",
					rg->name, pos, rg->target_memdevs[pos]);
			if (e->memdev >= 0 && e->memdev != md)
				return hb_err_set(
					err, -EINVAL,
					"region %s: position %u says %s is on %s, the decoder says %s",
					rg->name, pos, e->name, rg->target_memdevs[pos],
					t->memdevs[e->memdev].name);
			e->memdev = md;
		}
		if (e->memdev < 0)
			return hb_err_set(err, -EINVAL, "region %s: target %s has no memdev",
					  rg->name, e->name);
		if ((e->ways && e->ways != rg->ways) || (e->gran && e->gran != rg->gran))
			return hb_err_set(
				err, -EINVAL,
				"region %s: target %s decodes %u ways x %u B, the region %u x %u B",
				rg->name, e->name, e->ways, e->gran, rg->ways, rg->gran);
		if (e->dpa_size * rg->ways != rg->hpa_size - rg->cache_size)
			return hb_err_set(err, -EINVAL,
					  "region %s: target %s has dpa_size 0x%" PRIx64
					  ", region size 0x%" PRIx64 " needs 0x%" PRIx64 " per way",
					  rg->name, e->name, e->dpa_size,
					  rg->hpa_size - rg->cache_size,
					  (rg->hpa_size - rg->cache_size) / rg->ways);
		e->region = ri;
		e->pos = pos;
		snprintf(e->region_name, sizeof(e->region_name), "%s", rg->name);
		rg->targets[pos] = ei;
	}
	for (unsigned pos = rg->ways; pos < HB_MAX_WAYS; pos++)
		if (rg->target_names[pos][0])
			return hb_err_set(err, -EINVAL,
					  "region %s: %u interleave ways but a target at position %u",
					  rg->name, rg->ways, pos);
	return 0;
}

/* Targets of a region that maps nothing (not committed, or refused): lookups
 * find the region and say why they fail. */
static void claim_targets(struct hb_topology *t, struct hb_region *rg, int ri)
{
	for (unsigned pos = 0; pos < HB_MAX_WAYS; pos++) {
		int ei = rg->target_names[pos][0] ? hb_model_find_endpoint(t, rg->target_names[pos]) :
						    -1;

		if (ei >= 0 && t->eps[ei].region < 0) {
			if (t->eps[ei].memdev < 0 && rg->target_memdevs[pos][0])
				t->eps[ei].memdev =
					hb_topology_find_memdev(t, rg->target_memdevs[pos]);
			t->eps[ei].region = ri;
			t->eps[ei].pos = pos;
			rg->targets[pos] = ei;
		}
	}
}

static int setup_region(struct hb_topology *t, int ri, struct hb_err *err)
{
	struct hb_region *rg = &t->regions[ri];
	struct hb_interleave_params p = { 0 };
	const struct hb_root_decoder *root = NULL;
	struct hb_err sub;
	int r;

	for (unsigned pos = 0; pos < HB_MAX_WAYS; pos++)
		rg->targets[pos] = -1;
	if (rg->root_name[0]) {
		rg->root = hb_model_find_root(t, rg->root_name);
		if (rg->root < 0 && t->nr_roots)
			return hb_err_set(err, -EINVAL, "region %s: root decoder %s is not listed",
					  rg->name, rg->root_name);
	} else if (rg->hpa_size) {
		for (size_t i = 0; i < t->nr_roots; i++)
			if (rg->hpa_base >= t->roots[i].hpa_base &&
			    rg->hpa_base < t->roots[i].hpa_base + t->roots[i].hpa_size)
				rg->root = (int)i;
	}
	if (rg->root >= 0)
		root = &t->roots[rg->root];

	if (!rg->committed) {
		/* A region in reset state may be half-configured: keep its name
		 * so lookups can say why they fail, but map nothing. */
		claim_targets(t, rg, ri);
		return 0;
	}

	if (root && (rg->hpa_base < root->hpa_base ||
		     rg->hpa_base + rg->hpa_size > root->hpa_base + root->hpa_size))
		return hb_err_set(err, -EINVAL,
				  "region %s: HPA 0x%" PRIx64 "-0x%" PRIx64
				  " lies outside root decoder %s",
				  rg->name, rg->hpa_base, rg->hpa_base + rg->hpa_size - 1,
				  root->name);
	r = hb_region_refusal(t, rg, root, err);
	if (r < 0)
		return r;
	if (r > 0) {
		claim_targets(t, rg, ri);
		return 0;
	}
	/* with an extended linear cache the decoders map the part after the cache */
	p.base = rg->hpa_base + rg->cache_size;
	p.size = rg->hpa_size - rg->cache_size;
	p.ways = rg->ways;
	p.gran = rg->gran;
	if (root) {
		p.root_ways = root->ways;
		/* A x1 window's granularity means nothing (the kernel prints 256). */
		p.root_gran = root->ways > 1 ? root->gran : rg->gran;
		p.arith = root->arith;
		p.nr_xormaps = root->nr_xormaps;
		p.xormaps = root->xormaps;
	}
	hb_err_clear(&sub);
	r = hb_interleave_init(&rg->il, &p, &sub);
	if (r < 0)
		return hb_err_set(err, r, "region %s: %s", rg->name, sub.msg);
	return check_region_targets(t, rg, ri, err);
}

/*
 * Volatile then persistent capacity, each in 256 MiB units (CXL 3.1
 * 8.2.9.9.1.1); cxl list -u prints them rounded, so round up. 0: unknown.
 */
static uint64_t capacity(const struct hb_memdev *m)
{
	uint64_t ram = (m->ram_size + SZ_256M - 1) & ~(SZ_256M - 1);
	uint64_t pmem = (m->pmem_size + SZ_256M - 1) & ~(SZ_256M - 1);

	if (ram < m->ram_size || pmem < m->pmem_size || ram + pmem < ram)
		return UINT64_MAX;
	return ram + pmem;
}

static bool beyond_capacity(const struct hb_memdev *m, const struct hb_endpoint_decoder *e)
{
	uint64_t cap = capacity(m);

	return cap && (e->dpa_base >= cap || e->dpa_size > cap - e->dpa_base);
}

static int build_indexes(struct hb_topology *t, struct hb_err *err)
{
	size_t n = 0;

	t->md_ep_start = calloc(t->nr_memdevs + 1, sizeof(*t->md_ep_start));
	t->md_eps = calloc(t->nr_eps ? t->nr_eps : 1, sizeof(*t->md_eps));
	t->by_hpa = calloc(t->nr_regions ? t->nr_regions : 1, sizeof(*t->by_hpa));
	if (!t->md_ep_start || !t->md_eps || !t->by_hpa)
		return hb_err_set(err, -ENOMEM, "out of memory");

	for (size_t m = 0; m < t->nr_memdevs; m++) {
		t->md_ep_start[m] = n;
		for (size_t i = 0; i < t->nr_eps; i++) {
			const struct hb_endpoint_decoder *e = &t->eps[i];
			size_t k;

			if (e->memdev != (int)m || !e->dpa_size)
				continue;
			if (beyond_capacity(&t->memdevs[m], e))
				return hb_err_set(err, -EINVAL,
						  "memdev %s: decoder %s: DPA 0x%" PRIx64 "-0x%" PRIx64
						  " lies beyond the device's capacity 0x%" PRIx64,
						  t->memdevs[m].name, e->name, e->dpa_base,
						  e->dpa_base + e->dpa_size - 1,
						  capacity(&t->memdevs[m]));
			/* insertion by dpa_base; reject overlaps on one device */
			for (k = t->md_ep_start[m]; k < n; k++) {
				const struct hb_endpoint_decoder *o = &t->eps[t->md_eps[k]];

				if (overlaps(e->dpa_base, e->dpa_size, o->dpa_base, o->dpa_size))
					return hb_err_set(err, -EINVAL,
							  "memdev %s: DPA ranges of %s and %s overlap",
							  t->memdevs[m].name, o->name, e->name);
			}
			for (k = n; k > t->md_ep_start[m] &&
				    t->eps[t->md_eps[k - 1]].dpa_base > e->dpa_base;
			     k--)
				t->md_eps[k] = t->md_eps[k - 1];
			t->md_eps[k] = (int)i;
			n++;
		}
	}
	t->md_ep_start[t->nr_memdevs] = n;

	/* regions are sorted by base: committed ones must not overlap */
	for (size_t i = 0; i < t->nr_regions; i++) {
		const struct hb_region *rg = &t->regions[i];

		if (!rg->committed)
			continue;
		if (t->nr_by_hpa) {
			const struct hb_region *prev = &t->regions[t->by_hpa[t->nr_by_hpa - 1]];

			if (overlaps(prev->hpa_base, prev->hpa_size, rg->hpa_base, rg->hpa_size))
				return hb_err_set(err, -EINVAL,
						  "regions %s and %s: HPA ranges overlap",
						  prev->name, rg->name);
		}
		t->by_hpa[t->nr_by_hpa++] = (int)i;
	}
	return 0;
}

int hb_topology_finalize(struct hb_topology *t, struct hb_err *err)
{
	int r;

	if (t->finalized)
		return 0;
	if (t->nr_regions)
		qsort(t->regions, t->nr_regions, sizeof(*t->regions), cmp_region_base);
	r = check_roots(t, err);
	if (r < 0)
		return r;
	r = resolve_endpoints(t, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->nr_eps; i++)
		t->eps[i].region = -1;
	/* committed regions claim their targets first */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->nr_regions; i++) {
			if (t->regions[i].committed != (pass == 0))
				continue;
			r = setup_region(t, (int)i, err);
			if (r < 0)
				return r;
		}
	for (size_t i = 0; i < t->nr_eps; i++) {
		struct hb_endpoint_decoder *e = &t->eps[i];
		int ri;

		if (e->region >= 0 || !e->region_name[0])
			continue;
		ri = hb_topology_find_region(t, e->region_name);
		if (ri < 0)
			continue; /* region not in the snapshot: the decoder maps nothing */
		if (t->regions[ri].committed)
			return hb_err_set(err, -EINVAL,
					  "decoder %s: says it belongs to %s, which does not map it",
					  e->name, e->region_name);
		e->region = ri; /* in a region being set up: lookups say so */
	}
	r = build_indexes(t, err);
	if (r < 0)
		return r;
	t->finalized = true;
	return 0;
}

int hb_topology_complete(struct hb_topology **t, const struct hb_cedt *cedt,
			 struct hb_topology **ret, struct hb_err *err)
{
	int r;

	if (cedt) {
		r = hb_topology_apply_cedt(*t, cedt, err);
		if (r < 0)
			return r;
	}
	r = hb_topology_finalize(*t, err);
	if (r < 0)
		return r;
	*ret = HB_TAKE_PTR(*t);
	return 0;
}
