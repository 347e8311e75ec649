// SPDX-License-Identifier: MIT
/*
 * hotbridge translate: DPA -> HPA (--memdev NAME --dpa ADDR), HPA -> DPA
 * (--hpa ADDR), or --batch: one query a line on stdin ("mem0 0x1234" or
 * "hpa 0x..."), one JSON object a line on stdout in the same order. Every
 * input line is answered, each echoing it as "query": a bad, unmapped,
 * empty, over-long or NUL-holding line gives an error object naming what
 * was wrong, a comment gives {"query":..,"comment":true}, and the batch
 * goes on. Echoed text is made valid UTF-8 (invalid bytes become \xNN).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cmd/batch.h"
#include "builtin.h"
#include "opt.h"
#include "test-hooks.h"
#include "platform/snapshot-nodes.h"
#include "utf8.h"

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
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	default: return "EIO";
	}
}

/* a JSON string of untrusted bytes: invalid UTF-8 and NULs become \xNN */
static json_object *json_text(const char *s, size_t len)
{
	_hb_cleanup_free_ char *e = NULL;

	if (hb_utf8_escape(s, len, &e) < 0)
		return NULL;
	return json_object_new_string(e);
}

static json_object *error_json(const char *query, size_t len, int code, const char *msg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "query", json_text(query, len));
	json_object_object_add(o, "error", json_text(msg, strlen(msg)));
	json_object_object_add(o, "errno", json_object_new_string(errno_name(-code)));
	return o;
}

static json_object *result_json(const struct xlat_ctx *x, const char *query, size_t len,
				const struct hb_xlat *res)
{
	const struct hb_region *rg = hb_topology_region(x->t, (size_t)res->region);
	const struct hb_endpoint_decoder *ep = hb_topology_endpoint(x->t, (size_t)res->endpoint);
	const struct hb_memdev *md = hb_topology_memdev(x->t, (size_t)res->memdev);
	json_object *o = json_object_new_object();
	struct hb_node_info ni;

	json_object_object_add(o, "query", json_text(query, len));
	json_object_object_add(o, "memdev", json_text(md->name, strlen(md->name)));
	json_object_object_add(o, "dpa", hb_json_hex(res->dpa));
	json_object_object_add(o, "region", json_text(rg->name, strlen(rg->name)));
	json_object_object_add(o, "decoder", json_text(ep->name, strlen(ep->name)));
	json_object_object_add(o, "position", json_object_new_int((int)res->pos));
	json_object_object_add(o, "hpa", hb_json_hex(res->hpa));
	if (x->nodes && hb_node_map_lookup(x->nodes, res->hpa, &ni) == 0) {
		json_object_object_add(o, "node", ni.node >= 0 ? json_object_new_int(ni.node) : NULL);
		json_object_object_add(o, "pfn", hb_json_hex(ni.pfn));
		json_object_object_add(o, "online", json_object_new_boolean(ni.online));
	} else {
		/* always present, so every answer has the same keys */
		json_object_object_add(o, "node", NULL);
		json_object_object_add(o, "pfn", NULL);
		json_object_object_add(o, "online", NULL);
	}
	return o;
}

/* an error answer; in a batch (lineno > 0) its message starts "line N: ", as the parser's do */
static json_object *query_error(const char *text, size_t len, unsigned long lineno, int code,
				const char *msg)
{
	char buf[HB_ERR_MSG_MAX + 32];

	if (!lineno)
		return error_json(text, len, code, msg);
	snprintf(buf, sizeof(buf), "line %lu: %s", lineno, msg);
	return error_json(text, len, code, buf);
}

/*
 * One query: memdev NULL for an HPA. text[0..len) is echoed as "query";
 * lineno is its batch line (0 for a single query). Returns a JSON
 * object, the translation or an error; *ok says which.
 */
