// SPDX-License-Identifier: MIT
/*
 * The loaded model as JSON, in cxl-cli's vocabulary and wrappers
 * ({"memdevs":[...]}, {"root decoders":[...]}, ...), addresses as hex
 * strings. hb_topology_load_json() reads this output back.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <stdio.h>

#include <json-c/json.h>

#include "translate-private.h"

json_object *hb_json_hex(uint64_t v)
{
	char buf[24];

	/* "0x%" rather than "%#": "%#" prints zero as a bare "0" */
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_object_new_string(buf);
}

json_object *hb_json_double(double v, int decimals)
{
	char buf[64];
	size_t len;

	if (!isfinite(v))
		return NULL;
	len = (size_t)snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (len >= sizeof(buf))
		return json_object_new_double(v);
	/* 20.480 -> 20.48, 8.000 -> 8.0: still a JSON number with a point */
	if (strchr(buf, '.')) {
		while (len > 2 && buf[len - 1] == '0' && buf[len - 2] != '.')
			buf[--len] = '\0';
	}
	if (!strcmp(buf, "-0.0") || !strcmp(buf, "-0"))
		snprintf(buf, sizeof(buf), "0.0");
	return json_object_new_double_s(v, buf);
}

static void add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *memdevs_json(const struct hb_topology *t)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < t->nr_memdevs; i++) {
		const struct hb_memdev *m = &t->memdevs[i];
		json_object *o = json_object_new_object();

		add(o, "memdev", json_object_new_string(m->name));
		if (m->ram_size)
			add(o, "ram_size", hb_json_hex(m->ram_size));
		if (m->pmem_size)
			add(o, "pmem_size", hb_json_hex(m->pmem_size));
		if (m->serial != UINT64_MAX)
			add(o, "serial", hb_json_hex(m->serial));
		if (m->numa_node >= 0)
			add(o, "numa_node", json_object_new_int(m->numa_node));
		if (m->host[0])
			add(o, "host", json_object_new_string(m->host));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *roots_json(const struct hb_topology *t)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < t->nr_roots; i++) {
		const struct hb_root_decoder *d = &t->roots[i];
		json_object *o = json_object_new_object();

		add(o, "decoder", json_object_new_string(d->name));
		add(o, "resource", hb_json_hex(d->hpa_base));
		add(o, "size", hb_json_hex(d->hpa_size));
		add(o, "interleave_ways", json_object_new_int((int)d->ways));
		add(o, "interleave_granularity", json_object_new_int((int)d->gran));
		add(o, "interleave_arithmetic", json_object_new_string(hb_arith_to_string(d->arith)));
		if (d->nr_xormaps) {
			json_object *maps = json_object_new_array();

			for (unsigned k = 0; k < d->nr_xormaps; k++)
				json_object_array_add(maps, hb_json_hex(d->xormaps[k]));
			add(o, "xor_maps", maps);
		}
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *endpoints_json(const struct hb_topology *t)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < t->nr_eps; i++) {
		const struct hb_endpoint_decoder *e = &t->eps[i];
		json_object *o = json_object_new_object();

		add(o, "decoder", json_object_new_string(e->name));
		if (e->memdev >= 0)
			add(o, "memdev", json_object_new_string(t->memdevs[e->memdev].name));
		add(o, "dpa_resource", hb_json_hex(e->dpa_base));
		add(o, "dpa_size", hb_json_hex(e->dpa_size));
		add(o, "mode", json_object_new_string(hb_mode_to_string(e->mode)));
		if (e->hpa_size) {
			add(o, "resource", hb_json_hex(e->hpa_base));
			add(o, "size", hb_json_hex(e->hpa_size));
		}
		if (e->ways && e->dpa_size)
			add(o, "interleave_ways", json_object_new_int((int)e->ways));
		if (e->region >= 0) {
			add(o, "region", json_object_new_string(t->regions[e->region].name));
			add(o, "position", json_object_new_int((int)e->pos));
		}
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *regions_json(const struct hb_topology *t)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < t->nr_regions; i++) {
		const struct hb_region *rg = &t->regions[i];
		json_object *o = json_object_new_object();
		json_object *maps = json_object_new_array();

		add(o, "region", json_object_new_string(rg->name));
		if (rg->root >= 0)
			add(o, "root_decoder", json_object_new_string(t->roots[rg->root].name));
		add(o, "resource", hb_json_hex(rg->hpa_base));
		add(o, "size", hb_json_hex(rg->hpa_size));
		if (rg->cache_size)
			add(o, "extended_linear_cache_size", hb_json_hex(rg->cache_size));
		add(o, "interleave_ways", json_object_new_int((int)rg->ways));
		add(o, "interleave_granularity", json_object_new_int((int)rg->gran));
		add(o, "decode_state", json_object_new_string(rg->committed ? "commit" : "reset"));
		if (rg->mode != HB_MODE_NONE)
			add(o, "type", json_object_new_string(hb_mode_to_string(rg->mode)));
		if (rg->refused[0])
			add(o, "refused", json_object_new_string(rg->refused));
		for (unsigned pos = 0; pos < rg->ways && pos < HB_MAX_WAYS; pos++) {
			json_object *m;
			int ei = rg->targets[pos];

			if (ei < 0)
				continue;
			m = json_object_new_object();
			add(m, "position", json_object_new_int((int)pos));
			if (t->eps[ei].memdev >= 0)
				add(m, "memdev",
				    json_object_new_string(t->memdevs[t->eps[ei].memdev].name));
			add(m, "decoder", json_object_new_string(t->eps[ei].name));
			json_object_array_add(maps, m);
		}
		add(o, "mappings", maps);
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *hb_topology_to_json(const struct hb_topology *t)
{
	json_object *top = json_object_new_array();
	struct {
		const char *key;
		json_object *(*fn)(const struct hb_topology *t);
	} parts[] = {
		{ "memdevs", memdevs_json },
		{ "root decoders", roots_json },
		{ "endpoint decoders", endpoints_json },
		{ "regions", regions_json },
	};

	for (size_t i = 0; i < HB_ARRAY_SIZE(parts); i++) {
		json_object *o = json_object_new_object();

		add(o, parts[i].key, parts[i].fn(t));
		json_object_array_add(top, o);
	}
	return top;
}
