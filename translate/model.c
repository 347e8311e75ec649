// SPDX-License-Identifier: MIT
/*
 * The topology model: builders, validation (hb_topology_finalize, and
 * hb_topology_complete: every loader's tail) and the two lookups. Loaders build a private topology and hand it out only when
 * finalize accepted it, so nothing is ever half-loaded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

#define SZ_256M (256ull << 20)

static const char *const mode_names[_HB_MODE_MAX] = {
	[HB_MODE_NONE] = "none",
	[HB_MODE_RAM] = "ram",
	[HB_MODE_PMEM] = "pmem",
	[HB_MODE_MIXED] = "mixed",
};

const char *hb_mode_to_string(enum hb_mode m)
{
	return (m >= 0 && m < _HB_MODE_MAX) ? mode_names[m] : NULL;
}

enum hb_mode hb_mode_from_string(const char *s)
{
	if (!s)
		return _HB_MODE_INVALID;
	if (!strcmp(s, "volatile"))
		return HB_MODE_RAM;
	for (int i = 0; i < _HB_MODE_MAX; i++)
		if (!strcmp(s, mode_names[i]))
			return (enum hb_mode)i;
	return _HB_MODE_INVALID;
}

const char *hb_arith_to_string(enum hb_arith a)
{
	switch (a) {
	case HB_ARITH_MODULO: return "modulo";
	case HB_ARITH_XOR: return "xor";
	default: return NULL;
	}
}

enum hb_arith hb_arith_from_string(const char *s)
{
	if (s && !strcmp(s, "modulo"))
		return HB_ARITH_MODULO;
	if (s && !strcmp(s, "xor"))
		return HB_ARITH_XOR;
	return _HB_ARITH_INVALID;
}

int hb_topology_new(struct hb_topology **ret)
{
	struct hb_topology *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	*ret = t;
	return 0;
}

struct hb_topology *hb_topology_free(struct hb_topology *t)
{
	if (!t)
		return NULL;
	free(t->memdevs);
	free(t->eps);
	free(t->regions);
	free(t->roots);
	free(t->md_ep_start);
	free(t->md_eps);
	free(t->by_hpa);
	free(t);
	return NULL;
}

static int grow(void **arr, size_t *cap, size_t nr, size_t elem)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return 0;
	if (nr >= HB_TOPO_MAX_OBJECTS)
		return -E2BIG;
	ncap = *cap ? *cap * 2 : 8;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

#define GROW(t, field, nr, cap)                                             \
	grow((void **)&(t)->field, &(t)->cap, (t)->nr, sizeof(*(t)->field))

static bool name_ok(const char *n)
{
	return n[0] && memchr(n, '\0', HB_NAME_MAX);
}

int hb_topology_add_memdev(struct hb_topology *t, const struct hb_memdev *m, struct hb_err *err)
{
	int r;

	if (t->finalized)
		return hb_err_set(err, -EBUSY, "topology is already finalised");
	if (!name_ok(m->name))
		return hb_err_set(err, -EINVAL, "memdev without a name");
	if (hb_topology_find_memdev(t, m->name) >= 0)
		return hb_err_set(err, -EEXIST, "memdev %s: listed twice", m->name);
	r = GROW(t, memdevs, nr_memdevs, cap_memdevs);
	if (r < 0)
		return hb_err_set(err, r, "memdev %s: too many memdevs", m->name);
	t->memdevs[t->nr_memdevs++] = *m;
	return 0;
}

static int find_root(const struct hb_topology *t, const char *name)
{
	for (size_t i = 0; i < t->nr_roots; i++)
		if (!strcmp(t->roots[i].name, name))
			return (int)i;
	return -ENOENT;
}

static int find_ep(const struct hb_topology *t, const char *name)
{
	for (size_t i = 0; i < t->nr_eps; i++)
		if (!strcmp(t->eps[i].name, name))
			return (int)i;
	return -ENOENT;
}

int hb_topology_add_root(struct hb_topology *t, const struct hb_root_decoder *d, struct hb_err *err)
{
	int r;

	if (t->finalized)
		return hb_err_set(err, -EBUSY, "topology is already finalised");
	if (!name_ok(d->name))
		return hb_err_set(err, -EINVAL, "root decoder without a name");
	if (find_root(t, d->name) >= 0 || find_ep(t, d->name) >= 0)
		return hb_err_set(err, -EEXIST, "decoder %s: listed twice", d->name);
	if (!hb_ways_valid(d->ways))
		return hb_err_set(err, -EINVAL, "root decoder %s: interleave_ways %u is not legal", d->name,
				  d->ways);
	if (!hb_granularity_valid(d->gran))
		return hb_err_set(err, -EINVAL, "root decoder %s: interleave_granularity %u is not legal",
				  d->name, d->gran);
	if (d->hpa_base + d->hpa_size < d->hpa_base)
		return hb_err_set(err, -ERANGE, "root decoder %s: window overflows 64 bits", d->name);
	r = GROW(t, roots, nr_roots, cap_roots);
	if (r < 0)
		return hb_err_set(err, r, "root decoder %s: too many root decoders", d->name);
	t->roots[t->nr_roots++] = *d;
	return 0;
}

int hb_topology_add_endpoint(struct hb_topology *t, const struct hb_endpoint_decoder *d,
			     struct hb_err *err)
{
	int r;

	if (t->finalized)
		return hb_err_set(err, -EBUSY, "topology is already finalised");
	if (!name_ok(d->name))
		return hb_err_set(err, -EINVAL, "endpoint decoder without a name");
	if (find_ep(t, d->name) >= 0 || find_root(t, d->name) >= 0)
		return hb_err_set(err, -EEXIST, "decoder %s: listed twice", d->name);
	if (d->dpa_base + d->dpa_size < d->dpa_base)
		return hb_err_set(err, -ERANGE, "decoder %s: DPA range overflows 64 bits", d->name);
	r = GROW(t, eps, nr_eps, cap_eps);
	if (r < 0)
		return hb_err_set(err, r, "decoder %s: too many endpoint decoders", d->name);
	t->eps[t->nr_eps] = *d;
	t->eps[t->nr_eps].memdev = -1;
	t->eps[t->nr_eps].region = -1;
	t->nr_eps++;
	return 0;
}

int hb_topology_add_region(struct hb_topology *t, const struct hb_region *rg, struct hb_err *err)
{
	int r;

	if (t->finalized)
		return hb_err_set(err, -EBUSY, "topology is already finalised");
	if (!name_ok(rg->name))
		return hb_err_set(err, -EINVAL, "region without a name");
	if (hb_topology_find_region(t, rg->name) >= 0)
		return hb_err_set(err, -EEXIST, "region %s: listed twice", rg->name);
	r = GROW(t, regions, nr_regions, cap_regions);
	if (r < 0)
		return hb_err_set(err, r, "region %s: too many regions", rg->name);
	t->regions[t->nr_regions] = *rg;
	t->regions[t->nr_regions].root = -1;
	t->nr_regions++;
	return 0;
}

int hb_topology_find_memdev(const struct hb_topology *t, const char *name)
{
	for (size_t i = 0; i < t->nr_memdevs; i++)
		if (!strcmp(t->memdevs[i].name, name))
			return (int)i;
	return HB_E_NOMEMDEV;
}

int hb_topology_find_region(const struct hb_topology *t, const char *name)
{
	for (size_t i = 0; i < t->nr_regions; i++)
		if (!strcmp(t->regions[i].name, name))
			return (int)i;
	return -ENOENT;
}

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
			return hb_err_set(err, -EINVAL, "decoder %s: names memdev %s, which is not listed",
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
		ei = find_ep(t, rg->target_names[pos]);
		if (ei < 0)
			return hb_err_set(err, -EINVAL,
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
				return hb_err_set(err, -EINVAL,
						  "region %s: position %u names memdev %s, which is not listed",
						  rg->name, pos, rg->target_memdevs[pos]);
			if (e->memdev >= 0 && e->memdev != md)
				return hb_err_set(err, -EINVAL,
						  "region %s: position %u says %s is on %s, the decoder says %s",
						  rg->name, pos, e->name, rg->target_memdevs[pos],
						  t->memdevs[e->memdev].name);
			e->memdev = md;
		}
		if (e->memdev < 0)
			return hb_err_set(err, -EINVAL, "region %s: target %s has no memdev", rg->name,
					  e->name);
		if ((e->ways && e->ways != rg->ways) || (e->gran && e->gran != rg->gran))
			return hb_err_set(err, -EINVAL,
					  "region %s: target %s decodes %u ways x %u B, the region %u x %u B",
					  rg->name, e->name, e->ways, e->gran, rg->ways, rg->gran);
		if (e->dpa_size * rg->ways != rg->hpa_size - rg->cache_size)
			return hb_err_set(err, -EINVAL,
					  "region %s: target %s has dpa_size 0x%" PRIx64 ", region size 0x%" PRIx64
					  " needs 0x%" PRIx64 " per way",
					  rg->name, e->name, e->dpa_size, rg->hpa_size - rg->cache_size,
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
		int ei = rg->target_names[pos][0] ? find_ep(t, rg->target_names[pos]) : -1;

		if (ei >= 0 && t->eps[ei].region < 0) {
			if (t->eps[ei].memdev < 0 && rg->target_memdevs[pos][0])
				t->eps[ei].memdev = hb_topology_find_memdev(t, rg->target_memdevs[pos]);
			t->eps[ei].region = ri;
			t->eps[ei].pos = pos;
			rg->targets[pos] = ei;
		}
	}
}

static int setup_region(struct hb_topology *t, int ri, struct hb_err *err)
{
	struct hb_region *rg = &t->regions[ri];
	struct hb_interleave_params p = {0};
	const struct hb_root_decoder *root = NULL;
	struct hb_err sub;
	int r;

	for (unsigned pos = 0; pos < HB_MAX_WAYS; pos++)
		rg->targets[pos] = -1;
	if (rg->root_name[0]) {
		rg->root = find_root(t, rg->root_name);
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
				  "region %s: HPA 0x%" PRIx64 "-0x%" PRIx64 " lies outside root decoder %s",
				  rg->name, rg->hpa_base, rg->hpa_base + rg->hpa_size - 1, root->name);
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
				    t->eps[t->md_eps[k - 1]].dpa_base > e->dpa_base; k--)
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
				return hb_err_set(err, -EINVAL, "regions %s and %s: HPA ranges overlap",
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

size_t hb_topology_nr_memdevs(const struct hb_topology *t) { return t->nr_memdevs; }
size_t hb_topology_nr_endpoints(const struct hb_topology *t) { return t->nr_eps; }
size_t hb_topology_nr_regions(const struct hb_topology *t) { return t->nr_regions; }
size_t hb_topology_nr_roots(const struct hb_topology *t) { return t->nr_roots; }

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
		return hb_err_set(err, HB_E_REFUSED, "HPA 0x%" PRIx64 " is in %s: %s", hpa, rg->name,
				  rg->refused);
	if (hpa - rg->hpa_base < rg->cache_size)
		return hb_err_set(err, HB_E_REFUSED,
				  "HPA 0x%" PRIx64 " is in the extended linear cache of %s (DRAM, HPA 0x%"
				  PRIx64 "-0x%" PRIx64 "): it aliases HPA 0x%" PRIx64
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
