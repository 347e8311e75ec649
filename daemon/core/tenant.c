// SPDX-License-Identifier: MIT
/*
 * Tenant rules (core.h "tenants"): which cgroups' pages may be promoted
 * and how much DRAM each budget's cgroups may hold by our doing. Pure:
 * the caller names the page's cgroup (kernel/owner/) and counts pages.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "util/macro.h"
#include "util/strtab.h"

static const char *const verdict_names[_HB_TENANT_VERDICT_MAX] = {
	[HB_TENANT_ALLOWED] = "allowed",         [HB_TENANT_DENIED] = "denied",
	[HB_TENANT_NOT_ALLOWED] = "not_allowed", [HB_TENANT_NO_CGROUP_DENIED] = "no_cgroup_denied",
	[HB_TENANT_AT_BUDGET] = "at_budget",
};

HB_STRTAB_TO_STRING(hb_tenant_verdict_to_string, enum hb_tenant_verdict, verdict_names, NULL)

/*
 * What keeps p from being a cgroup v2 path pattern: "/..." without an
 * empty component, '.' or '..' component, nor anything fnmatch would
 * escape (NULL: nothing)
 */
static const char *pattern_why(const char *p)
{
	size_t len = strlen(p);

	if (p[0] != '/')
		return "it must start with '/'";
	if (p[1] && p[len - 1] == '/')
		return "it must not end with '/'";
	if (strstr(p, "//"))
		return "it has an empty component ('//')";
	if (strstr(p, "/./") || strstr(p, "/../") || (len >= 2 && !strcmp(p + len - 2, "/.")) ||
	    (len >= 3 && !strcmp(p + len - 3, "/..")))
		return "it has a '.' or '..' component";
	if (strpbrk(p, "\\?[]\""))
		return "it has \\, \", ? or [ ]: only * is a pattern here";
	if (strpbrk(p, " \t="))
		return "it has a blank or '='";
	return NULL;
}

/*
 * Splits list at commas into n patterns (each checked), key naming the
 * list in errors; for budgets, each item is PATTERN=MIB.
 */
static int parse_list(const char *key, const char *list, struct hb_tenant_pattern *out, size_t max,
		      size_t *ret_n, bool budget, struct hb_err *err)
{
	const char *s = list;
	size_t n = 0;

	while (*s == ' ')
		s++;
	if (!*s) {
		*ret_n = 0;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		char item[HB_TENANT_PATTERN_MAX + 32], *eq = NULL;
		const char *why;

		/* blanks around an item are allowed */
		while (len && s[len - 1] == ' ')
			len--;
		if (!len)
			return hb_err_set(err, -EINVAL, "%s=%s: an empty item", key, list);
		if (len >= sizeof(item))
			return hb_err_set(err, -EINVAL, "%s=%s: '%.*s' is too long (at most %d)",
					  key, list, (int)len, s, HB_TENANT_PATTERN_MAX - 1);
		memcpy(item, s, len);
		item[len] = '\0';
		if (n == max)
			return hb_err_set(err, -EINVAL, "%s=%s: more than %zu items", key, list, max);
		if (budget) {
			uint64_t mib;

			if (!(eq = strrchr(item, '=')))
				return hb_err_set(err, -EINVAL,
						  "%s=%s: '%s' is not CGROUP=MIB (a budget in MiB)",
						  key, list, item);
			*eq++ = '\0';
			if (hb_parse_u64(eq, &mib) < 0 || mib > (1ULL << 40))
				return hb_err_set(err, -EINVAL,
						  "%s=%s: '%s' is not a number of MiB (0 to 2^40)",
						  key, list, eq);
			out[n].budget_mib = mib;
		}
		if (strlen(item) >= HB_TENANT_PATTERN_MAX)
			return hb_err_set(err, -EINVAL, "%s=%s: '%s' is too long (at most %d)", key,
					  list, item, HB_TENANT_PATTERN_MAX - 1);
		if ((why = pattern_why(item)))
			return hb_err_set(err, -EINVAL, "%s=%s: '%s' is not a cgroup path: %s", key,
					  list, item, why);
		memcpy(out[n].pattern, item, strlen(item) + 1); /* shorter: checked above */
		n++;
		s += strcspn(s, ",");
		if (!*s)
			break;
		s++;
		while (*s == ' ')
			s++;
	}
	*ret_n = n;
	return 0;
}

int hb_tenant_rules_parse(const char *allow, const char *deny, const char *budgets,
			  const char *no_cgroup, struct hb_tenant_rules *ret, struct hb_err *err)
{
	struct hb_tenant_rules r = { 0 };
	int rc;

	if ((rc = parse_list("tenant.allow", allow, r.allow, HB_TENANT_MAX, &r.nallow, false, err)) <
		    0 ||
	    (rc = parse_list("tenant.deny", deny, r.deny, HB_TENANT_MAX, &r.ndeny, false, err)) < 0 ||
	    (rc = parse_list("tenant.budget_mb", budgets, r.budget, HB_TENANT_MAX, &r.nbudget, true,
			     err)) < 0)
		return rc;
	for (size_t i = 0; i < r.nbudget; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r.budget[i].pattern, r.budget[j].pattern))
				return hb_err_set(err, -EINVAL,
						  "tenant.budget_mb=%s: '%s' is given twice",
						  budgets, r.budget[i].pattern);
	if (!strcmp(no_cgroup, "allow"))
		r.no_cgroup_deny = false;
	else if (!strcmp(no_cgroup, "deny"))
		r.no_cgroup_deny = true;
	else
		return hb_err_set(err, -EINVAL, "tenant.no_cgroup=%s: want allow or deny", no_cgroup);
	r.active = r.nallow || r.ndeny || r.nbudget || r.no_cgroup_deny;
	*ret = r;
	return 0;
}

