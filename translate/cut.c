// SPDX-License-Identifier: MIT
/* A DPA range cut where its HPA stops being contiguous (translate.h). */
#include <errno.h>
#include <inttypes.h>

#include "translate.h"

int hb_topology_dpa_piece(const struct hb_topology *t, int memdev, uint64_t dpa, uint64_t len,
			  struct hb_xlat *ret, uint64_t *ret_len, struct hb_err *err)
{
	const struct hb_endpoint_decoder *ep;
	struct hb_xlat x;
	uint64_t n, end;
	int r;

	if (!len)
		return hb_err_set(err, -EINVAL, "DPA 0x%" PRIx64 ": zero length", dpa);
	r = hb_topology_dpa_to_hpa(t, memdev, dpa, &x, err);
	if (r < 0)
		return r;
	ep = hb_topology_endpoint(t, (size_t)x.endpoint);
	/* to the end of dpa's granule (granules start at the decoder's base) */
	n = hb_topology_region(t, (size_t)x.region)->gran;
	n -= (dpa - ep->dpa_base) % n;
	if (n > len)
		n = len;
	/* and never past the decoder */
	end = ep->dpa_base + ep->dpa_size - dpa;
	if (n > end)
		n = end;
	*ret = x;
	*ret_len = n;
	return 0;
}
