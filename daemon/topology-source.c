// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "topology-source.h"

int hb_topology_source_load(const struct hb_topology_source *src, struct hb_topology **ret,
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