static json_object *query(const struct xlat_ctx *x, const char *memdev, const char *addr,
			  const char *text, size_t len, unsigned long lineno, bool *ok)
{
	struct hb_err err = { 0 };
	struct hb_xlat res;
	uint64_t v;
	int r;

	*ok = false;
	r = hb_parse_u64(addr, &v);
	if (r < 0) {
		snprintf(err.msg, sizeof(err.msg), "address '%s' %s", addr,
			 hb_parse_u64_why(addr, r));
		return query_error(text, len, lineno, -EINVAL, err.msg);
	}
	if (!memdev) {
		r = hb_topology_hpa_to_dpa(x->t, v, &res, &err);
	} else {
		int md = hb_topology_find_memdev(x->t, memdev);

		if (md < 0) {
			snprintf(err.msg, sizeof(err.msg), HB_MEMDEV_UNKNOWN_FMT, memdev);
			return query_error(text, len, lineno, md, err.msg);
		}
		r = hb_topology_dpa_to_hpa(x->t, md, v, &res, &err);
	}
	if (r < 0)
		return query_error(text, len, lineno, r, err.msg);
	*ok = true;
	return result_json(x, text, len, &res);
}

static void put_line(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

/* One answer per input line, in order, whatever the line holds. */
static int run_batch(const struct xlat_ctx *x, FILE *in)
{
	struct hb_batch_line line = { 0 };
	unsigned long failed = 0;
	int r;

	while ((r = hb_batch_read_line(in, &line)) > 0) {
		struct hb_batch_query q;
		char why[HB_ERR_MSG_MAX];
		json_object *o;
		bool ok;

		r = hb_batch_parse_line(&line, &q, why, sizeof(why));
		if (r < 0) {
			put_line(error_json(line.text, line.len, r, why));
			failed++;
			continue;
		}
		if (r == HB_BATCH_COMMENT) {
			o = json_object_new_object();
			json_object_object_add(o, "query", json_text(line.text, line.len));
			json_object_object_add(o, "comment", json_object_new_boolean(true));
			put_line(o);
			continue;
		}
		put_line(query(x, q.hpa ? NULL : q.memdev, q.addr, line.text, line.len, line.lineno,
			       &ok));
		if (!ok)
			failed++;
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1; /* main names the error (close_stdout) */
	if (r < 0)
		return hb_cmd_fail(1, "hotbridge translate", "reading the queries after line %lu: %s",
				   line.lineno, strerror(-r));
	return failed ? 1 : 0;
}

enum { OPT_DPA = 0x100, OPT_COMPACT };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge translate [options] --memdev NAME --dpa ADDR\n"
		"       hotbridge translate [options] --hpa ADDR\n"
		"       hotbridge translate [options] --batch < queries\n"
		"  -t, --topology FILE     saved `cxl list` JSON (default: live, libcxl)\n"
		"  -c, --cedt FILE         ACPI CEDT for XOR windows (live default: %s)\n" HB_TEST_HOOK_USAGE(
			"  -s, --sysfs-root DIR    read memory blocks and dax devices below DIR (test hook;\n"
			"                          default: / when live, none with --topology)\n") "  -m, --memdev NAME       memdev of --dpa\n"
												   "      --dpa ADDR          device physical address\n"
												   "  -a, --hpa ADDR          host physical address\n"
												   "  -b, --batch             queries on stdin, one a line: 'mem0 0x1234' or 'hpa 0x...'\n"
												   "      --compact           a single answer on one line, as --batch prints each\n"
												   "ADDR is decimal or 0x hex (a leading zero is refused, never octal).\n",
		HB_DEFAULT_CEDT);
}

