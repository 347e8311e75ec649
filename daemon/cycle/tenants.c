// SPDX-License-Identifier: MIT
/* Tenant rules at work (tenants.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cycle/tenants.h"
#include "util/macro.h"

#define MAX_CGROUPS 65536          /* cgroups the inode map holds at most */
#define HB_TENANT_FILTERS 33       /* kernel filter paths: reject ones and the only one */
#define FILTER_PATH (PATH_MAX / 2) /* bytes of one, as the cgroup map's paths */

struct hb_tenants {
	struct hb_tenant_rules rules;
	struct hb_kpagecgroup *kpc;
	struct hb_cgroup_map *map;
	uint64_t page_size;
	uint64_t promoted[HB_TENANT_MAX];
	struct hb_tenants_stats stats;
	/* hb_tenants_kernel_filter(): its paths, and the last result as one string */
	char filter_paths[HB_TENANT_FILTERS][FILTER_PATH];
	char filter_last[HB_TENANT_FILTERS * FILTER_PATH],
		filter_now[HB_TENANT_FILTERS * FILTER_PATH];
	bool filter_once;
	uint64_t filter_scan_ns;
	char mount[PATH_MAX / 2]; /* root/sys/fs/cgroup */
};

struct hb_tenants *hb_tenants_free(struct hb_tenants *t)
{
	if (!t)
		return NULL;
	hb_kpagecgroup_free(t->kpc);
	hb_cgroup_map_free(t->map);
	free(t);
	return NULL;
}

HB_DEFINE_CLEANUP(struct hb_tenants *, hb_tenants_free)

int hb_tenants_host_check(const char *root, bool emulated, struct hb_err *err)
{
	struct hb_kpagecgroup *kpc = NULL;
	struct hb_err why = { 0 };
	char mount[PATH_MAX / 2];
	int r;

	if (emulated && !root)
		return hb_err_set(err, -EOPNOTSUPP,
				  "[tenant] rules: the emulated host's pages belong to no cgroup "
				  "of this machine; tenant rules need a live host");
	if ((r = hb_cgroup_v2_mount(root, mount, sizeof(mount), &why)) < 0 ||
	    (r = hb_kpagecgroup_open(root, &kpc, &why)) < 0)
		return hb_err_set(err, r, "[tenant] rules given, but %s", why.msg);
	hb_kpagecgroup_free(kpc);
	return 0;
}

int hb_tenants_new(const char *root, const struct hb_tenant_rules *rules, uint64_t page_size,
		   struct hb_tenants **ret, struct hb_err *err)
{
	_hb_cleanup_(hb_tenants_freep) struct hb_tenants *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return hb_err_set(err, -ENOMEM, "out of memory");
	t->rules = *rules;
	t->page_size = page_size;
	if ((r = hb_cgroup_v2_mount(root, t->mount, sizeof(t->mount), err)) < 0 ||
	    (r = hb_cgroup_map_new(root, MAX_CGROUPS, &t->map, err)) < 0 ||
	    (r = hb_kpagecgroup_open(root, &t->kpc, err)) < 0)
		return r;
	*ret = HB_TAKE_PTR(t);
	return 0;
}

void hb_tenants_set_rules(struct hb_tenants *t, const struct hb_tenant_rules *rules)
{
	uint64_t kept[HB_TENANT_MAX] = { 0 };

	for (size_t i = 0; i < rules->nbudget; i++)
		for (size_t j = 0; j < t->rules.nbudget; j++)
			if (!strcmp(rules->budget[i].pattern, t->rules.budget[j].pattern))
				kept[i] = t->promoted[j];
	memcpy(t->promoted, kept, sizeof(kept));
	t->rules = *rules;
}

const struct hb_tenant_rules *hb_tenants_rules(const struct hb_tenants *t)
{
	return &t->rules;
}

