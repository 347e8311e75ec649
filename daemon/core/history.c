// SPDX-License-Identifier: MIT
/*
 * The decision history: two rings of fixed size, newest overwrites oldest.
 * Decisions acted on (promotions, with the migrator's result) and refusals
 * each get half, so a flood of refusals (a page rate-limited every cycle)
 * never pushes out what was done. Lookups merge the two, newest first.
 */
#include <errno.h>
#include <stdlib.h>

#include "core.h"

_Static_assert(sizeof(struct hb_history_entry) == 64, "history entries are 64 bytes");

enum { ACTED, REFUSED, NRINGS };

struct ring {
	struct hb_history_entry *e;
	size_t size;    /* capacity */
	uint64_t total; /* ever added; the next goes to total % size */
};

struct hb_history {
	struct hb_history_entry *mem;
	size_t size;
	struct ring r[NRINGS];
};

int hb_history_new(size_t size, struct hb_history **ret, struct hb_err *err)
{
	struct hb_history *h;

	if (size < HB_HISTORY_MIN || size > HB_HISTORY_MAX)
		return hb_err_set(err, -EINVAL, "history size %zu: want %u..%u entries", size,
				  HB_HISTORY_MIN, HB_HISTORY_MAX);
	h = calloc(1, sizeof(*h));
	if (!h || !(h->mem = calloc(size, sizeof(*h->mem)))) {
		free(h);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	/*
	 * touched now, a write a page (calloc's fresh pages are not resident):
	 * the memory is what it will be, from the start
	 */
	hb_fault_in(h->mem, size * sizeof(*h->mem));
	h->size = size;
	h->r[ACTED] = (struct ring){ .e = h->mem, .size = size / 2 };
	h->r[REFUSED] = (struct ring){ .e = h->mem + size / 2, .size = size - size / 2 };
	*ret = h;
	return 0;
}

struct hb_history *hb_history_free(struct hb_history *h)
{
	if (h) {
		free(h->mem);
		free(h);
	}
	return NULL;
}

void hb_history_add(struct hb_history *h, const struct hb_history_entry *e)
{
	struct ring *r =
		&h->r[e->reason == HB_REASON_PROMOTE || e->reason == HB_REASON_DEMOTE ? ACTED : REFUSED];

	r->e[r->total % r->size] = *e;
	r->total++;
}

static size_t ring_len(const struct ring *r)
{
	return r->total < r->size ? (size_t)r->total : r->size;
}

/* the i-th newest entry of r, or NULL */
static const struct hb_history_entry *ring_newest(const struct ring *r, size_t i)
{
	return i < ring_len(r) ? &r->e[(r->total - 1 - i) % r->size] : NULL;
}

size_t hb_history_len(const struct hb_history *h)
{
	return ring_len(&h->r[ACTED]) + ring_len(&h->r[REFUSED]);
}

size_t hb_history_size(const struct hb_history *h)
{
	return h->size;
}

uint64_t hb_history_total(const struct hb_history *h)
{
	return h->r[ACTED].total + h->r[REFUSED].total;
}

size_t hb_history_bytes(const struct hb_history *h)
{
	return sizeof(*h) + h->size * sizeof(*h->mem);
}

size_t hb_history_find(const struct hb_history *h, bool page_only, uint64_t hpa, uint64_t page_size,
		       const struct hb_history_entry **out, size_t max)
{
	uint64_t page = hpa & ~(page_size - 1);
	size_t n = 0, i[NRINGS] = { 0, 0 };

	while (n < max) {
		const struct hb_history_entry *a = ring_newest(&h->r[ACTED], i[ACTED]);
		const struct hb_history_entry *b = ring_newest(&h->r[REFUSED], i[REFUSED]);
		const struct hb_history_entry *e;

		if (!a && !b)
			break;
		/* newest first; in one cycle (one time), what was done first */
		if (a && (!b || a->time_ns >= b->time_ns)) {
			e = a;
			i[ACTED]++;
		} else {
			e = b;
			i[REFUSED]++;
		}
		if (!page_only || (e->hpa & ~(page_size - 1)) == page)
			out[n++] = e;
	}
	return n;
}

const struct hb_history_entry *hb_history_last_acted(const struct hb_history *h, uint64_t hpa,
						     uint64_t page_size)
{
	uint64_t page = hpa & ~(page_size - 1);
	const struct hb_history_entry *e;

	for (size_t i = 0; (e = ring_newest(&h->r[ACTED], i)); i++)
		if ((e->hpa & ~(page_size - 1)) == page)
			return e;
	return NULL;
}
