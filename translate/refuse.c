// SPDX-License-Identifier: MIT
/*
 * Regions whose addresses cannot be computed from the decoders alone. The
 * kernel handles these itself since 6.15..7.0; a translator that ignores
 * them gives wrong addresses without a word. Each is refused by name:
 *
 *  - AMD Zen5 "normalized addressing": the platform firmware (an ACPI PRM
 *    handler) maps device addresses into the fabric's interleave, so the
 *    endpoint decoders decode 1 way at an HPA equal to their DPA while the
 *    region sits elsewhere and interleaves. The kernel detects it the same
 *    way (cxl_prm_setup_root(): endpoint HPA start == DPA start, 1 way) and
 *    its cxl_dpa_to_hpa() then returns no address.
 *  - An extended linear cache whose size the source did not give (cxl-cli
 *    before v84 does not print extended_linear_cache_size): the region then
 *    starts the cache's size below its endpoint decoders.
 *  - A target decoder the source does not list (a snapshot cut short, or
 *    a reader that misses some endpoints, as libcxl 76.1's memdev-to-
 *    endpoint lookup misses an RCH's): only that region is refused, the
 *    others still translate.
 *  - An extended linear cache in an XOR window or an unaligned 3/6/12-way
 *    window: no platform is known, and the kernel's forward and reverse
 *    steps do not agree there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "translate-private.h"

#define SZ_256M (256ull << 20)

static const struct hb_endpoint_decoder *target(const struct hb_topology *t,
						const struct hb_region *rg, unsigned pos)
{
	for (size_t i = 0; i < t->nr_eps; i++)
		if (rg->target_names[pos][0] && !strcmp(t->eps[i].name, rg->target_names[pos]))
			return &t->eps[i];
	return NULL;
}

/* The kernel's test (cxl_prm_setup_root), or a 1-way decoder in an interleaved region. */
static bool normalized(const struct hb_endpoint_decoder *e, const struct hb_region *rg,
		       uint64_t cxl_base)
{
	if (e->ways == 1 && rg->ways > 1)
		return true;
	return e->hpa_size && e->ways <= 1 && e->hpa_base == e->dpa_base && e->hpa_base != cxl_base;
}

static int refuse(struct hb_region *rg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct hb_region *rg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rg->refused, sizeof(rg->refused), fmt, ap);
	va_end(ap);
	return 1;
}

static int check_cache(struct hb_region *rg, const struct hb_root_decoder *root, struct hb_err *err)
{
	uint64_t cxl_base = rg->hpa_base + rg->cache_size;

	if (rg->cache_size >= rg->hpa_size || rg->cache_size != rg->hpa_size - rg->cache_size)
		return hb_err_set(err, -EINVAL,
				  "region %s: extended_linear_cache_size 0x%" PRIx64
				  " is not half of its size 0x%" PRIx64
				  " (the kernel supports only a 1:1 cache)",
				  rg->name, rg->cache_size, rg->hpa_size);
	if (!root)
		return 0;
	if (root->arith == HB_ARITH_XOR)
		return refuse(rg, "extended linear cache in an XOR window (%s) not supported",
			      root->name);
	if (root->ways % 3 == 0 &&
	    (rg->hpa_base % (SZ_256M * root->ways) || cxl_base % (SZ_256M * root->ways)))
		return refuse(rg,
			      "extended linear cache in an unaligned %u-way window (%s) not supported",
			      root->ways, root->name);
	return 0;
}

int hb_region_refusal(const struct hb_topology *t, struct hb_region *rg,
		      const struct hb_root_decoder *root, struct hb_err *err)
{
	uint64_t cxl_base = rg->hpa_base + rg->cache_size;
	int r;

	rg->refused[0] = '\0';
	for (unsigned pos = 0; pos < rg->ways && pos < HB_MAX_WAYS; pos++) {
		const struct hb_endpoint_decoder *e = target(t, rg, pos);

		if (!e && rg->target_names[pos][0])
			return refuse(rg,
				      "position %u names endpoint decoder %s, which is not listed",
				      pos, rg->target_names[pos]);
		if (!e)
			continue; /* reported by the target checks */
		if (normalized(e, rg, cxl_base))
			return refuse(rg,
				      "normalized addressing (AMD Zen5 PRM) not supported: %s decodes "
				      "%u way at HPA 0x%" PRIx64 " = its DPA, %s %u ways at 0x%" PRIx64
				      "; the mapping is the firmware's",
				      e->name, e->ways ? e->ways : 1, e->hpa_base, rg->name,
				      rg->ways, rg->hpa_base);
		if (!e->hpa_size || e->hpa_base == cxl_base)
			continue;
		if (!rg->cache_size && e->hpa_base > rg->hpa_base &&
		    e->hpa_base - rg->hpa_base == e->hpa_size &&
		    e->hpa_base + e->hpa_size == rg->hpa_base + rg->hpa_size)
			return refuse(rg,
				      "extended linear cache of unknown size: %s decodes from HPA 0x%" PRIx64
				      ", 0x%" PRIx64 " above %s; cxl-cli before v84 omits "
				      "extended_linear_cache_size: translate live or add it",
				      e->name, e->hpa_base, e->hpa_base - rg->hpa_base, rg->name);
		return hb_err_set(err, -EINVAL,
				  "region %s: target %s decodes HPA 0x%" PRIx64 "-0x%" PRIx64
				  ", the region's CXL range is 0x%" PRIx64 "-0x%" PRIx64,
				  rg->name, e->name, e->hpa_base, e->hpa_base + e->hpa_size - 1,
				  cxl_base, rg->hpa_base + rg->hpa_size - 1);
	}
	if (rg->cache_size) {
		r = check_cache(rg, root, err);
		if (r)
			return r;
	}
	return 0;
}
