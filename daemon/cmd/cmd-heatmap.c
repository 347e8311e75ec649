// SPDX-License-Identifier: MIT
/*
 * hotbridge heatmap: hotness over time by address, as SVG. Asks the
 * running daemon for its hottest pages (heat) --samples times, --delay
 * seconds apart, then for its latest decisions (history) to mark the
 * promotions and demotions of those seconds; draws heatmap.h's picture.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "builtin.h"
#include "conf/conf.h"
#include "control/control.h"
#include "control/history-json.h"
#include "heatmap.h"
#include "opt.h"
#include "util/util.h"
#include "view.h"

struct opts {
	const char *sock, *out;
	unsigned int timeout_s, delay_s;
	size_t samples, rows;
	bool by_hpa;
};

/* the offset of hpa in the region space it falls in, its space in *ret_space */
static uint64_t region_offset(const struct hb_heatmap *h, json_object *heat, uint64_t hpa,
			      int *ret_space)
{
	json_object *a = hb_view_get(heat, "regions");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	*ret_space = -1;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		uint64_t base = hb_view_u64(o, "hpa"), size = hb_view_u64(o, "size");

		if (hpa >= base && hpa - base < size) {
			*ret_space = hb_heatmap_space(h, hb_view_str(o, "name", ""));
			return hpa - base;
		}
	}
	return 0;
}

/*
 * Each promote or demote entry of history into the column of the sample
 * that followed it: sample k was taken at first_ms + k * delay, the reply
 * at now_ms; entries before the first column's second are left out.
 */
static size_t mark_history(struct hb_heatmap *h, const struct opts *o, json_object *heat,
			   json_object *history, uint64_t first_ms, uint64_t now_ms)
{
	json_object *a = hb_view_get(history, "entries");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	double delay_ms = o->delay_s * 1000.0;
	size_t marked = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		const char *dec = hb_view_str(e, "decision", "");
		double at = (double)now_ms - hb_view_num(e, "age_s") * 1000, k;
		uint64_t offset;
		int space;

		if (strcmp(dec, "promote") && strcmp(dec, "demote"))
			continue;
		k = (at - (double)first_ms) / delay_ms;
		if (k < -1)
			continue;
		k = k < 0 ? 0 : k + 0.999999;
		if (o->by_hpa) {
			offset = region_offset(h, heat, hb_view_u64(e, "page"), &space);
		} else {
			space = hb_heatmap_space(h, hb_view_str(e, "memdev", ""));
			offset = hb_view_u64(e, "dpa");
		}
		if (space < 0)
			continue;
		hb_heatmap_mark(h, space, (size_t)k >= h->ncols ? h->ncols - 1 : (size_t)k, offset,
				!strcmp(dec, "demote"));
		marked++;
	}
	return marked;
}

