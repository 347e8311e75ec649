/* SPDX-License-Identifier: MIT */
/*
 * Tenant rules at work (tenants.c): the owner of each page about to be
 * promoted (kernel.h "page owners"), the verdict of core.h's rules for it,
 * and the pages each budget holds on DRAM by our doing.
 */
#ifndef HB_CYCLE_TENANTS_H
#define HB_CYCLE_TENANTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"
#include "kernel.h"

struct hb_tenants_stats {
	uint64_t denied;        /* promotions refused: deny, allow, no_cgroup */
	uint64_t at_budget;     /* promotions refused: the budget was reached */
	uint64_t owner_unknown; /* promotions refused: the owner could not be read */
};

struct hb_tenants;

/*
 * Opens root's /proc/kpagecgroup and cgroup v2 hierarchy for rules (copied).
 * -EOPNOTSUPP on a cgroup v1 host, -ENOENT without kpagecgroup, with err
 * saying which.
 */
/*
 * Whether [tenant] rules can be enforced on this host: run's start-up
 * check, and check-config's (the same words). -EOPNOTSUPP on the emulated
 * host (its pages belong to no cgroup here; root NULL) and on a cgroup v1
 * host or one without the memory controller, -ENOENT without kpagecgroup,
 * -EACCES when not root.
 */
int hb_tenants_host_check(const char *root, bool emulated, struct hb_err *err);
int hb_tenants_new(const char *root, const struct hb_tenant_rules *rules, uint64_t page_size,
		   struct hb_tenants **ret, struct hb_err *err);
struct hb_tenants *hb_tenants_free(struct hb_tenants *t);
/* a reload's rules; the pages counted to each budget are kept where its pattern is kept */
void hb_tenants_set_rules(struct hb_tenants *t, const struct hb_tenant_rules *rules);
const struct hb_tenant_rules *hb_tenants_rules(const struct hb_tenants *t);

/*
 * The promotions among dec[0..n) checked against the rules: one that they
 * refuse becomes HB_REASON_TENANT_DENIED or HB_REASON_TENANT_BUDGET and is
 * taken back from spent (NULL: nothing to take back). ret_budget[i] gets
 * the budget an accepted promotion counts to (-1: none). Budgets count the
 * promotions accepted before in the same call. Returns the refusals.
 */
size_t hb_tenants_filter(struct hb_tenants *t, struct hb_decision *dec, size_t n,
			 int8_t *ret_budget, struct hb_policy_spent *spent, uint64_t now_ns);
/* a page counted to budget b (>= 0) reached DRAM */
void hb_tenants_moved(struct hb_tenants *t, int budget);
/*
 * the budget a page's cgroup counts to now (-1: none, or its owner cannot
 * be read), for a demotion: read before the page moves off its frame
 */
int hb_tenants_budget_of_page(struct hb_tenants *t, uint64_t hpa, uint64_t now_ns);
/* a page of budget b left DRAM: counted off (never below 0) */
void hb_tenants_demoted(struct hb_tenants *t, int budget);
/* pages counted to budget b */
uint64_t hb_tenants_promoted(const struct hb_tenants *t, int budget);
/* what the rules say of hpa's page now (HB_REASON_PROMOTE: allowed), counting nothing */
enum hb_reason hb_tenants_reason(struct hb_tenants *t, uint64_t hpa, uint64_t now_ns);
/* explain: the page's cgroup, the verdict and the rule, as the rules see it now */
int hb_tenants_describe(struct hb_tenants *t, uint64_t hpa, uint64_t now_ns, char *buf, size_t size);
/* the cgroups pattern covers as of the map's last scan (made now if there was none) */
size_t hb_tenants_cgroups(struct hb_tenants *t, const char *pattern, uint64_t now_ns);
/*
 * the cgroups that count to budget b (b's pattern is the first budget
 * pattern matching them) as of the map's last scan (made now if older
 * than a second)
 */
size_t hb_tenants_budget_cgroups(struct hb_tenants *t, int budget, uint64_t now_ns);
const struct hb_tenants_stats *hb_tenants_stats(const struct hb_tenants *t);

/*
 * What of the rules a DAMOS memcg filter can say (exact memcgs, as of a
 * scan of the hierarchy at most a second old): reject[] every cgroup a
 * tenant.deny pattern covers (at most max), *ret_only the one cgroup
 * tenant.allow covers when it covers exactly one and tenant.no_cgroup is
 * deny (such a filter refuses pages of no memcg too; else NULL). The rest
 * (budgets, no_cgroup, an allow list of several cgroups, cgroups beyond
 * max) only the daemon's own check enforces. Returns the number of
 * reject paths; *ret_changed says whether the result differs from the
 * last call's. The paths stay valid until the next call.
 */
size_t hb_tenants_kernel_filter(struct hb_tenants *t, const char **reject, size_t max,
				const char **ret_only, bool *ret_changed, size_t *ret_left_out,
				uint64_t now_ns);

#endif
