// SPDX-License-Identifier: MIT
/* The heatmap's input from the control socket's heat reply (heatmap.h). */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "heatmap.h"
#include "view.h"

int hb_heatmap_spaces_from(struct hb_heatmap *h, json_object *heat, bool by_hpa)
{
	json_object *a = hb_view_get(heat, by_hpa ? "regions" : "memdevs");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	h->nspace = 0;
	for (size_t i = 0; i < n && h->nspace < HB_HEATMAP_SPACES; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		struct hb_heatmap_space *s = &h->space[h->nspace];
		const char *name = hb_view_str(o, "name", "");

		if (!*name || strlen(name) >= sizeof(s->name) || !hb_view_u64(o, "size"))
			continue;
		strcpy(s->name, name);
		s->size = hb_view_u64(o, "size");
		h->nspace++;
	}
	h->axis = by_hpa ? "HPA offset" : "DPA";
	return h->nspace ? 0 : -EINVAL;
}

void hb_heatmap_add_from(struct hb_heatmap *h, json_object *heat, bool by_hpa, size_t col)
{
	json_object *a = hb_view_get(heat, "pages");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	hb_heatmap_sample(h, col);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		const char *space = hb_view_str(o, by_hpa ? "region" : "memdev", NULL);

		if (!space)
			continue; /* in no region, on no memdev */
		hb_heatmap_add(h, hb_heatmap_space(h, space), col,
			       hb_view_u64(o, by_hpa ? "region_offset" : "dpa"),
			       hb_view_num(o, "heat"));
	}
}
