// SPDX-License-Identifier: MIT
/* A token bucket: refills at rate per second up to depth; pure (time comes in). */
#include "core.h"

double hb_bucket_level(const struct hb_bucket *b, double rate, double depth, uint64_t now_ns)
{
	double t;

	if (rate <= 0)
		return -1;
	if (!b->primed)
		return depth;
	t = b->tokens;
	if (now_ns > b->last_ns)
		t += rate * (double)(now_ns - b->last_ns) / 1e9;
	return t > depth ? depth : t;
}

void hb_bucket_take(struct hb_bucket *b, double rate, double depth, double amount, uint64_t now_ns)
{
	double t = hb_bucket_level(b, rate, depth, now_ns);

	if (t < 0)
		return;
	b->tokens = t - amount;
	if (!b->primed || now_ns > b->last_ns)
		b->last_ns = now_ns;
	b->primed = true;
}
