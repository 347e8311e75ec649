// SPDX-License-Identifier: MIT
/*
 * ACPI CEDT (CXL Early Discovery Table): the CFMWS windows with their
 * interleave arithmetic and the CXIMS XOR maps, which libcxl does not
 * expose. Layout: ACPI 6.5 table header (36 bytes), then subtables
 * {u8 type; u8 reserved; u16 length}. Type 1 CFMWS: base @8, size @16,
 * eniw @24, arithmetic @25, hbig @28, restrictions @32, qtg @34, targets
 * @36. Type 2 CXIMS: hbig @6, nr_xormaps @7, maps @8 (CXL 3.1 9.18.1).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "translate-private.h"

#define ACPI_HDR_LEN 36
#define CEDT_CFMWS 1
#define CEDT_CXIMS 2
#define CEDT_MAX_BYTES (1u << 20)

struct cxims {
	unsigned gran;
	unsigned nr;
	uint64_t maps[HB_MAX_XORMAPS];
};

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static int parse_cfmws(const uint8_t *p, size_t len, size_t off, struct hb_cedt *c, struct hb_err *err)
{
	struct hb_cedt_window *win;
	int ways, gran;
	uint32_t hbig;

	if (len < ACPI_HDR_LEN)
		return hb_err_set(err, -EINVAL, "CEDT: CFMWS at offset %zu is %zu bytes, needs 36",
				  off, len);
	ways = hb_eiw_to_ways(p[24]);
	hbig = rd32(p + 28);
	gran = hbig > 6 ? -EINVAL : hb_eig_to_granularity(hbig);
	if (ways < 0)
		return hb_err_set(err, -EINVAL, "CEDT: CFMWS at offset %zu has bad ENIW %u", off,
				  p[24]);
	if (gran < 0)
		return hb_err_set(err, -EINVAL, "CEDT: CFMWS at offset %zu has bad HBIG %" PRIu32,
				  off, hbig);
	if (len < ACPI_HDR_LEN + 4u * (unsigned)ways)
		return hb_err_set(err, -EINVAL,
				  "CEDT: CFMWS at offset %zu is %zu bytes, too short for %d targets",
				  off, len, ways);
	if (p[25] > 1)
		return hb_err_set(err, -EINVAL,
				  "CEDT: CFMWS at offset %zu has unknown interleave arithmetic %u",
				  off, p[25]);
	if (c->nr_windows >= HB_ARRAY_SIZE(c->windows))
		return hb_err_set(err, -E2BIG, "CEDT: more than %zu CFMWS windows",
				  HB_ARRAY_SIZE(c->windows));
	win = &c->windows[c->nr_windows];
	memset(win, 0, sizeof(*win));
	win->base = rd64(p + 8);
	win->size = rd64(p + 16);
	win->ways = (unsigned)ways;
	win->gran = (unsigned)gran;
	win->arith = p[25] ? HB_ARITH_XOR : HB_ARITH_MODULO;
	win->restrictions = rd16(p + 32);
	win->qtg_id = rd16(p + 34);
	for (int i = 0; i < ways; i++)
		win->targets[i] = rd32(p + ACPI_HDR_LEN + 4 * i);
	if (!win->size || win->base % (256ull << 20) || win->size % (256ull << 20) ||
	    win->base + win->size < win->base)
		return hb_err_set(err, -EINVAL,
				  "CEDT: CFMWS 0x%" PRIx64 "+0x%" PRIx64 " is not 256 MiB aligned",
				  win->base, win->size);
	c->nr_windows++;
	return 0;
}

static int parse_cxims(const uint8_t *p, size_t len, size_t off, struct cxims *x, size_t *nr,
		       size_t max, struct hb_err *err)
{
	unsigned n;
	int gran;

	if (len < 8)
		return hb_err_set(err, -EINVAL, "CEDT: CXIMS at offset %zu is %zu bytes", off, len);
	gran = hb_eig_to_granularity(p[6]);
	n = p[7];
	if (gran < 0)
		return hb_err_set(err, -EINVAL, "CEDT: CXIMS at offset %zu has bad HBIG %u", off,
				  p[6]);
	if (len < 8 + 8u * n)
		return hb_err_set(err, -EINVAL,
				  "CEDT: CXIMS at offset %zu is too short for %u maps", off, n);
	if (n > HB_MAX_XORMAPS)
		n = HB_MAX_XORMAPS; /* 16 ways need 4; more are never used */
	if (*nr >= max)
		return hb_err_set(err, -E2BIG, "CEDT: too many CXIMS");
	x[*nr].gran = (unsigned)gran;
	x[*nr].nr = n;
	for (unsigned i = 0; i < n; i++)
		x[*nr].maps[i] = rd64(p + 8 + 8 * i);
	(*nr)++;
	return 0;
}

