// SPDX-License-Identifier: MIT
/* Promotion rules. Pure: time, free memory and distances come in as data. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "macro.h"

struct hold {
	uint64_t key;            /* page + 1; 0 = empty */
	uint64_t until_ns;
};

struct bucket {
	double tokens;           /* bytes */
	uint64_t last_ns;
	bool primed;
};

struct hb_policy {
	struct hold *hold;       /* hysteresis: a small open-addressing table */
	size_t cap, len;
	struct bucket bucket[HB_MAX_NODES];
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
};

const char *hb_reason_to_string(enum hb_reason r)
{
	return (unsigned int)r < _HB_REASON_MAX ? reason_names[r] : NULL;
}

int hb_policy_new(size_t hysteresis_cap, struct hb_policy **ret, struct hb_err *err)
{
	struct hb_policy *p = calloc(1, sizeof(*p));
	size_t cap = 64;

	while (cap < 2 * hysteresis_cap)
		cap *= 2;
	if (!p || !(p->hold = calloc(cap, sizeof(*p->hold)))) {
		free(p);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
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
		return cfg->target_node < HB_MAX_NODES && nodes[cfg->target_node].present
			       ? cfg->target_node : -1;
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
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 24) & (p->cap - 1);
}

static bool held(const struct hb_policy *p, uint64_t page, uint64_t now)
{
	uint64_t key = page + 1;

	for (size_t s = hslot(p, key); p->hold[s].key; s = (s + 1) & (p->cap - 1))
		if (p->hold[s].key == key)
			return now < p->hold[s].until_ns;
	return false;
}

/* Full: forget everything that has expired (one pass), then insert. */
static void purge(struct hb_policy *p, uint64_t now)
{
	struct hold *old = p->hold;
	size_t cap = p->cap;

	p->hold = calloc(cap, sizeof(*p->hold));
	if (!p->hold) {
		p->hold = old;
		return;
	}
	p->len = 0;
	for (size_t i = 0; i < cap; i++) {
		size_t s;

		if (!old[i].key || old[i].until_ns <= now || p->len * 2 >= cap)
			continue;
		for (s = hslot(p, old[i].key); p->hold[s].key; s = (s + 1) & (cap - 1))
			;
		p->hold[s] = old[i];
		p->len++;
	}
	free(old);
}

void hb_policy_hold(struct hb_policy *p, const struct hb_policy_config *cfg, uint64_t hpa,
		    uint64_t now_ns)
{
	uint64_t key = hpa / cfg->page_size + 1;
	size_t s;

	if (!cfg->hysteresis_ns)
		return;
	for (s = hslot(p, key); p->hold[s].key; s = (s + 1) & (p->cap - 1)) {
		if (p->hold[s].key == key) {
			p->hold[s].until_ns = now_ns + cfg->hysteresis_ns;
			return;
		}
	}
	if ((p->len + 1) * 2 > p->cap) {
		purge(p, now_ns);
		for (s = hslot(p, key); p->hold[s].key; s = (s + 1) & (p->cap - 1))
			;
		if ((p->len + 1) * 2 > p->cap)
			return;   /* everything held is still live: the oldest intent wins */
	}
	p->hold[s] = (struct hold){ .key = key, .until_ns = now_ns + cfg->hysteresis_ns };
	p->len++;
}

static bool take_tokens(struct hb_policy *p, const struct hb_policy_config *cfg, int node,
			uint64_t now)
{
	struct bucket *b = &p->bucket[node];
	double depth = (cfg->burst_mb > 0 ? cfg->burst_mb : cfg->rate_mbps) * 1e6;

	if (cfg->rate_mbps <= 0)
		return true;
	if (!b->primed) {
		b->tokens = depth;
		b->last_ns = now;
		b->primed = true;
	}
	if (now > b->last_ns) {
		b->tokens += cfg->rate_mbps * 1e6 * (double)(now - b->last_ns) / 1e9;
		if (b->tokens > depth)
			b->tokens = depth;
		b->last_ns = now;
	}
	if (b->tokens < (double)cfg->page_size)
		return false;
	b->tokens -= (double)cfg->page_size;
	return true;
}

size_t hb_policy_decide(struct hb_policy *p, const struct hb_policy_config *cfg,
			const struct hb_numa_node *nodes,
			const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES],
			const struct hb_candidate *c, size_t n, uint64_t now_ns,
			struct hb_decision *out)
{
	uint64_t free_left[HB_MAX_NODES];
	size_t promoted = 0;

	for (int i = 0; i < HB_MAX_NODES; i++)
		free_left[i] = nodes[i].free_bytes;
	for (size_t i = 0; i < n; i++) {
		struct hb_decision *d = &out[i];
		int src = c[i].node;

		*d = (struct hb_decision){ .hpa = c[i].hpa, .heat = c[i].heat, .src = src,
					   .target = -1 };
		if (src < 0 || src >= HB_MAX_NODES || !nodes[src].is_source) {
			d->reason = HB_REASON_NOT_SOURCE;
			continue;
		}
		d->target = hb_policy_target(cfg, nodes, distance, src);
		if (d->target < 0 || d->target == src) {
			d->target = -1;
			d->reason = HB_REASON_NO_TARGET;
			continue;
		}
		if (c[i].heat < cfg->threshold) {
			d->reason = HB_REASON_BELOW_THRESHOLD;
			continue;
		}
		if (held(p, c[i].hpa / cfg->page_size, now_ns)) {
			d->reason = HB_REASON_HYSTERESIS;
			continue;
		}
		if (cfg->top_k && promoted >= cfg->top_k) {
			d->reason = HB_REASON_NOT_TOP_K;
			continue;
		}
		if (free_left[d->target] < cfg->watermark_bytes + cfg->page_size) {
			d->reason = HB_REASON_WATERMARK;
			continue;
		}
		if (!take_tokens(p, cfg, d->target, now_ns)) {
			d->reason = HB_REASON_RATE_LIMIT;
			continue;
		}
		free_left[d->target] -= cfg->page_size;
		d->reason = HB_REASON_PROMOTE;
		promoted++;
	}
	return promoted;
}