static void usage(FILE *f, const char *sock)
{
	fprintf(f,
		"usage: hotbridge heatmap [--socket PATH] [--timeout SEC] [--by dpa|hpa] "
		"[--samples N] [--delay SEC] [--rows N] [--output FILE]\n"
		"  -S, --socket PATH  the daemon's control socket, default %s\n"
		"  -t, --timeout SEC  give up on a request after SEC seconds (1 to 3600), default %d\n"
		"  -b, --by dpa|hpa   rows by each memdev's DPA (default) or each region's HPA\n"
		"  -n, --samples N    columns: samples of the hottest pages (1 to 3600), default 10\n"
		"  -d, --delay SEC    seconds between samples (1 to 60), default 1\n"
		"  -r, --rows N       rows per memdev or region (8 to %d), default 64\n"
		"  -o, --output FILE  the SVG, default standard output\n",
		sock, HB_CONTROL_CLIENT_TIMEOUT_S, HB_HEATMAP_ROWS_MAX);
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = { { "socket", required_argument, NULL, 'S' },
					      { "timeout", required_argument, NULL, 't' },
					      { "by", required_argument, NULL, 'b' },
					      { "samples", required_argument, NULL, 'n' },
					      { "delay", required_argument, NULL, 'd' },
					      { "rows", required_argument, NULL, 'r' },
					      { "output", required_argument, NULL, 'o' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	struct hb_config defaults;
	struct hb_getopt g = { 0 };
	uint64_t v;
	int c;

	hb_config_defaults(&defaults);
	*o = (struct opts){ .sock = defaults.control_socket,
			    .timeout_s = HB_CONTROL_CLIENT_TIMEOUT_S,
			    .delay_s = 1,
			    .samples = 10,
			    .rows = 64 };
	while ((c = hb_getopt(argc, argv, "S:t:b:n:d:r:o:h", opts, &g)) != -1) {
		switch (c) {
		case 'S':
			if (!*optarg)
				return hb_cmd_fail(2, argv[0], "--socket: an empty path");
			o->sock = optarg;
			break;
		case 't':
			if (hb_opt_u64(argv[0], "--timeout", optarg, 1, 3600,
				       "whole seconds from 1 to 3600", &v) < 0)
				return 2;
			o->timeout_s = (unsigned int)v;
			break;
		case 'b':
			if (strcmp(optarg, "dpa") && strcmp(optarg, "hpa"))
				return hb_cmd_fail(2, argv[0], "--by '%s': want dpa or hpa", optarg);
			o->by_hpa = !strcmp(optarg, "hpa");
			break;
		case 'n':
			if (hb_opt_u64(argv[0], "--samples", optarg, 1, 3600, "1..3600", &v) < 0)
				return 2;
			o->samples = (size_t)v;
			break;
		case 'd':
			if (hb_opt_u64(argv[0], "--delay", optarg, 1, 60,
				       "whole seconds from 1 to 60", &v) < 0)
				return 2;
			o->delay_s = (unsigned int)v;
			break;
		case 'r':
			if (hb_opt_u64(argv[0], "--rows", optarg, 8, HB_HEATMAP_ROWS_MAX, "8..512",
				       &v) < 0)
				return 2;
			o->rows = (size_t)v;
			break;
		case 'o':
			if (!*optarg)
				return hb_cmd_fail(2, argv[0], "--output: an empty path");
			o->out = optarg;
			break;
		case 'h': usage(stdout, defaults.control_socket); return 1;
		default: usage(stderr, defaults.control_socket); return 2;
		}
	}
	if (optind != argc)
		return hb_cmd_fail(2, argv[0], "unexpected argument '%s'", argv[optind]);
	return 0;
}

static json_object *reply_part(json_object *reply, const char *cmd)
{
	return hb_view_get(reply, cmd);
}

int hb_cmd_heatmap(int argc, char **argv)
{
	struct hb_heatmap h = { 0 };
	json_object *reply = NULL, *first = NULL, *hist = NULL;
	uint64_t first_ms = 0;
	struct opts o;
	char req[64], title[160];
	FILE *f = stdout;
	int r;

	r = parse(argc, argv, &o);
	if (r)
		return r == 1 ? 0 : r;
	snprintf(req, sizeof(req), "{\"command\":\"heat\",\"last\":%d}", HB_HISTORY_REPLY_MAX);
	for (size_t k = 0; k < o.samples; k++) {
		if (k) {
			struct timespec ts = { o.delay_s, 0 };

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		}
		r = hb_control_ask("heatmap", o.sock, req, o.timeout_s, stderr, &reply);
		if (r)
			goto out;
		if (!k) {
			first = reply;
			first_ms = hb_now_ms();
			if (hb_heatmap_spaces_from(&h, reply_part(first, "heat"), o.by_hpa) < 0) {
				r = hb_cmd_fail(1, argv[0], "the daemon names no %s to draw",
						o.by_hpa ? "region" : "memdev");
				goto out;
			}
			if (hb_heatmap_init(&h, o.samples, o.rows) < 0) {
				r = hb_cmd_fail(1, argv[0], "out of memory");
				goto out;
			}
		}
		hb_heatmap_add_from(&h, reply_part(reply, "heat"), o.by_hpa, k);
		if (reply != first)
			json_object_put(reply);
		reply = NULL;
	}
	snprintf(req, sizeof(req), "{\"command\":\"history\",\"last\":%d}", HB_HISTORY_REPLY_MAX);
	r = hb_control_ask("heatmap", o.sock, req, o.timeout_s, stderr, &hist);
	if (r)
		goto out;
	mark_history(&h, &o, reply_part(first, "heat"), reply_part(hist, "history"), first_ms,
		     hb_now_ms());
	snprintf(title, sizeof(title), "hotbridge heatmap: the %d hottest pages by %s, %zu samples",
		 HB_HISTORY_REPLY_MAX, o.by_hpa ? "region HPA" : "memdev DPA", o.samples);
	h.title = title;
	h.col_s = o.delay_s;
	if (o.out && !(f = fopen(o.out, "we"))) {
		r = hb_cmd_fail(1, argv[0], "%s: %m", o.out);
		goto out;
	}
	r = hb_heatmap_svg(&h, f);
	if ((f != stdout ? fclose(f) : fflush(f)) != 0 && !r)
		r = -errno;
	if (r < 0) {
		errno = -r;
		r = hb_cmd_fail(1, argv[0], "writing %s: %m", o.out ? o.out : "standard output");
	}
out:
	json_object_put(first);
	json_object_put(hist);
	hb_heatmap_done(&h);
	return r;
}