/* hpa's cgroup into *ret_path (NULL: none); -errno when it cannot be told */
static int owner(struct hb_tenants *t, uint64_t hpa, uint64_t now_ns, const char **ret_path)
{
	uint64_t ino;
	int r;

	if ((r = hb_kpagecgroup_read(t->kpc, hpa / t->page_size, 1, &ino, NULL)) < 0)
		return r;
	*ret_path = NULL;
	return ino ? hb_cgroup_map_path(t->map, ino, now_ns, ret_path) : 0;
}

size_t hb_tenants_filter(struct hb_tenants *t, struct hb_decision *dec, size_t n,
			 int8_t *ret_budget, struct hb_policy_spent *spent, uint64_t now_ns)
{
	uint64_t count[HB_TENANT_MAX];
	size_t refused = 0;

	memcpy(count, t->promoted, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		struct hb_tenant_rule rule;
		enum hb_tenant_verdict v;
		const char *path = NULL;

		ret_budget[i] = -1;
		if (dec[i].reason != HB_REASON_PROMOTE)
			continue;
		if (owner(t, dec[i].hpa, now_ns, &path) < 0) {
			t->stats.owner_unknown++;
			dec[i].reason = HB_REASON_TENANT_DENIED;
		} else if ((v = hb_tenant_evaluate(&t->rules, path, count, t->page_size, &rule)) ==
			   HB_TENANT_ALLOWED) {
			ret_budget[i] = (int8_t)rule.budget;
			if (rule.budget >= 0)
				count[rule.budget]++;
			continue;
		} else if (v == HB_TENANT_AT_BUDGET) {
			t->stats.at_budget++;
			dec[i].reason = HB_REASON_TENANT_BUDGET;
		} else {
			t->stats.denied++;
			dec[i].reason = HB_REASON_TENANT_DENIED;
		}
		refused++;
		if (spent) {
			spent->promoted--;
			spent->bytes[dec[i].target] -= t->page_size;
		}
	}
	return refused;
}

int hb_tenants_budget_of_page(struct hb_tenants *t, uint64_t hpa, uint64_t now_ns)
{
	const char *path = NULL;

	if (!t->rules.nbudget || owner(t, hpa, now_ns, &path) < 0)
		return -1;
	return hb_tenant_budget_of(&t->rules, path);
}

void hb_tenants_demoted(struct hb_tenants *t, int budget)
{
	if (budget >= 0 && (size_t)budget < t->rules.nbudget && t->promoted[budget])
		t->promoted[budget]--;
}

void hb_tenants_moved(struct hb_tenants *t, int budget)
{
	if (budget >= 0 && (size_t)budget < t->rules.nbudget)
		t->promoted[budget]++;
}

uint64_t hb_tenants_promoted(const struct hb_tenants *t, int budget)
{
	return t->promoted[budget];
}

enum hb_reason hb_tenants_reason(struct hb_tenants *t, uint64_t hpa, uint64_t now_ns)
{
	struct hb_tenant_rule rule;
	const char *path = NULL;

	if (owner(t, hpa, now_ns, &path) < 0)
		return HB_REASON_TENANT_DENIED;
	switch (hb_tenant_evaluate(&t->rules, path, t->promoted, t->page_size, &rule)) {
	case HB_TENANT_ALLOWED: return HB_REASON_PROMOTE;
	case HB_TENANT_AT_BUDGET: return HB_REASON_TENANT_BUDGET;
	default: return HB_REASON_TENANT_DENIED;
	}
}

int hb_tenants_describe(struct hb_tenants *t, uint64_t hpa, uint64_t now_ns, char *buf, size_t size)
{
	struct hb_tenant_rule rule;
	enum hb_tenant_verdict v;
	const char *path = NULL;
	int r;

	if ((r = owner(t, hpa, now_ns, &path)) < 0)
		return snprintf(buf, size, "cgroup unknown (%s): not promoted", strerror(-r));
	v = hb_tenant_evaluate(&t->rules, path, t->promoted, t->page_size, &rule);
	return hb_tenant_describe(&t->rules, path, v, &rule, t->promoted, t->page_size, buf, size);
}

