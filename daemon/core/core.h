/* SPDX-License-Identifier: MIT */
/*
 * daemon/core/: what the daemon decides with, all pure (no I/O):
 *   heat.c    the page-granular hotness table: exponential decay per cycle
 *             (applied lazily, O(1) per update), a fixed entry budget, the
 *             coldest of a random sample evicted when full
 *   policy.c  promotion rules: threshold, top-K, hysteresis, per-node rate
 *             limit (token bucket), DRAM free-memory watermark, the target
 *             node (explicit, else the nearest node with CPUs)
 *   bucket.c  the token bucket both directions' rate limits use
 *   placed.c  the pages hotbridge placed on DRAM (promoted, not demoted
 *             since) and how many coldness checks in a row found them idle
 *   demote.c  demotion rules: the DRAM free-space goal (watermark + room),
 *             the coldest placed pages first, a per-node token bucket in
 *             pages, the CXL node's free-memory floor, hysteresis
 *   latency.c record -> table and record -> decision latency histograms
 *   history.c the last decisions acted on or refused, and what migration
 *             gave: two rings (acted on, refused) of fixed size, allocated
 *             and touched once
 */
#ifndef HB_CORE_H
#define HB_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* ---- hotness table ---- */

struct hb_heat_stats {
	uint64_t updates, inserts, evictions, forgotten;
	uint64_t relists; /* collects that swept the whole table (heat.c's hot list) */
};

struct hb_heat_table;

/*
 * max_entries: the budget (memory is a fixed 24 bytes x the next power of
 * two >= 2 x max_entries, allocated up front). decay: the factor applied
 * per cycle, in (0, 1]. page_shift: log2 of the page size.
 */
int hb_heat_new(size_t max_entries, double decay, unsigned int page_shift,
		struct hb_heat_table **ret, struct hb_err *err);
struct hb_heat_table *hb_heat_free(struct hb_heat_table *t);
/* what hb_heat_new() allocates for max_entries: slots and bytes */
size_t hb_heat_slots(size_t max_entries);
uint64_t hb_heat_bytes_for(size_t max_entries);

/*
 * count accesses to [hpa, hpa + len) on node: a range larger than a page
 * is split (each page gets its share), a smaller one counts whole for its
 * page. Returns the number of pages touched.
 */
size_t hb_heat_add(struct hb_heat_table *t, uint64_t hpa, uint64_t len, double count, int node);
/* the same, naming the source (its index in the daemon, >= 0) the count came from */
size_t hb_heat_add_from(struct hb_heat_table *t, uint64_t hpa, uint64_t len, double count, int node,
			int src);
/* the source that last added to hpa's page, or -1 (none named, or not in the table) */
int hb_heat_source(const struct hb_heat_table *t, uint64_t hpa);
/*
 * The distinct cycles (hb_heat_tick()) in which hpa's page was added to,
 * up to 255, since it entered the table or its heat last decayed to
 * nothing; 0 when it is not in the table.
 */
unsigned int hb_heat_epochs(const struct hb_heat_table *t, uint64_t hpa);
/* A hint: hpa's slot will be updated soon (batches overlap their cache misses). */
void hb_heat_prefetch(const struct hb_heat_table *t, uint64_t hpa);
void hb_heat_tick(struct hb_heat_table *t); /* one cycle passes */
double hb_heat_get(const struct hb_heat_table *t, uint64_t hpa, int *ret_node);
bool hb_heat_forget(struct hb_heat_table *t, uint64_t hpa);
/*
 * After a topology change: each page's node is asked again; pages on no
 * node any more are forgotten (returned: how many). O(table size).
 */
size_t hb_heat_revalidate(struct hb_heat_table *t, int (*node_of)(void *ud, uint64_t hpa), void *ud);
size_t hb_heat_len(const struct hb_heat_table *t);
size_t hb_heat_bytes(const struct hb_heat_table *t);
const struct hb_heat_stats *hb_heat_stats(const struct hb_heat_table *t);

