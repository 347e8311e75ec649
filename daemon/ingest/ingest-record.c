// SPDX-License-Identifier: MIT
/* One record -> pages of committed CXL regions on source nodes -> the table (ingest.h). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ingest/ingest-private.h"
#include "util/macro.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* the pages [addr, addr + len) touches did not enter the table, for reason */
void hb_ingest_drop_pages(struct hb_ingest *in, struct work *w, enum hb_drop reason, uint64_t addr,
			  uint64_t len)
{
	uint64_t ps = in->page_mask + 1;

	assert((unsigned int)reason < _HB_DROP_MAX);
	w->drops |= 1u << reason;
	if (len)
		in->st->pages_dropped[reason] += (addr + (len - 1)) / ps - addr / ps + 1;
}

/* ---- pages into the table ---- */

void hb_ingest_flush(struct hb_ingest *in)
{
	for (size_t i = 0; i < in->npend; i++) {
		const struct piece *p = &in->pend[i];

		if (i + PREFETCH_AHEAD < in->npend)
			hb_heat_prefetch(in->env.heat, in->pend[i + PREFETCH_AHEAD].hpa);
		in->st->pages +=
			hb_heat_add_from(in->env.heat, p->hpa, p->len, p->count, p->node, p->src);
	}
	in->npend = 0;
}

/* the node of hpa, through a one-block cache; -1 when on none */
static int node_at(struct hb_ingest *in, uint64_t hpa, uint64_t *ret_end)
{
	if (hpa < in->nb_base || hpa >= in->nb_end) {
		in->nb_base = hpa - hpa % in->node_step;
		in->nb_end = in->nb_base + in->node_step;
		if (in->nb_end < in->nb_base)
			in->nb_end = UINT64_MAX;
		in->nb_node = in->env.node_of(in->env.ud, in->nb_base);
	}
	*ret_end = in->nb_end;
	return in->nb_node;
}

/*
 * [hpa, hpa + len) lies in one committed region and one node block: into
 * the table if that block is online on a source node.
 */
static void add_piece(struct hb_ingest *in, struct work *w, uint64_t hpa, uint64_t len)
{
	uint64_t end;
	int node = node_at(in, hpa, &end);

	if (node < 0) {
		hb_ingest_drop_pages(in, w, HB_DROP_NO_NODE, hpa, len);
		return;
	}
	if (node >= 64 || !((in->source_mask >> node) & 1)) {
		hb_ingest_drop_pages(in, w, HB_DROP_NOT_SOURCE, hpa, len);
		return;
	}
	if ((in->moving_onto >> node & 1) ||
	    (w->r.timestamp_ns ? w->r.timestamp_ns : w->seen_ns) < in->moved_onto[node]) {
		hb_ingest_drop_pages(in, w, HB_DROP_STALE, hpa, len);
		return;
	}
	if (in->npend < PREFETCH_AHEAD)
		hb_heat_prefetch(in->env.heat, hpa);
	in->pend[in->npend++] = (struct piece){
		.hpa = hpa,
		.len = len,
		.node = node,
		.src = w->src,
		.count = (double)w->r.count * (double)len / (double)w->r.len,
	};
	w->added = true;
	if (in->npend == PEND_MAX)
		hb_ingest_flush(in);
}

/* the first span that ends after hpa, or NULL */
static const struct span *span_after(const struct hb_ingest *in, uint64_t hpa)
{
	size_t lo = 0, hi = in->nspans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->spans[mid].end <= hpa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nspans ? &in->spans[lo] : NULL;
}

/* one step of an HPA record: returns the bytes it dealt with (> 0) */
static uint64_t hpa_step(struct hb_ingest *in, struct work *w)
{
	uint64_t p = w->r.addr + w->off, rem = w->r.len - w->off, n, block_end;
	const struct span *s = span_after(in, p);

	if (!s || s->base > p) {
		/* a gap before the next region (or the end): skipped whole */
		n = s && s->base - p < rem ? s->base - p : rem;
		hb_ingest_drop_pages(in, w, HB_DROP_UNMAPPED, p, n);
		return n;
	}
	n = min_u64(rem, s->end - p);
	n = min_u64(n, (uint64_t)STEP_PAGES * (in->page_mask + 1));
	(void)node_at(in, p, &block_end);
	n = min_u64(n, block_end - p);
	add_piece(in, w, p, n);
	return n;
}

/*
 * The memdev a record names. Two records with the same 16 name bytes name
 * the same memdev, so the raw bytes key a small cache (a DPA feed
 * alternates between the interleaved memdevs); a miss looks the name up.
 * The name is NUL-terminated (check()).
 */
static int memdev_of(struct hb_ingest *in, const char *name)
{
	struct md_cache *c;
	uint64_t key[2];

	memcpy(key, name, sizeof(key));
	for (unsigned int i = 0; i < in->mdc_len; i++)
		if (in->mdc[i].key[0] == key[0] && in->mdc[i].key[1] == key[1])
			return in->mdc[i].md;
	c = &in->mdc[in->mdc_next];
	in->mdc_next = (in->mdc_next + 1) % MD_CACHE;
	if (in->mdc_len < MD_CACHE)
		in->mdc_len++;
	memcpy(c->key, key, sizeof(key));
	c->md = hb_topology_find_memdev(in->topo, name);
	return c->md;
}

