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

#include "translate-private.h"

#define SZ_256M (256ull << 20)
#define HB_JSON_MAX_DEPTH 32
#define HB_JSON_MAX_BYTES (64u << 20)

struct walk_ctx {
	const char *key;    /* member key this value was found under */
	const char *memdev; /* enclosing endpoint's memdev */
	const char *root;   /* enclosing root decoder */
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
 * What may follow the unit of a -u size: nothing, or cxl-cli's decimal
 * repetition " (268.44 MB)" and nothing after it.
 */
static bool human_tail_ok(const char *s)
{
	char unit[4] = "", close = 0;
	double v;
	int n = -1;

	if (!*s)
		return true;
	if (sscanf(s, " (%lf %3[kKMGTPEB]%c%n", &v, unit, &close, &n) != 3 || n < 0 || close != ')')
		return false;
	return !s[n] && strlen(unit) == 2 && unit[1] == 'B';
}

/*
 * "256.00 MiB (268.44 MB)" -> bytes. cxl-cli prints two decimals, so the
 * value is exact only after rounding to the 256 MiB granule of HDM
 * decoders, and only while 0.01 of the unit is below half a granule.
 */
static int parse_human(const char *s, bool granular, uint64_t *ret)
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = {
		{ "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 }, { "PiB", 50 },
	};
	char unit[8] = "";
	double v;
	int n;

	if (sscanf(s, "%lf %7s%n", &v, unit, &n) != 2 || !(v >= 0) || !human_tail_ok(s + n))
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
				  "take the snapshot without -u",
				  obj, key, s);
	if (r < 0)
		return hb_err_set(w->err, -EINVAL, "%s: %s \"%s\" is not a number or size", obj,
				  key, s);
	return 1;
}

static int get_uint(struct walker *w, json_object *o, const char *obj, const char *key, unsigned *ret)
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
		return hb_err_set(w->err, -EINVAL, "%s name \"%.40s\" is empty or too long", what,
				  src);
	memcpy(dst, src, n + 1);
	return 0;
}