struct hb_candidate {
	uint64_t hpa; /* page address */
	double heat;
	int node;            /* where the page is now */
	int source;          /* the source that last reported it (daemon index), or -1 */
	unsigned int epochs; /* the distinct cycles it was reported in (hb_heat_epochs()) */
};

/*
 * Pages with heat >= threshold, hottest first, at most max (ties by
 * address: the order is total). From the table's hot list (heat.c), which
 * it compacts; a threshold lower than the last one's sweeps the table once.
 */
size_t hb_heat_collect(struct hb_heat_table *t, double threshold, struct hb_candidate *out,
		       size_t max);
/*
 * The same in two parts, the sort apart (for another thread than the
 * table's): the pages, in no order ...
 */
size_t hb_heat_gather(struct hb_heat_table *t, double threshold, struct hb_candidate *out,
		      size_t max);
/* ... then hottest first, ties by address */
void hb_candidates_sort(struct hb_candidate *c, size_t n);
/*
 * The hottest max pages of the whole table, hottest first, whatever their
 * heat, for a look from outside (the control socket's heat request): the
 * table is read only (not its hot list, which hb_heat_gather() keeps for
 * the policy), one sweep of its slots.
 */
size_t hb_heat_hottest(const struct hb_heat_table *t, struct hb_candidate *out, size_t max);

/* ---- policy ---- */

enum hb_reason {
	HB_REASON_PROMOTE,
	HB_REASON_BELOW_THRESHOLD,
	HB_REASON_NOT_TOP_K,
	HB_REASON_HYSTERESIS,       /* held: moved (or to be retried) recently */
	HB_REASON_RATE_LIMIT,       /* the target's token bucket is empty */
	HB_REASON_WATERMARK,        /* the target is below its free-memory watermark */
	HB_REASON_NOT_SOURCE,       /* the page is not on a source (CXL) node */
	HB_REASON_NO_TARGET,        /* no target node */
	HB_REASON_ON_TARGET,        /* held: the migrator found it on the target already */
	HB_REASON_REFUSED,          /* held: the kernel refused to move it (an errno) */
	HB_REASON_DEMOTED_RECENTLY, /* held: demoted less than hysteresis ago */
	HB_REASON_RESIDENT,         /* on DRAM by our doing (promoted, not demoted since) */
	/* demotion (demote.c): of pages hotbridge placed on DRAM */
	HB_REASON_DEMOTE,
	HB_REASON_NOT_COLD,          /* accessed within its last cold_cycles checks */
	HB_REASON_PROMOTED_RECENTLY, /* promoted less than hysteresis ago */
	HB_REASON_DRAM_HAS_ROOM,     /* its node is at or above watermark + room */
	HB_REASON_DEMOTE_RATE_LIMIT, /* its node's demotion bucket is empty */
	HB_REASON_CXL_FLOOR,         /* the CXL node would fall below its floor */
	HB_REASON_NO_CXL_NODE,       /* the configured CXL node is not a source node */
	/* tenants (tenant.c): the page's cgroup */
	HB_REASON_TENANT_DENIED, /* tenant.deny/allow/no_cgroup refuse it, or its owner is unknown */
	HB_REASON_TENANT_BUDGET, /* its cgroup's tenant.budget_mb is reached */
	HB_REASON_QUARANTINED,   /* poisoned or uncorrectable: never moved (media-events.c) */
	HB_REASON_FEW_EPOCHS,    /* hot, but reported in fewer than min_epochs cycles */
	_HB_REASON_MAX,
};

const char *hb_reason_to_string(enum hb_reason r);

#define HB_MAX_NODES 64

/* ---- token bucket (bucket.c) ---- */

struct hb_bucket {
	double tokens;
	uint64_t last_ns;
	bool primed; /* false: full */
};

/* The level now, refilled at rate per second up to depth; -1 when rate <= 0 (no limit). */
double hb_bucket_level(const struct hb_bucket *b, double rate, double depth, uint64_t now_ns);
/* Refill to now, then take amount (may go negative: what the level allowed is the caller's). */
void hb_bucket_take(struct hb_bucket *b, double rate, double depth, double amount, uint64_t now_ns);

/* ---- pages placed on DRAM (placed.c) ---- */

