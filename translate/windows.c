// SPDX-License-Identifier: MIT
/*
 * This host's CXL windows (translate.h): the fixed memory windows the
 * platform firmware describes in the CEDT (CFMWS), which the kernel's
 * cxl_acpi inserts into /proc/iomem as top-level "CXL Window N" resources
 * (drivers/cxl/acpi.c). Either source suffices; both are taken (their
 * union), so a host without cxl_acpi loaded still has its CFMWS. Then:
 * which NUMA nodes have all their memory inside them.
 */
#include <errno.h>
#include <string.h>

#include "translate-private.h"
#include "util/iomem.h"

static void add(struct hb_cxl_windows *w, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].start == start && w->v[i].end == end)
			return;
	if (w->n < HB_ARRAY_SIZE(w->v))
		w->v[w->n++] = (struct hb_cxl_window){ .start = start, .end = end };
}

void hb_cxl_windows_add_iomem(struct hb_cxl_windows *w, const struct hb_iomem *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strncmp(m->v[i].name, "CXL Window", 10) && m->v[i].end >= m->v[i].start)
			add(w, m->v[i].start, m->v[i].end + 1);
}

void hb_cxl_windows_add_cedt(struct hb_cxl_windows *w, const struct hb_cedt *c)
{
	for (size_t i = 0; i < c->nr_windows; i++)
		if (c->windows[i].size && c->windows[i].base + c->windows[i].size > c->windows[i].base)
			add(w, c->windows[i].base, c->windows[i].base + c->windows[i].size);
}

bool hb_cxl_windows_contain(const struct hb_cxl_windows *w, uint64_t start, uint64_t len)
{
	for (size_t i = 0; i < w->n; i++)
		if (start >= w->v[i].start && start < w->v[i].end && len <= w->v[i].end - start)
			return true;
	return false;
}

int hb_cxl_windows_load(const char *iomem, int iomem_fd, const char *cedt,
			struct hb_cxl_windows *ret, struct hb_err *err)
{
	struct hb_cxl_windows w = { 0 };
	struct hb_err why_iomem = { 0 }, why_cedt = { 0 };
	struct hb_iomem m = { 0 };
	struct hb_cedt c;
	int ri, rc;

	ri = iomem_fd >= 0 ? hb_iomem_load_fd(iomem_fd, iomem, &m, &why_iomem) :
			     hb_iomem_load(iomem, &m, &why_iomem);
	if (ri == 0) {
		hb_cxl_windows_add_iomem(&w, &m);
		hb_iomem_done(&m);
	}
	rc = cedt ? hb_cedt_load_file(cedt, &c, &why_cedt) : -ENOENT;
	if (rc == 0)
		hb_cxl_windows_add_cedt(&w, &c);
	if (ri < 0 && rc < 0)
		return hb_err_set(err, ri, "this host's CXL windows are unknown: %s%s%s",
				  why_iomem.msg, cedt ? "; " : "", cedt ? why_cedt.msg : "");
	*ret = w;
	return 0;
}
