// SPDX-License-Identifier: MIT
/*
 * hotbridge translate: DPA -> HPA (--memdev NAME --dpa ADDR), HPA -> DPA
 * (--hpa ADDR), or --batch: one query a line on stdin ("mem0 0x1234" or
 * "hpa 0x..."), one JSON object a line on stdout in the same order; a bad
 * or unmapped query gives an error object and the batch goes on.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "builtin.h"
#include "topology-source.h"

#define HB_BATCH_LINE_MAX 256

struct xlat_ctx {
	const struct hb_topology *t;
	const struct hb_node_map *nodes; /* NULL: node unknown */
};

static const char *errno_name(int e)
{
	switch (e) {
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case ENOLINK: return "ENOLINK";
	case ENOTCONN: return "ENOTCONN";
	case EINVAL: return "EINVAL";
	default: return "EIO";
	}
}

static json_object *error_json(const char *query, int code, const char *msg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "query", json_object_new_string(query));
	json_object_object_add(o, "error", json_object_new_string(msg));
	json_object_object_add(o, "errno", json_object_new_string(errno_name(-code)));
	return o;
}

static json_object *result_json(const struct xlat_ctx *x, const struct hb_xlat *res)
{
	const struct hb_region *rg = hb_topology_region(x->t, (size_t)res->region);
	const struct hb_endpoint_decoder *ep = hb_topology_endpoint(x->t, (size_t)res->endpoint);
	const struct hb_memdev *md = hb_topology_memdev(x->t, (size_t)res->memdev);
	json_object *o = json_object_new_object();
	struct hb_node_info ni;

	json_object_object_add(o, "memdev", json_object_new_string(md->name));
	json_object_object_add(o, "dpa", hb_json_hex(res->dpa));
	json_object_object_add(o, "region", json_object_new_string(rg->name));
	json_object_object_add(o, "decoder", json_object_new_string(ep->name));
	json_object_object_add(o, "position", json_object_new_int((int)res->pos));
	json_object_object_add(o, "hpa", hb_json_hex(res->hpa));
	if (x->nodes && hb_node_map_lookup(x->nodes, res->hpa, &ni) == 0) {
		json_object_object_add(o, "node", ni.node >= 0 ? json_object_new_int(ni.node) : NULL);
		json_object_object_add(o, "pfn", hb_json_hex(ni.pfn));
		json_object_object_add(o, "online", json_object_new_boolean(ni.online));
	} else {
		json_object_object_add(o, "node", NULL);
	}
	return o;
}

/* One query: "hpa ADDR" or "MEMDEV ADDR". Returns a JSON object, *ok. */
static json_object *query(const struct xlat_ctx *x, const char *memdev, const char *addr,
			  const char *text, bool *ok)
{
	struct hb_err err = {0};
	struct hb_xlat res;
	uint64_t v;
	int r;

	*ok = false;
	r = hb_parse_u64(addr, &v);
	if (r < 0) {
		snprintf(err.msg, sizeof(err.msg), "address '%s' is not a number", addr);
		return error_json(text, -EINVAL, err.msg);
	}
	if (!memdev) {
		r = hb_topology_hpa_to_dpa(x->t, v, &res, &err);
	} else {
		int md = hb_topology_find_memdev(x->t, memdev);

		if (md < 0) {
			snprintf(err.msg, sizeof(err.msg), "memdev '%s' is not in the topology", memdev);
			return error_json(text, md, err.msg);
		}
		r = hb_topology_dpa_to_hpa(x->t, md, v, &res, &err);
	}
	if (r < 0)
		return error_json(text, r, err.msg);
	*ok = true;
	return result_json(x, &res);
}

