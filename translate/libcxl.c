// SPDX-License-Identifier: MIT
/*
 * The topology live from libcxl (ndctl >= 76.1): the only libcxl user.
 * libcxl gives regions, their ordered mappings and the endpoint decoders'
 * DPA ranges, but not the root decoders' arithmetic: pass the CEDT for
 * XOR windows. Mappings are read by position, never by iteration order
 * (libcxl lists them in reverse).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include <cxl/libcxl.h>

#include "translate-private.h"

HB_DEFINE_CLEANUP(struct cxl_ctx *, cxl_unref)

static uint64_t known(unsigned long long v)
{
	return v == ULLONG_MAX ? 0 : v;
}

static unsigned known_u(unsigned v)
{
	return v == UINT_MAX ? 0 : v;
}

static enum hb_mode mode_of(enum cxl_decoder_mode m)
{
	switch (m) {
	case CXL_DECODER_MODE_RAM: return HB_MODE_RAM;
	case CXL_DECODER_MODE_PMEM: return HB_MODE_PMEM;
	case CXL_DECODER_MODE_MIXED: return HB_MODE_MIXED;
	default: return HB_MODE_NONE;
	}
}

/*
 * A memdev's endpoint port. libcxl 76.1's cxl_memdev_get_endpoint() looks
 * below the host bridges only, so it misses a memdev attached through a
 * restricted CXL host (RCH, a CXL 1.1 device), whose endpoint sits directly
 * under the root port (`cxl list` shows it as "endpoints:root0"); look
 * there too.
 */
static struct cxl_endpoint *endpoint_of(struct cxl_memdev *md)
{
	struct cxl_endpoint *ep = cxl_memdev_get_endpoint(md);
	struct cxl_bus *bus;

	if (ep)
		return ep;
	cxl_bus_foreach(cxl_memdev_get_ctx(md), bus)
		cxl_endpoint_foreach(cxl_bus_get_port(bus),
				     ep) if (cxl_endpoint_get_memdev(ep) == md) return ep;
	return NULL;
}

