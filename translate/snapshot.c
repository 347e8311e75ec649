// SPDX-License-Identifier: MIT
/*
 * The topology from a saved `cxl list` JSON document (json-c).
 *
 * cxl-cli nests children under "<type>:<parent>" keys ("ports:root0",
 * "decoders:endpoint2", "regions:decoder0.0"), wraps what cannot nest in
 * {"root decoders":[...]} style objects, and prints numbers as integers or,
 * with -u, as hex strings and rounded sizes ("256.00 MiB (268.44 MB)").
 * We accept all of that at any depth: objects are recognised by their name
 * key (memdev, decoder, region), and context (enclosing endpoint, root
 * decoder, wrapper key) fills what a flat listing leaves out.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "private.h"

#define SZ_256M (256ull << 20)
#define HB_JSON_MAX_DEPTH 32
#define HB_JSON_MAX_BYTES (64u << 20)

struct walk_ctx {
	const char *key;      /* member key this value was found under */
	const char *memdev;   /* enclosing endpoint's memdev */
	const char *root;     /* enclosing root decoder */
	unsigned depth;
};

struct walker {
	struct hb_topology *t;
	struct hb_err *err;
};

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool has(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/*
 * "256.00 MiB (268.44 MB)" -> bytes. cxl-cli prints two decimals, so the
 * value is exact only after rounding to the 256 MiB granule of HDM
 * decoders, and only while 0.01 of the unit is below half a granule.
 */
static int parse_human(const char *s, bool granular, uint64_t *ret)
{
	static const struct { const char *unit; unsigned shift; } units[] = {
		{ "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 }, { "PiB", 50 },
	};
	char unit[8] = "";
	double v;
	int n;

	if (sscanf(s, "%lf %7s%n", &v, unit, &n) != 2 || !(v >= 0))
		return -EINVAL;
	for (size_t i = 0; i < HB_ARRAY_SIZE(units); i++) {
		double bytes, step;

		if (strcmp(unit, units[i].unit))
			continue;
		bytes = ldexp(v, (int)units[i].shift);
		if (bytes >= 18446744073709551616.0)
			return -ERANGE;
		if (!granular) {
			*ret = (uint64_t)llround(bytes);
			return 0;
		}
		step = ldexp(0.01, (int)units[i].shift);
		if (step >= (double)(SZ_256M / 2))
			return -EDOM;
		*ret = (uint64_t)llround(bytes / (double)SZ_256M) * SZ_256M;
		return 0;
	}
	return -EINVAL;
}

/* Returns 1 if present and parsed, 0 if absent, -errno on a bad value. */
static int get_u64(struct walker *w, json_object *o, const char *obj, const char *key,
		   bool granular, uint64_t *ret)
{
	json_object *v;
	const char *s;
	int r;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return hb_err_set(w->err, -EINVAL, "%s: %s is negative", obj, key);
		*ret = json_object_get_uint64(v);
		return 1;
	}
	if (!json_object_is_type(v, json_type_string))
		return hb_err_set(w->err, -EINVAL, "%s: %s is neither a number nor a string", obj,
				  key);
	s = json_object_get_string(v);
	if (hb_parse_u64(s, ret) == 0)
		return 1;
	r = parse_human(s, granular, ret);
	if (r == -EDOM)
		return hb_err_set(w->err, -EINVAL,
				  "%s: %s \"%s\" is rounded too coarsely by cxl list -u to be exact; "
				  "take the snapshot without -u", obj, key, s);
	if (r < 0)
		return hb_err_set(w->err, -EINVAL, "%s: %s \"%s\" is not a number or size", obj,
				  key, s);
	return 1;
}

static int get_uint(struct walker *w, json_object *o, const char *obj, const char *key,
		    unsigned *ret)
{
	uint64_t v;
	int r = get_u64(w, o, obj, key, false, &v);

	if (r <= 0)
		return r;
	if (v > UINT32_MAX)
		return hb_err_set(w->err, -ERANGE, "%s: %s %" PRIu64 " is out of range", obj, key, v);
	*ret = (unsigned)v;
	return 1;
}

static int copy_name(struct walker *w, char *dst, const char *src, const char *what)
{
	size_t n = strlen(src);

	if (n == 0 || n >= HB_NAME_MAX)
		return hb_err_set(w->err, -EINVAL, "%s name \"%.40s\" is empty or too long", what, src);
	memcpy(dst, src, n + 1);
	return 0;
}

static bool starts_with(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

static int load_memdev(struct walker *w, json_object *o, const char *name)
{
	struct hb_memdev m = { .serial = UINT64_MAX, .numa_node = -1 };
	uint64_t v;
	const char *host;
	int r;

	r = copy_name(w, m.name, name, "memdev");
	if (r < 0)
		return r;
	if ((r = get_u64(w, o, name, "ram_size", false, &m.ram_size)) < 0 ||
	    (r = get_u64(w, o, name, "pmem_size", false, &m.pmem_size)) < 0 ||
	    (r = get_u64(w, o, name, "serial", false, &m.serial)) < 0)
		return r;
	r = get_u64(w, o, name, "numa_node", false, &v);
	if (r < 0)
		return r;
	if (r > 0)
		m.numa_node = v > INT32_MAX ? -1 : (int)v;
	host = get_str(o, "host");
	if (host)
		snprintf(m.host, sizeof(m.host), "%s", host);
	/* the same memdev may be printed twice (under its endpoint and in a
	 * "memdevs" list): keep the first */
	if (hb_topology_find_memdev(w->t, m.name) >= 0)
		return 0;
	return hb_topology_add_memdev(w->t, &m, w->err);
}

static bool is_endpoint_decoder(json_object *o, const struct walk_ctx *c)
{
	return has(o, "dpa_resource") || has(o, "dpa_size") || has(o, "mode") ||
	       starts_with(c->key, "decoders:endpoint") || (c->key && !strcmp(c->key, "endpoint decoders"));
}

static bool is_root_decoder(json_object *o, const struct walk_ctx *c)
{
	json_object_iter it;

	if (starts_with(c->key, "decoders:root") || (c->key && !strcmp(c->key, "root decoders")))
		return true;
	if (has(o, "max_available_extent") || has(o, "pmem_capable") ||
	    has(o, "volatile_capable") || has(o, "accelmem_capable") ||
	    has(o, "interleave_arithmetic") || has(o, "xor_maps"))
		return true;
	json_object_object_foreachC(o, it)
		if (starts_with(it.key, "regions:"))
			return true;
	return false;
}

static int load_xor_maps(struct walker *w, json_object *o, struct hb_root_decoder *d)
{
	json_object *maps;
	size_t n;

	if (!json_object_object_get_ex(o, "xor_maps", &maps))
		return 0;
	if (!json_object_is_type(maps, json_type_array))
		return hb_err_set(w->err, -EINVAL, "%s: xor_maps is not an array", d->name);
	n = json_object_array_length(maps);
	if (n > HB_MAX_XORMAPS)
		return hb_err_set(w->err, -EINVAL, "%s: %zu xor_maps, at most %d", d->name, n,
				  HB_MAX_XORMAPS);
	for (size_t i = 0; i < n; i++) {
		json_object *wrap = json_object_new_object();
		uint64_t v = 0;
		int r;

		if (!wrap)
			return -ENOMEM;
		json_object_object_add(wrap, "m", json_object_get(json_object_array_get_idx(maps, i)));
		r = get_u64(w, wrap, d->name, "m", false, &v);
		json_object_put(wrap);
		if (r < 0)
			return r;
		if (!v)
			return hb_err_set(w->err, -EINVAL, "%s: xor_maps[%zu] is zero", d->name, i);
		d->xormaps[i] = v;
	}
	d->nr_xormaps = (unsigned)n;
	return 0;
}

static int load_root(struct walker *w, json_object *o, const char *name)
{
	struct hb_root_decoder d = {0};
	const char *arith;
	int r;

	r = copy_name(w, d.name, name, "decoder");
	if (r < 0)
		return r;
	if ((r = get_u64(w, o, name, "resource", false, &d.hpa_base)) < 0 ||
	    (r = get_u64(w, o, name, "size", true, &d.hpa_size)) < 0 ||
	    (r = get_uint(w, o, name, "interleave_ways", &d.ways)) < 0)
		return r;
	if (r == 0)
		return hb_err_set(w->err, -EINVAL, "%s: root decoder has no interleave_ways", name);
	d.gran = 256; /* cxl list omits the granularity of x1 decoders */
	if ((r = get_uint(w, o, name, "interleave_granularity", &d.gran)) < 0)
		return r;
	if (r == 0 && d.ways != 1)
		return hb_err_set(w->err, -EINVAL, "%s: %u-way root decoder has no interleave_granularity",
				  name, d.ways);
	arith = get_str(o, "interleave_arithmetic");
	if (arith) {
		int a = hb_arith_from_string(arith);

		if (a < 0)
			return hb_err_set(w->err, -EINVAL,
					  "%s: interleave_arithmetic \"%s\" is not modulo or xor", name, arith);
		d.arith = (enum hb_arith)a;
	}
	r = load_xor_maps(w, o, &d);
	if (r < 0)
		return r;
	return hb_topology_add_root(w->t, &d, w->err);
}

static int load_endpoint(struct walker *w, json_object *o, const char *name,
			 const struct walk_ctx *c)
{
	struct hb_endpoint_decoder d = {0};
	const char *s;
	int r;

	r = copy_name(w, d.name, name, "decoder");
	if (r < 0)
		return r;
	if ((r = get_u64(w, o, name, "dpa_resource", false, &d.dpa_base)) < 0 ||
	    (r = get_u64(w, o, name, "dpa_size", true, &d.dpa_size)) < 0 ||
	    (r = get_uint(w, o, name, "interleave_ways", &d.ways)) < 0 ||
	    (r = get_uint(w, o, name, "interleave_granularity", &d.gran)) < 0)
		return r;
	if (d.ways == 1 && !d.gran)
		d.gran = 0; /* not printed for x1: do not compare */
	s = get_str(o, "mode");
	if (s) {
		int m = hb_mode_from_string(s);

		if (m < 0)
			return hb_err_set(w->err, -EINVAL, "%s: mode \"%s\" is not ram, pmem, mixed or none",
					  name, s);
		d.mode = (enum hb_mode)m;
	}
	s = get_str(o, "region");
	if (s && (r = copy_name(w, d.region_name, s, "region")) < 0)
		return r;
	s = get_str(o, "memdev");
	if (!s)
		s = c->memdev;
	if (s && (r = copy_name(w, d.memdev_name, s, "memdev")) < 0)
		return r;
	return hb_topology_add_endpoint(w->t, &d, w->err);
}

static int load_mappings(struct walker *w, json_object *o, struct hb_region *rg)
{
	json_object *maps;
	size_t n;

	if (!json_object_object_get_ex(o, "mappings", &maps))
		return 0;
	if (!json_object_is_type(maps, json_type_array))
		return hb_err_set(w->err, -EINVAL, "%s: mappings is not an array", rg->name);
	n = json_object_array_length(maps);
	for (size_t i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(maps, i);
		const char *dec;
		unsigned pos = 0;
		int r;

		if (!json_object_is_type(m, json_type_object))
			return hb_err_set(w->err, -EINVAL, "%s: mappings[%zu] is not an object",
					  rg->name, i);
		r = get_uint(w, m, rg->name, "position", &pos);
		if (r < 0)
			return r;
		dec = get_str(m, "decoder");
		if (r == 0 || !dec)
			return hb_err_set(w->err, -EINVAL,
					  "%s: mappings[%zu] lacks position or decoder", rg->name, i);
		if (pos >= HB_MAX_WAYS || pos >= rg->ways)
			return hb_err_set(w->err, -EINVAL,
					  "%s: mapping position %u but %u interleave ways",
					  rg->name, pos, rg->ways);
		if (rg->target_names[pos][0])
			return hb_err_set(w->err, -EINVAL, "%s: position %u is mapped twice",
					  rg->name, pos);
		r = copy_name(w, rg->target_names[pos], dec, "decoder");
		if (r < 0)
			return r;
		dec = get_str(m, "memdev");
		if (dec && (r = copy_name(w, rg->target_memdevs[pos], dec, "memdev")) < 0)
			return r;
	}
	return 0;
}

static int load_region(struct walker *w, json_object *o, const char *name,
		       const struct walk_ctx *c)
{
	struct hb_region rg = {0};
	const char *s;
	int r;

	r = copy_name(w, rg.name, name, "region");
	if (r < 0)
		return r;
	if ((r = get_u64(w, o, name, "resource", false, &rg.hpa_base)) < 0 ||
	    (r = get_u64(w, o, name, "size", true, &rg.hpa_size)) < 0 ||
	    (r = get_uint(w, o, name, "interleave_ways", &rg.ways)) < 0)
		return r;
	if (r == 0)
		return hb_err_set(w->err, -EINVAL, "%s: region has no interleave_ways", name);
	if ((r = get_uint(w, o, name, "interleave_granularity", &rg.gran)) < 0)
		return r;
	s = get_str(o, "decode_state");
	rg.committed = !s || !strcmp(s, "commit");
	if (s && strcmp(s, "commit") && strcmp(s, "reset"))
		return hb_err_set(w->err, -EINVAL, "%s: decode_state \"%s\" is not commit or reset",
				  name, s);
	if (rg.committed && (!rg.hpa_size || r == 0))
		return hb_err_set(w->err, -EINVAL,
				  "%s: committed region lacks size or interleave_granularity", name);
	s = get_str(o, "type");
	if (!s)
		s = get_str(o, "mode");
	if (s) {
		int m = hb_mode_from_string(s);

		rg.mode = m < 0 ? HB_MODE_MIXED : (enum hb_mode)m;
	}
	s = get_str(o, "root_decoder");
	if (!s)
		s = c->root;
	if (s && (r = copy_name(w, rg.root_name, s, "decoder")) < 0)
		return r;
	r = load_mappings(w, o, &rg);
	if (r < 0)
		return r;
	return hb_topology_add_region(w->t, &rg, w->err);
}

/* Keys whose values hold no topology objects (and look like them). */
static bool skip_key(const char *k)
{
	static const char *const skip[] = {
		"mappings", "targets", "dports", "health", "alert_config", "partition_info",
		"firmware", "xor_maps",
	};

	for (size_t i = 0; i < HB_ARRAY_SIZE(skip); i++)
		if (!strcmp(k, skip[i]))
			return true;
	return false;
}

static int walk(struct walker *w, json_object *v, struct walk_ctx c);

static int walk_object(struct walker *w, json_object *o, struct walk_ctx c)
{
	const char *name;
	json_object_iter it;
	int r = 0;

	if ((name = get_str(o, "decoder"))) {
		if (is_endpoint_decoder(o, &c))
			r = load_endpoint(w, o, name, &c);
		else if (is_root_decoder(o, &c)) {
			r = load_root(w, o, name);
			c.root = name;
		}
		/* switch decoders add nothing to the arithmetic */
	} else if ((name = get_str(o, "region"))) {
		r = load_region(w, o, name, &c);
	} else if ((name = get_str(o, "memdev"))) {
		r = load_memdev(w, o, name);
	} else if ((name = get_str(o, "endpoint"))) {
		json_object *md;
		const char *host = get_str(o, "host");

		if (json_object_object_get_ex(o, "memdev", &md) &&
		    json_object_is_type(md, json_type_object) && get_str(md, "memdev"))
			c.memdev = get_str(md, "memdev");
		else if (starts_with(host, "mem"))
			c.memdev = host;
	}
	if (r < 0)
		return r;

	json_object_object_foreachC(o, it) {
		struct walk_ctx child = c;

		if (!json_object_is_type(it.val, json_type_object) &&
		    !json_object_is_type(it.val, json_type_array))
			continue;
		if (skip_key(it.key))
			continue;
		child.key = it.key;
		r = walk(w, it.val, child);
		if (r < 0)
			return r;
	}
	return 0;
}

static int walk(struct walker *w, json_object *v, struct walk_ctx c)
{
	if (++c.depth > HB_JSON_MAX_DEPTH)
		return hb_err_set(w->err, -ELOOP, "JSON nests deeper than %d levels", HB_JSON_MAX_DEPTH);
	if (json_object_is_type(v, json_type_object))
		return walk_object(w, v, c);
	if (json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);

		for (size_t i = 0; i < n; i++) {
			int r = walk(w, json_object_array_get_idx(v, i), c);

			if (r < 0)
				return r;
		}
	}
	return 0;
}

HB_DEFINE_CLEANUP(json_object *, json_object_put)
HB_DEFINE_CLEANUP(struct json_tokener *, json_tokener_free)

int hb_topology_load_json(const char *buf, size_t len, const struct hb_cedt *cedt,
			  struct hb_topology **ret, struct hb_err *err)
{
	_hb_cleanup_(json_tokener_freep) struct json_tokener *tok = NULL;
	_hb_cleanup_(json_object_putp) json_object *doc = NULL;
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct walker w = { .err = err };
	enum json_tokener_error jerr;
	int r;

	if (len > HB_JSON_MAX_BYTES || len > INT32_MAX)
		return hb_err_set(err, -EFBIG, "JSON document larger than %u bytes", HB_JSON_MAX_BYTES);
	tok = json_tokener_new_ex(HB_JSON_MAX_DEPTH * 2);
	if (!tok)
		return hb_err_set(err, -ENOMEM, "out of memory");
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue || (!doc && jerr == json_tokener_success))
		return hb_err_set(err, -EINVAL, "JSON document is truncated (%zu bytes)", len);
	if (jerr != json_tokener_success)
		return hb_err_set(err, -EINVAL, "JSON syntax error at byte %zu: %s",
				  json_tokener_get_parse_end(tok), json_tokener_error_desc(jerr));
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++)
		if (buf[i] != ' ' && buf[i] != '\n' && buf[i] != '\t' && buf[i] != '\r' && buf[i])
			return hb_err_set(err, -EINVAL, "trailing data after the JSON document at byte %zu",
					  i);
	if (!json_object_is_type(doc, json_type_object) && !json_object_is_type(doc, json_type_array))
		return hb_err_set(err, -EINVAL, "JSON document is neither an object nor an array");

	r = hb_topology_new(&t);
	if (r < 0)
		return hb_err_set(err, r, "out of memory");
	w.t = t;
	r = walk(&w, doc, (struct walk_ctx){0});
	if (r < 0)
		return r;
	if (!t->nr_memdevs && !t->nr_regions && !t->nr_eps && !t->nr_roots)
		return hb_err_set(err, -ENODATA, "JSON document holds no memdev, decoder or region");
	if (cedt) {
		r = hb_topology_apply_cedt(t, cedt, err);
		if (r < 0)
			return r;
	}
	r = hb_topology_finalize(t, err);
	if (r < 0)
		return r;
	*ret = HB_TAKE_PTR(t);
	return 0;
}

int hb_topology_load_json_file(const char *path, const struct hb_cedt *cedt,
			       struct hb_topology **ret, struct hb_err *err)
{
	_hb_cleanup_free_ char *buf = NULL;
	struct hb_err sub;
	size_t len;
	int r;

	r = hb_read_file(path, HB_JSON_MAX_BYTES, &buf, &len);
	if (r < 0)
		return hb_err_set(err, r, "%s: %s", path, strerror(-r));
	hb_err_clear(&sub);
	r = hb_topology_load_json(buf, len, cedt, ret, &sub);
	if (r < 0)
		return hb_err_set(err, r, "%s: %s", path, sub.msg);
	return 0;
}
