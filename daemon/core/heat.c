// SPDX-License-Identifier: MIT
/*
 * The hotness table. Open addressing on the page number, linear probing,
 * removal by backward shift. Decay is lazy: an entry keeps its heat and
 * the cycle it was last brought up to date; reading or updating multiplies
 * by decay^(now - then) from a table of powers. When the budget is full,
 * the coldest of 8 randomly sampled entries makes room (an approximation
 * of "coldest first" that keeps every update O(1)).
 *
 * The hot list: the keys of the entries that reached the last collect's
 * threshold when last added to (decay only cools, so an entry over the
 * threshold at a collect was over it at its last add). A collect walks the
 * list, not the table: a sweep of the 2 M slots of a 1 M-entry table took
 * 3.4 ms natively with one page hot, and about 100 times that under TCG,
 * every cycle. Until the first collect every entry is listed (the first
 * collect then reads the table's entries, not its slots). A key whose
 * entry went (forgotten, evicted) or cooled
 * leaves the list at the next collect; a key listed twice (its entry went
 * and came back) is read once, by the entry's epoch. A collect with a
 * lower threshold than the list's, or a list grown past twice the budget,
 * sweeps the table once and lists it again.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define SAMPLE 8
#define POW_TABLE 256

struct entry {
	uint64_t key; /* page number + 1; 0 = empty */
	float heat;
	uint32_t cycle;
	int16_t node;
	uint8_t epochs; /* distinct cycles it was added to in, up to 255 (hb_heat_epochs()) */
	uint8_t spare;
	int16_t src; /* the source that last added to it; -1: none named */
	uint16_t listed; /* on the hot list: 0 no; else the epoch of the collect that last read it, or LISTED_NEW */
};

#define LISTED_NEW 0xffff /* listed, not read by a collect yet */
#define EPOCHS 0xfffe     /* a collect's epoch is 1..EPOCHS */

struct hb_heat_table {
	struct entry *e;
	size_t cap, len, max;
	unsigned int shift;
	uint32_t cycle;
	uint64_t rng;
	float pow[POW_TABLE];
	struct hb_heat_stats st;
	uint64_t *hot; /* the hot list's keys */
	size_t nhot, hot_cap;
	bool hot_valid; /* else the next collect sweeps and lists again */
	double hot_min; /* the threshold an add lists an entry at */
	uint16_t epoch;
};

_Static_assert(sizeof(struct entry) == 24, "entry is 24 bytes");

size_t hb_heat_slots(size_t max_entries)
{
	return hb_pow2_at_least(2 * max_entries, 16);
}

uint64_t hb_heat_bytes_for(size_t max_entries)
{
	return (uint64_t)hb_heat_slots(max_entries) * sizeof(struct entry);
}

int hb_heat_new(size_t max_entries, double decay, unsigned int page_shift,
		struct hb_heat_table **ret, struct hb_err *err)
{
	struct hb_heat_table *t;
	size_t cap;

	if (!max_entries || max_entries > (1u << 30))
		return hb_err_set(err, -EINVAL, "heat table: %zu entries not in 1..2^30",
				  max_entries);
	if (!(decay > 0 && decay <= 1))
		return hb_err_set(err, -EINVAL, "heat table: decay %g not in (0, 1]", decay);
	if (page_shift < 12 || page_shift > 30)
		return hb_err_set(err, -EINVAL, "heat table: page shift %u", page_shift);
	cap = hb_heat_slots(max_entries);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->e = calloc(cap, sizeof(*t->e)))) {
		free(t);
		return hb_err_set(err, -ENOMEM,
				  "heat table: no memory for table.max_entries=%zu "
				  "(%zu slots of %zu bytes: %.1f GiB)",
				  max_entries, cap, sizeof(*t->e),
				  (double)hb_heat_bytes_for(max_entries) / (1 << 30));
	}
	/*
	 * Fault it in now: otherwise the first sweep after the first record
	 * does, all at once, with the loop blocked (tests/README.md,
	 * "The daemon, measured", has the figure).
	 */
	hb_fault_in(t->e, cap * sizeof(*t->e));
	t->cap = cap;
	t->max = max_entries;
	t->shift = page_shift;
	t->rng = 0x9E3779B97F4A7C15ULL;
	/* every entry listed until the first collect sets the threshold: no sweep for it */
	t->hot_valid = true;
	for (int i = 0; i < POW_TABLE; i++)
		t->pow[i] = (float)pow(decay, i);
	*ret = t;
	return 0;
}

