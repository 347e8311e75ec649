// SPDX-License-Identifier: MIT
/*
 * What every CHMU refuses whatever its capabilities (the register fields'
 * widths and encodings), for the start-up checks of the sources that
 * program one (chmu, cxl-hmu): check-config and run refuse it by key
 * before a device is touched.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chmu.h"
#include "devices.h"
#include "regs.h"

/* CXL r3.2 8.2.8's M2S request codes 1..6, by the names access= takes */
static const char *const access_names[] = { "nontee-r", "nontee-w", "nontee-rw", "r", "w", "rw" };

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* ms in one of the scales 100 us..1 s times 1..4095 (CONF1's epoch fields) */
static bool epoch_expressible(uint64_t ms)
{
	if (!ms || ms > UINT64_MAX / 1000000)
		return false;
	for (unsigned int s = 1; s <= 5; s++) {
		uint64_t unit = hb_chmu_epoch_scale_ns(s), ns = ms * 1000000;

		if (ns % unit == 0 && ns / unit <= 0xfff)
			return true;
	}
	return false;
}

int hb_chmu_check_params(const char *who, const struct hb_chmu_params *p, struct hb_err *err)
{
	if (p->unit && (!pow2(p->unit) || p->unit < 256 || p->unit > (1ULL << 39)))
		return hb_err_set(err, -EINVAL,
				  "%s: unit=%llu: a power of two from 256 to 2^39 (the device "
				  "takes some of them)",
				  who, (unsigned long long)p->unit);
	if (p->ds && (!pow2(p->ds) || p->ds > 32768))
		return hb_err_set(err, -EINVAL, "%s: ds=%llu: a power of two from 1 to 32768", who,
				  (unsigned long long)p->ds);
	if (!p->threshold || p->threshold > UINT32_MAX)
		return hb_err_set(err, -EINVAL, "%s: threshold=%llu: 1..4294967295", who,
				  (unsigned long long)p->threshold);
	if (p->epoch && !epoch_expressible(p->epoch_ms))
		return hb_err_set(err, -EINVAL,
				  "%s: epoch_ms=%llu: 1..4095000 ms, in steps the device's scales "
				  "express (1..4095 ms, then 10 ms steps to 40950, 100 ms to "
				  "409500, 1 s beyond)",
				  who, (unsigned long long)p->epoch_ms);
	for (size_t i = 0; i < p->nranges; i++) {
		const struct hb_chmu_range *a = &p->ranges[i];

		if (!a->len || a->start + a->len < a->start)
			return hb_err_set(err, -EINVAL, "%s: DPA range 0x%llx+0x%llx %s", who,
					  (unsigned long long)a->start, (unsigned long long)a->len,
					  !a->len ? "is empty" :
						    "runs past the end of the address space (2^64)");
		if (p->capacity && a->start + a->len > p->capacity)
			return hb_err_set(err, -EINVAL,
					  "%s: DPA range 0x%llx+0x%llx runs past the memdev's "
					  "capacity (0x%llx bytes): the CHMU counts nothing there",
					  who, (unsigned long long)a->start,
					  (unsigned long long)a->len,
					  (unsigned long long)p->capacity);
		for (size_t k = 0; k < i; k++) {
			const struct hb_chmu_range *b = &p->ranges[k];

			if (a->start < b->start + b->len && b->start < a->start + a->len)
				return hb_err_set(err, -EINVAL,
						  "%s: DPA ranges 0x%llx+0x%llx and 0x%llx+0x%llx "
						  "overlap",
						  who, (unsigned long long)b->start,
						  (unsigned long long)b->len,
						  (unsigned long long)a->start,
						  (unsigned long long)a->len);
		}
	}
	return 0;
}

const char *hb_chmu_access_name(unsigned int code)
{
	return code >= 1 && code <= 6 ? access_names[code - 1] : "?";
}

int hb_chmu_parse_access(const char *who, const char *s, unsigned int *ret, struct hb_err *err)
{
	uint64_t code;

	*ret = 0;
	if (!s)
		return 0;
	for (unsigned int c = 1; c <= 6; c++)
		if (!strcmp(s, access_names[c - 1])) {
			*ret = c;
			return 0;
		}
	/* the code as every integer parameter is written: decimal or 0x hex (trial42 #4) */
	if (hb_dev_param_parse_u64(s, &code) == 0 && code >= 1 && code <= 6) {
		*ret = (unsigned int)code;
		return 0;
	}
	return hb_err_set(err, -EINVAL,
			  "%s: access=%s: one of nontee-r, nontee-w, nontee-rw (non-TEE requests: "
			  "codes 1-3), r, w, rw (all requests: 4-6), or the code 1..6",
			  who, s);
}

void hb_chmu_format_access(unsigned int bitmap, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int c = 1; c <= 6 && used < size; c++)
		if ((bitmap >> (c - 1)) & 1)
			used += (size_t)snprintf(buf + used, size - used, "%s%s (%u)",
						 used ? ", " : "", access_names[c - 1], c);
	if (!used)
		snprintf(buf, size, "none");
}

/*
 * Reads first. Every load or store that misses the host's caches reaches
 * the device as a read (a store's read for ownership too); a write is a
 * dirty line written back when the cache evicts it, at a time of the
 * cache's choosing: the fill of a buffer written once before the count
 * began arrives as writes seconds later, 64 a page, and under rw made
 * those cold pages hot (tests/e2e/README.md, the race). Writes are posted:
 * the CPU does not wait for them, so it is the reads a promotion saves.
 */
int hb_chmu_pick_access(unsigned int bitmap)
{
	static const unsigned int pref[] = { CHMU_M2S_ALL_R,  CHMU_M2S_NONTEE_R,
					     CHMU_M2S_ALL_RW, CHMU_M2S_NONTEE_RW,
					     CHMU_M2S_ALL_W,  CHMU_M2S_NONTEE_W };

	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++)
		if ((bitmap >> (pref[i] - 1)) & 1)
			return (int)pref[i];
	return -ENOTSUP;
}

int hb_chmu_param_capacity(const char *who, const struct hb_dev_info *info, uint64_t *ret,
			   struct hb_err *err)
{
	int r = hb_dev_param_u64(info, "capacity", 0, ret, err);

	if (r < 0)
		return r;
	if (hb_dev_param(info, "capacity") && (!*ret || *ret % CHMU_RANGE_GRANULE))
		return hb_err_set(err, -EINVAL,
				  "%s: capacity=%llu: the memdev's bytes, a multiple of 256 MiB "
				  "(leave it out: the daemon fills it from the topology)",
				  who, (unsigned long long)*ret);
	return 0;
}
