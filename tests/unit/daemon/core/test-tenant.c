// SPDX-License-Identifier: MIT
/* Tenant rules (daemon/core/tenant.c): matching, parsing, budgets and the verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "core.h"

#define PAGE 4096ULL
#define MIB_PAGES (1024 * 1024 / PAGE)

static struct hb_tenant_rules rules(const char *allow, const char *deny, const char *budgets,
				    const char *no_cgroup)
{
	struct hb_tenant_rules r;
	struct hb_err err = { 0 };

	assert_int_equal(hb_tenant_rules_parse(allow, deny, budgets, no_cgroup, &r, &err), 0);
	return r;
}

/* '*' stays within one component (FNM_PATHNAME); a pattern covers a cgroup's descendants */
static void test_tenant_match_star_within_a_component(void **state)
{
	(void)state;
	assert_true(hb_tenant_match("/k8s", "/k8s"));
	assert_true(hb_tenant_match("/k8s", "/k8s/pod1/ctr"));
	assert_false(hb_tenant_match("/k8s", "/k8sx"));
	assert_true(hb_tenant_match("/batch-*", "/batch-7"));
	assert_true(hb_tenant_match("/batch-*", "/batch-7/job"));
	assert_false(hb_tenant_match("/batch-*", "/batch"));
	assert_true(hb_tenant_match("/a/*/c", "/a/b/c"));
	assert_false(hb_tenant_match("/a/*/c", "/a/b/d/c"));
	assert_false(hb_tenant_match("/*/c", "/a/b/c"));
	assert_true(hb_tenant_match("/", "/system.slice/x.service"));
	assert_true(hb_tenant_match("/", "/"));
	assert_false(hb_tenant_match("/a", "/"));
}

/* a page matching a deny pattern is denied, whatever allow says */
static void test_tenant_deny_wins_over_allow(void **state)
{
	struct hb_tenant_rules r = rules("/k8s", "/k8s/batch-*", "", "allow");
	struct hb_tenant_rule rule;
	uint64_t promoted[HB_TENANT_MAX] = { 0 };

	(void)state;
	assert_int_equal(hb_tenant_evaluate(&r, "/k8s/batch-3/ctr", promoted, PAGE, &rule),
			 HB_TENANT_DENIED);
	assert_int_equal(rule.deny, 0);
	assert_int_equal(hb_tenant_evaluate(&r, "/k8s/web", promoted, PAGE, &rule),
			 HB_TENANT_ALLOWED);
	assert_int_equal(rule.allow, 0);
}

/* with an allow list, a cgroup it does not match is refused; without one, allowed */
static void test_tenant_allow_list_refuses_the_rest(void **state)
{
	struct hb_tenant_rules with = rules("/web, /db", "", "", "allow");
	struct hb_tenant_rules without = rules("", "/batch", "", "allow");
	struct hb_tenant_rule rule;
	uint64_t promoted[HB_TENANT_MAX] = { 0 };

	(void)state;
	assert_int_equal(hb_tenant_evaluate(&with, "/db/x", promoted, PAGE, &rule),
			 HB_TENANT_ALLOWED);
	assert_int_equal(rule.allow, 1);
	assert_int_equal(hb_tenant_evaluate(&with, "/other", promoted, PAGE, &rule),
			 HB_TENANT_NOT_ALLOWED);
	assert_int_equal(hb_tenant_evaluate(&without, "/other", promoted, PAGE, &rule),
			 HB_TENANT_ALLOWED);
}

/* pages of no cgroup follow tenant.no_cgroup: allowed by default, refused with deny */
static void test_tenant_no_cgroup_follows_its_key(void **state)
{
	struct hb_tenant_rules a = rules("/web", "", "", "allow");
	struct hb_tenant_rules d = rules("", "", "", "deny");
	struct hb_tenant_rule rule;
	uint64_t promoted[HB_TENANT_MAX] = { 0 };

	(void)state;
	assert_int_equal(hb_tenant_evaluate(&a, NULL, promoted, PAGE, &rule), HB_TENANT_ALLOWED);
	assert_int_equal(hb_tenant_evaluate(&d, NULL, promoted, PAGE, &rule),
			 HB_TENANT_NO_CGROUP_DENIED);
	assert_true(d.active);
	assert_false(rules("", "", "", "allow").active);
}

