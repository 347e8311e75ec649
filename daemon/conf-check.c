// SPDX-License-Identifier: MIT
/* The start-up checks shared by `run` and `check-config` (conf-check.h). */
#include <errno.h>
#include <string.h>

#include "conf-check.h"
#include "devices.h"

int hb_config_source_nodes(const struct hb_config *c, uint64_t *ret_mask, struct hb_err *err)
{
	const char *s = c->source_nodes;
	uint64_t mask = 0;

	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char item[24];
		uint64_t n;

		if (len >= sizeof(item))
			len = sizeof(item) - 1;
		memcpy(item, s, len);
		item[len] = '\0';
		if (hb_parse_u64_base(item, 10, &n) < 0 || n >= 64)
			return hb_err_set(err, -EINVAL, "policy.source_nodes=%s: '%s' is not a node "
					  "number (want node numbers 0-63, comma-separated)",
					  c->source_nodes, item);
		mask |= 1ULL << n;
		s = comma ? comma + 1 : s + len;
		if (comma && !*s)
			return hb_err_set(err, -EINVAL, "policy.source_nodes=%s: ends with a comma",
					  c->source_nodes);
	}
	*ret_mask = mask;
	return 0;
}

uint64_t hb_topology_cxl_nodes(const struct hb_topology *t, int (*node_of)(void *ud, uint64_t hpa),
			       void *ud)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < hb_topology_nr_regions(t); i++) {
		const struct hb_region *r = hb_topology_region(t, i);

		if (!r->committed)
			continue;
		for (uint64_t k = 0; k < 16; k++) {
			int n = node_of(ud, r->hpa_base + r->hpa_size / 16 * k);

			if (n >= 0 && n < 64)
				mask |= 1ULL << n;
		}
	}
	return mask;
}

static bool plugin_named(const struct hb_plugin_set *set, const char *name)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (!strcmp(set->v[i].name, name))
			return true;
	return false;
}

static int check_source(const struct hb_config *c, const struct hb_source_config *s,
			const struct hb_config_facts *f, struct hb_err *err)
{
	const char *const *allowed = hb_builtin_params(s->type);
	const char *const *test_only = hb_builtin_test_params(s->type);

	if (!hb_builtin_find(s->type) && !plugin_named(f->plugins, s->type))
		return hb_err_set(err, -ENOENT, "%s: [source %s]: no source of type '%s' (neither "
				  "built-in nor a plugin in %s)", s->where, s->name, s->type,
				  c->plugin_dir[0] ? c->plugin_dir : "(no plugin_dir)");
	/* a plugin's parameters are its own business: checked when it opens */
	for (size_t k = 0; allowed && k < s->nparams; k++) {
		const char *eq = strchr(s->params[k], '=');
		size_t len = eq ? (size_t)(eq - s->params[k]) : strlen(s->params[k]);
		bool ok = false;
		char list[256] = "";

		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strlen(*a) == len && !strncmp(*a, s->params[k], len);
		if (ok)
			continue;
		for (const char *const *t = test_only; t && *t; t++)
			if (strlen(*t) == len && !strncmp(*t, s->params[k], len))
				return hb_err_set(err, -EINVAL, "%s: [source %s]: %s= is a test-only "
						  "parameter of type %s; the daemon does not take it",
						  s->where, s->name, *t, s->type);
		for (const char *const *a = allowed; *a; a++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 a == allowed ? "" : ", ", *a);
		return hb_err_set(err, -EINVAL, "%s: [source %s]: type %s takes no parameter "
				  "'%.*s' (it takes: %s)", s->where, s->name, s->type, (int)len,
				  s->params[k], list);
	}
	return 0;
}

int hb_config_check(const struct hb_config *c, const struct hb_config_facts *f,
		    struct hb_err *err)
{
	uint64_t mask, cxl, page = f->page_size ? f->page_size : 4096;
	double depth = c->burst_mb > 0 ? c->burst_mb : c->rate_mbps;
	int r;

	if (!c->nsources)
		return hb_err_set(err, -EINVAL, "no [source NAME] section: nothing to listen to");
	if (c->emulated && !c->dry_run && !f->migrator_given)
		return hb_err_set(err, -EPERM, "[topology] emulated = true: the emulated host's "
				  "addresses are not this machine's memory, so it runs with the "
				  "dry-run migrator only (--dry-run, or [daemon] dry_run = true)");
	r = hb_config_source_nodes(c, &mask, err);
	if (r < 0)
		return r;
	/* the bucket must hold one page, or nothing is ever promoted */
	if (c->rate_mbps > 0 && depth * 1e6 < (double)page)
		return hb_err_set(err, -EINVAL, "policy.%s=%g: the token bucket (%g bytes) is "
				  "smaller than one page (%llu bytes): nothing would be promoted",
				  c->burst_mb > 0 ? "burst_mb" : "rate_mbps", depth, depth * 1e6,
				  (unsigned long long)page);
	for (size_t i = 0; i < c->nsources; i++)
		if ((r = check_source(c, &c->sources[i], f, err)) < 0)
			return r;
	cxl = mask ? mask : f->cxl_nodes;
	if (c->target_node >= 0) {
		int t = (int)c->target_node;

		if (f->nodes && (t >= HB_MAX_NODES || !f->nodes[t].present))
			return hb_err_set(err, -ENOENT, "policy.target_node=%d: no such NUMA node "
					  "on this host", t);
		if (t < 64 && (cxl >> t) & 1)
			return hb_err_set(err, -EINVAL, "policy.target_node=%d: a CXL node (one "
					  "promoted from), not DRAM", t);
	}
	/* demotion goes to one CXL node only: a source node, never DRAM */
	if (c->demote_enabled && c->demote_cxl_node >= 0 && cxl &&
	    !((cxl >> c->demote_cxl_node) & 1))
		return hb_err_set(err, -EINVAL, "demote.cxl_node=%lld: not a CXL node promoted from "
				  "(the source nodes are 0x%llx)", (long long)c->demote_cxl_node,
				  (unsigned long long)cxl);
	return 0;
}
