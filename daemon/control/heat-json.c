// SPDX-License-Identifier: MIT
/*
 * heat: the hottest pages of the table now, by HPA and by memdev:DPA, for
 * `hotbridge top` and `hotbridge heatmap`. Read only: the policy's hot
 * list and counters are left as they are.
 */
#include <errno.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "daemon-private.h"
#include "translate.h"

static json_object *page_json(const struct hb_daemon *d, const struct hb_candidate *c)
{
	const struct hb_topology *t = hb_daemon_topology(d);
	json_object *o = json_object_new_object();
	const struct hb_memdev *m = NULL;
	const struct hb_region *rg = NULL;
	struct hb_xlat x;

	if (t && hb_topology_hpa_to_dpa(t, c->hpa, &x, NULL) == 0) {
		m = hb_topology_memdev(t, (size_t)x.memdev);
		rg = x.region >= 0 ? hb_topology_region(t, (size_t)x.region) : NULL;
	}
	json_object_object_add(o, "page", hb_json_hex(c->hpa));
	json_object_object_add(o, "region", rg ? json_object_new_string(rg->name) : NULL);
	json_object_object_add(o, "region_offset", rg ? hb_json_hex(c->hpa - rg->hpa_base) : NULL);
	json_object_object_add(o, "memdev", m ? json_object_new_string(m->name) : NULL);
	json_object_object_add(o, "dpa", m ? hb_json_hex(x.dpa) : NULL);
	json_object_object_add(o, "heat", hb_json_double(c->heat, 3));
	json_object_object_add(o, "node", c->node >= 0 ? json_object_new_int(c->node) : NULL);
	json_object_object_add(o, "hotness_source",
			       c->source >= 0 && (size_t)c->source < d->nsrc ?
				       json_object_new_string(d->src[c->source].name) :
				       NULL);
	return o;
}

/* the address spaces a page can be drawn in: each memdev's DPA, each region's HPA */
static void spaces_json(const struct hb_daemon *d, json_object *o)
{
	const struct hb_topology *t = hb_daemon_topology(d);
	json_object *md = json_object_new_array(), *rg = json_object_new_array();

	for (size_t i = 0; t && i < hb_topology_nr_memdevs(t); i++) {
		const struct hb_memdev *m = hb_topology_memdev(t, i);
		json_object *x = json_object_new_object();

		json_object_object_add(x, "name", json_object_new_string(m->name));
		json_object_object_add(x, "size", hb_json_hex(m->ram_size + m->pmem_size));
		json_object_array_add(md, x);
	}
	for (size_t i = 0; t && i < hb_topology_nr_regions(t); i++) {
		const struct hb_region *r = hb_topology_region(t, i);
		json_object *x = json_object_new_object();

		json_object_object_add(x, "name", json_object_new_string(r->name));
		json_object_object_add(x, "hpa", hb_json_hex(r->hpa_base));
		json_object_object_add(x, "size", hb_json_hex(r->hpa_size));
		json_object_array_add(rg, x);
	}
	json_object_object_add(o, "memdevs", md);
	json_object_object_add(o, "regions", rg);
}

int hb_daemon_heat(struct hb_daemon *d, size_t last, json_object **ret, struct hb_err *err)
{
	struct hb_candidate *c = calloc(last ? last : 1, sizeof(*c));
	json_object *o, *a;
	size_t n;

	if (!c)
		return hb_err_set(err, -ENOMEM, "out of memory");
	n = hb_heat_hottest(d->heat, c, last);
	o = json_object_new_object();
	a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, page_json(d, &c[i]));
	free(c);
	json_object_object_add(o, "table_pages", hb_daemon_json_u64(hb_heat_len(d->heat)));
	json_object_object_add(o, "threshold", hb_json_double(d->pcfg.threshold, 3));
	json_object_object_add(o, "page_size", hb_daemon_json_u64(d->pcfg.page_size));
	json_object_object_add(o, "pages", a);
	spaces_json(d, o);
	*ret = o;
	return 0;
}