struct hb_placed_page {    /* 24 bytes */
	uint64_t key;      /* page number + 1; 0 = empty slot */
	uint64_t since_ns; /* promoted then */
	int16_t src, node; /* came from (CXL), is on (DRAM) */
	uint16_t idle;     /* coldness checks in a row that found it idle */
	bool marked;       /* marked idle since it was placed */
	int8_t tenant;     /* the tenant.budget_mb it counts to (-1: none), as the
			      daemon last read it (hb_demoter_set_tenant_over) */
};

struct hb_placed;

/* At most max pages (grows to it); page_size a power of two. */
int hb_placed_new(size_t max, uint64_t page_size, struct hb_placed **ret, struct hb_err *err);
struct hb_placed *hb_placed_free(struct hb_placed *p);
/* 0, or -ENOSPC when max pages are placed already, -ENOMEM */
int hb_placed_add(struct hb_placed *p, uint64_t hpa, int src, int node, uint64_t now_ns);
bool hb_placed_remove(struct hb_placed *p, uint64_t hpa);
/*
 * Room made now for n pages (at most the budget), so that adding them
 * later never grows the table (a rehash of all of it at once); 0 or -ENOMEM
 */
int hb_placed_reserve(struct hb_placed *p, size_t n);
const struct hb_placed_page *hb_placed_find(const struct hb_placed *p, uint64_t hpa);
struct hb_placed_page *hb_placed_get(struct hb_placed *p, uint64_t hpa); /* to change it */
size_t hb_placed_len(const struct hb_placed *p);
size_t hb_placed_bytes(const struct hb_placed *p); /* its slots' memory */
uint64_t hb_placed_hpa(const struct hb_placed *p, const struct hb_placed_page *e);
/* Walk: *cursor starts at 0; NULL at the end. Entries may be changed, not added or removed. */
struct hb_placed_page *hb_placed_next(struct hb_placed *p, size_t *cursor);

struct hb_numa_node {
	bool present, has_cpus, is_source; /* is_source: a CXL node to promote from */
	uint64_t free_bytes;
};

struct hb_policy_config {
	double threshold;         /* heat needed */
	size_t top_k;             /* promotions per cycle at most; 0 = no limit */
	uint64_t hysteresis_ns;   /* no retry of a page for this long */
	double rate_mbps;         /* per target node; 0 = no limit */
	double burst_mb;          /* token bucket depth */
	uint64_t watermark_bytes; /* stop promoting to a node with less free */
	int target_node;          /* -1: the nearest node with CPUs */
	uint64_t page_size;
	unsigned int min_epochs; /* distinct cycles a page must be reported in; 0 or 1: one */
};

struct hb_policy;

int hb_policy_new(size_t hysteresis_cap, struct hb_policy **ret, struct hb_err *err);
struct hb_policy *hb_policy_free(struct hb_policy *p);

/*
 * The target for pages on src: cfg->target_node if >= 0 (and present),
 * else the node with CPUs nearest to src by distance[src][n] (ties: the
 * lower node). -1 if none.
 */
int hb_policy_target(const struct hb_policy_config *cfg, const struct hb_numa_node *nodes,
		     const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES], int src);

struct hb_decision {
	uint64_t hpa;
	double heat;
	int src, target;
	int source;          /* the hotness source behind a promotion (daemon index), or -1 */
	unsigned int epochs; /* the candidate's (FEW_EPOCHS: how many it was seen in) */
	enum hb_reason reason;
	/* a held page (HYSTERESIS, ON_TARGET, REFUSED): since when, what its
	 * migration gave (the node reached, or -errno) */
	uint64_t held_since_ns;
	int held_result;
};

/* What the decisions of one cycle have used so far (zero: nothing yet). */
struct hb_policy_spent {
	size_t promoted;
	uint64_t bytes[HB_MAX_NODES]; /* promoted to each node: free memory, tokens */
};

/*
 * The decision for one candidate now, after spent (NULL: nothing spent),
 * with every rule evaluated, the rate limit included. Charges nothing: two
 * evaluations give the same answer and leave the policy as it was.
 */
