// SPDX-License-Identifier: MIT
/*
 * What the daemon does with a device's media events (hb_host_ops.submit_event,
 * ABI 1.2; the cxl-events source's trace events):
 *  - the reporter's HPA for memdev:dpa is checked against our own
 *    translation: agreements and mismatches are counted, mismatches logged
 *    (at most one line a second, the rest counted); the reporter's value
 *    never replaces ours;
 *  - poison, and media errors the device could not correct, quarantine the
 *    pages (by our translation): they leave the hotness table now and are
 *    set aside from every later cycle's candidates before the policy sees
 *    them, refused as HB_REASON_QUARANTINED, so they are never promoted;
 *    `explain` and `history` name them;
 *  - cleared poison releases a page kept out for poison alone, once: the
 *    clear wrote the line anew, so moving it no longer consumes poison. A
 *    page with an uncorrectable media error, or poisoned again after a
 *    clear, stays out (daemon/docs/cycle.md says why);
 *  - lost-event reports (overflow) are counted with the records lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "daemon-private.h"
#include "platform/platform.h"

#define QUARANTINE_MAX 65536          /* pages; past that counted, not kept */
#define MISMATCH_LOG_NS 1000000000ULL /* one mismatch line a second at most */
#define PAGE 4096ULL

static int cmp_page(const void *a, const void *b)
{
	const struct hb_quarantined *x = a, *y = b;

	return x->page < y->page ? -1 : x->page > y->page;
}

/* hpa's entry, kept out or released (NULL: none) */
static struct hb_quarantined *entry(const struct hb_daemon *d, uint64_t hpa)
{
	struct hb_quarantined key = { .page = hpa & ~(d->pcfg.page_size - 1) };

	if (!d->media.nquar)
		return NULL;
	return bsearch(&key, d->media.quar, d->media.nquar, sizeof(key), cmp_page);
}

const struct hb_quarantined *hb_daemon_quarantined(const struct hb_daemon *d, uint64_t hpa)
{
	const struct hb_quarantined *q = entry(d, hpa);

	return q && q->why ? q : NULL;
}

static void quarantine(struct hb_daemon *d, uint64_t hpa, uint32_t why)
{
	struct hb_media_state *m = &d->media;
	uint64_t page = hpa & ~(d->pcfg.page_size - 1);
	size_t lo = 0, hi = m->nquar;

	hb_heat_forget(d->heat, page);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->quar[mid].page < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->nquar && m->quar[lo].page == page) {
		if (!m->quar[lo].why) /* released, and poisoned again */
			d->st.media.quarantined_pages++;
		m->quar[lo].why |= why;
		return;
	}
	if (m->nquar == QUARANTINE_MAX) {
		d->st.media.quarantine_full++;
		return;
	}
	if (m->nquar == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct hb_quarantined *q = realloc(m->quar, cap * sizeof(*q));

		if (!q) {
			d->st.media.quarantine_full++;
			return;
		}
		m->quar = q;
		m->cap = cap;
	}
	memmove(&m->quar[lo + 1], &m->quar[lo], (m->nquar - lo) * sizeof(*m->quar));
	m->quar[lo] = (struct hb_quarantined){ .page = page, .why = why };
	m->nquar++;
	d->st.media.quarantined_pages++;
}

/* Our HPA of memdev:dpa; -errno when we cannot translate it. */
static int our_hpa(struct hb_daemon *d, const char *memdev, uint64_t dpa, uint64_t *ret)
{
	const struct hb_topology *t = hb_platform_topology(d->env.platform);
	struct hb_xlat x;
	int md, r;

	if (!t)
		return -ENODEV;
	md = hb_topology_find_memdev(t, memdev);
	if (md < 0)
		return md;
	r = hb_topology_dpa_to_hpa(t, md, dpa, &x, NULL);
	if (r < 0)
		return r;
	*ret = x.hpa;
	return 0;
}

