// SPDX-License-Identifier: MIT
/*
 * The daemon's [tenant] rules (cycle/tenants.h): opened at start and on a
 * reload that first gives some, applied to each promotion batch before its
 * tokens are charged, and the pages that reached DRAM counted to their
 * budgets as the batch is folded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "conf/conf-check.h"
#include "cycle/tenants.h"
#include "daemon-private.h"

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
		goto out;
	}
	if (!rules->active)
		goto out;
	if (hb_platform_emulated(d->env.platform) && !d->env.owners_root) {
		r = hb_err_set(err, -EOPNOTSUPP,
			       "[tenant] rules: the emulated host's pages belong to no cgroup of "
			       "this machine; tenant rules need a live host");
		goto out;
	}
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

void hb_daemon_tenants_filter(struct hb_daemon *d, size_t n)
{
	struct hb_cycle_scratch *s = &d->scratch;
	int8_t *b = d->tenant_budget;
	size_t np = 0;

	if (!d->tenants || !hb_tenants_rules(d->tenants)->active)
		return;
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