enum hb_reason hb_policy_evaluate(const struct hb_policy *p, const struct hb_policy_config *cfg,
				  const struct hb_numa_node *nodes,
				  const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES],
				  const struct hb_candidate *c, const struct hb_policy_spent *spent,
				  uint64_t now_ns, struct hb_decision *ret);

/* The token bucket of node now, in bytes (without charging); -1 = no limit. */
double hb_policy_tokens(const struct hb_policy *p, const struct hb_policy_config *cfg, int node,
			uint64_t now_ns);

/*
 * One decision per candidate (hottest first), in out[0..n): each is
 * hb_policy_evaluate() after the ones before it, then the promotions are
 * charged to their targets' buckets. Free memory is debited as pages are
 * promoted, so a cycle cannot push a node below its watermark.
 * Returns the number of HB_REASON_PROMOTE decisions.
 */
size_t hb_policy_decide(struct hb_policy *p, const struct hb_policy_config *cfg,
			const struct hb_numa_node *nodes,
			const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES],
			const struct hb_candidate *c, size_t n, uint64_t now_ns,
			struct hb_decision *out);
/*
 * The same in two parts, for a decision made on another thread than the
 * one that reads the buckets: the decisions and what they spend, the
 * policy only read (returns the promotions) ...
 */
size_t hb_policy_select(const struct hb_policy *p, const struct hb_policy_config *cfg,
			const struct hb_numa_node *nodes,
			const uint8_t distance[HB_MAX_NODES][HB_MAX_NODES],
			const struct hb_candidate *c, size_t n, uint64_t now_ns,
			struct hb_decision *out, struct hb_policy_spent *ret_spent);
/* ... and what they spent charged to the targets' buckets */
void hb_policy_charge(struct hb_policy *p, const struct hb_policy_config *cfg,
		      const struct hb_policy_spent *spent, uint64_t now_ns);

/*
 * The hysteresis table: holds in it (live, or expired and not yet swept
 * out), holds the sweep removed, and holds not taken because it was full
 * of live ones (the oldest intent wins).
 */
void hb_policy_hold_counts(const struct hb_policy *p, size_t *held, uint64_t *expired,
			   uint64_t *dropped);

/* Pages on DRAM by our doing are HB_REASON_RESIDENT (borrowed; NULL: none). */
void hb_policy_set_placed(struct hb_policy *p, const struct hb_placed *placed);

/* After migration: the page is not reconsidered until now + hysteresis. */
void hb_policy_hold(struct hb_policy *p, const struct hb_policy_config *cfg, uint64_t hpa,
		    uint64_t now_ns);

/* What the migration of a held page gave: the reason it is held under. */
enum hb_hold_outcome {
	HB_HOLD_MOVED,     /* moved (or to retry): HB_REASON_HYSTERESIS */
	HB_HOLD_ON_TARGET, /* was there already: HB_REASON_ON_TARGET */
	HB_HOLD_REFUSED,   /* an errno from the kernel: HB_REASON_REFUSED */
	HB_HOLD_DEMOTED,   /* demoted: HB_REASON_DEMOTED_RECENTLY */
};

/* hb_policy_hold() saying why; result: the node reached, or -errno. */
void hb_policy_hold_outcome(struct hb_policy *p, const struct hb_policy_config *cfg, uint64_t hpa,
			    uint64_t now_ns, enum hb_hold_outcome outcome, int result);

/* ---- demotion (demote.c) ---- */

struct hb_demote_config {
	uint64_t goal_bytes;      /* demote from a DRAM node while it has less free:
				      the promotion watermark + demote.room_mb */
	double rate_pages;        /* per DRAM node per second; 0 = no limit */
	uint64_t cxl_floor_bytes; /* never leave the CXL node with less free */
	int cxl_node;             /* where demoted pages go; -1: the node each came from */
	unsigned int cold_cycles; /* idle checks in a row before a page is cold (>= 1) */
	uint64_t hysteresis_ns;   /* none demoted within this of its promotion */
	uint64_t page_size;
};

struct hb_demoter;

int hb_demoter_new(struct hb_demoter **ret, struct hb_err *err);
struct hb_demoter *hb_demoter_free(struct hb_demoter *dm);

