// SPDX-License-Identifier: MIT
/*
 * Tenant rules at work (daemon/cycle/tenants.c) over a fake tree: a cgroup
 * v2 hierarchy (/web, /batch/job), /proc/kpagecgroup naming their inodes
 * for PFNs 0-15, and one cycle's decisions filtered by the rules.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake-tree.h"
#include "cycle/tenants.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define PAGE (256 * 1024ULL) /* 1 MiB = 4 pages: budgets in pages stay small */
#define NPFN 16

static char root[64];

static uint64_t ino_of(const char *cg)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/sys/fs/cgroup%s", root, cg);
	assert_int_equal(stat(p, &st), 0);
	return st.st_ino;
}

/* PFNs 0-7 /web, 8-9 /batch/job, 10 no cgroup, 11-15 /web/child */
static int setup(void **state)
{
	uint64_t ino[NPFN] = { 0 };

	(void)state;
	hb_fake_tree_new(root, sizeof(root), "test-tenants");
	hb_fake_put(root, "/proc", NULL);
	hb_fake_put(root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
	hb_fake_put(root, "/sys/fs/cgroup/web/child/memory.current", "0\n");
	hb_fake_put(root, "/sys/fs/cgroup/web/memory.current", "0\n");
	hb_fake_put(root, "/sys/fs/cgroup/batch/job/memory.current", "0\n");
	hb_fake_put(root, "/sys/fs/cgroup/batch/memory.current", "0\n");
	for (int i = 0; i < 8; i++)
		ino[i] = ino_of("/web");
	ino[8] = ino[9] = ino_of("/batch/job");
	for (int i = 11; i < NPFN; i++)
		ino[i] = ino_of("/web/child");
	hb_fake_put_bin(root, "/proc/kpagecgroup", ino, sizeof(ino));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hb_fake_tree_remove(root);
	return 0;
}

static struct hb_tenants *open_rules(const char *allow, const char *deny, const char *budgets,
				     const char *nc)
{
	struct hb_tenant_rules r;
	struct hb_tenants *t = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_tenant_rules_parse(allow, deny, budgets, nc, &r, &err), 0);
	assert_int_equal(hb_tenants_new(root, &r, PAGE, &t, &err), 0);
	return t;
}

/* a decision to promote the page of each PFN in pfns (-1: one below the threshold) */
static size_t decisions(const int *pfns, size_t n, struct hb_decision *dec,
			struct hb_policy_spent *spent)
{
	memset(spent, 0, sizeof(*spent));
	for (size_t i = 0; i < n; i++) {
		dec[i] = (struct hb_decision){ .hpa = (uint64_t)(pfns[i] < 0 ? 0 : pfns[i]) * PAGE,
					       .src = 1,
					       .target = 0,
					       .reason = pfns[i] < 0 ? HB_REASON_BELOW_THRESHOLD :
								       HB_REASON_PROMOTE };
		if (pfns[i] >= 0) {
			spent->promoted++;
			spent->bytes[0] += PAGE;
		}
	}
	return n;
}

/*
 * /web with a 1 MiB (4-page) budget and /batch denied: of one cycle's six
 * /web pages four are promoted, the rest held at the budget; /batch's pages
 * are denied; a page of no cgroup follows no_cgroup; what was refused is
 * taken back from what the cycle spent.
 */
