// SPDX-License-Identifier: MIT
/* hotbridge demo's oracle: a clairvoyant policy under the daemon's limits (demo-oracle.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "demo-oracle.h"

static size_t hash(uint64_t v, size_t mask)
{
	v >>= 12; /* page numbers */
	v *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(v >> 32) & mask;
}

/* a set for at least n members, at most half full */
static int set_init(struct hb_demo_oracle_set *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap <<= 1;
	s->slot = calloc(cap, sizeof(*s->slot));
	if (!s->slot)
		return -ENOMEM;
	s->mask = cap - 1;
	s->len = 0;
	return 0;
}

static bool set_has(const struct hb_demo_oracle_set *s, uint64_t v)
{
	for (size_t i = hash(v, s->mask);; i = (i + 1) & s->mask) {
		if (s->slot[i] == v)
			return true;
		if (!s->slot[i])
			return false;
	}
}

/* callers keep len below half the slots (set_init's size) */
static void set_add(struct hb_demo_oracle_set *s, uint64_t v)
{
	size_t i = hash(v, s->mask);

	while (s->slot[i] && s->slot[i] != v)
		i = (i + 1) & s->mask;
	if (!s->slot[i]) {
		s->slot[i] = v;
		s->len++;
	}
}

/* linear probing's deletion: move later members of the run back into the hole */
static void set_del(struct hb_demo_oracle_set *s, uint64_t v)
{
	size_t i = hash(v, s->mask), j;

	while (s->slot[i] != v) {
		if (!s->slot[i])
			return;
		i = (i + 1) & s->mask;
	}
	s->slot[i] = 0;
	s->len--;
	for (j = (i + 1) & s->mask; s->slot[j]; j = (j + 1) & s->mask) {
		size_t home = hash(s->slot[j], s->mask);

		/* the member at j may move to the hole at i unless its home lies in (i, j] */
		if (((j - home) & s->mask) >= ((j - i) & s->mask)) {
			s->slot[i] = s->slot[j];
			s->slot[j] = 0;
			i = j;
		}
	}
}

static int set_of(struct hb_demo_oracle_set *s, const uint64_t *v, size_t n)
{
	if (set_init(s, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		set_add(s, v[i]);
	return 0;
}

int hb_demo_oracle_init(struct hb_demo_oracle *o, double room, double promote, double depth,
			double demote)
{
	memset(o, 0, sizeof(*o));
	if (!(room >= 1) || !(promote > 0) || !(depth >= promote) || !(demote >= 0))
		return -EINVAL;
	o->room = room;
	o->promote = promote;
	o->depth = depth;
	o->tokens = depth; /* the daemon's bucket starts full too */
	o->demote = demote;
	return set_init(&o->placed, (size_t)room);
}

/*
 * The placed pages the oracle may demote for the current hot set cur: those
 * in neither set first, then those only in next; how many of them are in
 * neither (they alone may make room for next's pages).
 */
static size_t victims(const struct hb_demo_oracle *o, const struct hb_demo_oracle_set *cur,
		      const struct hb_demo_oracle_set *next, uint64_t *v, size_t *nv)
{
	size_t k = 0, free_of_both;

	for (size_t i = 0; i <= o->placed.mask; i++) {
		uint64_t p = o->placed.slot[i];

		if (p && !set_has(cur, p) && !set_has(next, p))
			v[k++] = p;
	}
	free_of_both = k;
	for (size_t i = 0; i <= o->placed.mask; i++) {
		uint64_t p = o->placed.slot[i];

		if (p && !set_has(cur, p) && set_has(next, p))
			v[k++] = p;
	}
	*nv = k;
	return free_of_both;
}

/* place one page, demoting victims[*vi] first when DRAM is full and limit allows */
static bool place(struct hb_demo_oracle *o, uint64_t page, const uint64_t *v, size_t nv, size_t *vi)
{
	if (set_has(&o->placed, page))
		return true;
	if (o->tokens < 1)
		return false;
	if ((double)o->placed.len + 1 > o->room) {
		if (*vi >= nv || o->dtokens < 1)
			return false;
		set_del(&o->placed, v[(*vi)++]);
		o->dtokens -= 1;
		o->demoted++;
	}
	set_add(&o->placed, page);
	o->tokens -= 1;
	o->promoted++;
	return true;
}

static int step(struct hb_demo_oracle *o, const uint64_t *next, size_t nnext)
{
	struct hb_demo_oracle_set cur = { 0 }, nxt = { 0 };
	const uint64_t *hot = o->pending;
	size_t n = o->npending, nv = 0, vi = 0, hits = 0, free_of_both;
	uint64_t *v = NULL;
	int r = -ENOMEM;

	o->tokens = o->tokens + o->promote > o->depth ? o->depth : o->tokens + o->promote;
	o->dtokens = o->demote;
	if (set_of(&cur, hot, n) < 0 || set_of(&nxt, next, nnext) < 0 ||
	    !(v = malloc((o->placed.len + 1) * sizeof(*v))))
		goto out;
	free_of_both = victims(o, &cur, &nxt, v, &nv);
	for (size_t i = 0; i < n; i++)
		if (!place(o, hot[i], v, nv, &vi))
			break;
	/* what is left of the cycle's promotions goes to the next hot set's pages */
	if (vi < free_of_both)
		nv = free_of_both;
	else
		nv = vi; /* no page of the next set is demoted for another of it */
	for (size_t i = 0; i < nnext; i++)
		if (!place(o, next[i], v, nv, &vi))
			break;
	for (size_t i = 0; i < n; i++)
		hits += set_has(&o->placed, hot[i]);
	if (o->pending_scored) {
		o->last_recall = n ? (double)hits / (double)n : 0;
		o->sum_recall += o->last_recall;
		o->scored++;
	}
	r = 0;
out:
	free(cur.slot);
	free(nxt.slot);
	free(v);
	return r;
}

int hb_demo_oracle_cycle(struct hb_demo_oracle *o, const uint64_t *hot, size_t n, bool scored)
{
	uint64_t *copy = malloc((n ? n : 1) * sizeof(*copy));
	int r = 0;

	if (!copy)
		return -ENOMEM;
	if (n)
		memcpy(copy, hot, n * sizeof(*copy));
	if (o->has_pending && (r = step(o, copy, n)) < 0) {
		free(copy);
		return r;
	}
	free(o->pending);
	o->pending = copy;
	o->npending = n;
	o->pending_scored = scored;
	o->has_pending = true;
	return 0;
}

int hb_demo_oracle_finish(struct hb_demo_oracle *o)
{
	int r;

	if (!o->has_pending)
		return 0;
	if ((r = step(o, NULL, 0)) < 0)
		return r;
	free(o->pending);
	o->pending = NULL;
	o->npending = 0;
	o->has_pending = false;
	return 0;
}

double hb_demo_oracle_recall(const struct hb_demo_oracle *o)
{
	return o->scored ? o->sum_recall / (double)o->scored : 0;
}

void hb_demo_oracle_done(struct hb_demo_oracle *o)
{
	free(o->placed.slot);
	free(o->pending);
	o->placed.slot = NULL;
	o->pending = NULL;
}
