// SPDX-License-Identifier: MIT
/*
 * hb-llc: a set-associative write-back cache in front of the CHMU model.
 * See hb-llc.h.
 *
 * A set is `ways` 64-bit slots, most recently used first: the line number
 * shifted left by 2, with bit 0 valid and bit 1 dirty. A hit moves its
 * slot to the front (at most ways - 1 moves); a miss shifts the set down
 * by one and drops the last slot, the least recently used. With 16 ways
 * an access costs a hash and a scan of 16 words.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hb-llc.h"

#define VALID 1ULL
#define DIRTY 2ULL

struct hb_qllc {
	uint64_t *slot;
	unsigned int ways, set_bits;
};

static unsigned int log2_exact(uint64_t v)
{
	unsigned int n = 0;

	while ((1ULL << n) < v)
		n++;
	return n;
}

const char *hb_qllc_check(uint64_t size, unsigned int ways)
{
	uint64_t sets;

	if (!size)
		return NULL;
	if (ways < 1 || ways > HB_QLLC_MAX_WAYS)
		return "chmu-llc-ways must be 1..64";
	if (size > HB_QLLC_MAX_SIZE || size % (HB_QLLC_LINE * ways))
		return "chmu-llc-size must be 0 or up to 1 GiB, a multiple of 64 bytes x chmu-llc-ways";
	sets = size / HB_QLLC_LINE / ways;
	if (sets & (sets - 1))
		return "chmu-llc-size / (64 x chmu-llc-ways) (the number of sets) must be a power of 2";
	return NULL;
}

int hb_qllc_new(uint64_t size, unsigned int ways, struct hb_qllc **ret)
{
	struct hb_qllc *l;

	if (!size || hb_qllc_check(size, ways))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->slot = calloc(size / HB_QLLC_LINE, sizeof(*l->slot));
	if (!l->slot) {
		free(l);
		return -ENOMEM;
	}
	l->ways = ways;
	l->set_bits = log2_exact(size / HB_QLLC_LINE / ways);
	*ret = l;
	return 0;
}

void hb_qllc_free(struct hb_qllc *l)
{
	if (!l)
		return;
	free(l->slot);
	free(l);
}

/* the set of a line: a multiplicative hash, so strides spread over sets */
static uint64_t *set_of(const struct hb_qllc *l, uint64_t line)
{
	uint64_t s = l->set_bits ? (line * 0x9e3779b97f4a7c15ULL) >> (64 - l->set_bits) : 0;

	return l->slot + s * l->ways;
}

static void line_access(struct hb_qllc *l, uint64_t line, bool write, hb_qllc_request_fn *fn,
			void *opaque)
{
	uint64_t *set = set_of(l, line), want = line << 2 | VALID, victim;
	unsigned int i;

	for (i = 0; i < l->ways; i++)
		if ((set[i] & ~DIRTY) == want)
			break;
	if (i < l->ways) {
		uint64_t hit = set[i] | (write ? DIRTY : 0);

		memmove(set + 1, set, i * sizeof(*set));
		set[0] = hit;
		return;
	}
	victim = set[l->ways - 1];
	memmove(set + 1, set, (l->ways - 1) * sizeof(*set));
	set[0] = want | (write ? DIRTY : 0);
	if ((victim & (VALID | DIRTY)) == (VALID | DIRTY))
		fn(opaque, (victim >> 2) * HB_QLLC_LINE, true);
	fn(opaque, line * HB_QLLC_LINE, false); /* the fill, for a store too */
}

void hb_qllc_access(struct hb_qllc *l, uint64_t dpa, unsigned int size, bool write,
		    hb_qllc_request_fn *fn, void *opaque)
{
	uint64_t first = dpa / HB_QLLC_LINE, last = (dpa + (size ? size : 1) - 1) / HB_QLLC_LINE;

	line_access(l, first, write, fn, opaque);
	if (last != first)
		line_access(l, last, write, fn, opaque); /* an access across two lines */
}