/* What one cycle's demotions have used so far (zero: nothing yet). */
struct hb_demote_spent {
	size_t demoted;
	uint64_t from[HB_MAX_NODES]; /* pages demoted off each DRAM node */
	uint64_t to[HB_MAX_NODES];   /* pages demoted onto each CXL node */
};

/*
 * The decision for one placed page now, after spent (NULL: nothing), every
 * rule evaluated, charging nothing. ret->heat is the page's idle count,
 * ret->src its DRAM node, ret->target the CXL node it would go to.
 */
enum hb_reason hb_demote_evaluate(const struct hb_demoter *dm, const struct hb_demote_config *cfg,
				  const struct hb_numa_node *nodes, const struct hb_placed *placed,
				  const struct hb_placed_page *e, const struct hb_demote_spent *spent,
				  uint64_t now_ns, struct hb_decision *ret);

/*
 * The cycle's demotion decisions, at most max, into out: for each DRAM node
 * in node_mask below the goal, its cold placed pages, coldest first (then
 * the longest placed), each hb_demote_evaluate() after those before it,
 * until the node's shortfall is covered by demotions or refusals; pages
 * not needed get no decision. A node left short has the coldest of its
 * pages within the hysteresis and the coldest of those not cold yet say
 * why (one promoted_recently, one not_cold). Before all of them, and on
 * any DRAM node in node_mask, the pages of tenants over their budget
 * (hb_demoter_set_tenant_over()). The demotions are charged to their
 * nodes' buckets. Returns the number of decisions.
 */
size_t hb_demote_decide(struct hb_demoter *dm, const struct hb_demote_config *cfg,
			const struct hb_numa_node *nodes, struct hb_placed *placed,
			uint64_t node_mask, uint64_t now_ns, struct hb_decision *out, size_t max);
/*
 * The same in two parts, for a decision made on another thread than the
 * one that reads the buckets: the decisions and what they spend, the
 * demoter and the placed pages only read ...
 */
size_t hb_demote_select(const struct hb_demoter *dm, const struct hb_demote_config *cfg,
			const struct hb_numa_node *nodes, struct hb_placed *placed,
			uint64_t node_mask, uint64_t now_ns, struct hb_decision *out, size_t max,
			struct hb_demote_spent *ret_spent);
/*
 * Tenants over their budget (tenant.budget_mb lowered by a reload, or
 * pages counted that are not there): over[b] pages of budget b to shed,
 * b < n. hb_demote_select() then takes the pages whose tenant field is
 * such a b first, coldest first, up to over[b] of each, before any other
 * page: whether or not their node needs room, cold or not (the budget is
 * a limit), but past the hysteresis, within the node's bucket and above
 * the CXL floor. All zero (the default): the field is not read.
 */
void hb_demoter_set_tenant_over(struct hb_demoter *dm, const uint64_t *over, size_t n);
/* ... and what they spent charged to the nodes' buckets */
void hb_demoter_charge(struct hb_demoter *dm, const struct hb_demote_config *cfg,
		       const struct hb_demote_spent *spent, uint64_t now_ns);

/* ---- tenants (tenant.c) ---- */

#define HB_TENANT_MAX 32 /* patterns in each of allow, deny, budget_mb */
/*
 * bytes of a pattern, its NUL included: as long as a value may be (1023
 * characters), so that a Kubernetes container's path (about 191) fits
 */
#define HB_TENANT_PATTERN_MAX 1024

struct hb_tenant_pattern {
	char pattern[HB_TENANT_PATTERN_MAX]; /* "/a/b*": cgroup v2 path, '*' patterns */
	uint64_t budget_mib;                 /* budget_mb only */
};

/*
 * tenant.allow, tenant.deny, tenant.budget_mb and tenant.no_cgroup parsed.
 * A pattern matches a cgroup path ("/" the root, "/a/b") or any ancestor
 * of it, with fnmatch(3) and FNM_PATHNAME: '*' matches within one path
 * component, never a '/'. ("/k8s" covers "/k8s/pod1/ctr"; "/k8s/pod-*"
 * covers "/k8s/pod-1" and below, not "/k8s/pod-1x/.." of another level.)
 */
