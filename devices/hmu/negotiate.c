// SPDX-License-Identifier: MIT
/*
 * Which request type and down-sampling factor the PMU takes. A CHMU
 * advertises both in its capabilities (CAP0's tracked request codes,
 * CAP1's factors), but neither the RFC perf driver nor ours publishes
 * them: each refuses at open, with EINVAL, what the device lacks. A device
 * that tracks only non-TEE requests (codes 1-3, as the RFC's own QEMU
 * model) or down-samples only by 32 (QEMU's upstream model) then refuses
 * the defaults. So what the user left unsaid is asked for, the preferred
 * first; and when nothing opens, each value is tried alone so that the
 * refusal names what the device does take.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chmu/chmu.h"
#include "hmu.h"

#define DS_SHIFTS 16 /* factors 1..32768, CAP1's 16-bit bitmap */

/* r, nontee-r, rw, nontee-rw, w, nontee-w: hb_chmu_pick_access()'s order (reads first) */
static const unsigned int access_pref[] = { 4, 1, 6, 3, 5, 2 };

struct
try {
	const struct hb_hmu_pmu *p;
	hb_hmu_open_fn open_fn;
	void *ud;
	uint64_t *config;
};

/* the PMU's answer to q with access a and factor 2^ds: an fd, -errno, or -ERANGE (not encodable) */
static int try_one(const struct try *t, const struct hb_hmu_request *q, unsigned int a,
		   unsigned int ds, bool probe)
{
	struct hb_hmu_request x = *q;

	x.access_type = a;
	x.ds_shift = ds;
	if (hb_hmu_request_encode(t->p, &x, t->config, NULL) < 0)
		return -ERANGE;
	return t->open_fn(t->ud, t->config, probe);
}

/*
 * What the device takes: bit a - 1 of *ret_acc when request type a opens
 * with some factor (the ds= given, else any), bit n of *ret_ds when 2^n
 * opens with some request type (the access= given, else any).
 */
static int probe_masks(const struct try *t, const struct hb_hmu_request *q, unsigned int *ret_acc,
		       uint32_t *ret_ds)
{
	*ret_acc = 0;
	*ret_ds = 0;
	for (unsigned int a = 1; a <= 6; a++)
		for (unsigned int ds = 0; ds < DS_SHIFTS; ds++) {
			int r;

			if (q->ds_given && ds != q->ds_shift)
				continue;
			r = try_one(t, q, a, ds, true);
			if (r >= 0) {
				*ret_acc |= 1u << (a - 1);
				break;
			}
			if (r != -EINVAL && r != -ERANGE)
				return r;
		}
	for (unsigned int ds = 0; ds < DS_SHIFTS; ds++)
		for (unsigned int a = 1; a <= 6; a++) {
			int r;

			if (q->access_given && a != q->access_type)
				continue;
			r = try_one(t, q, a, ds, true);
			if (r >= 0) {
				*ret_ds |= 1u << ds;
				break;
			}
			if (r != -EINVAL && r != -ERANGE)
				return r;
		}
	return 0;
}

int hb_hmu_negotiate(const struct hb_hmu_pmu *p, const struct hb_hmu_request *want,
		     uint64_t config[HB_HMU_CONFIG_WORDS], hb_hmu_open_fn open_fn, void *ud,
		     struct hb_hmu_request *ret_q, struct hb_err *err)
{
	struct try t = { p, open_fn, ud, config };
	struct hb_hmu_request q = *want;
	char acc[160], dss[160];
	unsigned int accm;
	uint32_t dsm;
	int r;

	for (size_t i = 0; i < HB_ARRAY_SIZE(access_pref); i++) {
		unsigned int a = q.access_given ? q.access_type : access_pref[i];

		for (unsigned int ds = 0; ds < DS_SHIFTS; ds++) {
			unsigned int d = q.ds_given ? q.ds_shift : ds;

			r = try_one(&t, &q, a, d, false);
			if (r >= 0) {
				q.access_type = a;
				q.ds_shift = d;
				*ret_q = q;
				return r;
			}
			if (r != -EINVAL && r != -ERANGE)
				return r; /* EBUSY, EACCES...: the caller names it */
			if (q.ds_given)
				break;
		}
		if (q.access_given)
			break;
	}
	/* nothing opened: what does the device take? */
	if ((r = probe_masks(&t, &q, &accm, &dsm)) < 0)
		return r;
	/* config[] as first asked, for the caller's messages; nothing opened */
	(void)hb_hmu_request_encode(p, &q, config, NULL);
	hb_chmu_format_access(accm, acc, sizeof(acc));
	hb_chmu_format_sizes(dsm, 0, dss, sizeof(dss));
	if (q.access_given && !((accm >> (q.access_type - 1)) & 1) && accm)
		return hb_err_set(err, -EINVAL,
				  "cxl-hmu: access=%s (code %u): PMU %s refuses it; the device "
				  "takes %s%s",
				  hb_chmu_access_name(q.access_type), q.access_type, p->name, acc,
				  q.ds_given ? " (with the ds= given)" : "");
	if (q.ds_given && !((dsm >> q.ds_shift) & 1) && dsm)
		return hb_err_set(err, -EINVAL,
				  "cxl-hmu: ds=%llu: PMU %s refuses it; the device takes %s%s",
				  1ULL << q.ds_shift, p->name, dss,
				  q.access_given ? " (with the access= given)" : "");
	return hb_err_set(err, -EINVAL,
			  "cxl-hmu: PMU %s refuses the event (EINVAL) whatever the request type "
			  "and down-sampling factor%s: another parameter (unit, epoch_ms, "
			  "threshold, mode, dpa_range) is not what the device offers; it takes "
			  "access %s, ds %s with the rest as given",
			  p->name, q.access_given || q.ds_given ? " left unsaid" : "", acc, dss);
}
