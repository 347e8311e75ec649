// SPDX-License-Identifier: MIT
/*
 * The daemon's [tenant] rules (cycle/tenants.h): opened at start and on a
 * reload that first gives some, applied to each promotion batch before its
 * tokens are charged, and the pages that reached DRAM counted to their
 * budgets as the batch is folded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "conf/conf-check.h"
#include "cycle/tenants.h"
#include "daemon-private.h"

#include <json-c/json.h>

/* a pattern that covers no cgroup yet (a container not started) is said, not refused */
static void say_absent(struct hb_daemon *d, const char *key, const struct hb_tenant_pattern *p,
		       size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!hb_tenants_cgroups(d->tenants, p[i].pattern, hb_now_ns()))
			hb_dlog(d, LOG_NOTICE,
				"tenant.%s %s: no such cgroup (yet): the rule applies once one "
				"appears",
				key, p[i].pattern);
}

static void say_rules(struct hb_daemon *d)
{
	const struct hb_tenant_rules *r = hb_tenants_rules(d->tenants);

	say_absent(d, "allow", r->allow, r->nallow);
	say_absent(d, "deny", r->deny, r->ndeny);
	say_absent(d, "budget_mb", r->budget, r->nbudget);
	for (size_t b = 0; b < r->nbudget; b++) {
		int by = hb_tenant_budget_shadowed_by(r, (int)b);
		char msg[3 * HB_TENANT_PATTERN_MAX];

		if (by < 0)
			continue;
		hb_tenant_shadow_describe(r, (int)b, by, msg, sizeof(msg));
		hb_dlog(d, LOG_WARNING, "%s", msg);
	}
}