struct hb_tenant_rules {
	struct hb_tenant_pattern allow[HB_TENANT_MAX], deny[HB_TENANT_MAX], budget[HB_TENANT_MAX];
	size_t nallow, ndeny, nbudget;
	bool no_cgroup_deny; /* pages of no cgroup (kpagecgroup inode 0) are refused */
	bool active;         /* any rule given: pages' owners must be read */
};

/*
 * The four keys' values checked and parsed (comma-separated lists, blanks
 * around items allowed; budget_mb items are PATTERN=MIB). -EINVAL with err
 * naming the key and the value otherwise.
 */
int hb_tenant_rules_parse(const char *allow, const char *deny, const char *budgets,
			  const char *no_cgroup, struct hb_tenant_rules *ret, struct hb_err *err);
/* pattern matches path or one of its ancestors (above) */
bool hb_tenant_match(const char *pattern, const char *path);

enum hb_tenant_verdict {
	HB_TENANT_ALLOWED,
	HB_TENANT_DENIED,           /* a tenant.deny pattern matches (deny wins over allow) */
	HB_TENANT_NOT_ALLOWED,      /* tenant.allow is given and none matches */
	HB_TENANT_NO_CGROUP_DENIED, /* a page of no cgroup, tenant.no_cgroup=deny */
	HB_TENANT_AT_BUDGET,        /* its budget's pages promoted have reached the budget */
	_HB_TENANT_VERDICT_MAX,
};
const char *hb_tenant_verdict_to_string(enum hb_tenant_verdict v);

/* which pattern of each list decided (index, or -1) */
struct hb_tenant_rule {
	int allow, deny, budget;
};

/*
 * The verdict for a page of cgroup path (NULL: of no cgroup) now that
 * promoted[b] pages (of page_size) are on DRAM by our doing for each
 * budget b. A path's budget is the first budget_mb pattern that matches
 * it: every cgroup it matches shares that budget. ret->budget is the
 * budget a promotion is counted to.
 */
enum hb_tenant_verdict hb_tenant_evaluate(const struct hb_tenant_rules *r, const char *path,
					  const uint64_t *promoted, uint64_t page_size,
					  struct hb_tenant_rule *ret);
/* one line for explain and the log: the cgroup, the verdict and the rule */
int hb_tenant_describe(const struct hb_tenant_rules *r, const char *path, enum hb_tenant_verdict v,
		       const struct hb_tenant_rule *rule, const uint64_t *promoted,
		       uint64_t page_size, char *buf, size_t size);
/* path's budget (the first budget_mb pattern matching it), or -1 */
int hb_tenant_budget_of(const struct hb_tenant_rules *r, const char *path);
/* budget b in pages of page_size */
uint64_t hb_tenant_budget_pages(const struct hb_tenant_rules *r, int budget, uint64_t page_size);
/*
 * The earlier budget_mb pattern that matches every cgroup budget b's
 * pattern matches (so b never counts a page), or -1: the earlier one
 * matches b's pattern read as a path, its '*' a character of a name
 * (which the earlier one's '*' matches as it matches any).
 */
int hb_tenant_budget_shadowed_by(const struct hb_tenant_rules *r, int budget);
/* the warning for budget b shadowed by budget by: both patterns named */
int hb_tenant_shadow_describe(const struct hb_tenant_rules *r, int budget, int by, char *buf,
			      size_t size);
/* pages of budget b to demote to bring promoted back within it (0: within) */
uint64_t hb_tenant_over(const struct hb_tenant_rules *r, int budget, uint64_t promoted,
			uint64_t page_size);

/* ---- history ---- */

#define HB_HISTORY_MIN 16
#define HB_HISTORY_MAX (1U << 20)
#define HB_HISTORY_NO_RESULT INT32_MIN /* not handed to the migrator */