static void cross_check(struct hb_daemon *d, const struct hb_device_event *ev)
{
	struct hb_media_stats *st = &d->st.media;
	uint64_t ours = HB_ADDR_NONE, now;
	int r = our_hpa(d, ev->memdev, ev->dpa, &ours);
	struct hb_log_fields f;

	if (r < 0)
		ours = HB_ADDR_NONE;
	if (ours == ev->hpa) {
		st->hpa_agree++;
		return;
	}
	st->hpa_mismatch++;
	now = hb_now_ns();
	if (d->media.mismatch_logged_ns && now - d->media.mismatch_logged_ns < MISMATCH_LOG_NS) {
		d->media.mismatch_quiet++;
		return;
	}
	f = (struct hb_log_fields){ .memdev = ev->memdev, .hpa = ours, .dpa = ev->dpa };
	hb_dlogf(d, LOG_WARNING, &f,
		 "%s:0x%llx: the device's HPA %s%llx, ours %s%llx%s%s; ours is kept"
		 " (%llu more mismatches not logged)",
		 ev->memdev, (unsigned long long)ev->dpa, ev->hpa == HB_ADDR_NONE ? "none " : "0x",
		 (unsigned long long)(ev->hpa == HB_ADDR_NONE ? 0 : ev->hpa),
		 ours == HB_ADDR_NONE ? "none " : "0x",
		 (unsigned long long)(ours == HB_ADDR_NONE ? 0 : ours), r < 0 ? ": " : "",
		 r < 0 ? strerror(-r) : "", (unsigned long long)d->media.mismatch_quiet);
	d->media.mismatch_logged_ns = now;
	d->media.mismatch_quiet = 0;
}

/* every page of memdev:[dpa, dpa + len) by our translation */
static void quarantine_range(struct hb_daemon *d, const struct hb_device_event *ev, uint32_t why)
{
	uint64_t first = ev->dpa & ~(PAGE - 1), end = ev->dpa + ev->len, hpa;
	bool any = false;

	if (end < ev->dpa)
		end = UINT64_MAX;
	for (uint64_t dpa = first; dpa < end; dpa += PAGE) {
		/* each page's own translation: interleaving may scatter them */
		if (our_hpa(d, ev->memdev, dpa < ev->dpa ? ev->dpa : dpa, &hpa) == 0) {
			quarantine(d, hpa, why);
			any = true;
		}
		if (dpa > UINT64_MAX - PAGE)
			break;
	}
	if (!any) {
		d->st.media.quarantine_untranslated++;
		struct hb_log_fields f = { .memdev = ev->memdev,
					   .hpa = HB_LOG_NO_ADDR,
					   .dpa = ev->dpa };

		hb_dlogf(d, LOG_WARNING, &f,
			 "%s:0x%llx+0x%llx is %s but in no region we know: nothing "
			 "to keep out of promotion",
			 ev->memdev, (unsigned long long)ev->dpa, (unsigned long long)ev->len,
			 why == HB_QUARANTINE_POISON ? "poisoned" : "uncorrectable");
	}
}

/*
 * Cleared poison on memdev:[dpa, dpa + len): each page kept out for poison
 * alone and never cleared before is released; the others stay out
 */
static void release_range(struct hb_daemon *d, const struct hb_device_event *ev)
{
	uint64_t first = ev->dpa & ~(PAGE - 1), end = ev->dpa + ev->len, hpa;
	size_t released = 0, kept = 0;
	struct hb_quarantined *q;

	if (end < ev->dpa)
		end = UINT64_MAX;
	for (uint64_t dpa = first; dpa < end; dpa += PAGE) {
		if (our_hpa(d, ev->memdev, dpa < ev->dpa ? ev->dpa : dpa, &hpa) == 0 &&
		    (q = entry(d, hpa)) && (q->why & HB_QUARANTINE_POISON)) {
			if (q->why & HB_QUARANTINE_UNCORRECTABLE || q->cleared) {
				kept++;
			} else {
				q->why &= ~HB_QUARANTINE_POISON;
				d->st.media.quarantined_pages--;
				released++;
			}
			q->cleared++;
		}
		if (dpa > UINT64_MAX - PAGE)
			break;
	}
	d->st.media.poison_released += released;
	d->st.media.poison_clear_kept += kept;
	if (released || kept) {
		struct hb_log_fields f = { .memdev = ev->memdev,
					   .hpa = HB_LOG_NO_ADDR,
					   .dpa = ev->dpa };

		hb_dlogf(d, LOG_NOTICE, &f,
			 "%s:0x%llx+0x%llx: poison cleared: %zu pages may be promoted again, %zu "
			 "stay quarantined (poisoned again after a clear, or an uncorrectable "
			 "error)",
			 ev->memdev, (unsigned long long)ev->dpa, (unsigned long long)ev->len,
			 released, kept);
	}
}

