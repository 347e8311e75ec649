// SPDX-License-Identifier: MIT
/* hotbridge topology: print the loaded model as JSON. */
#include <getopt.h>
#include <stdio.h>
#include <syslog.h>

#include <json-c/json.h>

#include "builtin.h"
#include "log.h"
#include "opt.h"
#include "translate.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge topology [--topology FILE] [--cedt FILE]\n"
		"  -t, --topology FILE  a saved `cxl list` JSON document (default: live, libcxl)\n"
		"  -c, --cedt FILE      ACPI CEDT for XOR windows (default when live: %s)\n",
		HB_DEFAULT_CEDT);
}

void hb_cmd_warn_empty_topology(const struct hb_topology *t, const char *prog)
{
	if (!hb_topology_nr_memdevs(t) && !hb_topology_nr_endpoints(t) &&
	    !hb_topology_nr_regions(t) && !hb_topology_nr_roots(t))
		fprintf(stderr, "%s: warning: no CXL memdev, decoder or region\n", prog);
}

static void size_text(uint64_t size, char *buf, size_t len)
{
	if (size && !(size % (1ULL << 30)))
		snprintf(buf, len, "%llu GiB", (unsigned long long)(size >> 30));
	else if (size && !(size % (1ULL << 20)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(size >> 20));
	else
		snprintf(buf, len, "%#llx bytes", (unsigned long long)size);
}

void hb_cmd_warn_cedt_unmatched(const struct hb_topology *t, const struct hb_topology_source *src,
				const char *prog)
{
	const struct hb_cedt_window *w;

	for (size_t i = 0; t && (w = hb_topology_cedt_unmatched(t, i)); i++) {
		const struct hb_root_decoder *near = NULL;
		char size[32], also[160] = "";

		for (size_t k = 0; k < hb_topology_nr_roots(t) && !near; k++) {
			const struct hb_root_decoder *d = hb_topology_root(t, k);

			if (d->hpa_base < w->base + w->size && w->base < d->hpa_base + d->hpa_size)
				near = d;
		}
		if (near)
			snprintf(also, sizeof(also), " (%s there is 0x%llx-0x%llx, %u-way)",
				 near->name, (unsigned long long)near->hpa_base,
				 (unsigned long long)(near->hpa_base + near->hpa_size - 1),
				 near->ways);
		size_text(w->size, size, sizeof(size));
		hb_log_early(LOG_WARNING, prog,
			     "CEDT %s: window 0x%llx-0x%llx (%s, %u-way %s) matches no root "
			     "decoder %s%s%s; its arithmetic is not used, ignoring",
			     src->cedt ? src->cedt : HB_DEFAULT_CEDT, (unsigned long long)w->base,
			     (unsigned long long)(w->base + w->size - 1), size, w->ways,
			     hb_arith_to_string(w->arith),
			     src->topology ? "in the snapshot " : "of this host (libcxl)",
			     src->topology ? src->topology : "", also);
	}
}

/* Regions hotbridge will not translate, each named on stderr: exit 3 if any. */
static int refusals(const struct hb_topology *t)
{
	const struct hb_region *rg;
	size_t cur = 0;
	int ret = 0;

	while ((rg = hb_topology_next_refused(t, &cur))) {
		fprintf(stderr, "hotbridge topology: %s not translated: %s\n", rg->name, rg->refused);
		ret = HB_EXIT_REFUSED;
	}
	return ret;
}

int hb_cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = { { "topology", required_argument, NULL, 't' },
					      { "cedt", required_argument, NULL, 'c' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_topology_source src = { 0 };
	struct hb_err err = { 0 };
	json_object *o;
	struct hb_getopt g = { 0 };
	int c, r;

	while ((c = hb_getopt(argc, argv, "t:c:h", opts, &g)) != -1) {
		switch (c) {
		case 't': src.topology = optarg; break;
		case 'c': src.cedt = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc)
		return hb_cmd_fail(2, "hotbridge topology", "unexpected argument '%s'", argv[optind]);
	r = hb_topology_open(&src, &t, &err);
	if (r < 0)
		return hb_cmd_fail(1, "hotbridge topology", "%s", err.msg);
	hb_cmd_warn_empty_topology(t, "hotbridge topology");
	hb_cmd_warn_cedt_unmatched(t, &src, "hotbridge topology");
	o = hb_topology_to_json(t);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
	json_object_put(o);
	return refusals(t);
}