static bool starts_with(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

/*
 * cxl list prints each memdev once (nested under its endpoint, or in a
 * "memdevs" list, never both): a second one is two snapshots pasted
 * together or an edit gone wrong, and which to believe is unknowable.
 */
static int memdev_twice(struct walker *w, const struct hb_memdev *m, const char *label)
{
	const struct hb_memdev *o =
		hb_topology_memdev(w->t, (size_t)hb_topology_find_memdev(w->t, m->name));

	if (o->serial != m->serial)
		return hb_err_set(w->err, -EEXIST,
				  "%s: listed twice, with serial 0x%" PRIx64 " and 0x%" PRIx64,
				  label, o->serial, m->serial);
	if (o->ram_size != m->ram_size || o->pmem_size != m->pmem_size)
		return hb_err_set(w->err, -EEXIST,
				  "%s: listed twice, with capacities 0x%" PRIx64 " and 0x%" PRIx64,
				  label, o->ram_size + o->pmem_size, m->ram_size + m->pmem_size);
	return hb_err_set(w->err, -EEXIST, "%s: listed twice", label);
}

static int load_memdev(struct walker *w, json_object *o, const char *name)
{
	struct hb_memdev m = { .serial = UINT64_MAX, .numa_node = -1 };
	char label[HB_NAME_MAX + 16];
	uint64_t v;
	const char *host;
	int r;

	r = copy_name(w, m.name, name, "memdev");
	if (r < 0)
		return r;
	snprintf(label, sizeof(label), "memdev %s", name);
	if ((r = get_u64(w, o, label, "ram_size", false, &m.ram_size)) < 0 ||
	    (r = get_u64(w, o, label, "pmem_size", false, &m.pmem_size)) < 0 ||
	    (r = get_u64(w, o, label, "serial", false, &m.serial)) < 0)
		return r;
	r = get_u64(w, o, label, "numa_node", false, &v);
	if (r < 0)
		return r;
	if (r > 0)
		m.numa_node = v > INT32_MAX ? -1 : (int)v;
	host = get_str(o, "host");
	if (host)
		snprintf(m.host, sizeof(m.host), "%s", host);
	if (hb_topology_find_memdev(w->t, m.name) >= 0)
		return memdev_twice(w, &m, label);
	return hb_topology_add_memdev(w->t, &m, w->err);
}

static bool is_endpoint_decoder(json_object *o, const struct walk_ctx *c)
{
	return has(o, "dpa_resource") || has(o, "dpa_size") || has(o, "mode") ||
	       starts_with(c->key, "decoders:endpoint") ||
	       (c->key && !strcmp(c->key, "endpoint decoders"));
}

static bool is_root_decoder(json_object *o, const struct walk_ctx *c)
{
	json_object_iter it;

	if (starts_with(c->key, "decoders:root") || (c->key && !strcmp(c->key, "root decoders")))
		return true;
	if (has(o, "max_available_extent") || has(o, "pmem_capable") || has(o, "volatile_capable") ||
	    has(o, "accelmem_capable") || has(o, "interleave_arithmetic") || has(o, "xor_maps"))
		return true;
	json_object_object_foreachC(o, it) if (starts_with(it.key, "regions:")) return true;
	return false;
}

static int load_xor_maps(struct walker *w, json_object *o, struct hb_root_decoder *d)
{
	json_object *maps;
	char label[HB_NAME_MAX + 16];
	size_t n;

	snprintf(label, sizeof(label), "root decoder %s", d->name);
	if (!json_object_object_get_ex(o, "xor_maps", &maps))
		return 0;
	if (!json_object_is_type(maps, json_type_array))
		return hb_err_set(w->err, -EINVAL, "root decoder %s: xor_maps is not an array",
				  d->name);
	n = json_object_array_length(maps);
	if (n > HB_MAX_XORMAPS)
		return hb_err_set(w->err, -EINVAL, "root decoder %s: %zu xor_maps, at most %d",
				  d->name, n, HB_MAX_XORMAPS);
	for (size_t i = 0; i < n; i++) {
		json_object *wrap = json_object_new_object();
		char key[32];
		uint64_t v = 0;
		int r;

		if (!wrap)
			return -ENOMEM;
		/* get_u64() names the key in its errors: name it as the user sees it */
		snprintf(key, sizeof(key), "xor_maps[%zu]", i);
		json_object_object_add(wrap, key,
				       json_object_get(json_object_array_get_idx(maps, i)));
		r = get_u64(w, wrap, label, key, false, &v);
		json_object_put(wrap);
		if (r < 0)
			return r;
		if (!v)
			return hb_err_set(w->err, -EINVAL, "root decoder %s: xor_maps[%zu] is zero",
					  d->name, i);
		d->xormaps[i] = v;
	}
	d->nr_xormaps = (unsigned)n;
	return 0;
}

static int load_root(struct walker *w, json_object *o, const char *name)
{
	struct hb_root_decoder d = { 0 };
	char label[HB_NAME_MAX + 16];
	const char *arith;
	int r;

	r = copy_name(w, d.name, name, "decoder");
	if (r < 0)
		return r;
	snprintf(label, sizeof(label), "root decoder %s", name);
	if ((r = get_u64(w, o, label, "resource", false, &d.hpa_base)) < 0 ||
	    (r = get_u64(w, o, label, "size", true, &d.hpa_size)) < 0 ||
	    (r = get_uint(w, o, label, "interleave_ways", &d.ways)) < 0)
		return r;
	if (r == 0)
		return hb_err_set(w->err, -EINVAL, "%s: no interleave_ways", label);
	d.gran = 256; /* cxl list omits the granularity of x1 decoders */
	if ((r = get_uint(w, o, label, "interleave_granularity", &d.gran)) < 0)
		return r;
	if (r == 0 && d.ways != 1)
		return hb_err_set(w->err, -EINVAL, "%s: %u ways but no interleave_granularity",
				  label, d.ways);
	arith = get_str(o, "interleave_arithmetic");
	if (arith) {
		int a = hb_arith_from_string(arith);

		if (a < 0)
			return hb_err_set(w->err, -EINVAL,
					  "%s: interleave_arithmetic \"%s\" is not modulo or xor",
					  label, arith);
		d.arith = (enum hb_arith)a;
	}
	r = load_xor_maps(w, o, &d);
	if (r < 0)
		return r;
	return hb_topology_add_root(w->t, &d, w->err);
}

/* HDM decoders place device memory in 256 MiB units (CXL 3.1 8.2.4.20) */
static int check_dpa_aligned(struct walker *w, json_object *o, const char *label, const char *key,
			     uint64_t v)
{
	if (!(v & (SZ_256M - 1)))
		return 0;
	if (json_object_object_get_ex(o, key, NULL))
		return hb_err_set(w->err, -EINVAL, "%s: %s 0x%" PRIx64 " not aligned to 256 MiB",
				  label, key, v);
	return 0;
}

static int load_endpoint(struct walker *w, json_object *o, const char *name, const struct walk_ctx *c)
{
	struct hb_endpoint_decoder d = { 0 };
	char label[2 * HB_NAME_MAX + 24];
	const char *s, *memdev;
	int r;

	r = copy_name(w, d.name, name, "decoder");
	if (r < 0)
		return r;
	memdev = get_str(o, "memdev");
	if (!memdev)
		memdev = c->memdev;
	if (memdev)
		snprintf(label, sizeof(label), "memdev %.*s: decoder %s", HB_NAME_MAX, memdev, name);
	else
		snprintf(label, sizeof(label), "decoder %s", name);
	if ((r = get_u64(w, o, label, "dpa_resource", false, &d.dpa_base)) < 0 ||
	    (r = get_u64(w, o, label, "dpa_size", true, &d.dpa_size)) < 0 ||
	    (r = get_uint(w, o, label, "interleave_ways", &d.ways)) < 0 ||
	    (r = get_uint(w, o, label, "interleave_granularity", &d.gran)) < 0 ||
	    (r = get_u64(w, o, label, "resource", false, &d.hpa_base)) < 0)
		return r;
	/* its HPA range, for the checks of refuse.c; both or nothing */
	if (r == 0 || (r = get_u64(w, o, label, "size", true, &d.hpa_size)) <= 0)
		d.hpa_base = d.hpa_size = 0;
	if (r < 0)
		return r;
	if ((r = check_dpa_aligned(w, o, label, "dpa_resource", d.dpa_base)) < 0 ||
	    (r = check_dpa_aligned(w, o, label, "dpa_size", d.dpa_size)) < 0)
		return r;
	if (d.ways == 1 && !d.gran)
		d.gran = 0; /* not printed for x1: do not compare */
	s = get_str(o, "mode");
	if (s) {
		int m = hb_mode_from_string(s);

		if (m < 0)
			return hb_err_set(w->err, -EINVAL,
					  "%s: mode \"%s\" is not ram, pmem, mixed or none", label,
					  s);
		d.mode = (enum hb_mode)m;
	}
	s = get_str(o, "region");
	if (s && (r = copy_name(w, d.region_name, s, "region")) < 0)
		return r;
	if (memdev && (r = copy_name(w, d.memdev_name, memdev, "memdev")) < 0)
		return r;
	return hb_topology_add_endpoint(w->t, &d, w->err);
}

static int load_mappings(struct walker *w, json_object *o, struct hb_region *rg)
{
	json_object *maps;
	char label[HB_NAME_MAX + 16];
	size_t n;

	snprintf(label, sizeof(label), "region %s", rg->name);
	if (!json_object_object_get_ex(o, "mappings", &maps))
		return 0;
	if (!json_object_is_type(maps, json_type_array))
		return hb_err_set(w->err, -EINVAL, "region %s: mappings is not an array", rg->name);
	n = json_object_array_length(maps);
	for (size_t i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(maps, i);
		const char *dec;
		unsigned pos = 0;
		int r;

		if (!json_object_is_type(m, json_type_object))
			return hb_err_set(w->err, -EINVAL,
					  "region %s: mappings[%zu] is not an object", rg->name, i);
		r = get_uint(w, m, label, "position", &pos);
		if (r < 0)
			return r;
		dec = get_str(m, "decoder");
		if (r == 0 || !dec)
			return hb_err_set(w->err, -EINVAL,
					  "region %s: mappings[%zu] lacks position or decoder",
					  rg->name, i);
		if (pos >= HB_MAX_WAYS || pos >= rg->ways)
			return hb_err_set(w->err, -EINVAL,
					  "region %s: mapping position %u but %u interleave ways",
					  rg->name, pos, rg->ways);
		if (rg->target_names[pos][0])
			return hb_err_set(w->err, -EINVAL, "region %s: position %u is mapped twice",
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

static int load_region(struct walker *w, json_object *o, const char *name, const struct walk_ctx *c)
{
	struct hb_region rg = { 0 };
	char label[HB_NAME_MAX + 16];
	const char *s;
	int r;

	r = copy_name(w, rg.name, name, "region");
	if (r < 0)
		return r;
	snprintf(label, sizeof(label), "region %s", name);
	if ((r = get_u64(w, o, label, "resource", false, &rg.hpa_base)) < 0 ||
	    (r = get_u64(w, o, label, "size", true, &rg.hpa_size)) < 0 ||
	    (r = get_uint(w, o, label, "interleave_ways", &rg.ways)) < 0)
		return r;
	if (r == 0)
		return hb_err_set(w->err, -EINVAL, "%s: no interleave_ways", label);
	if ((r = get_uint(w, o, label, "interleave_granularity", &rg.gran)) < 0)
		return r;
	{
		int rc = get_u64(w, o, label, "extended_linear_cache_size", true, &rg.cache_size);

		if (rc < 0)
			return rc;
	}
	s = get_str(o, "decode_state");
	rg.committed = !s || !strcmp(s, "commit");
	if (s && strcmp(s, "commit") && strcmp(s, "reset"))
		return hb_err_set(w->err, -EINVAL, "%s: decode_state \"%s\" is not commit or reset",
				  label, s);
	if (rg.committed && (!rg.hpa_size || r == 0))
		return hb_err_set(w->err, -EINVAL,
				  "%s: committed, but no size or interleave_granularity", label);
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
		"mappings",     "targets",        "dports",   "health",
		"alert_config", "partition_info", "firmware", "xor_maps",
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

	json_object_object_foreachC(o, it)
	{
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
		return hb_err_set(w->err, -ELOOP, "JSON nests deeper than %d levels",
				  HB_JSON_MAX_DEPTH);
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

/* whitespace or NUL only */
static bool all_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r' && s[i])
			return false;
	return true;
}

/* "[ ]" or "{ }": what `cxl list` prints where it finds nothing */
static bool empty_document(json_object *doc)
{
	if (json_object_is_type(doc, json_type_array))
		return json_object_array_length(doc) == 0;
	return json_object_object_length(doc) == 0;
}

static const char *json_kind(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_int:
	case json_type_double: return "a number";
	case json_type_string: return "a string";
	default: return "something else";
	}
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
		return hb_err_set(err, -EFBIG, "JSON document larger than %u bytes",
				  HB_JSON_MAX_BYTES);
	tok = json_tokener_new_ex(HB_JSON_MAX_DEPTH * 2);
	if (!tok)
		return hb_err_set(err, -ENOMEM, "out of memory");
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		/* all consumed: a top-level scalar (null, 42) ends only at a
		 * terminator, so give it one; anything else is cut short */
		doc = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		if (jerr != json_tokener_success)
			return hb_err_set(err, -EINVAL,
					  all_blank(buf, len) ?
						  "JSON document is empty (%zu bytes)" :
						  "JSON document is truncated (%zu bytes)",
					  len);
	} else if (jerr != json_tokener_success) {
		return hb_err_set(err, -EINVAL, "JSON syntax error at byte %zu: %s",
				  json_tokener_get_parse_end(tok), json_tokener_error_desc(jerr));
	} else if (!all_blank(buf + json_tokener_get_parse_end(tok),
			      len - json_tokener_get_parse_end(tok))) {
		return hb_err_set(err, -EINVAL, "trailing data after the JSON document at byte %zu",
				  json_tokener_get_parse_end(tok));
	}
	if (!json_object_is_type(doc, json_type_object) && !json_object_is_type(doc, json_type_array))
		return hb_err_set(err, -EINVAL,
				  "expected a JSON array or object (cxl list output), "
				  "got %s",
				  json_kind(doc));

	r = hb_topology_new(&t);
	if (r < 0)
		return hb_err_set(err, r, "out of memory");
	w.t = t;
	r = walk(&w, doc, (struct walk_ctx){ 0 });
	if (r < 0)
		return r;
	/*
	 * `cxl list` on a host without CXL prints "[ ]": an empty model, as
	 * libcxl gives there (the commands warn). A document with content
	 * but nothing of cxl-cli's in it is not a snapshot.
	 */
	if (!t->nr_memdevs && !t->nr_regions && !t->nr_eps && !t->nr_roots && !empty_document(doc))
		return hb_err_set(err, -ENODATA, "JSON document holds no memdev, decoder or region");
	return hb_topology_complete(&t, cedt, ret, err);
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
		return hb_err_set(err, r, "%s: %s", path, hb_read_file_strerror(r));
	hb_err_clear(&sub);
	r = hb_topology_load_json(buf, len, cedt, ret, &sub);
	if (r < 0)
		return hb_err_set(err, r, "snapshot %s: %s", path, sub.msg);
	return 0;
}