int hb_cedt_parse(const void *buf, size_t len, struct hb_cedt *ret, struct hb_err *err)
{
	const uint8_t *p = buf;
	struct cxims xims[16];
	size_t nr_xims = 0, tlen, off;
	uint8_t sum = 0;
	int r;

	ret->nr_windows = 0;
	if (len < ACPI_HDR_LEN)
		return hb_err_set(err, -EINVAL, "CEDT: %zu bytes, shorter than an ACPI header", len);
	if (memcmp(p, "CEDT", 4))
		return hb_err_set(err, -EINVAL, "CEDT: signature is \"%.4s\", not CEDT",
				  (const char *)p);
	tlen = rd32(p + 4);
	if (tlen < ACPI_HDR_LEN || tlen > len)
		return hb_err_set(err, -EINVAL, "CEDT: header length %zu but %zu bytes present",
				  tlen, len);
	for (size_t i = 0; i < tlen; i++)
		sum = (uint8_t)(sum + p[i]);
	if (sum)
		return hb_err_set(err, -EINVAL, "CEDT: checksum mismatch (sum %#x)", sum);

	for (off = ACPI_HDR_LEN; off < tlen;) {
		const uint8_t *s = p + off;
		size_t slen;

		if (tlen - off < 4)
			return hb_err_set(err, -EINVAL, "CEDT: truncated subtable at offset %zu",
					  off);
		slen = rd16(s + 2);
		if (slen < 4 || slen > tlen - off)
			return hb_err_set(err, -EINVAL,
					  "CEDT: subtable at offset %zu has length %zu", off, slen);
		if (s[0] == CEDT_CFMWS)
			r = parse_cfmws(s, slen, off, ret, err);
		else if (s[0] == CEDT_CXIMS)
			r = parse_cxims(s, slen, off, xims, &nr_xims, HB_ARRAY_SIZE(xims), err);
		else
			r = 0; /* CHBS, RDPAS, CSDS: not needed here */
		if (r < 0)
			return r;
		off += slen;
	}

	for (size_t i = 0; i < ret->nr_windows; i++) {
		struct hb_cedt_window *win = &ret->windows[i];
		int need = hb_xormap_count(win->ways);
		size_t k;

		if (win->arith != HB_ARITH_XOR || need == 0)
			continue;
		for (k = 0; k < nr_xims; k++)
			if (xims[k].gran == win->gran)
				break;
		if (k == nr_xims)
			return hb_err_set(err, -EINVAL,
					  "CEDT: XOR window 0x%" PRIx64 " (%u ways, %u B) has no CXIMS "
					  "with that granularity",
					  win->base, win->ways, win->gran);
		if (xims[k].nr < (unsigned)need)
			return hb_err_set(err, -EINVAL,
					  "CEDT: XOR window 0x%" PRIx64
					  " needs %d XOR maps, CXIMS has %u",
					  win->base, need, xims[k].nr);
		win->nr_xormaps = (unsigned)need;
		memcpy(win->xormaps, xims[k].maps, sizeof(uint64_t) * (size_t)need);
	}
	return 0;
}

int hb_cedt_load_file(const char *path, struct hb_cedt *ret, struct hb_err *err)
{
	_hb_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = hb_read_file(path, CEDT_MAX_BYTES, &buf, &len);
	if (r < 0)
		return hb_err_set(err, r, "%s: %s", path, hb_read_file_strerror(r));
	return hb_cedt_parse(buf, len, ret, err);
}

int hb_topology_apply_cedt(struct hb_topology *t, const struct hb_cedt *c, struct hb_err *err)
{
	bool used[HB_ARRAY_SIZE(c->windows)] = { false };
	int matched = 0;

	if (t->finalized)
		return hb_err_set(err, -EBUSY, "topology is already finalised");
	for (size_t i = 0; i < t->nr_roots; i++) {
		struct hb_root_decoder *d = &t->roots[i];

		for (size_t k = 0; k < c->nr_windows; k++) {
			const struct hb_cedt_window *win = &c->windows[k];

			if (win->base != d->hpa_base || win->size != d->hpa_size)
				continue;
			if (win->ways != d->ways)
				return hb_err_set(err, -EINVAL,
						  "%s: %u ways, but its CFMWS at 0x%" PRIx64
						  " says %u",
						  d->name, d->ways, win->base, win->ways);
			d->arith = win->arith;
			d->nr_xormaps = win->nr_xormaps;
			memcpy(d->xormaps, win->xormaps, sizeof(d->xormaps));
			used[k] = true;
			matched++;
			break;
		}
	}
	free(t->cedt_unmatched);
	t->cedt_unmatched = NULL;
	t->nr_cedt_unmatched = 0;
	for (size_t k = 0; k < c->nr_windows; k++) {
		if (used[k])
			continue;
		if (!t->cedt_unmatched) {
			t->cedt_unmatched = calloc(c->nr_windows, sizeof(*t->cedt_unmatched));
			if (!t->cedt_unmatched)
				return hb_err_set(err, -ENOMEM, "out of memory");
		}
		t->cedt_unmatched[t->nr_cedt_unmatched++] = c->windows[k];
	}
	return matched;
}

const struct hb_cedt_window *hb_topology_cedt_unmatched(const struct hb_topology *t, size_t i)
{
	return i < t->nr_cedt_unmatched ? &t->cedt_unmatched[i] : NULL;
}
