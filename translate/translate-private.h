/* SPDX-License-Identifier: MIT */
/* Structures shared by the translate/ sources only. */
#ifndef HB_TRANSLATE_PRIVATE_H
#define HB_TRANSLATE_PRIVATE_H

#include "translate.h"

/* Hard limits on what a loaded topology may hold (user-controlled input). */
#define HB_TOPO_MAX_OBJECTS 4096

struct hb_topology {
	struct hb_memdev *memdevs;
	size_t nr_memdevs, cap_memdevs;
	struct hb_endpoint_decoder *eps;
	size_t nr_eps, cap_eps;
	struct hb_region *regions; /* sorted by hpa_base once finalised */
	size_t nr_regions, cap_regions;
	struct hb_root_decoder *roots;
	size_t nr_roots, cap_roots;
	/* the CEDT's windows that matched no root decoder (hb_topology_apply_cedt) */
	struct hb_cedt_window *cedt_unmatched;
	size_t nr_cedt_unmatched;

	bool finalized;
	/* per memdev: endpoint decoder indices sorted by dpa_base (CSR) */
	size_t *md_ep_start; /* nr_memdevs + 1 entries */
	int *md_eps;
	/* committed regions by hpa_base, for HPA lookups */
	int *by_hpa;
	size_t nr_by_hpa;
};

/*
 * The tail every loader shares: the CEDT's arithmetic and XOR maps given to
 * the root decoders (cedt may be NULL), then hb_topology_finalize(). On
 * success *t moves to *ret (the caller's *t becomes NULL); on failure *t is
 * left for the caller's cleanup and *ret untouched.
 */
int hb_topology_complete(struct hb_topology **t, const struct hb_cedt *cedt,
			 struct hb_topology **ret, struct hb_err *err);

/*
 * Whether a region must be refused (refuse.c): 0 no, 1 yes with rg->refused
 * saying why, or a negative errno for a topology that is not consistent.
 */
int hb_region_refusal(const struct hb_topology *t, struct hb_region *rg,
		      const struct hb_root_decoder *root, struct hb_err *err);

/* model.c: an object's index by name, or -1 (for model-check.c) */
int hb_model_find_root(const struct hb_topology *t, const char *name);
int hb_model_find_endpoint(const struct hb_topology *t, const char *name);

#endif