static int add_endpoint_decoders(struct hb_topology *t, struct cxl_memdev *md, struct hb_err *err)
{
	struct cxl_endpoint *ep = endpoint_of(md);
	struct cxl_decoder *dec;

	if (!ep)
		return 0; /* memdev without an enabled endpoint port maps nothing */
	cxl_decoder_foreach(cxl_endpoint_get_port(ep), dec)
	{
		struct hb_endpoint_decoder d = { 0 };
		struct cxl_region *region = cxl_decoder_get_region(dec);
		int r;

		snprintf(d.name, sizeof(d.name), "%s", cxl_decoder_get_devname(dec));
		snprintf(d.memdev_name, sizeof(d.memdev_name), "%s", cxl_memdev_get_devname(md));
		d.dpa_base = known(cxl_decoder_get_dpa_resource(dec));
		d.dpa_size = known(cxl_decoder_get_dpa_size(dec));
		d.mode = mode_of(cxl_decoder_get_mode(dec));
		d.ways = known_u(cxl_decoder_get_interleave_ways(dec));
		d.gran = known_u(cxl_decoder_get_interleave_granularity(dec));
		if (!d.dpa_size)
			d.ways = d.gran = 0;
		/* "start" is readable by root only: without it the ways still tell */
		d.hpa_base = known(cxl_decoder_get_resource(dec));
		d.hpa_size = d.dpa_size ? known(cxl_decoder_get_size(dec)) : 0;
		if (d.hpa_base == 0 && cxl_decoder_get_resource(dec) == ULLONG_MAX)
			d.hpa_size = 0;
		if (region)
			snprintf(d.region_name, sizeof(d.region_name), "%s",
				 cxl_region_get_devname(region));
		r = hb_topology_add_endpoint(t, &d, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * regionZ/extended_linear_cache_size (kernel 6.15+), which libcxl 76.1
 * does not read (cxl_region_get_extended_linear_cache_size() is ndctl v84):
 * absent means no cache.
 */
static int read_cache_size(const char *region, uint64_t *ret, struct hb_err *err)
{
	char path[128];
	int r;

	snprintf(path, sizeof(path), "/sys/bus/cxl/devices/%s/extended_linear_cache_size", region);
	r = hb_read_u64(NULL, path, 0, ret);
	if (r == -ENOENT) {
		*ret = 0;
		return 0;
	}
	if (r < 0)
		return hb_err_set(err, r, "%s: cannot read %s as a number: %s", region, path,
				  strerror(-r));
	return 0;
}

static int add_region(struct hb_topology *t, struct cxl_decoder *root, struct cxl_region *region,
		      struct hb_err *err)
{
	struct hb_region rg = { 0 };
	struct cxl_memdev_mapping *map;
	int r;

	snprintf(rg.name, sizeof(rg.name), "%s", cxl_region_get_devname(region));
	snprintf(rg.root_name, sizeof(rg.root_name), "%s", cxl_decoder_get_devname(root));
	rg.hpa_base = cxl_region_get_resource(region); /* 0 when unallocated */
	rg.hpa_size = known(cxl_region_get_size(region));
	rg.ways = known_u(cxl_region_get_interleave_ways(region));
	rg.gran = known_u(cxl_region_get_interleave_granularity(region));
	rg.committed = cxl_region_decode_is_committed(region) == 1;
	r = read_cache_size(rg.name, &rg.cache_size, err);
	if (r < 0)
		return r;
	cxl_mapping_foreach(region, map)
	{
		struct cxl_decoder *dec = cxl_mapping_get_decoder(map);
		unsigned pos = cxl_mapping_get_position(map);

		if (!dec)
			continue;
		if (pos >= HB_MAX_WAYS)
			return hb_err_set(err, -EINVAL, "%s: mapping position %u out of range",
					  rg.name, pos);
		snprintf(rg.target_names[pos], HB_NAME_MAX, "%s", cxl_decoder_get_devname(dec));
		if (cxl_decoder_get_memdev(dec))
			snprintf(rg.target_memdevs[pos], HB_NAME_MAX, "%s",
				 cxl_memdev_get_devname(cxl_decoder_get_memdev(dec)));
		if (rg.mode == HB_MODE_NONE)
			rg.mode = mode_of(cxl_decoder_get_mode(dec));
	}
	return hb_topology_add_region(t, &rg, err);
}

static int add_roots(struct hb_topology *t, struct cxl_ctx *ctx, struct hb_err *err)
{
	struct cxl_bus *bus;

	cxl_bus_foreach(ctx, bus)
	{
		struct cxl_decoder *dec;

		cxl_decoder_foreach(cxl_bus_get_port(bus), dec)
		{
			struct hb_root_decoder d = { 0 };
			struct cxl_region *region;
			int r;

			snprintf(d.name, sizeof(d.name), "%s", cxl_decoder_get_devname(dec));
			d.hpa_base = known(cxl_decoder_get_resource(dec));
			d.hpa_size = known(cxl_decoder_get_size(dec));
			d.ways = known_u(cxl_decoder_get_interleave_ways(dec));
			d.gran = known_u(cxl_decoder_get_interleave_granularity(dec));
			if (d.ways == 1 && !hb_granularity_valid(d.gran))
				d.gran = 256;
			r = hb_topology_add_root(t, &d, err);
			if (r < 0)
				return r;
			cxl_region_foreach(dec, region)
			{
				r = add_region(t, dec, region, err);
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

int hb_topology_load_libcxl(const struct hb_cedt *cedt, struct hb_topology **ret, struct hb_err *err)
{
	_hb_cleanup_(cxl_unrefp) struct cxl_ctx *ctx = NULL;
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct cxl_memdev *md;
	int r;

	r = cxl_new(&ctx);
	if (r < 0)
		return hb_err_set(err, r, "libcxl: cxl_new failed: %s", strerror(-r));
	r = hb_topology_new(&t);
	if (r < 0)
		return hb_err_set(err, r, "out of memory");
	cxl_memdev_foreach(ctx, md)
	{
		struct hb_memdev m = { .serial = UINT64_MAX, .numa_node = -1 };
		unsigned long long serial = cxl_memdev_get_serial(md);

		snprintf(m.name, sizeof(m.name), "%s", cxl_memdev_get_devname(md));
		snprintf(m.host, sizeof(m.host), "%s", cxl_memdev_get_host(md));
		m.serial = serial == ULLONG_MAX ? UINT64_MAX : serial;
		m.numa_node = cxl_memdev_get_numa_node(md);
		m.ram_size = known(cxl_memdev_get_ram_size(md));
		m.pmem_size = known(cxl_memdev_get_pmem_size(md));
		r = hb_topology_add_memdev(t, &m, err);
		if (r < 0)
			return r;
		r = add_endpoint_decoders(t, md, err);
		if (r < 0)
			return r;
	}
	r = add_roots(t, ctx, err);
	if (r < 0)
		return r;
	return hb_topology_complete(&t, cedt, ret, err);
}
