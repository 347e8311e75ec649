// SPDX-License-Identifier: MIT
/*
 * Pure interleave arithmetic: no I/O, no allocation.
 *
 * With G the granularity, W the ways, pos the endpoint's position and
 * off = DPA - dpa_base, CXL modulo interleave places a byte at
 *
 *	HPA = base + ((off / G) * W + pos) * G + off % G
 *
 * for every legal W (1,2,4,8,16 and 3,6,12); this is the closed form of the
 * kernel's cxl_calculate_hpa_offset() (drivers/cxl/core/region.c). XOR
 * windows (CFMWS arithmetic 1) then replace, for each CXIMS map m, the
 * lowest set bit of m with the parity of (HPA & m), on the absolute address
 * (CXL 3.1 9.18.1.2). A 3/6/12-way window whose base is not a multiple of
 * ways * 256 MiB rotates host-bridge positions by (base / G_root) % ways.
 */
#include <errno.h>
#include <string.h>

#include "translate.h"

#define SZ_256M (256ull << 20)

bool hb_ways_valid(unsigned ways)
{
	switch (ways) {
	case 1:
	case 2:
	case 3:
	case 4:
	case 6:
	case 8:
	case 12:
	case 16: return true;
	default: return false;
	}
}

bool hb_granularity_valid(unsigned gran)
{
	return hb_is_pow2(gran) && gran >= 256 && gran <= 16384;
}

int hb_eiw_to_ways(unsigned eiw)
{
	if (eiw <= 4)
		return 1 << eiw;
	if (eiw >= 8 && eiw <= 10)
		return 3 << (eiw - 8);
	return -EINVAL;
}

int hb_eig_to_granularity(unsigned eig)
{
	if (eig > 6)
		return -EINVAL;
	return 256 << eig;
}

int hb_xormap_count(unsigned hb_ways)
{
	switch (hb_ways) {
	case 1:
	case 3: return 0;
	case 2:
	case 6: return 1;
	case 4:
	case 12: return 2;
	case 8: return 3;
	case 16: return 4;
	default: return -EINVAL;
	}
}

static inline uint64_t xor_one(uint64_t map, uint64_t addr)
{
	unsigned bit = (unsigned)__builtin_ctzll(map);
	uint64_t v = (uint64_t)__builtin_parityll(addr & map);

	return (addr & ~(1ull << bit)) | (v << bit);
}

uint64_t hb_xormap_apply(const uint64_t *maps, unsigned n, uint64_t addr)
{
	for (unsigned i = 0; i < n; i++)
		addr = xor_one(maps[i], addr);
	return addr;
}

/* Each step is an involution; undoing them in reverse order is exact even
 * when a later map covers an earlier map's target bit. */
uint64_t hb_xormap_unapply(const uint64_t *maps, unsigned n, uint64_t addr)
{
	for (unsigned i = n; i-- > 0;)
		addr = xor_one(maps[i], addr);
	return addr;
}

int hb_interleave_init(struct hb_interleave *il, const struct hb_interleave_params *p,
		       struct hb_err *err)
{
	unsigned root_ways = p->root_ways ? p->root_ways : p->ways;
	unsigned root_gran = p->root_gran ? p->root_gran : p->gran;
	struct hb_interleave n = { 0 };

	if (!hb_ways_valid(p->ways))
		return hb_err_set(err, -EINVAL,
				  "interleave ways %u is not one of 1,2,3,4,6,8,12,16", p->ways);
	if (!hb_granularity_valid(p->gran))
		return hb_err_set(err, -EINVAL,
				  "interleave granularity %u is not a power of two in 256..16384",
				  p->gran);
	if (!hb_ways_valid(root_ways))
		return hb_err_set(err, -EINVAL, "root decoder ways %u is not legal", root_ways);
	if (!hb_granularity_valid(root_gran))
		return hb_err_set(err, -EINVAL, "root decoder granularity %u is not legal",
				  root_gran);
	if (p->ways % root_ways)
		return hb_err_set(err, -EINVAL,
				  "region ways %u is not a multiple of the root decoder's %u ways",
				  p->ways, root_ways);
	if (p->base % SZ_256M)
		return hb_err_set(err, -EINVAL, "HPA base 0x%llx is not 256 MiB aligned",
				  (unsigned long long)p->base);
	if (!p->size || p->size % (SZ_256M * p->ways))
		return hb_err_set(err, -EINVAL,
				  "size 0x%llx is not a non-zero multiple of %u x 256 MiB",
				  (unsigned long long)p->size, p->ways);
	if (p->base + p->size < p->base)
		return hb_err_set(err, -ERANGE, "HPA range overflows 64 bits");