int hb_daemon_media_event(struct hb_daemon *d, const struct hb_device_event *ev)
{
	struct hb_media_stats *st = &d->st.media;

	if (ev->size < sizeof(*ev) || !memchr(ev->memdev, 0, sizeof(ev->memdev)) ||
	    (ev->kind != HB_EVENT_OVERFLOW && (!ev->memdev[0] || !ev->len)))
		return -EINVAL;
	switch (ev->kind) {
	case HB_EVENT_OVERFLOW:
		st->overflow_events++;
		st->overflow_records_lost += ev->count;
		hb_dlog(d, LOG_WARNING, "%s lost %u event records (overflow)",
			ev->memdev[0] ? ev->memdev : "a device", ev->count);
		return 0;
	case HB_EVENT_MEDIA: st->media_events++; break;
	case HB_EVENT_POISON: st->poison_events++; break;
	default: return -EINVAL;
	}
	cross_check(d, ev);
	if (ev->kind == HB_EVENT_POISON && (ev->flags & HB_EVENT_F_CLEARED)) {
		st->poison_cleared++;
		release_range(d, ev);
		return 0;
	}
	if (ev->kind == HB_EVENT_POISON)
		quarantine_range(d, ev, HB_QUARANTINE_POISON);
	else if (ev->flags & HB_EVENT_F_UNCORRECTABLE)
		quarantine_range(d, ev, HB_QUARANTINE_UNCORRECTABLE);
	return 0;
}

size_t hb_daemon_drop_quarantined(struct hb_daemon *d, struct hb_candidate *c, size_t n)
{
	size_t i = 0;

	if (!d->media.nquar)
		return n;
	while (i < n) {
		struct hb_candidate t;

		if (!hb_daemon_quarantined(d, c[i].hpa)) {
			i++;
			continue;
		}
		hb_heat_forget(d->heat, c[i].hpa);
		d->st.media.quarantine_dropped++;
		t = c[i];
		c[i] = c[--n];
		c[n] = t;
	}
	return n;
}

size_t hb_daemon_refuse_quarantined(struct hb_daemon *d, struct hb_decision *dec, size_t n,
				    const struct hb_candidate *c, size_t nq,
				    struct hb_policy_spent *spent)
{
	for (size_t i = 0; i < n && d->media.nquar; i++) {
		/* poisoned while the decision was being made, off the loop */
		if (dec[i].reason != HB_REASON_PROMOTE || !hb_daemon_quarantined(d, dec[i].hpa))
			continue;
		dec[i].reason = HB_REASON_QUARANTINED;
		hb_heat_forget(d->heat, dec[i].hpa);
		d->st.media.quarantine_refused_late++;
		if (spent) {
			spent->promoted--;
			spent->bytes[dec[i].target] -= d->pcfg.page_size;
		}
	}
	for (size_t i = 0; i < nq; i++)
		dec[n + i] = (struct hb_decision){ .hpa = c[i].hpa,
						   .heat = c[i].heat,
						   .src = c[i].node,
						   .target = -1,
						   .source = c[i].source,
						   .reason = HB_REASON_QUARANTINED };
	return n + nq;
}

void hb_daemon_media_free(struct hb_daemon *d)
{
	free(d->media.quar);
	d->media = (struct hb_media_state){ 0 };
}
