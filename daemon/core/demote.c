// SPDX-License-Identifier: MIT
/*
 * Demotion rules. Pure: time, free memory and the pages' idle counts come
 * in as data. A DRAM node below its goal (the promotion watermark plus the
 * configured room) gives back its coldest placed pages, at most its bucket's
 * worth, to the CXL node, never below that node's floor, never a page
 * promoted less than the hysteresis time ago. A tenant over its
 * tenant.budget_mb gives back its pages first, coldest first, as many as
 * it is over, whether or not a node needs room.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

struct hb_demoter {
	struct hb_bucket bucket[HB_MAX_NODES]; /* pages, per DRAM node */
	uint64_t tenant_over[HB_TENANT_MAX];   /* pages each budget is over by */
	bool any_over;
};

void hb_demoter_set_tenant_over(struct hb_demoter *dm, const uint64_t *over, size_t n)
{
	memset(dm->tenant_over, 0, sizeof(dm->tenant_over));
	dm->any_over = false;
	for (size_t b = 0; b < n && b < HB_TENANT_MAX; b++) {
		dm->tenant_over[b] = over[b];
		dm->any_over |= over[b] != 0;
	}
}

int hb_demoter_new(struct hb_demoter **ret, struct hb_err *err)
{
	struct hb_demoter *dm = calloc(1, sizeof(*dm));

	if (!dm)
		return hb_err_set(err, -ENOMEM, "out of memory");
	*ret = dm;
	return 0;
}

struct hb_demoter *hb_demoter_free(struct hb_demoter *dm)
{
	free(dm);
	return NULL;
}

static double level(const struct hb_demoter *dm, const struct hb_demote_config *cfg, int node,
		    uint64_t now_ns)
{
	return hb_bucket_level(&dm->bucket[node], cfg->rate_pages, cfg->rate_pages, now_ns);
}

/* free bytes of node after spent pages left it (freed) or came onto it (used) */
static uint64_t free_after(const struct hb_numa_node *n, uint64_t freed, uint64_t used, uint64_t page)
{
	uint64_t f = n->free_bytes + freed * page;

	return f > used * page ? f - used * page : 0;
}

/*
 * over: the page's tenant is over its budget, which is reason enough to
 * demote it: neither a page still hot nor a node with room keeps it
 */
static enum hb_reason evaluate(const struct hb_demoter *dm, const struct hb_demote_config *cfg,
			       const struct hb_numa_node *nodes, const struct hb_placed *placed,
			       const struct hb_placed_page *e, const struct hb_demote_spent *spent,
			       uint64_t now_ns, bool over, struct hb_decision *ret)
{
	static const struct hb_demote_spent nothing;
	int src = e->node, dst = cfg->cxl_node >= 0 ? cfg->cxl_node : e->src;
	double tokens;

	if (!spent)
		spent = &nothing;
	*ret = (struct hb_decision){ .hpa = hb_placed_hpa(placed, e),
				     .heat = e->idle,
				     .src = src,
				     .target = -1,
				     .source = -1,
				     .held_since_ns = e->since_ns };
	if (dst < 0 || dst >= HB_MAX_NODES || !nodes[dst].present || !nodes[dst].is_source ||
	    src < 0 || src >= HB_MAX_NODES || dst == src)
		return ret->reason = HB_REASON_NO_CXL_NODE;
	ret->target = dst;
	if (now_ns < e->since_ns + cfg->hysteresis_ns)
		return ret->reason = HB_REASON_PROMOTED_RECENTLY;
	if (!over && e->idle < (cfg->cold_cycles ? cfg->cold_cycles : 1))
		return ret->reason = HB_REASON_NOT_COLD;
	if (!over && free_after(&nodes[src], spent->from[src], spent->to[src], cfg->page_size) >=
			     cfg->goal_bytes)
		return ret->reason = HB_REASON_DRAM_HAS_ROOM;
	if (free_after(&nodes[dst], spent->from[dst], spent->to[dst], cfg->page_size) <
	    cfg->cxl_floor_bytes + cfg->page_size)
		return ret->reason = HB_REASON_CXL_FLOOR;
	tokens = level(dm, cfg, src, now_ns);
	if (tokens >= 0 && tokens - (double)spent->from[src] < 1)
		return ret->reason = HB_REASON_DEMOTE_RATE_LIMIT;
	return ret->reason = HB_REASON_DEMOTE;
}

enum hb_reason hb_demote_evaluate(const struct hb_demoter *dm, const struct hb_demote_config *cfg,
				  const struct hb_numa_node *nodes, const struct hb_placed *placed,
				  const struct hb_placed_page *e, const struct hb_demote_spent *spent,
				  uint64_t now_ns, struct hb_decision *ret)
{
	return evaluate(dm, cfg, nodes, placed, e, spent, now_ns, false, ret);
}