struct hb_heat_table *hb_heat_free(struct hb_heat_table *t)
{
	if (t) {
		free(t->e);
		free(t->hot);
		free(t);
	}
	return NULL;
}

/* e onto the hot list; out of memory, or a list far past the budget: the next collect sweeps */
static void list_entry(struct hb_heat_table *t, struct entry *e)
{
	if (!t->hot_valid)
		return;
	if (t->nhot == t->hot_cap) {
		size_t cap = t->hot_cap ? t->hot_cap * 2 : 1024;
		uint64_t *hot = cap <= 2 * t->max + 1024 ? realloc(t->hot, cap * sizeof(*hot)) : NULL;

		if (!hot) {
			t->hot_valid = false;
			return;
		}
		t->hot = hot;
		t->hot_cap = cap;
	}
	t->hot[t->nhot++] = e->key;
	e->listed = LISTED_NEW;
}

static size_t slot(const struct hb_heat_table *t, uint64_t key)
{
	return hb_hash_slot(key, 20, t->cap);
}

static float decayed(const struct hb_heat_table *t, const struct entry *e)
{
	uint32_t age = t->cycle - e->cycle;

	return age < POW_TABLE ? e->heat * t->pow[age] : 0.0f;
}

static struct entry *find(const struct hb_heat_table *t, uint64_t key)
{
	for (size_t s = slot(t, key);; s = (s + 1) & (t->cap - 1)) {
		if (t->e[s].key == key)
			return &t->e[s];
		if (!t->e[s].key)
			return NULL;
	}
}

static void del(struct hb_heat_table *t, struct entry *x)
{
	size_t hole = (size_t)(x - t->e);

	t->e[hole].key = 0;
	t->len--;
	for (size_t s = (hole + 1) & (t->cap - 1); t->e[s].key; s = (s + 1) & (t->cap - 1)) {
		size_t home = slot(t, t->e[s].key);

		if ((s > hole && (home <= hole || home > s)) ||
		    (s < hole && home <= hole && home > s)) {
			t->e[hole] = t->e[s];
			t->e[s].key = 0;
			hole = s;
		}
	}
}