int hb_daemon_tenants_apply(struct hb_daemon *d, const struct hb_config *c, struct hb_err *err)
{
	struct hb_tenant_rules *rules = malloc(sizeof(*rules));
	struct hb_tenants *t = NULL;
	struct hb_err why = { 0 };
	int r;

	if (!rules)
		return hb_err_set(err, -ENOMEM, "out of memory");
	if ((r = hb_config_tenant_rules(c, rules, err)) < 0)
		goto out;
	if (d->tenants) {
		hb_tenants_set_rules(d->tenants, rules);
		say_rules(d);
		goto out;
	}
	if (!rules->active)
		goto out;
	/* check-config says the same (cmd-check-config.c) */
	if ((r = hb_tenants_host_check(d->env.owners_root, hb_platform_emulated(d->env.platform),
				       err)) < 0)
		goto out;
	if (!d->tenant_budget && !(d->tenant_budget = malloc(MAX_CANDIDATES))) {
		r = hb_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((r = hb_tenants_new(d->env.owners_root, rules, d->pcfg.page_size, &t, &why)) < 0) {
		/* the rules cannot be enforced: refused, not ignored */
		hb_err_set(err, r, "[tenant] rules given, but %s", why.msg);
		goto out;
	}
	d->tenants = t;
	say_rules(d);
out:
	free(rules);
	return r;
}

void hb_daemon_tenants_free(struct hb_daemon *d)
{
	d->tenants = hb_tenants_free(d->tenants);
	free(d->tenant_budget);
	d->tenant_budget = NULL;
}

/*
 * damon: the rules DAMOS can say reach the kernel as memcg filters, so
 * that DAMON never moves a denied tenant's page even inside a committed
 * range; rewritten when the cgroups they name change (a container
 * started or gone). Before the batch goes out: no command is in flight.
 */
static void kernel_filter(struct hb_daemon *d)
{
	const char *reject[HB_DAMON_FILTERS_MAX], *only;
	struct hb_err err = { 0 };
	size_t n, left_out;
	bool changed;
	int r;

	if (!d->mig || hb_migrator_kind(d->mig) != HB_MIGRATOR_DAMON || d->tenant_filter_off)
		return;
	n = hb_tenants_kernel_filter(d->tenants, reject, HB_DAMON_FILTERS_MAX - 1, &only, &changed,
				     &left_out, hb_now_ns());
	if (!changed)
		return;
	if ((r = hb_migrator_damon_memcg_filters(d->mig, reject, n, only, &err)) < 0) {
		/* the daemon's own check still refuses every page the rules do */
		hb_dlog(d, LOG_WARNING,
			"tenant: DAMOS memcg filters not set (%s): the daemon's check alone "
			"keeps denied tenants' pages off DRAM",
			err.msg);
		d->tenant_filter_off = r == -EOPNOTSUPP;
		return;
	}
	hb_dlog(d, LOG_NOTICE,
		"tenant: DAMOS memcg filters: %zu denied cgroup(s)%s%s%s%s; budgets, "
		"no_cgroup and allow lists of several cgroups are the daemon's check alone",
		n, only ? ", only " : "", only ? only : "",
		left_out ? ", left out (too many): " : "", left_out ? "some" : "");
}

void hb_daemon_tenants_filter(struct hb_daemon *d, size_t n)
{
	struct hb_cycle_scratch *s = &d->scratch;
	int8_t *b = d->tenant_budget;
	size_t np = 0;

	if (!d->tenants || !hb_tenants_rules(d->tenants)->active)
		return;
	kernel_filter(d);
	hb_tenants_filter(d->tenants, s->dec, n, b, &s->pd.spent, hb_now_ns());
	/* by the batch's pages, as hb_daemon_move_start() lays them out */
	for (size_t i = 0; i < n; i++)
		if (s->dec[i].reason == HB_REASON_PROMOTE)
			b[np++] = b[i];
}

void hb_daemon_tenants_moved(struct hb_daemon *d, size_t i)
{
	if (d->tenants && hb_tenants_rules(d->tenants)->active)
		hb_tenants_moved(d->tenants, d->tenant_budget[i]);
}

void hb_daemon_tenants_status(const struct hb_daemon *d, json_object *o)
{
	const struct hb_tenant_rules *r;
	const struct hb_tenants_stats *st;
	json_object *t, *a;

	if (!d->tenants || !(r = hb_tenants_rules(d->tenants))->active)
		return;
	st = hb_tenants_stats(d->tenants);
	t = json_object_new_object();
	a = json_object_new_array();
	for (size_t i = 0; i < r->nbudget; i++) {
		json_object *b = json_object_new_object();
		uint64_t have = hb_tenants_promoted(d->tenants, (int)i);
		uint64_t limit = hb_tenant_budget_pages(r, (int)i, d->pcfg.page_size);
		int by;

		json_object_object_add(b, "cgroup", json_object_new_string(r->budget[i].pattern));
		json_object_object_add(b, "budget_mb", hb_daemon_json_u64(r->budget[i].budget_mib));
		json_object_object_add(b, "budget_pages", hb_daemon_json_u64(limit));
		json_object_object_add(b, "promoted_pages", hb_daemon_json_u64(have));
		json_object_object_add(b, "at_budget", json_object_new_boolean(have >= limit));
		/*
		 * the cgroups that count to it (its pattern is the first to
		 * match them), as of the last scan of the hierarchy: 0 for a
		 * cgroup not there (yet), or a pattern an earlier one shadows
		 */
		json_object_object_add(b, "cgroups",
				       hb_daemon_json_u64(hb_tenants_budget_cgroups(d->tenants, (int)i,
										    hb_now_ns())));
		if ((by = hb_tenant_budget_shadowed_by(r, (int)i)) >= 0)
			json_object_object_add(b, "shadowed_by",
					       json_object_new_string(r->budget[by].pattern));
		json_object_array_add(a, b);
	}
	json_object_object_add(t, "budgets", a);
	json_object_object_add(t, "refused_denied", hb_daemon_json_u64(st->denied));
	json_object_object_add(t, "refused_at_budget", hb_daemon_json_u64(st->at_budget));
	json_object_object_add(t, "refused_owner_unknown", hb_daemon_json_u64(st->owner_unknown));
	json_object_object_add(o, "tenants", t);
}

/* a pattern as a label value: patterns hold no '\\', '"' nor newline (tenant.c refuses them) */
void hb_daemon_tenants_metrics(const struct hb_daemon *d, FILE *f)
{
	const struct hb_tenant_rules *r;

	if (!d->tenants || !(r = hb_tenants_rules(d->tenants))->active || !r->nbudget)
		return;
	fputs("# HELP hotbridge_tenant_promoted_pages Pages on DRAM by hotbridge's promotion, by "
	      "tenant.budget_mb pattern.\n# TYPE hotbridge_tenant_promoted_pages gauge\n",
	      f);
	for (size_t i = 0; i < r->nbudget; i++)
		fprintf(f, "hotbridge_tenant_promoted_pages{tenant=\"%s\"} %llu\n",
			r->budget[i].pattern,
			(unsigned long long)hb_tenants_promoted(d->tenants, (int)i));
	fputs("# HELP hotbridge_tenant_budget_pages tenant.budget_mb in pages, by pattern.\n"
	      "# TYPE hotbridge_tenant_budget_pages gauge\n",
	      f);
	for (size_t i = 0; i < r->nbudget; i++)
		fprintf(f, "hotbridge_tenant_budget_pages{tenant=\"%s\"} %llu\n",
			r->budget[i].pattern,
			(unsigned long long)hb_tenant_budget_pages(r, (int)i, d->pcfg.page_size));
}

bool hb_daemon_tenants_explain(struct hb_daemon *d, struct hb_decision *dec, char *buf, size_t size)
{
	if (!d->tenants || !hb_tenants_rules(d->tenants)->active)
		return false;
	hb_tenants_describe(d->tenants, dec->hpa, hb_now_ns(), buf, size);
	if (dec->reason == HB_REASON_PROMOTE)
		dec->reason = hb_tenants_reason(d->tenants, dec->hpa, hb_now_ns());
	return true;
}

bool hb_daemon_tenants_any_over(const struct hb_daemon *d)
{
	const struct hb_tenant_rules *r;

	if (!d->tenants || !(r = hb_tenants_rules(d->tenants))->active)
		return false;
	for (size_t b = 0; b < r->nbudget; b++)
		if (hb_tenant_over(r, (int)b, hb_tenants_promoted(d->tenants, (int)b),
				   d->pcfg.page_size))
			return true;
	return false;
}

void hb_daemon_tenants_mark_over(struct hb_daemon *d)
{
	uint64_t over[HB_TENANT_MAX] = { 0 }, now = hb_now_ns();
	const struct hb_tenant_rules *r;
	struct hb_placed_page *e;
	size_t cursor = 0;
	bool any = false;

	if (d->tenants && (r = hb_tenants_rules(d->tenants))->active)
		for (size_t b = 0; b < r->nbudget; b++) {
			over[b] = hb_tenant_over(r, (int)b, hb_tenants_promoted(d->tenants, (int)b),
						 d->pcfg.page_size);
			any |= over[b] != 0;
		}
	/* owners read only while some tenant is over: rare (a reload, drift) */
	while (any && (e = hb_placed_next(d->dm.placed, &cursor)))
		e->tenant = (int8_t)hb_tenants_budget_of_page(d->tenants,
							      hb_placed_hpa(d->dm.placed, e), now);
	hb_demoter_set_tenant_over(d->dm.demoter, over, any ? HB_TENANT_MAX : 0);
}

void hb_daemon_tenants_demote_owners(struct hb_daemon *d, size_t n)
{
	struct hb_cycle_scratch *s = &d->scratch;
	size_t np = 0;

	if (!d->tenants || !hb_tenants_rules(d->tenants)->active)
		return;
	for (size_t i = 0; i < n; i++)
		if (s->dec[i].reason == HB_REASON_DEMOTE)
			d->tenant_budget[np++] =
				(int8_t)hb_tenants_budget_of_page(d->tenants, s->dec[i].hpa,
								  hb_now_ns());
}

void hb_daemon_tenants_demoted(struct hb_daemon *d, size_t i)
{
	if (d->tenants && hb_tenants_rules(d->tenants)->active)
		hb_tenants_demoted(d->tenants, d->tenant_budget[i]);
}
