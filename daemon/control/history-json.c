// SPDX-License-Identifier: MIT
/* The decision history: recording a cycle, entries as JSON. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "control/history-json.h"
#include "translate.h"

static bool is_held(enum hb_reason r)
{
	return r == HB_REASON_HYSTERESIS || r == HB_REASON_ON_TARGET || r == HB_REASON_REFUSED ||
	       r == HB_REASON_DEMOTED_RECENTLY || r == HB_REASON_RESIDENT ||
	       r == HB_REASON_PROMOTED_RECENTLY;
}

size_t hb_history_record(struct hb_history *h, const struct hb_history_cycle *c)
{
	size_t k = 0, recorded = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct hb_decision *d = &c->dec[i];
		struct hb_history_entry e = {
			.time_ns = c->time_ns,
			.hpa = d->hpa,
			.heat = d->heat,
			.src = (int16_t)d->src,
			.target = (int16_t)d->target,
			.reason = (uint8_t)d->reason,
			.result = HB_HISTORY_NO_RESULT,
			.source = (int16_t)(d->source >= 0 && d->source <= INT16_MAX ? d->source : -1),
			.epochs = (uint8_t)(d->epochs < UINT8_MAX ? d->epochs : UINT8_MAX),
			.min_epochs =
				(uint8_t)(c->min_epochs < UINT8_MAX ? c->min_epochs : UINT8_MAX),
		};
		struct hb_xlat x;

		if (d->reason == HB_REASON_PROMOTE || d->reason == HB_REASON_DEMOTE) {
			if (k < c->np)
				e.result = c->status[k];
			k++;
		} else if (is_held(d->reason)) {
			continue;
		}
		if (c->topology && hb_topology_hpa_to_dpa(c->topology, d->hpa, &x, NULL) == 0) {
			const struct hb_memdev *m = hb_topology_memdev(c->topology, (size_t)x.memdev);

			if (m && strlen(m->name) < sizeof(e.memdev)) {
				strcpy(e.memdev, m->name);
				e.dpa = x.dpa;
			}
		}
		hb_history_add(h, &e);
		recorded++;
	}
	return recorded;
}

static json_object *time_json(uint64_t ns)
{
	time_t s = (time_t)(ns / 1000000000ULL);
	char buf[64], out[80];
	struct tm tm;

	if (!gmtime_r(&s, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
		return NULL;
	snprintf(out, sizeof(out), "%s.%03uZ", buf, (unsigned int)(ns / 1000000ULL % 1000));
	return json_object_new_string(out);
}

const char *hb_errno_name(int e)
{
	const char *name = strerrorname_np(e);

	return name ? name : "unknown";
}

const char *hb_move_strerror(int e)
{
	/* the migrators' own meaning (kernel.h), not the C library's "cross-device link" */
	if (e == EXDEV)
		return "refused by memory policy: every process mapping the page keeps it off "
		       "the target node (mbind/set_mempolicy)";
	return strerror(e);
}

static json_object *result_json(int32_t result)
{
	json_object *o;

	if (result == HB_HISTORY_NO_RESULT)
		return NULL;
	o = json_object_new_object();
	if (result >= 0) {
		json_object_object_add(o, "node", json_object_new_int(result));
	} else {
		json_object_object_add(o, "errno", json_object_new_string(hb_errno_name(-result)));
		json_object_object_add(o, "error", json_object_new_string(hb_move_strerror(-result)));
	}
	return o;
}

json_object *hb_history_entry_json(const struct hb_history_entry *e, uint64_t now_ns,
				   const struct hb_source_names *names)
{
	const char *src_name = names && e->source >= 0 && (size_t)e->source < names->n ?
				       names->name[e->source] :
				       NULL;
	json_object *o = json_object_new_object();
	const char *reason = hb_reason_to_string((enum hb_reason)e->reason);
	uint64_t age_ms = now_ns > e->time_ns ? (now_ns - e->time_ns) / 1000000ULL : 0;
	char age[32];

	snprintf(age, sizeof(age), "%llu.%03llu", (unsigned long long)(age_ms / 1000),
		 (unsigned long long)(age_ms % 1000));
	json_object_object_add(o, "time", time_json(e->time_ns));
	json_object_object_add(o, "age_s", json_object_new_double_s((double)age_ms / 1e3, age));
	json_object_object_add(o, "page", hb_json_hex(e->hpa));
	json_object_object_add(o, "memdev", e->memdev[0] ? json_object_new_string(e->memdev) : NULL);
	json_object_object_add(o, "dpa", e->memdev[0] ? hb_json_hex(e->dpa) : NULL);
	json_object_object_add(o, "heat", hb_json_double(e->heat, 3));
	json_object_object_add(o, "node", e->src >= 0 ? json_object_new_int(e->src) : NULL);
	json_object_object_add(o, "target", e->target >= 0 ? json_object_new_int(e->target) : NULL);
	json_object_object_add(o, "decision",
			       json_object_new_string(e->reason == HB_REASON_PROMOTE ? "promote" :
						      e->reason == HB_REASON_DEMOTE  ? "demote" :
										       "skip"));
	json_object_object_add(o, "reason", json_object_new_string(reason ? reason : "unknown"));
	if (e->reason == HB_REASON_FEW_EPOCHS) {
		char why[64];

		snprintf(why, sizeof(why), "seen in %u of %u epochs", e->epochs, e->min_epochs);
		json_object_object_add(o, "why", json_object_new_string(why));
	}
	json_object_object_add(o, "hotness_source",
			       src_name ? json_object_new_string(src_name) : NULL);
	json_object_object_add(o, "result", result_json(e->result));
	return o;
}

json_object *hb_history_find_json(const struct hb_history *h, bool page_only, uint64_t hpa,
				  uint64_t page_size, size_t last, uint64_t now_ns,
				  const struct hb_source_names *names)
{
	const struct hb_history_entry **found = calloc(last ? last : 1, sizeof(*found));
	json_object *a = json_object_new_array();
	size_t n;

	if (!found || !a) {
		free(found);
		json_object_put(a);
		return NULL;
	}
	n = hb_history_find(h, page_only, hpa, page_size, found, last);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, hb_history_entry_json(found[i], now_ns, names));
	free(found);
	return a;
}