static void test_tenants_filter_denies_and_holds_at_budget(void **state)
{
	struct hb_tenants *t = open_rules("", "/batch", "/web=1", "allow");
	const int pfns[] = { 0, 1, 8, 2, 11, 9, 10, 3, -1, 4 };
	struct hb_decision dec[10];
	struct hb_policy_spent spent;
	int8_t budget[10];
	size_t n = decisions(pfns, 10, dec, &spent);

	(void)state;
	assert_int_equal(hb_tenants_filter(t, dec, n, budget, &spent, 0), 4);
	/* 0, 1, 2, 11 (a child of /web: the same budget) promoted, then the budget is full */
	assert_int_equal(dec[0].reason, HB_REASON_PROMOTE);
	assert_int_equal(dec[1].reason, HB_REASON_PROMOTE);
	assert_int_equal(dec[3].reason, HB_REASON_PROMOTE);
	assert_int_equal(dec[4].reason, HB_REASON_PROMOTE);
	assert_int_equal(budget[4], 0);
	assert_int_equal(dec[7].reason, HB_REASON_TENANT_BUDGET);
	assert_int_equal(dec[9].reason, HB_REASON_TENANT_BUDGET);
	assert_int_equal(dec[2].reason, HB_REASON_TENANT_DENIED);
	assert_int_equal(dec[5].reason, HB_REASON_TENANT_DENIED);
	assert_int_equal(dec[6].reason, HB_REASON_PROMOTE); /* no cgroup, no_cgroup=allow */
	assert_int_equal(budget[6], -1);
	assert_int_equal(dec[8].reason, HB_REASON_BELOW_THRESHOLD);
	assert_int_equal(spent.promoted, 5);
	assert_int_equal(spent.bytes[0], 5 * PAGE);
	assert_int_equal(hb_tenants_stats(t)->at_budget, 2);
	assert_int_equal(hb_tenants_stats(t)->denied, 2);
	hb_tenants_free(t);
}

/* pages reported moved fill the budget across cycles; a reload keeps the count by pattern */
static void test_tenants_moved_pages_count_across_cycles(void **state)
{
	struct hb_tenants *t = open_rules("", "", "/web=1", "deny");
	struct hb_tenant_rules r;
	const int pfns[] = { 5 };
	struct hb_decision dec[1];
	struct hb_policy_spent spent;
	int8_t budget[1];
	char why[256];

	(void)state;
	for (int i = 0; i < 3; i++)
		hb_tenants_moved(t, 0);
	decisions(pfns, 1, dec, &spent);
	assert_int_equal(hb_tenants_filter(t, dec, 1, budget, &spent, 0), 0);
	hb_tenants_moved(t, budget[0]);
	assert_int_equal(hb_tenants_promoted(t, 0), 4);
	decisions(pfns, 1, dec, &spent);
	assert_int_equal(hb_tenants_filter(t, dec, 1, budget, &spent, 0), 1);
	assert_int_equal(dec[0].reason, HB_REASON_TENANT_BUDGET);
	hb_tenants_describe(t, 5 * PAGE, 0, why, sizeof(why));
	assert_string_equal(why, "cgroup /web: tenant.budget_mb /web=1 held (4 pages promoted of 4)");
	/* a reload raising the budget lets the next page in; the count stays */
	assert_int_equal(hb_tenant_rules_parse("", "", "/other=1,/web=2", "deny", &r, NULL), 0);
	hb_tenants_set_rules(t, &r);
	assert_int_equal(hb_tenants_promoted(t, 1), 4);
	decisions(pfns, 1, dec, &spent);
	assert_int_equal(hb_tenants_filter(t, dec, 1, budget, &spent, 0), 0);
	assert_int_equal(budget[0], 1);
	/* no_cgroup=deny: PFN 10 */
	hb_tenants_describe(t, 10 * PAGE, 0, why, sizeof(why));
	assert_string_equal(why, "no cgroup: tenant.no_cgroup=deny");
	hb_tenants_free(t);
}

/* a demoted page is counted off the budget of its cgroup, never below 0 */
static void test_tenants_demoted_page_leaves_its_budget(void **state)
{
	struct hb_tenants *t = open_rules("", "", "/batch=1,/web=1", "allow");

	(void)state;
	assert_int_equal(hb_tenants_budget_of_page(t, 12 * PAGE, 0), 1);          /* /web/child */
	assert_int_equal(hb_tenants_budget_of_page(t, 8 * PAGE, 0), 0);           /* /batch/job */
	assert_int_equal(hb_tenants_budget_of_page(t, 10 * PAGE, 0), -1);         /* no cgroup */
	assert_int_equal(hb_tenants_budget_of_page(t, (NPFN + 1) * PAGE, 0), -1); /* unknown */
	hb_tenants_moved(t, 1);
	hb_tenants_moved(t, 1);
	hb_tenants_demoted(t, hb_tenants_budget_of_page(t, 12 * PAGE, 0));
	assert_int_equal(hb_tenants_promoted(t, 1), 1);
	hb_tenants_demoted(t, 1);
	hb_tenants_demoted(t, 1);
	assert_int_equal(hb_tenants_promoted(t, 1), 0);
	hb_tenants_demoted(t, -1);
	assert_int_equal(hb_tenants_promoted(t, 0), 0);
	hb_tenants_free(t);
}