static uint64_t rnd(struct hb_heat_table *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

static void evict_one(struct hb_heat_table *t)
{
	struct entry *victim = NULL;
	float coldest = 0;
	int seen = 0;

	for (int tries = 0; seen < SAMPLE && tries < 64 * SAMPLE; tries++) {
		struct entry *e = &t->e[rnd(t) & (t->cap - 1)];
		float h;

		if (!e->key)
			continue;
		seen++;
		h = decayed(t, e);
		if (!victim || h < coldest) {
			victim = e;
			coldest = h;
		}
	}
	if (victim) {
		del(t, victim);
		t->st.evictions++;
	}
}

/*
 * A page's heat stops at the largest [policy] threshold (conf-keys.c): a
 * page that hot is hot whatever comes, and one record's count (at most
 * HB_RECORD_COUNT_MAX) cannot keep it so for hundreds of cycles more.
 */
#define HEAT_MAX 1e18f

static void add_page(struct hb_heat_table *t, uint64_t page, float count, int node, int16_t src)
{
	count = fminf(count, HEAT_MAX);
	uint64_t key = page + 1;
	size_t s;

	for (s = slot(t, key); t->e[s].key; s = (s + 1) & (t->cap - 1)) {
		struct entry *e = &t->e[s];

		if (e->key == key) {
			uint32_t age = t->cycle - e->cycle;

			/* a heat decayed to nothing starts the count of cycles again */
			if (age >= POW_TABLE)
				e->epochs = 0;
			if ((age || !e->epochs) && e->epochs < UINT8_MAX)
				e->epochs++;
			e->heat = fminf(decayed(t, e) + count, HEAT_MAX);
			e->cycle = t->cycle;
			e->node = (int16_t)node;
			e->src = src;
			t->st.updates++;
			if (!e->listed && e->heat >= t->hot_min)
				list_entry(t, e);
			return;
		}
	}
	if (t->len >= t->max) {
		evict_one(t);
		/* the backward shift may have moved entries: find the slot again */
		for (s = slot(t, key); t->e[s].key; s = (s + 1) & (t->cap - 1))
			;
	}
	t->e[s] = (struct entry){ .key = key,
				  .heat = count,
				  .cycle = t->cycle,
				  .node = (int16_t)node,
				  .epochs = 1,
				  .src = src };
	t->len++;
	t->st.inserts++;
	if (count >= t->hot_min)
		list_entry(t, &t->e[s]);
}

void hb_heat_prefetch(const struct hb_heat_table *t, uint64_t hpa)
{
	__builtin_prefetch(&t->e[slot(t, (hpa >> t->shift) + 1)], 1);
}

size_t hb_heat_add(struct hb_heat_table *t, uint64_t hpa, uint64_t len, double count, int node)
{
	return hb_heat_add_from(t, hpa, len, count, node, -1);
}

size_t hb_heat_add_from(struct hb_heat_table *t, uint64_t hpa, uint64_t len, double count, int node,
			int src)
{
	int16_t s16 = src >= 0 && src <= INT16_MAX ? (int16_t)src : -1;
	uint64_t first = hpa >> t->shift;
	uint64_t last = len ? (hpa + len - 1) >> t->shift : first;
	uint64_t pages = last - first + 1;
	float share = (float)(count / (double)pages);

	for (uint64_t p = first; p <= last; p++)
		add_page(t, p, share, node, s16);
	return (size_t)pages;
}

int hb_heat_source(const struct hb_heat_table *t, uint64_t hpa)
{
	const struct entry *e = find(t, (hpa >> t->shift) + 1);

	return e ? e->src : -1;
}

unsigned int hb_heat_epochs(const struct hb_heat_table *t, uint64_t hpa)
{
	const struct entry *e = find(t, (hpa >> t->shift) + 1);

	return e && t->cycle - e->cycle < POW_TABLE ? e->epochs : 0;
}

void hb_heat_tick(struct hb_heat_table *t)
{
	t->cycle++;
}

double hb_heat_get(const struct hb_heat_table *t, uint64_t hpa, int *ret_node)
{
	const struct entry *e = find(t, (hpa >> t->shift) + 1);

	if (ret_node)
		*ret_node = e ? e->node : -1;
	return e ? decayed(t, e) : 0.0;
}

bool hb_heat_forget(struct hb_heat_table *t, uint64_t hpa)
{
	struct entry *e = find(t, (hpa >> t->shift) + 1);

	if (!e)
		return false;
	del(t, e);
	t->st.forgotten++;
	return true;
}

size_t hb_heat_revalidate(struct hb_heat_table *t, int (*node_of)(void *ud, uint64_t hpa), void *ud)
{
	size_t removed = 0;

	for (size_t s = 0; s < t->cap;) {
		struct entry *e = &t->e[s];
		int node;

		if (!e->key) {
			s++;
			continue;
		}
		node = node_of(ud, (e->key - 1) << t->shift);
		if (node < 0) {
			/* the backward shift may pull a later entry into s: look again */
			del(t, e);
			removed++;
			continue;
		}
		e->node = (int16_t)node;
		s++;
	}
	t->st.forgotten += removed;
	return removed;
}

size_t hb_heat_len(const struct hb_heat_table *t)
{
	return t->len;
}

size_t hb_heat_bytes(const struct hb_heat_table *t)
{
	return sizeof(*t) + t->cap * sizeof(*t->e);
}

const struct hb_heat_stats *hb_heat_stats(const struct hb_heat_table *t)
{
	return &t->st;
}

static int by_heat_desc(const void *a, const void *b)
{
	const struct hb_candidate *x = a, *y = b;

	if (x->heat != y->heat)
		return x->heat < y->heat ? 1 : -1;
	return (x->hpa > y->hpa) - (x->hpa < y->hpa);
}

/* out[0..n) as a min-heap on heat: out[0] is the coldest kept */
static void sift_down(struct hb_candidate *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && by_heat_desc(&h[l], &h[m]) > 0)
			m = l;
		if (r < n && by_heat_desc(&h[r], &h[m]) > 0)
			m = r;
		if (m == i)
			return;
		struct hb_candidate tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/*
 * the hottest max of out[0..*n) with c: appended until max are kept (no
 * order: the sort is hb_candidates_sort()'s), then a heap made once
 */
static void keep(struct hb_candidate *out, size_t *n, size_t max, const struct hb_candidate *c)
{
	if (*n < max) {
		out[(*n)++] = *c;
		if (*n == max)
			for (size_t i = max / 2; i-- > 0;)
				sift_down(out, max, i);
	} else if (by_heat_desc(c, &out[0]) < 0) {
		out[0] = *c;
		sift_down(out, *n, 0);
	}
}

/* the whole table swept: the list made again of the entries at or over threshold */
static void relist(struct hb_heat_table *t, double threshold)
{
	t->nhot = 0;
	t->hot_valid = true;
	t->hot_min = threshold;
	for (size_t i = 0; i < t->cap; i++) {
		struct entry *e = &t->e[i];

		if (!e->key)
			continue; /* an empty slot's listed is never read: an insert sets it */
		e->listed = 0;
		if (decayed(t, e) >= threshold)
			list_entry(t, e);
	}
	t->st.relists++;
}

void hb_candidates_sort(struct hb_candidate *c, size_t n)
{
	if (n > 1)
		qsort(c, n, sizeof(*c), by_heat_desc);
}

size_t hb_heat_collect(struct hb_heat_table *t, double threshold, struct hb_candidate *out, size_t max)
{
	size_t n = hb_heat_gather(t, threshold, out, max);

	hb_candidates_sort(out, n);
	return n;
}

size_t hb_heat_gather(struct hb_heat_table *t, double threshold, struct hb_candidate *out, size_t max)
{
	size_t n = 0, kept = 0;

	if (!max || !t->len)
		return 0; /* an idle daemon does not sweep its table */
	if (!t->hot_valid || threshold < t->hot_min)
		relist(t, threshold);
	t->hot_min = threshold;
	t->epoch = (uint16_t)(t->epoch % EPOCHS + 1);
	/* the hottest max pages: a min-heap of size max; the list compacted */
	for (size_t i = 0; i < t->nhot; i++) {
		struct entry *e = find(t, t->hot[i]);
		struct hb_candidate c;
		float h;

		if (!e || !e->listed || e->listed == t->epoch)
			continue; /* gone, or listed again and read already */
		if ((h = decayed(t, e)) < threshold) {
			e->listed = 0; /* cooled: an add over the threshold lists it again */
			continue;
		}
		e->listed = t->epoch;
		t->hot[kept++] = e->key;
		c = (struct hb_candidate){
			.hpa = (e->key - 1) << t->shift,
			.heat = h,
			.node = e->node,
			.source = e->src,
			.epochs = e->epochs,
		};
		keep(out, &n, max, &c);
	}
	t->nhot = kept;
	return n;
}

size_t hb_heat_hottest(const struct hb_heat_table *t, struct hb_candidate *out, size_t max)
{
	size_t n = 0;

	if (!max || !t->len)
		return 0;
	for (size_t i = 0; i < t->cap; i++) {
		const struct entry *e = &t->e[i];
		struct hb_candidate c;
		float h;

		if (!e->key || (h = decayed(t, e)) <= 0.0f)
			continue;
		c = (struct hb_candidate){
			.hpa = (e->key - 1) << t->shift,
			.heat = h,
			.node = e->node,
			.source = e->src,
			.epochs = e->epochs,
		};
		keep(out, &n, max, &c);
	}
	hb_candidates_sort(out, n);
	return n;
}
