// SPDX-License-Identifier: MIT
/*
 * Other movers of the same pages (kernel/kernel.h): probed at start and
 * on each reload, warned about in the log (said at info level in a dry run,
 * which moves nothing), shown by `status` ("conflicts": what is there, dry
 * run or not, beside its "dry_run").
 */
#include <syslog.h>

#include <json-c/json.h>

#include "daemon-private.h"

void hb_daemon_check_conflicts(struct hb_daemon *d, const char *when)
{
	const char *root = d->env.conflicts_root;

	d->conflicts = (struct hb_conflicts){ 0 };
	if (!root && hb_platform_emulated(d->env.platform))
		return; /* it moves no memory of this host */
	hb_conflicts_probe(root, d->cfg.damon_state, &d->conflicts);
	for (int k = 0; k < _HB_CONFLICT_MAX; k++) {
		if (!(d->conflicts.found & 1u << k))
			continue;
		/* a dry run moves nothing, so nothing conflicts yet: said, not warned */
		if (d->cfg.dry_run)
			hb_dlog(d, LOG_INFO,
				"%s: %s would move the same pages as hotbridge "
				"(none moved in a dry run): %s",
				when, hb_conflict_to_string(k), d->conflicts.why[k]);
		else
			hb_dlog(d, LOG_WARNING, "%s: %s moves the same pages as hotbridge: %s",
				when, hb_conflict_to_string(k), d->conflicts.why[k]);
	}
}

json_object *hb_daemon_conflicts_json(const struct hb_daemon *d)
{
	json_object *a = json_object_new_array();

	for (int k = 0; k < _HB_CONFLICT_MAX; k++) {
		json_object *o;

		if (!(d->conflicts.found & 1u << k))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "conflict",
				       json_object_new_string(hb_conflict_to_string(k)));
		json_object_object_add(o, "detail", json_object_new_string(d->conflicts.why[k]));
		json_object_array_add(a, o);
	}
	return a;
}