/* a page whose owner cannot be read (past kpagecgroup's end) is not promoted */
static void test_tenants_unknown_owner_is_not_promoted(void **state)
{
	struct hb_tenants *t = open_rules("", "/batch", "", "allow");
	const int pfns[] = { NPFN + 3 };
	struct hb_decision dec[1];
	struct hb_policy_spent spent;
	int8_t budget[1];

	(void)state;
	decisions(pfns, 1, dec, &spent);
	assert_int_equal(hb_tenants_filter(t, dec, 1, budget, &spent, 0), 1);
	assert_int_equal(dec[0].reason, HB_REASON_TENANT_DENIED);
	assert_int_equal(hb_tenants_stats(t)->owner_unknown, 1);
	hb_tenants_free(t);
}

/* a cgroup v1 host and a kernel without kpagecgroup are refused, saying which */
static void test_tenants_refused_without_v2_or_kpagecgroup(void **state)
{
	struct hb_tenant_rules r;
	struct hb_tenants *t = NULL;
	struct hb_err err = { 0 };
	char p[256];

	(void)state;
	assert_int_equal(hb_tenant_rules_parse("", "/batch", "", "allow", &r, NULL), 0);
	snprintf(p, sizeof(p), "%s/proc/kpagecgroup", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hb_tenants_new(root, &r, PAGE, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "CONFIG_MEMCG"));
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/cgroup.controllers", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hb_tenants_new(root, &r, PAGE, &t, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "cgroup v1"));
}

/*
 * run's and check-config's one check of the host (trial39b: check-config
 * passed rules run refused): the emulated host (no owners root), a
 * kernel without kpagecgroup, a cgroup v1 host, each in run's words
 */
static void test_tenants_host_check_refuses_what_run_refuses(void **state)
{
	struct hb_err err = { 0 };
	char p[256];

	(void)state;
	assert_int_equal(hb_tenants_host_check(root, false, &err), 0);
	assert_int_equal(hb_tenants_host_check(root, true, &err), 0); /* a test's fake owners */
	assert_int_equal(hb_tenants_host_check(NULL, true, &err), -EOPNOTSUPP);
	assert_string_equal(err.msg, "[tenant] rules: the emulated host's pages belong to no "
				     "cgroup of this machine; tenant rules need a live host");
	snprintf(p, sizeof(p), "%s/proc/kpagecgroup", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hb_tenants_host_check(root, false, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "[tenant] rules given, but page owners: cannot open"));
	assert_non_null(strstr(err.msg, "CONFIG_MEMCG"));
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/cgroup.controllers", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hb_tenants_host_check(root, false, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "[tenant] rules given, but cgroups: "));
	assert_non_null(strstr(err.msg, "cgroup v1"));
}

/*
 * What a DAMOS memcg filter can say (exact memcgs): a deny pattern becomes
 * every cgroup it covers, descendants included; an allow list covering
 * one cgroup becomes "only" that one, but only with no_cgroup=deny (the
 * filter refuses pages of no memcg too); a cgroup appearing later changes
 * the list, and an unchanged list says so
 */
