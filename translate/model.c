// SPDX-License-Identifier: MIT
/*
 * The topology model's builders (private.h): the enums' names, a new
 * topology, its objects added one by one and found by name. Validation is
 * model-check.c, the lookups model-lookup.c. Loaders build a private
 * topology and hand it out only when finalize accepted it, so nothing is
 * ever half-loaded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate-private.h"
#include "util/strtab.h"

static const char *const mode_names[_HB_MODE_MAX] = {
	[HB_MODE_NONE] = "none",
	[HB_MODE_RAM] = "ram",
	[HB_MODE_PMEM] = "pmem",
	[HB_MODE_MIXED] = "mixed",
};

static const char *const arith_names[_HB_ARITH_MAX] = {
	[HB_ARITH_MODULO] = "modulo",
	[HB_ARITH_XOR] = "xor",
};

HB_STRTAB_TO_STRING(hb_mode_to_string, enum hb_mode, mode_names, NULL)

enum hb_mode hb_mode_from_string(const char *s)
{
	/* "volatile" is accepted for ram too */
	if (s && !strcmp(s, "volatile"))
		return HB_MODE_RAM;
	return (enum hb_mode)hb_strtab_index(mode_names, HB_ARRAY_SIZE(mode_names), s);
}

HB_STRTAB_TO_STRING(hb_arith_to_string, enum hb_arith, arith_names, NULL)
HB_STRTAB_FROM_STRING(hb_arith_from_string, enum hb_arith, arith_names)

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
	free(t->cedt_unmatched);
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

#define GROW(t, field, nr, cap) grow((void **)&(t)->field, &(t)->cap, (t)->nr, sizeof(*(t)->field))

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

int hb_model_find_root(const struct hb_topology *t, const char *name)
{
	for (size_t i = 0; i < t->nr_roots; i++)
		if (!strcmp(t->roots[i].name, name))
			return (int)i;
	return -ENOENT;
}

int hb_model_find_endpoint(const struct hb_topology *t, const char *name)
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
	if (hb_model_find_root(t, d->name) >= 0 || hb_model_find_endpoint(t, d->name) >= 0)
		return hb_err_set(err, -EEXIST, "decoder %s: listed twice", d->name);
	if (!hb_ways_valid(d->ways))
		return hb_err_set(err, -EINVAL, "root decoder %s: interleave_ways %u is not legal",
				  d->name, d->ways);
	if (!hb_granularity_valid(d->gran))
		return hb_err_set(err, -EINVAL,
				  "root decoder %s: interleave_granularity %u is not legal",
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
	if (hb_model_find_endpoint(t, d->name) >= 0 || hb_model_find_root(t, d->name) >= 0)
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