static void put_line(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static int run_batch(const struct xlat_ctx *x, FILE *in)
{
	char line[HB_BATCH_LINE_MAX + 2];
	unsigned long lineno = 0, failed = 0;

	while (fgets(line, sizeof(line), in)) {
		char *tok[3] = {0}, *save = NULL, *p;
		size_t len = strlen(line);
		bool ok;
		int n = 0;

		lineno++;
		if (len && line[len - 1] == '\n') {
			line[--len] = '\0';
		} else if (!feof(in)) {
			int ch;

			while ((ch = fgetc(in)) != EOF && ch != '\n')
				;
			put_line(error_json("", -EINVAL, "line longer than 256 bytes"));
			failed++;
			continue;
		}
		p = line + strspn(line, " \t");
		if (!*p || *p == '#')
			continue; /* blank lines and comments make no output */
		for (char *s = strtok_r(p, " \t\r", &save); s && n < 3; s = strtok_r(NULL, " \t\r", &save))
			tok[n++] = s;
		if (n != 2) {
			char msg[96];

			snprintf(msg, sizeof(msg),
				 "line %lu: expected 'MEMDEV DPA' or 'hpa HPA'", lineno);
			put_line(error_json(p, -EINVAL, msg));
			failed++;
			continue;
		}
		{
			char text[HB_BATCH_LINE_MAX + 2];

			snprintf(text, sizeof(text), "%s %s", tok[0], tok[1]);
			put_line(query(x, strcmp(tok[0], "hpa") ? tok[0] : NULL, tok[1], text, &ok));
		}
		if (!ok)
			failed++;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "hotbridge translate: write error: %m\n");
		return 1;
	}
	return failed ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge translate [options] --memdev NAME --dpa ADDR\n"
		"       hotbridge translate [options] --hpa ADDR\n"
		"       hotbridge translate [options] --batch < queries\n"
		"  -t, --topology FILE     saved `cxl list` JSON (default: live, libcxl)\n"
		"  -c, --cedt FILE         ACPI CEDT for XOR windows (live default: %s)\n"
		"  -s, --sysfs-root DIR    read memory blocks and dax devices below DIR\n"
		"                          (default: / when live, none with --topology)\n"
		"  -m, --memdev NAME       memdev of --dpa\n"
		"  -d, --dpa ADDR          device physical address\n"
		"  -a, --hpa ADDR          host physical address\n"
		"  -b, --batch             queries on stdin: 'mem0 0x1234' or 'hpa 0x...'\n",
		HB_DEFAULT_CEDT);
}

int hb_cmd_translate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "cedt", required_argument, NULL, 'c' },
		{ "sysfs-root", required_argument, NULL, 's' },
		{ "memdev", required_argument, NULL, 'm' },
		{ "dpa", required_argument, NULL, 'd' },
		{ "hpa", required_argument, NULL, 'a' },
		{ "batch", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	_hb_cleanup_node_map_ struct hb_node_map *nodes = NULL;
	struct hb_topology_source src = {0};
	const char *memdev = NULL, *dpa = NULL, *hpa = NULL, *root = NULL;
	struct hb_err err = {0};
	struct xlat_ctx x;
	bool batch = false, ok;
	int c, r;

	while ((c = getopt_long(argc, argv, "t:c:s:m:d:a:bh", opts, NULL)) != -1) {
		switch (c) {
		case 't': src.topology = optarg; break;
		case 'c': src.cedt = optarg; break;
		case 's': root = optarg; break;
		case 'm': memdev = optarg; break;
		case 'd': dpa = optarg; break;
		case 'a': hpa = optarg; break;
		case 'b': batch = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hotbridge translate: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if ((int)batch + (dpa != NULL) + (hpa != NULL) != 1 || (dpa && !memdev) ||
	    (memdev && !dpa)) {
		fprintf(stderr,
			"hotbridge translate: give exactly one of --memdev NAME --dpa ADDR, --hpa ADDR or --batch\n");
		return 2;
	}
	r = hb_topology_source_load(&src, &t, &err);
	if (r < 0) {
		fprintf(stderr, "hotbridge translate: %s\n", err.msg);
		return 1;
	}
	if (!root && !src.topology)
		root = "";
	if (root) {
		r = hb_node_map_load(root, &nodes, &err);
		if (r < 0)
			fprintf(stderr, "hotbridge translate: no NUMA node information: %s, ignoring\n",
				err.msg);
	}
	x = (struct xlat_ctx){ .t = t, .nodes = nodes };
	if (batch)
		return run_batch(&x, stdin);

	{
		char text[HB_BATCH_LINE_MAX];
		json_object *o;

		snprintf(text, sizeof(text), "%s %s", memdev ? memdev : "hpa", dpa ? dpa : hpa);
		o = query(&x, memdev, dpa ? dpa : hpa, text, &ok);
		if (!ok) {
			json_object *msg;

			json_object_object_get_ex(o, "error", &msg);
			fprintf(stderr, "hotbridge translate: %s\n", json_object_get_string(msg));
			json_object_put(o);
			return 1;
		}
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
		json_object_put(o);
	}
	return 0;
}