int hb_cmd_translate(int argc, char **argv)
{
	static const struct option opts[] = { { "topology", required_argument, NULL, 't' },
					      { "cedt", required_argument, NULL, 'c' },
					      { "sysfs-root", required_argument, NULL, 's' },
					      { "memdev", required_argument, NULL, 'm' },
					      { "dpa", required_argument, NULL,
						OPT_DPA }, /* no -d: a decoder in cxl-cli */
					      { "hpa", required_argument, NULL, 'a' },
					      { "batch", no_argument, NULL, 'b' },
					      { "compact", no_argument, NULL, OPT_COMPACT },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	_hb_cleanup_node_map_ struct hb_node_map *nodes = NULL;
	struct hb_topology_source src = { 0 };
	const char *memdev = NULL, *dpa = NULL, *hpa = NULL, *root = NULL;
	struct hb_err err = { 0 };
	struct xlat_ctx x;
	struct hb_getopt g = { 0 };
	bool batch = false, compact = false, ok;
	uint64_t v;
	int c, r;

	while ((c = hb_getopt(argc, argv, "t:c:s:m:a:bh", opts, &g)) != -1) {
		switch (c) {
		case 't': src.topology = optarg; break;
		case 'c': src.cedt = optarg; break;
		case 's':
			if (!hb_test_hook_allowed(argv[0], "--sysfs-root"))
				return 2;
			root = optarg;
			break;
		case 'm': memdev = optarg; break;
		case OPT_DPA: dpa = optarg; break;
		case 'a': hpa = optarg; break;
		case 'b': batch = true; break;
		case OPT_COMPACT: compact = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc)
		return hb_cmd_fail(2, "hotbridge translate", "unexpected argument '%s'",
				   argv[optind]);
	if ((int)batch + (dpa != NULL) + (hpa != NULL) != 1 || (dpa && !memdev) || (memdev && !dpa))
		return hb_cmd_fail(2, "hotbridge translate",
				   "give exactly one of --memdev NAME "
				   "--dpa ADDR, --hpa ADDR or --batch");
	/* a value that is not a number is a usage error (2), as for every option */
	if ((dpa &&
	     hb_opt_u64(argv[0], "--dpa", dpa, 0, UINT64_MAX, "a DPA, decimal or 0x hex", &v) < 0) ||
	    (hpa &&
	     hb_opt_u64(argv[0], "--hpa", hpa, 0, UINT64_MAX, "an HPA, decimal or 0x hex", &v) < 0))
		return 2;
	r = hb_topology_open(&src, &t, &err);
	if (r < 0)
		return hb_cmd_fail(1, "hotbridge translate", "%s", err.msg);
	hb_cmd_warn_empty_topology(t, "hotbridge translate");
	hb_cmd_warn_cedt_unmatched(t, &src, "hotbridge translate");
	hb_topology_source_check_nodes(&src, t, root, "hotbridge translate");
	if (!root && !src.topology)
		root = "";
	if (root) {
		r = hb_node_map_load(root, &nodes, &err);
		if (r < 0)
			fprintf(stderr,
				"hotbridge translate: no NUMA node information: %s, ignoring\n",
				err.msg);
	}
	x = (struct xlat_ctx){ .t = t, .nodes = nodes };
	if (batch)
		return run_batch(&x, stdin);

	{
		char text[2 * HB_BATCH_LINE_MAX];
		const char *addr = dpa ? dpa : hpa;
		json_object *o;

		snprintf(text, sizeof(text), "%s %s", memdev ? memdev : "hpa", addr);
		o = query(&x, memdev, addr, text, strlen(text), 0, &ok);
		if (!ok) {
			json_object *msg, *code;
			bool refused;

			json_object_object_get_ex(o, "error", &msg);
			json_object_object_get_ex(o, "errno", &code);
			refused = !strcmp(json_object_get_string(code), "EOPNOTSUPP");
			fprintf(stderr, "hotbridge translate: %s\n", json_object_get_string(msg));
			json_object_put(o);
			return refused ? HB_EXIT_REFUSED : 1;
		}
		puts(json_object_to_json_string_ext(o, compact ? JSON_C_TO_STRING_PLAIN :
								 JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_SPACED));
		json_object_put(o);
	}
	return 0;
}
