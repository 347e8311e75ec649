// SPDX-License-Identifier: MIT
/* Promotion rules. Pure: time, free memory and distances come in as data. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "util/macro.h"
#include "util/strtab.h"

struct hold {         /* 24 bytes */
	uint64_t key; /* page + 1; 0 = empty */
	uint64_t until_ns;
	int32_t result;        /* what the migration gave: node, or -errno */
	uint32_t hold_ms : 30; /* held since until_ns - hold_ms */
	uint32_t outcome : 2;  /* enum hb_hold_outcome */
};

_Static_assert(sizeof(struct hold) == 24, "a hold is 24 bytes");

struct hb_policy {
	struct hold *hold; /* hysteresis: a small open-addressing table */
	size_t cap, len;
	size_t sweep;     /* the next slot the sweep of expired holds looks at */
	uint64_t expired; /* holds the sweep removed */
	uint64_t dropped; /* holds not taken: the table was full of live ones */
	struct hb_bucket bucket[HB_MAX_NODES]; /* bytes */
	const struct hb_placed *placed;        /* pages on DRAM by our doing */
};

static const char *const reason_names[_HB_REASON_MAX] = {
	[HB_REASON_PROMOTE] = "promote",
	[HB_REASON_BELOW_THRESHOLD] = "below_threshold",
	[HB_REASON_NOT_TOP_K] = "not_top_k",
	[HB_REASON_HYSTERESIS] = "hysteresis",
	[HB_REASON_RATE_LIMIT] = "rate_limit",
	[HB_REASON_WATERMARK] = "watermark",
	[HB_REASON_NOT_SOURCE] = "not_on_a_source_node",
	[HB_REASON_NO_TARGET] = "no_target_node",
	[HB_REASON_ON_TARGET] = "already_on_target",
	[HB_REASON_REFUSED] = "refused_by_kernel",
	[HB_REASON_DEMOTED_RECENTLY] = "demoted_recently",
	[HB_REASON_RESIDENT] = "resident_on_dram",
	[HB_REASON_DEMOTE] = "demote",
	[HB_REASON_NOT_COLD] = "not_cold",
	[HB_REASON_PROMOTED_RECENTLY] = "promoted_recently",
	[HB_REASON_DRAM_HAS_ROOM] = "dram_has_room",
	[HB_REASON_DEMOTE_RATE_LIMIT] = "demote_rate_limit",
	[HB_REASON_CXL_FLOOR] = "cxl_floor",
	[HB_REASON_NO_CXL_NODE] = "no_cxl_node",
	[HB_REASON_TENANT_DENIED] = "tenant_denied",
	[HB_REASON_TENANT_BUDGET] = "tenant_at_budget",
	[HB_REASON_QUARANTINED] = "quarantined",
	[HB_REASON_FEW_EPOCHS] = "too_few_epochs",
};

HB_STRTAB_TO_STRING(hb_reason_to_string, enum hb_reason, reason_names, NULL)

int hb_policy_new(size_t hysteresis_cap, struct hb_policy **ret, struct hb_err *err)
{
	size_t cap = hysteresis_cap <= SIZE_MAX / 2 ? hb_pow2_at_least(2 * hysteresis_cap, 64) : 0;
	struct hb_policy *p;

	if (!cap)
		return hb_err_set(err, -EINVAL, "policy: %zu held pages are too many for one table",
				  hysteresis_cap);
	p = calloc(1, sizeof(*p));
	if (!p || !(p->hold = calloc(cap, sizeof(*p->hold)))) {
		free(p);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	hb_fault_in(p->hold, cap * sizeof(*p->hold)); /* holds land at random slots */
	p->cap = cap;
	*ret = p;
	return 0;
}

struct hb_policy *hb_policy_free(struct hb_policy *p)
{
	if (p) {
		free(p->hold);
		free(p);
	}
	return NULL;
}

int hb_policy_target(const struct hb_policy_config *cfg, const struct hb_numa_node *nodes,
		     const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES], int src)
{
	int best = -1;

	if (cfg->target_node >= 0)
		return cfg->target_node < HB_MAX_NODES && nodes[cfg->target_node].present ?
			       cfg->target_node :
			       -1;
	if (src < 0 || src >= HB_MAX_NODES)
		return -1;
	for (int n = 0; n < HB_MAX_NODES; n++) {
		if (!nodes[n].present || !nodes[n].has_cpus || n == src)
			continue;
		if (best < 0 || distance[src][n] < distance[src][best])
			best = n;
	}
	return best;
}