/* one step of a DPA record: one interleave granule, or the rest when unmapped */
static uint64_t dpa_step(struct hb_ingest *in, struct work *w, int md)
{
	uint64_t dpa = w->r.addr + w->off, rem = w->r.len - w->off, n;
	struct hb_xlat x;

	/* no message wanted: zeroing a struct hb_err a record cost ~15% */
	if (hb_topology_dpa_piece(in->topo, md, dpa, rem, &x, &n, NULL) < 0) {
		/* past the decoder (or in none): the rest of the record */
		hb_ingest_drop_pages(in, w, HB_DROP_UNMAPPED, dpa, rem);
		return rem;
	}
	add_piece(in, w, x.hpa, n);
	return n;
}

static void bad(struct hb_ingest *in, struct work *w, const char *why)
{
	w->drops |= 1u << HB_DROP_BAD_RECORD;
	w->off = w->r.len;
	if (!in->burst_bad++) {
		if (w->r.space == HB_SPACE_DPA)
			snprintf(in->burst_first, sizeof(in->burst_first),
				 "%.*s dpa=0x%" PRIx64 " len=0x%" PRIx64 ": %s", HB_MEMDEV_NAME_MAX,
				 w->r.memdev, w->r.addr, w->r.len, why);
		else
			snprintf(in->burst_first, sizeof(in->burst_first),
				 "space %u addr=0x%" PRIx64 " len=0x%" PRIx64 ": %s", w->r.space,
				 w->r.addr, w->r.len, why);
	}
}

/* Length and space, before any work; the record may end here. */
static int check(struct hb_ingest *in, struct work *w)
{
	const struct hb_hot_record *r = &w->r;

	w->checked = true;
	if (r->count > HB_RECORD_COUNT_MAX) {
		bad(in, w, "count above 10^12 (HB_RECORD_COUNT_MAX)");
		return -EINVAL;
	}
	if (r->timestamp_ns > w->seen_ns + HB_RECORD_TS_SKEW_NS) {
		/* not the records' clock: no latency is measured from it */
		w->r.timestamp_ns = 0;
		bad(in, w, "timestamp_ns more than 1 s in the future (the clock is CLOCK_MONOTONIC)");
		return -EINVAL;
	}
	if (r->timestamp_ns && r->timestamp_ns + HB_RECORD_MAX_AGE_NS < w->seen_ns) {
		w->r.timestamp_ns = 0;
		if (r->len && r->addr + r->len >= r->addr)
			hb_ingest_drop_pages(in, w, HB_DROP_STALE, r->addr, r->len);
		else
			w->drops |= 1u << HB_DROP_STALE;
		w->off = r->len;
		return -ESTALE;
	}
	if (r->space != HB_SPACE_DPA && r->space != HB_SPACE_HPA) {
		bad(in, w, "unknown address space");
		return -EINVAL;
	}
	if (!r->len || r->addr + r->len < r->addr) {
		bad(in, w, r->len ? "the range wraps past 2^64" : "zero length");
		return -EINVAL;
	}
	if (r->space == HB_SPACE_HPA) {
		if (in->cxl_bytes && r->len > in->cxl_bytes) {
			bad(in, w, "longer than all committed CXL regions together");
			return -EINVAL;
		}
		return 0;
	}
	{
		const struct hb_memdev *m;
		int md;

		if (r->memdev[HB_MEMDEV_NAME_MAX - 1] && !memchr(r->memdev, 0, HB_MEMDEV_NAME_MAX)) {
			bad(in, w, "memdev name not NUL-terminated");
			return -EINVAL;
		}
		md = memdev_of(in, r->memdev);
		w->md = md;
		w->gen = in->gen;
		if (md < 0) {
			hb_ingest_drop_pages(in, w, HB_DROP_UNKNOWN_MEMDEV, r->addr, r->len);
			w->off = r->len;
			return -ENODEV;
		}
		m = hb_topology_memdev(in->topo, (size_t)md);
		if (m->ram_size + m->pmem_size && r->len > m->ram_size + m->pmem_size) {
			bad(in, w, "longer than the memdev's capacity");
			return -EINVAL;
		}
	}
	return 0;
}

void hb_ingest_finish(struct hb_ingest *in, const struct work *w, uint64_t now)
{
	if (w->added) {
		in->st->translated++;
		if (w->drops)
			in->st->partial++;
	} else {
		in->st->dropped_records++;
	}
	for (int i = 0; w->drops && i < _HB_DROP_MAX; i++)
		if (w->drops & (1u << i))
			in->st->dropped[i]++;
	/* made at its timestamp, else when it was read: its wait in the backlog counts */
	if (in->env.lat)
		hb_latency_note(in->env.lat, w->r.timestamp_ns ? w->r.timestamp_ns : w->seen_ns, 1,
				now);
}

/* Works on w until it is done (true) or the deadline passed (false). */
bool hb_ingest_work(struct hb_ingest *in, struct work *w, uint64_t deadline, unsigned int *steps)
{
	int md = -1;

	if (!w->checked && check(in, w) < 0)
		return true;
	if (w->r.space == HB_SPACE_DPA && w->off < w->r.len) {
		md = w->gen == in->gen ? w->md : memdev_of(in, w->r.memdev);
		if (md < 0) { /* gone with a topology change while it waited */
			hb_ingest_drop_pages(in, w, HB_DROP_UNKNOWN_MEMDEV, w->r.addr + w->off,
					     w->r.len - w->off);
			return true;
		}
	}
	while (w->off < w->r.len) {
		if (deadline && ++*steps % CLOCK_EVERY == 0 && hb_now_ns() >= deadline)
			return false;
		w->off += w->r.space == HB_SPACE_HPA ? hpa_step(in, w) : dpa_step(in, w, md);
	}
	return true;
}
