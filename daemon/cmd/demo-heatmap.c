// SPDX-License-Identifier: MIT
/* The demo's heatmap (demo-heatmap.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "daemon.h"
#include "demo-heatmap.h"
#include "kernel.h"
#include "translate.h"
#include "view.h"

void hb_demo_heatmap_cycle(struct hb_demo_heatmap *m, struct hb_daemon *d,
			   const struct hb_topology *t, uint64_t cycle, int cxl_node)
{
	uint64_t ncols = m->cycles < HB_DEMO_HEATMAP_COLS ? m->cycles : HB_DEMO_HEATMAP_COLS;
	size_t col = (size_t)((cycle - 1) * ncols / m->cycles), n;
	const struct hb_dryrun_record *rec;
	struct hb_err err = { 0 };
	json_object *heat = NULL;

	if (m->rc || !cycle || cycle > m->cycles)
		return;
	m->rc = hb_daemon_heat(d, HB_DEMO_HEATMAP_PAGES, &heat, &err);
	if (m->rc < 0)
		return;
	if (!m->h.heat) {
		m->rc = hb_heatmap_spaces_from(&m->h, heat, false);
		m->h.shades = HB_DEMO_HEATMAP_SHADES;
		if (!m->rc)
			m->rc = hb_heatmap_init(&m->h, (size_t)ncols, HB_DEMO_HEATMAP_ROWS);
	}
	if (!m->rc)
		hb_heatmap_add_from(&m->h, heat, false, col);
	json_object_put(heat);
	/* the moves of this cycle: the dry-run migrator's records since the last */
	n = hb_migrator_dryrun_records(hb_daemon_migrator(d), &rec);
	for (size_t i = m->moves_seen; i < n && !m->rc; i++) {
		struct hb_xlat x;
		const struct hb_memdev *md;

		if (hb_topology_hpa_to_dpa(t, rec[i].hpa, &x, NULL) < 0 ||
		    !(md = hb_topology_memdev(t, (size_t)x.memdev)))
			continue;
		hb_heatmap_mark(&m->h, hb_heatmap_space(&m->h, md->name), col, x.dpa,
				rec[i].node == cxl_node);
	}
	m->moves_seen = n;
}

int hb_demo_heatmap_write(struct hb_demo_heatmap *m, FILE *f, uint64_t seed)
{
	char title[192], per[64];
	uint64_t lo, hi;
	int r;

	if (m->rc)
		return m->rc;
	if (!m->h.heat)
		return -ENODATA;
	/* cycles per column: lo, or lo + 1 for some when ncols does not divide cycles */
	lo = m->cycles / m->h.ncols;
	hi = (m->cycles + m->h.ncols - 1) / m->h.ncols;
	if (lo == hi)
		snprintf(per, sizeof(per), "%llu cycle%s", (unsigned long long)lo,
			 lo == 1 ? "" : "s");
	else
		snprintf(per, sizeof(per), "%llu or %llu cycles", (unsigned long long)lo,
			 (unsigned long long)hi);
	snprintf(title, sizeof(title),
		 "hotbridge demo --seed %llu --cycles %llu: hotness by memdev DPA, a column per "
		 "%s of 100 ms%s",
		 (unsigned long long)seed, (unsigned long long)m->cycles, per,
		 lo == hi ? "" : ", averaged");
	m->h.title = title;
	m->h.col_s = 0.1 * (double)m->cycles / (double)m->h.ncols;
	r = hb_heatmap_svg(&m->h, f);
	if (fflush(f) != 0 && !r)
		r = -errno;
	m->h.title = NULL;
	return r;
}

void hb_demo_heatmap_done(struct hb_demo_heatmap *m)
{
	hb_heatmap_done(&m->h);
}