/* 64 bytes */
struct hb_history_entry {
	uint64_t time_ns; /* CLOCK_REALTIME */
	uint64_t hpa;     /* the page */
	uint64_t dpa;     /* on memdev, when memdev[0] */
	char memdev[16];  /* "" = not known */
	double heat;
	int16_t src, target;        /* nodes; -1 none */
	uint8_t reason;             /* enum hb_reason */
	int16_t source;             /* the hotness source (daemon index); -1 none */
	int32_t result;             /* the node reached, -errno, or HB_HISTORY_NO_RESULT */
	uint8_t epochs, min_epochs; /* too_few_epochs: seen in epochs of min_epochs */
};

struct hb_history;

/*
 * size entries (HB_HISTORY_MIN..HB_HISTORY_MAX), allocated and touched here
 * once: half for promotions, half for refusals, so that refusals repeated
 * every cycle never push out what was done.
 */
int hb_history_new(size_t size, struct hb_history **ret, struct hb_err *err);
struct hb_history *hb_history_free(struct hb_history *h);
/* appends, overwriting the oldest entry of its half when full */
void hb_history_add(struct hb_history *h, const struct hb_history_entry *e);
size_t hb_history_len(const struct hb_history *h);     /* entries held */
size_t hb_history_size(const struct hb_history *h);    /* capacity */
uint64_t hb_history_total(const struct hb_history *h); /* ever added */
size_t hb_history_bytes(const struct hb_history *h);
/*
 * Up to max entries, newest first, into out[]: all of them, or (page_only)
 * those of the page holding hpa (page_size: a power of two). Returns how many.
 */
size_t hb_history_find(const struct hb_history *h, bool page_only, uint64_t hpa, uint64_t page_size,
		       const struct hb_history_entry **out, size_t max);
/*
 * The newest promotion or demotion of the page holding hpa still held (the
 * migrator's result with it), or NULL: what was last done with the page,
 * however many refusals were recorded since.
 */
const struct hb_history_entry *hb_history_last_acted(const struct hb_history *h, uint64_t hpa,
						     uint64_t page_size);

/* ---- latency ---- */

/*
 * How long records wait. A record was made at its timestamp (the source's
 * CLOCK_MONOTONIC), else when it was submitted. hb_latency_note() is told of
 * n records made at made_ns and taken into the table at now_ns; the next
 * hb_latency_decide() is the decision that considers them. Pending records
 * are kept as runs of one timestamp, at most HB_LATENCY_RUNS: beyond that
 * neighbouring runs merge, keeping the older stamp (latency is then over-,
 * never under-stated). Histograms are log-linear: 16 buckets per power of
 * two, a quantile is its bucket's upper bound (at most 6.25 % high).
 */
#define HB_LATENCY_RUNS 1024
#define HB_LATENCY_BUCKETS (61 * 16)

struct hb_latency_hist {
	uint64_t bucket[HB_LATENCY_BUCKETS];
	uint64_t count, max_ns;
	double sum_ns; /* of every value added: a Prometheus summary's _sum */
};

struct hb_latency {
	struct hb_latency_hist to_table, to_decision;
	/*
	 * durations: each cycle, and its demotion step (the event loop's time:
	 * census, coldness, decisions); each batch of moves, handed over to
	 * finished (off the loop's thread while it loops); each fold of a
	 * finished batch on the loop (with the promotion decided after a
	 * demotion's); each promotion's collect and decide, and each step's
	 * decisions into the history (both on the loop)
	 */
	struct hb_latency_hist cycle, demote, batch, fold, decide, history;
	uint64_t run_ts[HB_LATENCY_RUNS], run_n[HB_LATENCY_RUNS];
	size_t nruns;
};

void hb_latency_hist_add(struct hb_latency_hist *h, uint64_t v_ns);
void hb_latency_note(struct hb_latency *l, uint64_t made_ns, uint64_t n, uint64_t now_ns);
void hb_latency_decide(struct hb_latency *l, uint64_t now_ns);
/* the largest value (ns) that falls in bucket b (< HB_LATENCY_BUCKETS) */
uint64_t hb_latency_bucket_top(size_t b);
/* the q-quantile (0 < q <= 1) in ns; 0 when empty */
uint64_t hb_latency_quantile(const struct hb_latency_hist *h, double q);

#endif