struct cold {
	struct hb_placed_page *e;
	bool over; /* its tenant is over its budget: before every other page */
};

/* over-budget tenants' first, then coldest, the longest placed, by page (a total order) */
static int colder_first(const void *a, const void *b)
{
	const struct cold *ca = a, *cb = b;
	const struct hb_placed_page *x = ca->e, *y = cb->e;

	if (ca->over != cb->over)
		return ca->over ? -1 : 1;
	if (x->idle != y->idle)
		return x->idle > y->idle ? -1 : 1;
	if (x->since_ns != y->since_ns)
		return x->since_ns < y->since_ns ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * The cold pages as a heap, coldest on top: a cycle walks only as many as
 * it needs (its shortfall, a few thousand) of up to every placed page, in
 * the order a sort would give (colder_first is total), for O(n) to build
 * and O(log n) a page taken instead of a sort's O(n log n) every cycle.
 */
static void sift_down(struct cold *c, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, top = i;
		struct cold t;

		if (l < n && colder_first(&c[l], &c[top]) < 0)
			top = l;
		if (r < n && colder_first(&c[r], &c[top]) < 0)
			top = r;
		if (top == i)
			return;
		t = c[i];
		c[i] = c[top];
		c[top] = t;
		i = top;
	}
}

static void heapify(struct cold *c, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(c, n, i);
}

/* the coldest page, out of the heap of *n */
static struct cold pop_coldest(struct cold *c, size_t *n)
{
	struct cold top = c[0];

	c[0] = c[--*n];
	sift_down(c, *n, 0);
	return top;
}