static size_t hslot(const struct hb_policy *p, uint64_t key)
{
	return hb_hash_slot(key, 24, p->cap);
}

/* the page's live hold, or NULL */
static const struct hold *held(const struct hb_policy *p, uint64_t page, uint64_t now)
{
	uint64_t key = page + 1;

	for (size_t s = hslot(p, key); p->hold[s].key; s = (s + 1) & (p->cap - 1))
		if (p->hold[s].key == key)
			return now < p->hold[s].until_ns ? &p->hold[s] : NULL;
	return NULL;
}

/*
 * Slots the sweep looks at each insert. Expired holds stay in the table
 * until the sweep, going round it, removes them: SWEEP slots an insert
 * cost a little each time, where a purge of the whole table once full
 * held the event loop 50-200 ms under TCG. With 8, the table goes round
 * every cap/8 inserts, so expired holds never fill it while at most 3/8
 * of its slots hold live ones.
 */
#define SWEEP 8

/* slot hole emptied: each later entry of its run moved up if its home allows */
static void remove_at(struct hb_policy *p, size_t hole)
{
	size_t mask = p->cap - 1;

	for (size_t s = (hole + 1) & mask; p->hold[s].key; s = (s + 1) & mask) {
		if (hb_hash_stays(hole, s, hslot(p, p->hold[s].key)))
			continue;
		p->hold[hole] = p->hold[s];
		hole = s;
	}
	p->hold[hole] = (struct hold){ 0 };
	p->len--;
}

static void sweep(struct hb_policy *p, uint64_t now)
{
	for (int k = 0; k < SWEEP; k++) {
		const struct hold *h = &p->hold[p->sweep];

		if (h->key && h->until_ns <= now) {
			remove_at(p, p->sweep); /* a later entry may have moved in: looked at next */
			p->expired++;
			continue;
		}
		p->sweep = (p->sweep + 1) & (p->cap - 1);
	}
}

void hb_policy_hold(struct hb_policy *p, const struct hb_policy_config *cfg, uint64_t hpa,
		    uint64_t now_ns)
{
	hb_policy_hold_outcome(p, cfg, hpa, now_ns, HB_HOLD_MOVED, cfg->target_node);
}

void hb_policy_hold_outcome(struct hb_policy *p, const struct hb_policy_config *cfg, uint64_t hpa,
			    uint64_t now_ns, enum hb_hold_outcome outcome, int result)
{
	uint64_t key = hpa / cfg->page_size + 1;
	struct hold h = { .key = key,
			  .until_ns = now_ns + cfg->hysteresis_ns,
			  .result = result,
			  .hold_ms = (uint32_t)(cfg->hysteresis_ns / 1000000ULL) & ((1U << 30) - 1),
			  .outcome = (uint32_t)outcome & 3 };
	size_t s;

	if (!cfg->hysteresis_ns)
		return;
	sweep(p, now_ns);
	for (s = hslot(p, key); p->hold[s].key; s = (s + 1) & (p->cap - 1)) {
		if (p->hold[s].key == key) {
			p->hold[s] = h;
			return;
		}
	}
	if ((p->len + 1) * 2 > p->cap) {
		p->dropped++; /* live holds fill it: the oldest intent wins */
		return;
	}
	p->hold[s] = h;
	p->len++;
}

static double depth_of(const struct hb_policy_config *cfg)
{
	return (cfg->burst_mb > 0 ? cfg->burst_mb : cfg->rate_mbps) * 1e6;
}

double hb_policy_tokens(const struct hb_policy *p, const struct hb_policy_config *cfg, int node,
			uint64_t now_ns)
{
	return hb_bucket_level(&p->bucket[node], cfg->rate_mbps * 1e6, depth_of(cfg), now_ns);
}

void hb_policy_hold_counts(const struct hb_policy *p, size_t *held, uint64_t *expired,
			   uint64_t *dropped)
{
	*held = p->len;
	*expired = p->expired;
	*dropped = p->dropped;
}

void hb_policy_set_placed(struct hb_policy *p, const struct hb_placed *placed)
{
	p->placed = placed;
}

static const enum hb_reason hold_reason[4] = {
	[HB_HOLD_MOVED] = HB_REASON_HYSTERESIS,
	[HB_HOLD_ON_TARGET] = HB_REASON_ON_TARGET,
	[HB_HOLD_REFUSED] = HB_REASON_REFUSED,
	[HB_HOLD_DEMOTED] = HB_REASON_DEMOTED_RECENTLY,
};