static void test_tenants_kernel_filter_names_exact_cgroups(void **state)
{
	struct hb_tenants *t = open_rules("/batch/job", "/web", "", "deny");
	const char *reject[8], *only = NULL;
	bool changed = false;
	size_t left_out = 9, n;

	n = hb_tenants_kernel_filter(t, reject, 8, &only, &changed, &left_out, 1);
	assert_int_equal(n, 2);
	/* in the map's order */
	assert_true((!strcmp(reject[0], "/web") && !strcmp(reject[1], "/web/child")) ||
		    (!strcmp(reject[1], "/web") && !strcmp(reject[0], "/web/child")));
	assert_non_null(only);
	assert_string_equal(only, "/batch/job");
	assert_true(changed);
	assert_int_equal(left_out, 0);
	n = hb_tenants_kernel_filter(t, reject, 8, &only, &changed, &left_out, 2);
	assert_int_equal(n, 2);
	assert_false(changed);
	/* at most max: the rest left out, and said */
	n = hb_tenants_kernel_filter(t, reject, 1, &only, &changed, &left_out, 3);
	assert_int_equal(n, 1);
	assert_int_equal(left_out, 1);
	assert_true(changed);
	/* a denied cgroup without a memcg of its own (no +memory above it): left out */
	hb_fake_put(root, "/sys/fs/cgroup/web/nomem", NULL);
	/* a denied cgroup made later: in the list after the next scan (1 s) */
	hb_fake_put(root, "/sys/fs/cgroup/web/late/memory.current", "0\n");
	n = hb_tenants_kernel_filter(t, reject, 8, &only, &changed, &left_out, 4);
	assert_int_equal(n, 2);
	n = hb_tenants_kernel_filter(t, reject, 8, &only, &changed, &left_out, 2000000000ULL);
	assert_int_equal(n, 3);
	assert_true(changed);
	hb_tenants_free(t);
	/* no_cgroup=allow: no "only" filter (it would refuse pages the rules allow) */
	t = open_rules("/batch/job", "/web", "", "allow");
	n = hb_tenants_kernel_filter(t, reject, 8, &only, &changed, &left_out, 1);
	assert_null(only);
	hb_tenants_free(t);
	/* an allow pattern covering two cgroups: not expressible, no "only" */
	t = open_rules("/web", "", "", "deny");
	n = hb_tenants_kernel_filter(t, reject, 8, &only, &changed, &left_out, 1);
	assert_int_equal(n, 0);
	assert_null(only);
	hb_tenants_free(t);
}

/*
 * status's cgroups of a budget: those whose first budget pattern it is;
 * one an earlier pattern shadows has none (trial39b #5: counted)
 */
static void test_tenants_budget_cgroups_leave_out_a_shadowed_pattern(void **state)
{
	struct hb_tenants *t = open_rules("", "", "/web=1,/web/child=1,/batch=1", "allow");

	(void)state;
	assert_int_equal(hb_tenants_budget_cgroups(t, 0, 1), 2); /* /web, /web/child */
	assert_int_equal(hb_tenants_budget_cgroups(t, 1, 1), 0);
	assert_int_equal(hb_tenants_budget_cgroups(t, 2, 1), 2); /* /batch, /batch/job */
	hb_tenants_free(t);
}

/*
 * a cgroup made, then removed, while the daemon runs: the count that status
 * and a reload show follows within a second, with no page of it looked up
 */
static void test_tenants_cgroup_count_follows_the_tree(void **state)
{
	struct hb_tenants *t = open_rules("/new*", "", "", "allow");
	char p[256];

	(void)state;
	assert_int_equal(hb_tenants_cgroups(t, "/new*", 1), 0);
	hb_fake_put(root, "/sys/fs/cgroup/new1/memory.current", "0\n");
	/* within the second: the last scan still stands */
	assert_int_equal(hb_tenants_cgroups(t, "/new*", 1 + HB_CGROUP_RESCAN_NS / 2), 0);
	assert_int_equal(hb_tenants_cgroups(t, "/new*", 2 + HB_CGROUP_RESCAN_NS), 1);
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/new1/memory.current", root);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/new1", root);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(hb_tenants_cgroups(t, "/new*", 3 + 2 * HB_CGROUP_RESCAN_NS), 0);
	hb_tenants_free(t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_tenants_filter_denies_and_holds_at_budget),
		T(test_tenants_moved_pages_count_across_cycles),
		T(test_tenants_demoted_page_leaves_its_budget),
		T(test_tenants_unknown_owner_is_not_promoted),
		T(test_tenants_refused_without_v2_or_kpagecgroup),
		T(test_tenants_host_check_refuses_what_run_refuses),
		T(test_tenants_kernel_filter_names_exact_cgroups),
		T(test_tenants_cgroup_count_follows_the_tree),
		T(test_tenants_budget_cgroups_leave_out_a_shadowed_pattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
