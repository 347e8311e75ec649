// SPDX-License-Identifier: MIT
/*
 * Where a topology comes from: a saved snapshot, or live through libcxl
 * with the firmware's CEDT when it may be read. The one place that chooses,
 * so callers only ask for a topology (struct hb_topology_source).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "translate.h"

int hb_topology_open(const struct hb_topology_source *src, struct hb_topology **ret,
		     struct hb_err *err)
{
	struct hb_cedt *cedt = NULL;
	_hb_cleanup_free_ struct hb_cedt *owned = NULL;
	const char *cedt_path = src->cedt;
	int r;

	/* Live: the firmware's CEDT if we may read it (root only); without it,
	 * every window is taken as modulo, which is what libcxl can tell. */
	if (!cedt_path && !src->topology && access(HB_DEFAULT_CEDT, R_OK) == 0)
		cedt_path = HB_DEFAULT_CEDT;
	if (cedt_path) {
		owned = calloc(1, sizeof(*owned));
		if (!owned)
			return hb_err_set(err, -ENOMEM, "out of memory");
		r = hb_cedt_load_file(cedt_path, owned, err);
		if (r < 0)
			return r;
		cedt = owned;
	}
	if (src->topology)
		return hb_topology_load_json_file(src->topology, cedt, ret, err);
	return hb_topology_load_libcxl(cedt, ret, err);
}