/* x into the heap of *n (room for it: it was popped from there) */
static void push(struct cold *c, size_t *n, struct cold x)
{
	size_t i = (*n)++;

	c[i] = x;
	while (i && colder_first(&c[i], &c[(i - 1) / 2]) < 0) {
		struct cold t = c[i];

		c[i] = c[(i - 1) / 2];
		c[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static bool tenant_over(const struct hb_demoter *dm, const uint64_t *left,
			const struct hb_placed_page *e)
{
	return dm->any_over && e->tenant >= 0 && e->tenant < HB_TENANT_MAX && left[e->tenant];
}

/* pages node is short of its goal, or 0 */
static uint64_t shortfall(const struct hb_demote_config *cfg, const struct hb_numa_node *n)
{
	return n->free_bytes < cfg->goal_bytes ?
		       (cfg->goal_bytes - n->free_bytes + cfg->page_size - 1) / cfg->page_size :
		       0;
}

size_t hb_demote_select(const struct hb_demoter *dm, const struct hb_demote_config *cfg,
			const struct hb_numa_node *nodes, struct hb_placed *placed,
			uint64_t node_mask, uint64_t now_ns, struct hb_decision *out, size_t max,
			struct hb_demote_spent *ret_spent)
{
	struct hb_demote_spent spent = { 0 };
	uint64_t want[HB_MAX_NODES] = { 0 }, covered[HB_MAX_NODES] = { 0 }, any = 0;
	uint64_t left[HB_TENANT_MAX], over_left = 0; /* pages each tenant is still over by */
	bool dram[HB_MAX_NODES] = { 0 }, blocked[HB_MAX_NODES] = { 0 };
	unsigned int cold_min = cfg->cold_cycles ? cfg->cold_cycles : 1;
	struct hb_placed_page *e, *held[HB_MAX_NODES] = { 0 }, *warm[HB_MAX_NODES] = { 0 };
	struct cold *c = NULL;
	size_t nc = 0, n = 0, cursor = 0, short_nodes = 0;

	for (int t = 0; t < HB_MAX_NODES; t++) {
		dram[t] = (node_mask >> t) & 1 && nodes[t].present && !nodes[t].is_source;
		if (dram[t])
			want[t] = shortfall(cfg, &nodes[t]);
		any |= want[t];
		short_nodes += want[t] != 0;
	}
	memcpy(left, dm->tenant_over, sizeof(left));
	for (size_t b = 0; dm->any_over && b < HB_TENANT_MAX; b++)
		over_left += left[b];
	*ret_spent = spent;
	if ((!any && !over_left) || !hb_placed_len(placed) ||
	    !(c = malloc(hb_placed_len(placed) * sizeof(*c))))
		return 0;
	while ((e = hb_placed_next(placed, &cursor))) {
		struct cold h = { e, tenant_over(dm, left, e) }, plain = { e, false };

		if (e->node < 0 || e->node >= HB_MAX_NODES || !dram[e->node])
			continue;
		/*
		 * a tenant over its budget gives back its pages whether or
		 * not the node needs room, cold or not (coldest first), past
		 * the hysteresis and within the node's bucket
		 */
		if (h.over) {
			if (now_ns >= e->since_ns + cfg->hysteresis_ns)
				c[nc++] = h;
			continue;
		}
		if (!want[e->node])
			continue;
		if (e->idle < cold_min) {
			/* not cold (and past the hysteresis): only the coldest is kept */
			if (now_ns >= e->since_ns + cfg->hysteresis_ns &&
			    (!warm[e->node] ||
			     colder_first(&plain, &(struct cold){ warm[e->node], false }) < 0))
				warm[e->node] = e;
			continue;
		}
		if (now_ns >= e->since_ns + cfg->hysteresis_ns)
			c[nc++] = h;
		else if (!held[e->node] ||
			 colder_first(&plain, &(struct cold){ held[e->node], false }) < 0)
			held[e->node] = e; /* within the hysteresis: only the coldest is kept */
	}
	heapify(c, nc);
	/* until every short node is covered: the pages left would all be skipped */
	while (nc && n < max && (short_nodes || over_left)) {
		struct hb_decision *d = &out[n];
		struct cold top = pop_coldest(c, &nc);
		struct hb_placed_page *page = top.e;
		int t = page->node;

		if (blocked[t])
			continue;
		if (top.over && !left[page->tenant]) {
			/* its tenant is back within its budget: in line with the others, if cold */
			if (want[t] && page->idle >= cold_min)
				push(c, &nc, (struct cold){ page, false });
			continue;
		}
		if (!top.over && covered[t] >= want[t])
			continue;
		switch (evaluate(dm, cfg, nodes, placed, page, &spent, now_ns, top.over, d)) {
		case HB_REASON_DEMOTE:
			if (top.over) {
				left[page->tenant]--;
				over_left--;
			}
			spent.from[t]++;
			spent.to[d->target]++;
			spent.demoted++;
			if (covered[t] < want[t])
				short_nodes -= ++covered[t] == want[t];
			break;
		case HB_REASON_DEMOTE_RATE_LIMIT:
		case HB_REASON_CXL_FLOOR:
		case HB_REASON_NO_CXL_NODE:
			/*
			 * needed, refused, and so would be every page after it
			 * (the bucket, the CXL node's room and the target do not
			 * change within a cycle): one decision for the rest of
			 * the node's shortfall, not thousands alike
			 */
			if (covered[t] < want[t])
				short_nodes--;
			covered[t] = want[t];
			blocked[t] = true;
			break;
		default: break;
		}
		n++;
	}
	free(c);
	/*
	 * the pages within the hysteresis are out of the walk (each would be
	 * one promoted_recently decision a cycle, 250 000 in a run of
	 * vm-capacity-6.12): where they leave a node short, its coldest one
	 * says why
	 */
	for (int t = 0; t < HB_MAX_NODES && n < max; t++)
		if (covered[t] < want[t] && held[t])
			hb_demote_evaluate(dm, cfg, nodes, placed, held[t], &spent, now_ns,
					   &out[n++]);
	/*
	 * and the pages not cold yet: where they leave a node short, the
	 * coldest of them says so (not_cold), one decision a node, so that
	 * a node short of room with nothing demoted always has its reason
	 * (newuser r4 D9: a coldness source that never calls a page cold)
	 */
	for (int t = 0; t < HB_MAX_NODES && n < max; t++)
		if (covered[t] < want[t] && warm[t])
			hb_demote_evaluate(dm, cfg, nodes, placed, warm[t], &spent, now_ns,
					   &out[n++]);
	*ret_spent = spent;
	return n;
}

void hb_demoter_charge(struct hb_demoter *dm, const struct hb_demote_config *cfg,
		       const struct hb_demote_spent *spent, uint64_t now_ns)
{
	for (int t = 0; t < HB_MAX_NODES; t++)
		if (spent->from[t])
			hb_bucket_take(&dm->bucket[t], cfg->rate_pages, cfg->rate_pages,
				       (double)spent->from[t], now_ns);
}

size_t hb_demote_decide(struct hb_demoter *dm, const struct hb_demote_config *cfg,
			const struct hb_numa_node *nodes, struct hb_placed *placed,
			uint64_t node_mask, uint64_t now_ns, struct hb_decision *out, size_t max)
{
	struct hb_demote_spent spent;
	size_t n = hb_demote_select(dm, cfg, nodes, placed, node_mask, now_ns, out, max, &spent);

	hb_demoter_charge(dm, cfg, &spent, now_ns);
	return n;
}
