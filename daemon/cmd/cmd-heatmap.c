// SPDX-License-Identifier: MIT
/*
 * hotbridge heatmap: hotness over time by address, as SVG. Asks the
 * running daemon for its hottest pages (heat) --samples times, --delay
 * seconds apart, and after each sample for its latest decisions (history):
 * the promotions and demotions recorded since the sample before are marked
 * in that sample's column. A reply holds at most HB_HISTORY_REPLY_MAX
 * entries: when more were recorded between two samples, the SVG says how
 * many decisions it could not see. Draws heatmap.h's picture.
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
#include "out-file.h"
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
 * The promote and demote entries among the newest `fresh` of a history
 * reply into column col (all of them when fresh is larger than the reply).
 */
static void mark_entries(struct hb_heatmap *h, const struct opts *o, json_object *heat,
			 json_object *history, size_t fresh, size_t col)
{
	json_object *a = hb_view_get(history, "entries");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n && i < fresh; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		const char *dec = hb_view_str(e, "decision", "");
		uint64_t offset;
		int space;

		if (strcmp(dec, "promote") && strcmp(dec, "demote"))
			continue;
		if (o->by_hpa) {
			offset = region_offset(h, heat, hb_view_u64(e, "page"), &space);
		} else {
			space = hb_heatmap_space(h, hb_view_str(e, "memdev", ""));
			offset = hb_view_u64(e, "dpa");
		}
		if (space >= 0)
			hb_heatmap_mark(h, space, col, offset, !strcmp(dec, "demote"));
	}
}

/*
 * The decisions recorded since the last call (its reply's "recorded"
 * count, the daemon's running total) into column col; the first call (or
 * the first after the daemon restarted, its total gone back) takes those
 * of the last --delay. Adds to *missed the decisions recorded that the
 * reply had no room for.
 */
static void mark_history(struct hb_heatmap *h, const struct opts *o, json_object *heat,
			 json_object *history, size_t col, uint64_t *last_recorded, bool *have_last,
			 uint64_t *missed)
{
	json_object *a = hb_view_get(history, "entries");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	uint64_t recorded = hb_view_u64(history, "recorded"), fresh = 0;

	if (*have_last && recorded >= *last_recorded) {
		fresh = recorded - *last_recorded;
		if (fresh > n)
			*missed += fresh - n;
	} else {
		/* no count to go by: the entries of the last --delay */
		for (; fresh < n; fresh++)
			if (hb_view_num(json_object_array_get_idx(a, fresh), "age_s") > o->delay_s)
				break;
	}
	mark_entries(h, o, heat, history, (size_t)fresh, col);
	*last_recorded = recorded;
	*have_last = true;
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
		"  -o, --output FILE  the SVG, default (and -) standard output\n",
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
			/* "-": standard output, as the default */
			o->out = strcmp(optarg, "-") ? optarg : NULL;
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
	uint64_t last_recorded = 0, missed = 0;
	bool have_last = false;
	struct hb_out_file out = { 0 };
	struct opts o;
	char req[64], hreq[64], title[160], note[160];
	FILE *f = stdout;
	int r;

	r = parse(argc, argv, &o);
	if (r)
		return r == 1 ? 0 : r;
	/* a path that cannot be written is said now, not after the samples */
	if (o.out && (r = hb_out_file_open(&out, o.out)) < 0) {
		errno = -r;
		return hb_cmd_fail(1, argv[0], "%s: %m", o.out);
	}
	snprintf(req, sizeof(req), "{\"command\":\"heat\",\"last\":%d}", HB_HISTORY_REPLY_MAX);
	snprintf(hreq, sizeof(hreq), "{\"command\":\"history\",\"last\":%d}", HB_HISTORY_REPLY_MAX);
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
		/* the moves since the sample before, into this sample's column */
		r = hb_control_ask("heatmap", o.sock, hreq, o.timeout_s, stderr, &hist);
		if (r)
			goto out;
		mark_history(&h, &o, reply_part(first, "heat"), reply_part(hist, "history"), k,
			     &last_recorded, &have_last, &missed);
		json_object_put(hist);
		hist = NULL;
	}
	snprintf(title, sizeof(title), "hotbridge heatmap: the %d hottest pages by %s, %zu samples",
		 HB_HISTORY_REPLY_MAX, o.by_hpa ? "region HPA" : "memdev DPA", o.samples);
	h.title = title;
	h.col_s = o.delay_s;
	if (missed) {
		/* more decisions between two samples than a history reply holds */
		snprintf(note, sizeof(note),
			 "ticks missing: %llu decisions fell between samples beyond the %d a "
			 "reply holds (a shorter --delay sees more)",
			 (unsigned long long)missed, HB_HISTORY_REPLY_MAX);
		h.note = note;
	}
	if (o.out && !(f = hb_out_file_begin(&out))) {
		r = hb_cmd_fail(1, argv[0], "%s: %m", o.out);
		goto out;
	}
	r = hb_heatmap_svg(&h, f);
	if (o.out) {
		int c = hb_out_file_close(&out, r == 0);

		r = r ? r : c;
	} else if (fflush(f) != 0 && !r) {
		r = -errno;
	}
	if (r < 0) {
		errno = -r;
		r = hb_cmd_fail(1, argv[0], "writing %s: %m", o.out ? o.out : "standard output");
	}
out:
	hb_out_file_close(&out, r == 0);
	json_object_put(first);
	json_object_put(hist);
	hb_heatmap_done(&h);
	return r;
}