/* a budget holds its cgroups at budget_mb: the page that would exceed it is refused */
static void test_tenant_budget_holds_at_its_size(void **state)
{
	struct hb_tenant_rules r = rules("", "", "/web=2, /k8s/pod-*=1", "allow");
	struct hb_tenant_rule rule;
	uint64_t promoted[HB_TENANT_MAX] = { 0 };

	(void)state;
	promoted[0] = 2 * MIB_PAGES - 1;
	assert_int_equal(hb_tenant_evaluate(&r, "/web/a", promoted, PAGE, &rule), HB_TENANT_ALLOWED);
	assert_int_equal(rule.budget, 0);
	promoted[0] = 2 * MIB_PAGES;
	assert_int_equal(hb_tenant_evaluate(&r, "/web/a", promoted, PAGE, &rule),
			 HB_TENANT_AT_BUDGET);
	/* another budget is not charged for it */
	assert_int_equal(hb_tenant_evaluate(&r, "/k8s/pod-1", promoted, PAGE, &rule),
			 HB_TENANT_ALLOWED);
	assert_int_equal(rule.budget, 1);
	/* a cgroup matching no budget has none */
	assert_int_equal(hb_tenant_evaluate(&r, "/other", promoted, PAGE, &rule), HB_TENANT_ALLOWED);
	assert_int_equal(rule.budget, -1);
	/* a budget of 0 promotes nothing */
	r = rules("", "", "/web=0", "allow");
	promoted[0] = 0;
	assert_int_equal(hb_tenant_evaluate(&r, "/web", promoted, PAGE, &rule), HB_TENANT_AT_BUDGET);
}

/* over a lowered budget: the pages to demote */
static void test_tenant_over_counts_the_excess(void **state)
{
	struct hb_tenant_rules r = rules("", "", "/web=1", "allow");

	(void)state;
	assert_int_equal(hb_tenant_over(&r, 0, MIB_PAGES + 10, PAGE), 10);
	assert_int_equal(hb_tenant_over(&r, 0, MIB_PAGES, PAGE), 0);
	assert_int_equal(hb_tenant_over(&r, 0, 3, PAGE), 0);
}

static void refused(const char *allow, const char *deny, const char *budgets, const char *nc,
		    const char *want)
{
	struct hb_tenant_rules r;
	struct hb_err err = { 0 };

	assert_int_equal(hb_tenant_rules_parse(allow, deny, budgets, nc, &r, &err), -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("'%s' does not say '%s'", err.msg, want);
}

/* invalid values are refused, naming the key and the value */
static void test_tenant_parse_refuses_naming_key_and_value(void **state)
{
	(void)state;
	refused("web", "", "", "allow",
		"tenant.allow=web: 'web' is not a cgroup path: it must start with '/'");
	refused("", "/a,,/b", "", "allow", "tenant.deny=/a,,/b: an empty item");
	refused("", "/a/", "", "allow", "'/a/' is not a cgroup path: it must not end with '/'");
	refused("", "/a/../b", "", "allow", "'.' or '..'");
	refused("/a?", "", "", "allow", "only * is a pattern");
	refused("", "", "/web", "allow", "tenant.budget_mb=/web: '/web' is not CGROUP=MIB");
	refused("", "", "/web=lots", "allow", "'lots' is not a number of MiB");
	refused("", "", "/web=1,/web=2", "allow", "'/web' is given twice");
	refused("", "", "", "maybe", "tenant.no_cgroup=maybe: want allow or deny");
}

/*
 * A budget pattern an earlier one covers is found, with the one that
 * covers it (trial39b #5); a narrower earlier pattern or a sibling is not
 */
static void test_tenant_budget_shadowed_by_an_earlier_one(void **state)
{
	struct hb_tenant_rules r;
	char msg[512];

	(void)state;
	r = rules("", "", "/k8s=4,/web=1,/k8s/batch=2", "allow");
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 0), -1);
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 1), -1);
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 2), 0);
	hb_tenant_shadow_describe(&r, 2, 0, msg, sizeof(msg));
	assert_non_null(strstr(msg, "tenant.budget_mb /k8s/batch=2: every cgroup it matches "
				    "counts to the earlier /k8s=4"));
	r = rules("", "", "/batch-*=1,/batch-7=1,/batch-7*=1,/ab*=1,/a*=1", "allow");
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 1), 0);
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 2), 0);
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 3), -1); /* /ab* is narrower */
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 4), -1); /* /a*: /ax is its own */
	r = rules("", "", "/a/*x=1,/a/*=1,/a/b/c=1,/=1", "allow");
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 1), -1);
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 2), 1); /* /a/'*' covers /a/b/c */
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 3), -1);
	r = rules("", "", "/=1,/web=1", "allow");
	assert_int_equal(hb_tenant_budget_shadowed_by(&r, 1), 0);
}

