/* SPDX-License-Identifier: MIT */
/* Where the CLI gets its topology: --topology FILE or live (libcxl). */
#ifndef HB_TOPOLOGY_SOURCE_H
#define HB_TOPOLOGY_SOURCE_H

#include "translate.h"

struct hb_topology_source {
	const char *topology;   /* saved cxl list JSON, NULL = live */
	const char *cedt;       /* CEDT binary, NULL = the ACPI one when live */
};

#define HB_DEFAULT_CEDT "/sys/firmware/acpi/tables/CEDT"

/* Load as the options say; prints nothing, fills err. */
int hb_topology_source_load(const struct hb_topology_source *src, struct hb_topology **ret,
			    struct hb_err *err);

#endif