size_t hb_tenants_cgroups(struct hb_tenants *t, const char *pattern, uint64_t now_ns)
{
	/*
	 * at most once a second, not only on a page's miss: status and a
	 * reload see a cgroup made or removed since (trial39b: 138 s stale)
	 */
	(void)hb_cgroup_map_refresh(t->map, now_ns, NULL);
	return hb_cgroup_map_count(t->map, hb_tenant_match, pattern);
}

size_t hb_tenants_budget_cgroups(struct hb_tenants *t, int budget, uint64_t now_ns)
{
	size_t n = 0;

	(void)hb_cgroup_map_refresh(t->map, now_ns, NULL);
	for (size_t i = 0; i < hb_cgroup_map_len(t->map); i++)
		n += hb_tenant_budget_of(&t->rules, hb_cgroup_map_path_at(t->map, i)) == budget;
	return n;
}

static bool has_memcg(const struct hb_tenants *t, const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s%s/memory.current", t->mount, path);
	return access(p, F_OK) == 0;
}

size_t hb_tenants_kernel_filter(struct hb_tenants *t, const char **reject, size_t max,
				const char **ret_only, bool *ret_changed, size_t *ret_left_out,
				uint64_t now_ns)
{
	char *now = t->filter_now; /* not on the stack: 66 KiB */
	const char *only = NULL;
	size_t n = 0, left_out = 0, allowed = 0, len = 0;

	now[0] = '\0';
	if (max > HB_TENANT_FILTERS - 1)
		max = HB_TENANT_FILTERS - 1;
	if (!t->filter_scan_ns || now_ns >= t->filter_scan_ns + HB_CGROUP_RESCAN_NS) {
		(void)hb_cgroup_map_rescan(t->map, now_ns, NULL);
		t->filter_scan_ns = now_ns;
	}
	for (size_t i = 0; i < hb_cgroup_map_len(t->map); i++) {
		const char *path = hb_cgroup_map_path_at(t->map, i);
		bool denied = false;

		for (size_t k = 0; k < t->rules.ndeny && !denied; k++)
			denied = hb_tenant_match(t->rules.deny[k].pattern, path);
		/*
		 * only cgroups with a memcg of their own (memory.current: the
		 * parent enables +memory): the kernel refuses a commit whose
		 * filter names one without, and their pages are charged above
		 */
		if (!has_memcg(t, path))
			continue;
		if (denied) {
			if (n == max || strlen(path) >= sizeof(t->filter_paths[0])) {
				left_out++;
				continue;
			}
			memcpy(t->filter_paths[n], path, strlen(path) + 1);
			reject[n] = t->filter_paths[n];
			n++;
		} else if (t->rules.nallow == 1 && t->rules.no_cgroup_deny &&
			   hb_tenant_match(t->rules.allow[0].pattern, path) &&
			   strlen(path) < sizeof(t->filter_paths[0])) {
			if (!allowed++)
				memcpy(t->filter_paths[HB_TENANT_FILTERS - 1], path,
				       strlen(path) + 1);
		}
	}
	if (allowed == 1)
		only = t->filter_paths[HB_TENANT_FILTERS - 1];
	for (size_t i = 0; i < n && len < sizeof(t->filter_now); i++)
		len += (size_t)snprintf(now + len, sizeof(t->filter_now) - len, "-%s\n", reject[i]);
	if (only && len < sizeof(t->filter_now))
		snprintf(now + len, sizeof(t->filter_now) - len, "+%s\n", only);
	*ret_changed = !t->filter_once || strcmp(now, t->filter_last);
	memcpy(t->filter_last, now, sizeof(t->filter_last));
	t->filter_once = true;
	*ret_only = only;
	*ret_left_out = left_out;
	return n;
}

const struct hb_tenants_stats *hb_tenants_stats(const struct hb_tenants *t)
{
	return &t->stats;
}