enum hb_reason hb_policy_evaluate(const struct hb_policy *p, const struct hb_policy_config *cfg,
				  const struct hb_numa_node *nodes,
				  const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES],
				  const struct hb_candidate *c, const struct hb_policy_spent *spent,
				  uint64_t now_ns, struct hb_decision *ret)
{
	static const struct hb_policy_spent nothing;
	struct hb_decision *d = ret;
	const struct hold *h;
	int src = c->node;
	double tokens;

	if (!spent)
		spent = &nothing;
	*d = (struct hb_decision){
		.hpa = c->hpa,
		.heat = c->heat,
		.src = src,
		.target = -1,
		.source = c->source,
		.epochs = c->epochs,
	};
	if (src < 0 || src >= HB_MAX_NODES || !nodes[src].is_source)
		return d->reason = HB_REASON_NOT_SOURCE;
	d->target = hb_policy_target(cfg, nodes, distance, src);
	if (d->target < 0 || d->target == src) {
		d->target = -1;
		return d->reason = HB_REASON_NO_TARGET;
	}
	/* held first: a page just promoted has lost its heat, and that is not why */
	h = held(p, c->hpa / cfg->page_size, now_ns);
	if (h) {
		d->held_since_ns = h->until_ns - (uint64_t)h->hold_ms * 1000000ULL;
		d->held_result = h->result;
		return d->reason = hold_reason[h->outcome]; /* 2 bits, 4 entries */
	}
	/* on DRAM by our doing, not demoted since: nothing to do */
	if (p->placed && hb_placed_find(p->placed, c->hpa)) {
		d->held_result = d->target;
		return d->reason = HB_REASON_RESIDENT;
	}
	/* heat 0 is no access (a record with count 0): never promoted, whatever the threshold */
	if (!(c->heat > 0) || c->heat < cfg->threshold)
		return d->reason = HB_REASON_BELOW_THRESHOLD;
	/* hot in one epoch only (a one-pass scan): not yet */
	if (cfg->min_epochs > 1 && c->epochs < cfg->min_epochs)
		return d->reason = HB_REASON_FEW_EPOCHS;
	if (cfg->top_k && spent->promoted >= cfg->top_k)
		return d->reason = HB_REASON_NOT_TOP_K;
	if (nodes[d->target].free_bytes < spent->bytes[d->target] ||
	    nodes[d->target].free_bytes - spent->bytes[d->target] <
		    cfg->watermark_bytes + cfg->page_size)
		return d->reason = HB_REASON_WATERMARK;
	tokens = hb_policy_tokens(p, cfg, d->target, now_ns);
	if (tokens >= 0 && tokens - (double)spent->bytes[d->target] < (double)cfg->page_size)
		return d->reason = HB_REASON_RATE_LIMIT;
	return d->reason = HB_REASON_PROMOTE;
}

size_t hb_policy_select(const struct hb_policy *p, const struct hb_policy_config *cfg,
			const struct hb_numa_node *nodes,
			const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES],
			const struct hb_candidate *c, size_t n, uint64_t now_ns,
			struct hb_decision *out, struct hb_policy_spent *ret_spent)
{
	struct hb_policy_spent spent = { 0 };

	for (size_t i = 0; i < n; i++) {
		if (hb_policy_evaluate(p, cfg, nodes, distance, &c[i], &spent, now_ns, &out[i]) !=
		    HB_REASON_PROMOTE)
			continue;
		spent.bytes[out[i].target] += cfg->page_size;
		spent.promoted++;
	}
	*ret_spent = spent;
	return spent.promoted;
}

void hb_policy_charge(struct hb_policy *p, const struct hb_policy_config *cfg,
		      const struct hb_policy_spent *spent, uint64_t now_ns)
{
	for (int node = 0; node < HB_MAX_NODES; node++)
		if (spent->bytes[node])
			hb_bucket_take(&p->bucket[node], cfg->rate_mbps * 1e6, depth_of(cfg),
				       (double)spent->bytes[node], now_ns);
}

size_t hb_policy_decide(struct hb_policy *p, const struct hb_policy_config *cfg,
			const struct hb_numa_node *nodes,
			const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES],
			const struct hb_candidate *c, size_t n, uint64_t now_ns,
			struct hb_decision *out)
{
	struct hb_policy_spent spent;
	size_t promoted = hb_policy_select(p, cfg, nodes, distance, c, n, now_ns, out, &spent);

	hb_policy_charge(p, cfg, &spent, now_ns);
	return promoted;
}