#define K8S_POD                                                           \
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" \
	"0f6d2c1e_9b7a_4c3d_8e2f_1a2b3c4d5e6f.slice"
#define K8S_CTR                    \
	K8S_POD "/cri-containerd-" \
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope"

/*
 * A Kubernetes container's cgroup path (about 191 characters, trial39b:
 * refused over 127) is a pattern in each key, and so is one as long as a
 * value (1023 characters); 1024 is refused, naming the limit
 */
static void test_tenant_takes_a_kubernetes_container_path(void **state)
{
	char value[1100], path[1100];
	struct hb_tenant_rules r;
	struct hb_tenant_rule rule;
	uint64_t promoted[HB_TENANT_MAX] = { 0 };
	struct hb_err err = { 0 };

	(void)state;
	assert_true(strlen(K8S_CTR) > 180);
	r = rules("", K8S_CTR, K8S_POD "/cri-containerd-*.scope=1", "allow");
	assert_string_equal(r.deny[0].pattern, K8S_CTR);
	assert_int_equal(hb_tenant_evaluate(&r, K8S_CTR, promoted, PAGE, &rule), HB_TENANT_DENIED);
	r = rules(K8S_POD, "", K8S_POD "/cri-containerd-*.scope=1", "allow");
	assert_int_equal(hb_tenant_evaluate(&r, K8S_CTR, promoted, PAGE, &rule), HB_TENANT_ALLOWED);
	assert_int_equal(rule.budget, 0);
	/* "/aaa...a": 1023 characters, then 1024 */
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[1023] = '\0';
	r = rules(path, "", "", "allow");
	assert_int_equal(strlen(r.allow[0].pattern), 1023);
	assert_true(hb_tenant_match(path, path));
	path[1023] = 'a';
	path[1024] = '\0';
	snprintf(value, sizeof(value), "%s", path);
	assert_int_equal(hb_tenant_rules_parse(value, "", "", "allow", &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "is too long (at most 1023)"));
}

/* explain's line names the cgroup, the key and the pattern */
static void test_tenant_describe_names_rule(void **state)
{
	struct hb_tenant_rules r = rules("", "/batch", "/web=1", "allow");
	struct hb_tenant_rule rule;
	uint64_t promoted[HB_TENANT_MAX] = { MIB_PAGES };
	enum hb_tenant_verdict v;
	char buf[256];

	(void)state;
	v = hb_tenant_evaluate(&r, "/batch/j1", promoted, PAGE, &rule);
	hb_tenant_describe(&r, "/batch/j1", v, &rule, promoted, PAGE, buf, sizeof(buf));
	assert_string_equal(buf, "cgroup /batch/j1: denied by tenant.deny /batch");
	v = hb_tenant_evaluate(&r, "/web", promoted, PAGE, &rule);
	hb_tenant_describe(&r, "/web", v, &rule, promoted, PAGE, buf, sizeof(buf));
	assert_string_equal(buf,
			    "cgroup /web: tenant.budget_mb /web=1 held (256 pages promoted of 256)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tenant_match_star_within_a_component),
		cmocka_unit_test(test_tenant_deny_wins_over_allow),
		cmocka_unit_test(test_tenant_allow_list_refuses_the_rest),
		cmocka_unit_test(test_tenant_no_cgroup_follows_its_key),
		cmocka_unit_test(test_tenant_budget_holds_at_its_size),
		cmocka_unit_test(test_tenant_over_counts_the_excess),
		cmocka_unit_test(test_tenant_parse_refuses_naming_key_and_value),
		cmocka_unit_test(test_tenant_describe_names_rule),
		cmocka_unit_test(test_tenant_takes_a_kubernetes_container_path),
		cmocka_unit_test(test_tenant_budget_shadowed_by_an_earlier_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
