// SPDX-License-Identifier: MIT
/* The decision history: a ring of fixed size, newest overwrites oldest. */
#include <errno.h>
#include <stdlib.h>

#include "core.h"

_Static_assert(sizeof(struct hb_history_entry) == 64, "history entries are 64 bytes");

struct hb_history {
	struct hb_history_entry *e;
	size_t size;             /* capacity */
	uint64_t total;          /* ever added; the next goes to total % size */
};

int hb_history_new(size_t size, struct hb_history **ret, struct hb_err *err)
{
	struct hb_history *h;

	if (size < HB_HISTORY_MIN || size > HB_HISTORY_MAX)
		return hb_err_set(err, -EINVAL, "history size %zu: want %u..%u entries", size,
				  HB_HISTORY_MIN, HB_HISTORY_MAX);
	h = calloc(1, sizeof(*h));
	if (!h || !(h->e = calloc(size, sizeof(*h->e)))) {
		free(h);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	h->size = size;
	*ret = h;
	return 0;
}

struct hb_history *hb_history_free(struct hb_history *h)
{
	if (h) {
		free(h->e);
		free(h);
	}
	return NULL;
}

void hb_history_add(struct hb_history *h, const struct hb_history_entry *e)
{
	h->e[h->total % h->size] = *e;
	h->total++;
}

size_t hb_history_len(const struct hb_history *h)
{
	return h->total < h->size ? (size_t)h->total : h->size;
}

size_t hb_history_size(const struct hb_history *h)
{
	return h->size;
}

uint64_t hb_history_total(const struct hb_history *h)
{
	return h->total;
}

size_t hb_history_bytes(const struct hb_history *h)
{
	return sizeof(*h) + h->size * sizeof(*h->e);
}

size_t hb_history_find(const struct hb_history *h, bool page_only, uint64_t hpa,
		       uint64_t page_size, const struct hb_history_entry **out, size_t max)
{
	uint64_t page = hpa & ~(page_size - 1);
	size_t n = 0, len = hb_history_len(h);

	for (size_t i = 0; i < len && n < max; i++) {
		const struct hb_history_entry *e = &h->e[(h->total - 1 - i) % h->size];

		if (!page_only || (e->hpa & ~(page_size - 1)) == page)
			out[n++] = e;
	}
	return n;
}
