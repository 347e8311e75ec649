// SPDX-License-Identifier: MIT
/*
 * The pages hotbridge placed on DRAM: open addressing (linear probing) on
 * the page number, load <= 0.5, grown by doubling up to the budget, and
 * removal by backward shift (no tombstones, so a long run stays short).
 */
#include <errno.h>
#include <stdlib.h>

#include "core.h"

_Static_assert(sizeof(struct hb_placed_page) == 24, "a placed page is 24 bytes");

struct hb_placed {
	struct hb_placed_page *slot;
	size_t cap, len, max;
	uint64_t page_size;
};

int hb_placed_new(size_t max, uint64_t page_size, struct hb_placed **ret, struct hb_err *err)
{
	struct hb_placed *p;

	if (!max || max > SIZE_MAX / 4 || !page_size || (page_size & (page_size - 1)))
		return hb_err_set(err, -EINVAL,
				  "placed pages: budget %zu, page size %llu: want a "
				  "budget of 1 or more and a power-of-two page size",
				  max, (unsigned long long)page_size);
	p = calloc(1, sizeof(*p));
	if (!p || !(p->slot = calloc(64, sizeof(*p->slot)))) {
		free(p);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	p->cap = 64;
	p->max = max;
	p->page_size = page_size;
	*ret = p;
	return 0;
}

struct hb_placed *hb_placed_free(struct hb_placed *p)
{
	if (p) {
		free(p->slot);
		free(p);
	}
	return NULL;
}

static size_t home(const struct hb_placed *p, uint64_t key)
{
	return hb_hash_slot(key, 24, p->cap);
}

/* the key's slot, or the empty slot ending its run */
static size_t probe(const struct hb_placed *p, uint64_t key)
{
	size_t s = home(p, key);

	while (p->slot[s].key && p->slot[s].key != key)
		s = (s + 1) & (p->cap - 1);
	return s;
}

/* the table rehashed into new_cap slots (a power of two over twice len) */
static int resize(struct hb_placed *p, size_t new_cap)
{
	struct hb_placed_page *old = p->slot;
	size_t cap = p->cap;

	p->slot = calloc(new_cap, sizeof(*p->slot));
	if (!p->slot) {
		p->slot = old;
		return -ENOMEM;
	}
	hb_fault_in(p->slot, new_cap * sizeof(*p->slot)); /* pages land at random slots */
	p->cap = new_cap;
	for (size_t i = 0; i < cap; i++)
		if (old[i].key)
			p->slot[probe(p, old[i].key)] = old[i];
	free(old);
	return 0;
}

static int grow(struct hb_placed *p)
{
	return resize(p, p->cap * 2);
}

int hb_placed_reserve(struct hb_placed *p, size_t n)
{
	size_t cap;

	if (n > p->max)
		n = p->max;
	cap = hb_pow2_at_least(2 * n, 64);
	return cap > p->cap ? resize(p, cap) : 0;
}

int hb_placed_add(struct hb_placed *p, uint64_t hpa, int src, int node, uint64_t now_ns)
{
	uint64_t key = hpa / p->page_size + 1;
	size_t s = probe(p, key);

	if (!p->slot[s].key) {
		if (p->len >= p->max)
			return -ENOSPC;
		if ((p->len + 1) * 2 > p->cap) {
			if (grow(p) < 0)
				return -ENOMEM;
			s = probe(p, key);
		}
		p->len++;
	}
	p->slot[s] = (struct hb_placed_page){ .key = key,
					      .since_ns = now_ns,
					      .src = (int16_t)src,
					      .node = (int16_t)node,
					      .tenant = -1 };
	return 0;
}

bool hb_placed_remove(struct hb_placed *p, uint64_t hpa)
{
	size_t mask = p->cap - 1, hole = probe(p, hpa / p->page_size + 1);

	if (!p->slot[hole].key)
		return false;
	/* backward shift: move up each later entry of the run whose home allows it */
	for (size_t s = (hole + 1) & mask; p->slot[s].key; s = (s + 1) & mask) {
		if (hb_hash_stays(hole, s, home(p, p->slot[s].key)))
			continue;
		p->slot[hole] = p->slot[s];
		hole = s;
	}
	p->slot[hole] = (struct hb_placed_page){ 0 };
	p->len--;
	return true;
}

const struct hb_placed_page *hb_placed_find(const struct hb_placed *p, uint64_t hpa)
{
	size_t s = probe(p, hpa / p->page_size + 1);

	return p->slot[s].key ? &p->slot[s] : NULL;
}

struct hb_placed_page *hb_placed_get(struct hb_placed *p, uint64_t hpa)
{
	size_t s = probe(p, hpa / p->page_size + 1);

	return p->slot[s].key ? &p->slot[s] : NULL;
}

size_t hb_placed_bytes(const struct hb_placed *p)
{
	return p->cap * sizeof(*p->slot);
}

size_t hb_placed_len(const struct hb_placed *p)
{
	return p->len;
}

uint64_t hb_placed_hpa(const struct hb_placed *p, const struct hb_placed_page *e)
{
	return (e->key - 1) * p->page_size;
}

struct hb_placed_page *hb_placed_next(struct hb_placed *p, size_t *cursor)
{
	for (; *cursor < p->cap; (*cursor)++)
		if (p->slot[*cursor].key)
			return &p->slot[(*cursor)++];
	return NULL;
}