bool hb_tenant_match(const char *pattern, const char *path)
{
	char prefix[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(prefix))
		return false;
	memcpy(prefix, path, len + 1);
	/* the path, then each ancestor ("/a/b", "/a"; "/" matches only "/") */
	for (;;) {
		char *slash;

		if (fnmatch(pattern, prefix, FNM_PATHNAME) == 0)
			return true;
		slash = strrchr(prefix, '/');
		if (!slash || slash == prefix)
			break;
		*slash = '\0';
	}
	return !strcmp(pattern, "/");
}

static int first_match(const struct hb_tenant_pattern *p, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (hb_tenant_match(p[i].pattern, path))
			return (int)i;
	return -1;
}

int hb_tenant_budget_of(const struct hb_tenant_rules *r, const char *path)
{
	return path ? first_match(r->budget, r->nbudget, path) : -1;
}

uint64_t hb_tenant_budget_pages(const struct hb_tenant_rules *r, int budget, uint64_t page_size)
{
	return r->budget[budget].budget_mib * (1024 * 1024) / page_size;
}

enum hb_tenant_verdict hb_tenant_evaluate(const struct hb_tenant_rules *r, const char *path,
					  const uint64_t *promoted, uint64_t page_size,
					  struct hb_tenant_rule *ret)
{
	*ret = (struct hb_tenant_rule){ .allow = -1, .deny = -1, .budget = -1 };
	if (!path)
		return r->no_cgroup_deny ? HB_TENANT_NO_CGROUP_DENIED : HB_TENANT_ALLOWED;
	if ((ret->deny = first_match(r->deny, r->ndeny, path)) >= 0)
		return HB_TENANT_DENIED;
	ret->allow = first_match(r->allow, r->nallow, path);
	if (r->nallow && ret->allow < 0)
		return HB_TENANT_NOT_ALLOWED;
	ret->budget = first_match(r->budget, r->nbudget, path);
	if (ret->budget >= 0 &&
	    promoted[ret->budget] >= hb_tenant_budget_pages(r, ret->budget, page_size))
		return HB_TENANT_AT_BUDGET;
	return HB_TENANT_ALLOWED;
}

int hb_tenant_describe(const struct hb_tenant_rules *r, const char *path, enum hb_tenant_verdict v,
		       const struct hb_tenant_rule *rule, const uint64_t *promoted,
		       uint64_t page_size, char *buf, size_t size)
{
	const char *cg = path ? path : "(none)";

	switch (v) {
	case HB_TENANT_DENIED:
		return snprintf(buf, size, "cgroup %s: denied by tenant.deny %s", cg,
				r->deny[rule->deny].pattern);
	case HB_TENANT_NOT_ALLOWED:
		return snprintf(buf, size, "cgroup %s: matches no tenant.allow pattern", cg);
	case HB_TENANT_NO_CGROUP_DENIED:
		return snprintf(buf, size, "no cgroup: tenant.no_cgroup=deny");
	case HB_TENANT_AT_BUDGET:
		return snprintf(
			buf, size,
			"cgroup %s: tenant.budget_mb %s=%llu held (%llu pages promoted of %llu)",
			cg, r->budget[rule->budget].pattern,
			(unsigned long long)r->budget[rule->budget].budget_mib,
			(unsigned long long)promoted[rule->budget],
			(unsigned long long)hb_tenant_budget_pages(r, rule->budget, page_size));
	case HB_TENANT_ALLOWED:
	default:
		if (rule->budget >= 0)
			return snprintf(buf, size, "cgroup %s: within tenant.budget_mb %s=%llu", cg,
					r->budget[rule->budget].pattern,
					(unsigned long long)r->budget[rule->budget].budget_mib);
		if (rule->allow >= 0)
			return snprintf(buf, size, "cgroup %s: allowed by tenant.allow %s", cg,
					r->allow[rule->allow].pattern);
		return snprintf(buf, size, "cgroup %s: no tenant rule applies", cg);
	}
}

int hb_tenant_budget_shadowed_by(const struct hb_tenant_rules *r, int budget)
{
	for (int j = 0; j < budget; j++)
		if (hb_tenant_match(r->budget[j].pattern, r->budget[budget].pattern))
			return j;
	return -1;
}

int hb_tenant_shadow_describe(const struct hb_tenant_rules *r, int budget, int by, char *buf,
			      size_t size)
{
	return snprintf(buf, size,
			"tenant.budget_mb %s=%llu: every cgroup it matches counts to the earlier "
			"%s=%llu, so it never counts a page (a cgroup's budget is the first "
			"pattern matching it): put it first, or remove it",
			r->budget[budget].pattern, (unsigned long long)r->budget[budget].budget_mib,
			r->budget[by].pattern, (unsigned long long)r->budget[by].budget_mib);
}

uint64_t hb_tenant_over(const struct hb_tenant_rules *r, int budget, uint64_t promoted,
			uint64_t page_size)
{
	uint64_t limit = hb_tenant_budget_pages(r, budget, page_size);

	return promoted > limit ? promoted - limit : 0;
}