	n.base = p->base;
	n.size = p->size;
	n.ways = p->ways;
	n.gran = p->gran;
	n.gshift = (uint8_t)hb_ilog2(p->gran);
	n.mod3 = p->ways % 3 == 0;
	n.wshift = (uint8_t)hb_ilog2(n.mod3 ? p->ways / 3 : p->ways);
	n.hb_ways = root_ways;
	n.hb_gran = root_gran;
	n.hb_gshift = (uint8_t)hb_ilog2(root_gran);
	n.dph = p->ways / root_ways;

	if (p->arith == HB_ARITH_XOR) {
		int need = hb_xormap_count(root_ways);

		if ((unsigned)need > p->nr_xormaps)
			return hb_err_set(err, -EINVAL,
					  "XOR window of %u ways needs %d XOR maps, %u given",
					  root_ways, need, p->nr_xormaps);
		for (int i = 0; i < need; i++) {
			if (!p->xormaps[i])
				return hb_err_set(err, -EINVAL, "XOR map %d is zero", i);
			n.xormaps[i] = p->xormaps[i];
		}
		n.nr_xormaps = (unsigned)need;
	} else if (p->arith != HB_ARITH_MODULO) {
		return hb_err_set(err, -EINVAL, "unknown interleave arithmetic %d", p->arith);
	}

	if (p->arith == HB_ARITH_MODULO && root_ways % 3 == 0 && p->base % (SZ_256M * root_ways)) {
		if (root_gran == p->gran && n.dph > 1)
			return hb_err_set(err, -EINVAL,
					  "unaligned %u-way window with %u endpoints per host bridge "
					  "needs a region granularity other than the window's %u",
					  root_ways, n.dph, root_gran);
		n.unaligned = true;
		n.rot = (unsigned)((p->base >> n.hb_gshift) % root_ways);
	}
	*il = n;
	return 0;
}

/* c / ways and c % ways with the power-of-two part as shifts. */
static inline void split(const struct hb_interleave *il, uint64_t c, uint64_t *q, unsigned *r)
{
	if (!il->mod3) {
		*q = c >> il->wshift;
		*r = (unsigned)(c & ((1ull << il->wshift) - 1));
	} else {
		uint64_t hi = c >> il->wshift;
		unsigned lo = (unsigned)(c & ((1ull << il->wshift) - 1));

		*q = hi / 3;
		*r = ((unsigned)(hi % 3) << il->wshift) | lo;
	}
}

static uint64_t unaligned_to_hpa(const struct hb_interleave *il, unsigned pos, uint64_t off)
{
	unsigned pos_port = pos % il->dph, pos_hb = pos / il->dph;
	uint64_t x = off, hg = il->hb_gran;
	unsigned p;

	if (il->hb_gran != il->gran) {
		uint64_t rg = il->gran;

		x = ((off >> il->gshift) * il->dph + pos_port) * rg + (off & (rg - 1));
	}
	p = (pos_hb + il->hb_ways - il->rot) % il->hb_ways;
	return il->base + ((x >> il->hb_gshift) * il->hb_ways + p) * hg + (x & (hg - 1));
}

static void unaligned_to_dpa(const struct hb_interleave *il, uint64_t off, unsigned *ret_pos,
			     uint64_t *ret_off)
{
	uint64_t hg = il->hb_gran, k = off >> il->hb_gshift;
	unsigned pos_hb = (unsigned)((k % il->hb_ways + il->rot) % il->hb_ways);
	uint64_t x = (k / il->hb_ways) * hg + (off & (hg - 1));
	unsigned pos_port = 0;

	if (il->hb_gran != il->gran) {
		uint64_t c = x >> il->gshift;

		pos_port = (unsigned)(c % il->dph);
		x = (c / il->dph) * il->gran + (x & (il->gran - 1));
	}
	*ret_pos = pos_hb * il->dph + pos_port;
	*ret_off = x;
}

uint64_t hb_interleave_to_hpa(const struct hb_interleave *il, unsigned pos, uint64_t dpa_off)
{
	uint64_t hpa;

	if (il->unaligned)
		return unaligned_to_hpa(il, pos, dpa_off);
	hpa = il->base + ((((dpa_off >> il->gshift) * il->ways) + pos) << il->gshift) +
	      (dpa_off & (il->gran - 1));
	if (il->nr_xormaps)
		hpa = hb_xormap_apply(il->xormaps, il->nr_xormaps, hpa);
	return hpa;
}

void hb_interleave_to_dpa(const struct hb_interleave *il, uint64_t hpa, unsigned *ret_pos,
			  uint64_t *ret_dpa_off)
{
	uint64_t off, q;
	unsigned r;

	if (il->nr_xormaps)
		hpa = hb_xormap_unapply(il->xormaps, il->nr_xormaps, hpa);
	off = hpa - il->base;
	if (il->unaligned) {
		unaligned_to_dpa(il, off, ret_pos, ret_dpa_off);
		return;
	}
	split(il, off >> il->gshift, &q, &r);
	*ret_pos = r;
	*ret_dpa_off = (q << il->gshift) | (off & (il->gran - 1));
}
