// SPDX-License-Identifier: MIT
/*
 * explain and history: what the policy would do with a page now (the
 * const hb_policy_evaluate(): nothing charged, nothing decided twice)
 * and the decisions recorded for it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "daemon-private.h"
#include "control/history-json.h"

/* In words: why dec's page gets dec's decision now. */
static void explain_reason(const struct hb_daemon *d, const struct hb_decision *dec, uint64_t now,
			   char *buf, size_t size)
{
	double ago = dec->held_since_ns && now > dec->held_since_ns ?
			     (double)(now - dec->held_since_ns) / 1e9 :
			     0;
	double tokens;

	switch (dec->reason) {
	case HB_REASON_PROMOTE:
		snprintf(buf, size, "heat %g >= threshold %g; node %d has room and tokens",
			 dec->heat, d->pcfg.threshold, dec->target);
		break;
	case HB_REASON_BELOW_THRESHOLD:
		/* heat 0 (no access, a count-0 record) is not "below" a threshold of 0 */
		if (!(dec->heat > 0))
			snprintf(buf, size,
				 "no access (heat 0): never promoted, whatever the threshold "
				 "(%g)",
				 d->pcfg.threshold);
		else
			snprintf(buf, size, "heat %g below threshold %g", dec->heat,
				 d->pcfg.threshold);
		break;
	case HB_REASON_HYSTERESIS:
		snprintf(buf, size,
			 "hysteresis: handed to the migrator %.1f s ago (result: %s%d), "
			 "held for hysteresis_ms = %llu",
			 ago, dec->held_result >= 0 ? "node " : "errno ",
			 dec->held_result >= 0 ? dec->held_result : -dec->held_result,
			 (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
		break;
	case HB_REASON_ON_TARGET:
		snprintf(buf, size, "already promoted: the migrator found it on node %d %.1f s ago",
			 dec->held_result, ago);
		break;
	case HB_REASON_REFUSED:
		if (dec->held_result == -EXDEV) {
			snprintf(buf, size,
				 "refused %.1f s ago by the memory policy of the processes mapping "
				 "it (mbind/set_mempolicy keep it off node %d): EXDEV; not retried "
				 "for hysteresis_ms = %llu (migrate.override_mempolicy moves such "
				 "pages)",
				 ago, dec->target,
				 (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
			break;
		}
		snprintf(buf, size,
			 "refused by the kernel %.1f s ago: %s (%s); not retried for "
			 "hysteresis_ms = %llu",
			 ago, hb_errno_name(-dec->held_result), strerror(-dec->held_result),
			 (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
		break;
	case HB_REASON_RATE_LIMIT:
		tokens = hb_policy_tokens(d->policy, &d->pcfg, dec->target, now);
		snprintf(buf, size,
			 "rate limited: node %d's bucket holds %.0f bytes, a page needs %llu",
			 dec->target, tokens, (unsigned long long)d->pcfg.page_size);
		break;
	case HB_REASON_WATERMARK:
		snprintf(buf, size,
			 "target below watermark: node %d has %llu MiB free, watermark %llu MiB",
			 dec->target, (unsigned long long)(d->nodes[dec->target].free_bytes >> 20),
			 (unsigned long long)(d->pcfg.watermark_bytes >> 20));
		break;
	case HB_REASON_NOT_SOURCE: hb_daemon_source_node_reason(d, dec->src, buf, size); break;
	case HB_REASON_NO_TARGET:
		snprintf(buf, size, "no target node for node %d", dec->src);
		break;
	case HB_REASON_RESIDENT:
		snprintf(buf, size, "on node %d by our doing: promoted and not demoted since",
			 dec->held_result);
		break;
	case HB_REASON_DEMOTED_RECENTLY:
		snprintf(buf, size,
			 "demoted %.1f s ago (result: %s%d); not promoted again for "
			 "hysteresis_ms = %llu",
			 ago, dec->held_result >= 0 ? "node " : "errno ",
			 dec->held_result >= 0 ? dec->held_result : -dec->held_result,
			 (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
		break;
	case HB_REASON_DEMOTE:
		snprintf(buf, size,
			 "idle %g checks in a row on node %d, which is below watermark + "
			 "room (%llu MiB); to node %d",
			 dec->heat, dec->src, (unsigned long long)(d->dm.dcfg.goal_bytes >> 20),
			 dec->target);
		break;
	case HB_REASON_NOT_COLD:
		snprintf(buf, size, "idle %g checks in a row, cold after %u", dec->heat,
			 d->dm.dcfg.cold_cycles);
		break;
	case HB_REASON_PROMOTED_RECENTLY:
		snprintf(buf, size, "promoted %.1f s ago: not demoted within hysteresis_ms = %llu",
			 ago, (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
		break;
	case HB_REASON_FEW_EPOCHS:
		snprintf(buf, size,
			 "heat %g >= threshold %g, but seen in %u of %u epochs (cycles of "
			 "interval_ms = %llu): held until reported in %u distinct ones "
			 "(policy.min_epochs)",
			 dec->heat, d->pcfg.threshold, dec->epochs, d->pcfg.min_epochs,
			 (unsigned long long)d->cfg.interval_ms, d->pcfg.min_epochs);
		break;
	default: snprintf(buf, size, "%s", hb_reason_to_string(dec->reason)); break;
	}
}

/*
 * A page below the threshold that was handed to the migrator before: what
 * was last done with it, in place of "never promoted". A refused page's
 * hold lapses after hysteresis_ms and it leaves the heat table, so its
 * heat reads 0 again (trial42 #9); the history keeps the refusal.
 */
static void explain_last_acted(const struct hb_daemon *d, const struct hb_decision *dec, char *buf,
			       size_t size)
{
	const struct hb_history_entry *e =
		hb_history_last_acted(d->history, dec->hpa, d->pcfg.page_size);
	uint64_t wall = hb_wall_ns();
	double ago;
	char now[96];
	int err;

	if (!e || e->result == HB_HISTORY_NO_RESULT)
		return;
	ago = wall > e->time_ns ? (double)(wall - e->time_ns) / 1e9 : 0;
	if (dec->heat > 0)
		snprintf(now, sizeof(now), "heat %g below threshold %g", dec->heat,
			 d->pcfg.threshold);
	else
		snprintf(now, sizeof(now), "no access since (heat 0)");
	if (e->result >= 0) {
		snprintf(buf, size, "%s; last %s %.1f s ago, to node %d", now,
			 e->reason == HB_REASON_DEMOTE ? "demoted" : "promoted", ago, e->result);
		return;
	}
	err = -e->result;
	snprintf(buf, size,
		 "%s; last %s %.1f s ago at heat %g, to node %d: %s, %s%s; its hold "
		 "(hysteresis_ms = %llu) has lapsed: tried again once over the threshold",
		 now, e->reason == HB_REASON_DEMOTE ? "demotion" : "promotion", ago, e->heat,
		 e->target, hb_errno_name(err),
		 err == EXDEV ? hb_move_strerror(err) : "refused by the kernel",
		 err == EXDEV ? "; migrate.override_mempolicy moves such pages" : "",
		 (unsigned long long)(d->pcfg.hysteresis_ns / 1000000ULL));
}

/*
 * Is this address in a committed CXL region? The translation's own
 * refusals (translate says the same words): no region at all, a decoder
 * in none, a region not committed. 0 when it is, or for a case translate
 * refuses on its own (EOPNOTSUPP: that region is still CXL memory).
 */
static int cxl_region_check(int r)
{
	return r == HB_E_UNMAPPED || r == HB_E_NOREGION || r == HB_E_UNCOMMITTED ? r : 0;
}

/*
 * The answer for an address in no committed CXL region: nothing there is
 * a candidate, so no rule applies. why is translate's message. hpa and
 * page are null for a DPA that has no HPA. The keys of every explain
 * answer, so readers need no special case.
 */
/* the sources' names by index, for the history's hotness_source */
static struct hb_source_names source_names(const struct hb_daemon *d, const char **buf)
{
	for (size_t i = 0; i < d->nsrc; i++)
		buf[i] = d->src[i].name;
	return (struct hb_source_names){ buf, d->nsrc };
}

/* the name of the source behind a page's heat, or null */
static json_object *source_json(const struct hb_daemon *d, int idx)
{
	return idx >= 0 && (size_t)idx < d->nsrc ? json_object_new_string(d->src[idx].name) : NULL;
}

static json_object *not_in_a_region_json(struct hb_daemon *d, bool has_hpa, uint64_t hpa,
					 const char *why)
{
	const char *buf[HB_MAX_SOURCES];
	struct hb_source_names names = source_names(d, buf);
	json_object *o = json_object_new_object();
	uint64_t page = hpa & ~(d->pcfg.page_size - 1);
	int tnode = -1, node = has_hpa ? hb_daemon_node_of(d, page) : -1;
	double heat = has_hpa ? hb_heat_get(d->heat, page, &tnode) : 0;
	json_object *h = has_hpa ? hb_history_find_json(d->history, true, page, d->pcfg.page_size,
							8, hb_wall_ns(), &names) :
				   json_object_new_array();

	json_object_object_add(o, "hpa", has_hpa ? hb_json_hex(hpa) : NULL);
	json_object_object_add(o, "page", has_hpa ? hb_json_hex(page) : NULL);
	json_object_object_add(o, "node", node >= 0 ? json_object_new_int(node) : NULL);
	json_object_object_add(o, "heat", hb_json_double(heat, 3));
	json_object_object_add(o, "threshold", hb_json_double(d->pcfg.threshold, 3));
	json_object_object_add(o, "source_node",
			       json_object_new_boolean(node >= 0 && node < HB_MAX_NODES &&
						       d->nodes[node].is_source));
	json_object_object_add(o, "target", NULL);
	json_object_object_add(o, "paused", json_object_new_boolean(d->paused));
	json_object_object_add(o, "decision", json_object_new_string(HB_EXPLAIN_NOT_IN_A_REGION));
	json_object_object_add(o, "quarantined", json_object_new_boolean(false));
	json_object_object_add(o, "reason", json_object_new_string(why));
	json_object_object_add(o, "rate_limit_tokens_bytes", NULL);
	json_object_object_add(o, "history", h);
	return o;
}

/*
 * o[key] = the decision; while paused it is "paused", with why saying so,
 * and the decision once resumed and its reason under when and when_reason.
 */
static void add_decision(json_object *o, const char *key, const char *when, bool paused,
			 enum hb_reason reason, char *why, size_t size, const char *what)
{
	char when_reason[128];

	if (!paused) {
		json_object_object_add(o, key, json_object_new_string(hb_reason_to_string(reason)));
		return;
	}
	snprintf(when_reason, sizeof(when_reason), "%s_reason", when);
	json_object_object_add(o, when, json_object_new_string(hb_reason_to_string(reason)));
	json_object_object_add(o, when_reason, json_object_new_string(why));
	snprintf(why, size, "the daemon is paused: nothing is %s until `hotbridge resume`", what);
	json_object_object_add(o, key, json_object_new_string(HB_EXPLAIN_PAUSED));
}

/*
 * What would happen to this page now, every rule evaluated (top-K aside:
 * it depends on the other pages of a cycle), nothing charged; and its
 * latest history entries. An address in no committed CXL region is no
 * candidate: its decision is "not_in_a_cxl_region", in translate's words
 * (a DRAM page we placed still gets its demotion fields). While paused,
 * the decision is "paused", and what would be done once resumed is kept
 * in when_resumed / when_resumed_reason.
 */
int hb_daemon_explain(struct hb_daemon *d, uint64_t hpa, json_object **ret, struct hb_err *err)
{
	const char *buf[HB_MAX_SOURCES];
	struct hb_source_names names;
	struct hb_candidate c;
	const struct hb_placed_page *placed;
	struct hb_decision dec;
	uint64_t exact = hpa, now = hb_daemon_clock(d);
	const struct hb_quarantined *q;
	json_object *o, *h;
	struct hb_err where = { 0 };
	struct hb_xlat x;
	char why[HB_ERR_MSG_MAX], tenant[HB_ERR_MSG_MAX];
	bool has_tenant;
	double tokens;
	int node, outside;

	hpa &= ~(d->pcfg.page_size - 1);
	outside = cxl_region_check(hb_topology_hpa_to_dpa(hb_daemon_topology(d), exact, &x, &where));
	if (outside && !(d->dm.placed && hb_placed_find(d->dm.placed, hpa))) {
		o = not_in_a_region_json(d, true, exact, where.msg);
		if (!o)
			return hb_err_set(err, -ENOMEM, "out of memory");
		*ret = o;
		return 0;
	}
	c = (struct hb_candidate){ .hpa = hpa,
				   .heat = hb_heat_get(d->heat, hpa, &node),
				   .source = hb_heat_source(d->heat, hpa),
				   .epochs = hb_heat_epochs(d->heat, hpa) };
	c.node = node >= 0 ? node : hb_daemon_node_of(d, hpa);
	if (c.source < 0) {
		/*
		 * the table forgets a page once it is moved (its heat starts
		 * again from 0), not who reported it: the latest decision's
		 * source is the last one that did (newuser r4 D14)
		 */
		const struct hb_history_entry *last;

		if (hb_history_find(d->history, true, hpa, d->pcfg.page_size, &last, 1) == 1)
			c.source = last->source;
	}
	hb_policy_evaluate(d->policy, &d->pcfg, d->nodes, d->dist, &c, NULL, now, &dec);
	has_tenant = hb_daemon_tenants_explain(d, &dec, tenant, sizeof(tenant));
	explain_reason(d, &dec, now, why, sizeof(why));
	if (dec.reason == HB_REASON_BELOW_THRESHOLD)
		explain_last_acted(d, &dec, why, sizeof(why));
	if (dec.reason == HB_REASON_TENANT_DENIED || dec.reason == HB_REASON_TENANT_BUDGET)
		snprintf(why, sizeof(why), "%s", tenant);
	names = source_names(d, buf);
	h = hb_history_find_json(d->history, true, hpa, d->pcfg.page_size, 8, hb_wall_ns(), &names);
	if (!h)
		return hb_err_set(err, -ENOMEM, "out of memory");
	o = json_object_new_object();
	json_object_object_add(o, "hpa", hb_json_hex(exact));
	json_object_object_add(o, "page", hb_json_hex(hpa));
	json_object_object_add(o, "node", c.node >= 0 ? json_object_new_int(c.node) : NULL);
	json_object_object_add(o, "heat", hb_json_double(c.heat, 3));
	json_object_object_add(o, "threshold", hb_json_double(d->pcfg.threshold, 3));
	json_object_object_add(o, "hotness_source", source_json(d, c.source));
	json_object_object_add(o, "source_node",
			       json_object_new_boolean(c.node >= 0 && c.node < HB_MAX_NODES &&
						       d->nodes[c.node].is_source));
	json_object_object_add(o, "target", dec.target >= 0 ? json_object_new_int(dec.target) : NULL);
	json_object_object_add(o, "paused", json_object_new_boolean(d->paused));
	if (has_tenant)
		json_object_object_add(o, "tenant", json_object_new_string(tenant));
	q = hb_daemon_quarantined(d, hpa);
	if (outside) {
		/* a DRAM page we placed: never promoted, maybe demoted (below) */
		snprintf(why, sizeof(why), "%s", where.msg);
		json_object_object_add(o, "decision",
				       json_object_new_string(HB_EXPLAIN_NOT_IN_A_REGION));
	} else if (q) {
		/* set aside before the policy sees it, refused as quarantined */
		snprintf(why, sizeof(why),
			 "quarantined: the device reported it %s%s%s; it is never "
			 "promoted",
			 (q->why & HB_QUARANTINE_POISON) ? "poisoned" : "",
			 q->why == (HB_QUARANTINE_POISON | HB_QUARANTINE_UNCORRECTABLE) ? " and " : "",
			 (q->why & HB_QUARANTINE_UNCORRECTABLE) ? "with an uncorrectable error" : "");
		json_object_object_add(o, "decision", json_object_new_string("quarantined"));
	} else {
		add_decision(o, "decision", "when_resumed", d->paused, dec.reason, why, sizeof(why),
			     "promoted or demoted");
	}
	json_object_object_add(o, "quarantined", json_object_new_boolean(q != NULL));
	json_object_object_add(o, "reason", json_object_new_string(why));
	tokens = dec.target >= 0 ? hb_policy_tokens(d->policy, &d->pcfg, dec.target, now) : -1;
	json_object_object_add(o, "rate_limit_tokens_bytes",
			       tokens >= 0 ? hb_json_double(tokens, 0) : NULL);
	placed = d->dm.placed ? hb_placed_find(d->dm.placed, hpa) : NULL;
	if (placed) {
		hb_demote_evaluate(d->dm.demoter, &d->dm.dcfg, d->nodes, d->dm.placed, placed, NULL,
				   now, &dec);
		explain_reason(d, &dec, now, why, sizeof(why));
		add_decision(o, "demotion", "demotion_when_resumed", d->paused, dec.reason, why,
			     sizeof(why), "demoted");
		json_object_object_add(o, "demotion_reason", json_object_new_string(why));
	}
	json_object_object_add(o, "history", h);
	*ret = o;
	return 0;
}

int hb_daemon_explain_dpa(struct hb_daemon *d, const char *memdev, uint64_t dpa, json_object **ret,
			  struct hb_err *err)
{
	const struct hb_topology *t = hb_daemon_topology(d);
	struct hb_err where = { 0 };
	struct hb_xlat x;
	int md = hb_topology_find_memdev(t, memdev);
	int r;

	if (md < 0)
		return hb_err_set(err, md, HB_MEMDEV_UNKNOWN_FMT, memdev);
	r = hb_topology_dpa_to_hpa(t, md, dpa, &x, &where);
	if (cxl_region_check(r)) {
		*ret = not_in_a_region_json(d, false, 0, where.msg);
		return *ret ? 0 : hb_err_set(err, -ENOMEM, "out of memory");
	}
	if (r < 0)
		return hb_err_set(err, r, "%s", where.msg);
	return hb_daemon_explain(d, x.hpa, ret, err);
}

int hb_daemon_history(struct hb_daemon *d, bool page_only, uint64_t hpa, size_t last,
		      json_object **ret, struct hb_err *err)
{
	const char *buf[HB_MAX_SOURCES];
	struct hb_source_names names = source_names(d, buf);
	json_object *o, *a = hb_history_find_json(d->history, page_only, hpa, d->pcfg.page_size,
						  last, hb_wall_ns(), &names);

	if (!a)
		return hb_err_set(err, -ENOMEM, "out of memory");
	o = json_object_new_object();
	if (page_only)
		json_object_object_add(o, "page", hb_json_hex(hpa & ~(d->pcfg.page_size - 1)));
	json_object_object_add(o, "size", hb_daemon_json_u64(hb_history_size(d->history)));
	json_object_object_add(o, "held", hb_daemon_json_u64(hb_history_len(d->history)));
	json_object_object_add(o, "recorded", hb_daemon_json_u64(hb_history_total(d->history)));
	json_object_object_add(o, "entries", a);
	*ret = o;
	return 0;
}
