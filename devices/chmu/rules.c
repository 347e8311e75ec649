// SPDX-License-Identifier: MIT
/*
 * What every CHMU refuses whatever its capabilities (the register fields'
 * widths and encodings), for the start-up checks of the sources that
 * program one (chmu, cxl-hmu): check-config and run refuse it by key
 * before a device is touched.
 */
#include <errno.h>

#include "chmu.h"
#include "regs.h"

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
