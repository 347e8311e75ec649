// SPDX-License-Identifier: MIT
/*
 * hotbridge top: a live view of the daemon over its control socket,
 * redrawn every --delay seconds with plain ANSI sequences (home, clear,
 * the alternate screen): the nodes' free memory against the watermark,
 * records and moves per second, what holds promotion, the hottest pages
 * and the latest decisions. --once prints one frame (rates over one
 * --delay); no escape sequence is written when stdout is no terminal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "builtin.h"
#include "conf/conf.h"
#include "control/control.h"
#include "control/history-json.h"
#include "opt.h"
#include "util/macro.h"
#include "util/util.h"
#include "view.h"

#define TOP_DECISIONS 8

/* one moment of the daemon: the replies a frame is drawn from */
struct sample {
	json_object *status, *stats, *sources, *heat, *history;
	uint64_t at_ms; /* monotonic, when stats was asked */
};

struct top {
	const char *sock;
	unsigned int timeout_s, delay_ms, hottest;
	bool tty, once;
	struct termios saved;
	bool termios_saved, screen;
	char *err; /* the last failed request's words (a memstream's) */
	size_t err_len;
};

static volatile sig_atomic_t stop_signal, tstp_signal, winch_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* the terminal resized: the frame drawn again at once (wait_key) */
static void on_winch(int sig)
{
	winch_signal = sig;
}

/* Ctrl-Z: the screen is left and the terminal restored before the stop (wait_key) */
static void on_tstp(int sig)
{
	tstp_signal = sig;
}

static void sample_done(struct sample *s)
{
	json_object_put(s->status);
	json_object_put(s->stats);
	json_object_put(s->sources);
	json_object_put(s->heat);
	json_object_put(s->history);
	*s = (struct sample){ 0 };
}

/* one request; 0, or the exit status with the error kept in t->err */
static int ask(struct top *t, const char *req, json_object **ret)
{
	FILE *f;
	int r;

	free(t->err);
	t->err = NULL;
	f = open_memstream(&t->err, &t->err_len);
	if (!f)
		return 1;
	/* a signal to leave abandons the request: Ctrl-C never waits for --timeout */
	r = hb_control_ask_until("top", t->sock, req, t->timeout_s, &stop_signal, f, ret);
	fclose(f);
	return r;
}

static int take_sample(struct top *t, struct sample *s)
{
	char req[64];
	int r;

	snprintf(req, sizeof(req), "{\"command\":\"heat\",\"last\":%u}", t->hottest);
	s->at_ms = hb_now_ms();
	if ((r = ask(t, "{\"command\":\"stats\"}", &s->stats)) ||
	    (r = ask(t, "{\"command\":\"sources\"}", &s->sources)) ||
	    (r = ask(t, "{\"command\":\"status\"}", &s->status)) ||
	    (r = ask(t, "{\"command\":\"history\",\"last\":8}", &s->history)) ||
	    (r = ask(t, req, &s->heat)))
		sample_done(s);
	return r;
}

/* the per-second rate of path between prev and now: "-" without prev */
static void rate(char *buf, size_t size, const struct sample *now, const struct sample *prev,
		 json_object *o_now, json_object *o_prev, const char *path)
{
	double dt, d;

	if (!prev || !prev->stats || now->at_ms <= prev->at_ms) {
		snprintf(buf, size, "-");
		return;
	}
	dt = (double)(now->at_ms - prev->at_ms) / 1000;
	d = hb_view_num(o_now, path) - hb_view_num(o_prev, path);
	snprintf(buf, size, "%.1f", d > 0 ? d / dt : 0);
}

static void counter_line(FILE *f, const char *label, const struct sample *now,
			 const struct sample *prev, json_object *o_now, json_object *o_prev,
			 const char *path)
{
	char r[32];

	rate(r, sizeof(r), now, prev, o_now, o_prev, path);
	/* a label longer than its column (a long source name): whole, on a line of its own */
	if (strlen(label) > 22) {
		fprintf(f, "  %s\n", label);
		label = "";
	}
	fprintf(f, "  %-22s %14llu %10s\n", label, (unsigned long long)hb_view_u64(o_now, path), r);
}

static void header(FILE *f, const struct sample *s)
{
	json_object *st = hb_view_get(s->status, "status");
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%H:%M:%S UTC", gmtime_r(&now, &tm));
	fprintf(f, "hotbridge top: %s, up %.0f s, %llu cycles of %llu ms%s, %s   %s\n",
		hb_view_str(st, "state", "?"), hb_view_num(st, "uptime_s"),
		(unsigned long long)hb_view_u64(st, "cycles"),
		(unsigned long long)hb_view_u64(st, "interval_ms"),
		json_object_get_boolean(hb_view_get(st, "dry_run")) ? ", dry run" : "",
		hb_view_str(st, "migrator", "?"), when);
	fprintf(f, "promotion: %s (limit %s): %s\n", hb_view_str(st, "promotion", "?"),
		hb_view_str(st, "promotion_limit", "?"), hb_view_str(st, "promotion_reason", ""));
}

static void nodes(FILE *f, const struct sample *s)
{
	json_object *st = hb_view_get(s->status, "status");
	json_object *a = hb_view_get(st, "nodes");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	fprintf(f, "\nNODE  KIND   ROLE      FREE_MB  WATERMARK_MB\n");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		bool src = json_object_get_boolean(hb_view_get(o, "source"));
		bool tgt = json_object_get_boolean(hb_view_get(o, "target"));
		bool cpus = json_object_get_boolean(hb_view_get(o, "cpus"));

		fprintf(f, "%4llu  %-5s  %-8s %8llu", (unsigned long long)hb_view_u64(o, "node"),
			cpus ? "DRAM" : "CXL",
			src ? "source" :
			tgt ? "target" :
			      "-",
			(unsigned long long)hb_view_u64(o, "free_mb"));
		if (tgt)
			fprintf(f, "  %12llu%s", (unsigned long long)hb_view_u64(st, "watermark_mb"),
				hb_view_u64(o, "free_mb") < hb_view_u64(st, "watermark_mb") ?
					" (below: held)" :
					"");
		fputc('\n', f);
	}
}

static void records(FILE *f, const struct sample *s, const struct sample *p)
{
	json_object *a = hb_view_get(s->sources, "sources");
	json_object *pa = p ? hb_view_get(p->sources, "sources") : NULL;
	json_object *st = hb_view_get(s->stats, "stats"),
		    *pst = p ? hb_view_get(p->stats, "stats") : NULL;
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	json_object *drops = hb_view_get(st, "dropped");
	size_t reasons = 0;
	char path[96];

	fprintf(f, "\nRECORDS                         TOTAL        /S\n");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i), *po = NULL;
		char label[80];

		/* the same source in the previous sample, by name */
		for (size_t k = 0; pa && k < json_object_array_length(pa); k++) {
			json_object *c = json_object_array_get_idx(pa, k);

			if (!strcmp(hb_view_str(c, "name", ""), hb_view_str(o, "name", "")))
				po = c;
		}
		snprintf(label, sizeof(label), "source %s", hb_view_str(o, "name", "?"));
		counter_line(f, label, s, po ? p : NULL, o, po, "records");
	}
	counter_line(f, "all sources", s, p, st, pst, "records");
	counter_line(f, "bad input", s, p, st, pst, "bad_input");
	counter_line(f, "dropped", s, p, st, pst, "records_dropped");
	/* a record dropped in part (pages past a memdev's end) counts under its reason too */
	if (hb_view_u64(st, "partial"))
		counter_line(f, "partly dropped", s, p, st, pst, "partial");
	if (!drops)
		return;
	json_object_object_foreach(drops, key, val)
	{
		char label[48];

		if (!json_object_get_int64(val))
			continue;
		if (!reasons++)
			fprintf(f, "  dropped in whole or part, by reason:\n");
		snprintf(label, sizeof(label), "    %s", key);
		snprintf(path, sizeof(path), "dropped.%s", key);
		counter_line(f, label, s, p, st, pst, path);
	}
}

static void moves(FILE *f, const struct sample *s, const struct sample *p)
{
	json_object *st = hb_view_get(s->stats, "stats"),
		    *pst = p ? hb_view_get(p->stats, "stats") : NULL;
	json_object *dec = hb_view_get(st, "decisions");
	size_t held = 0;
	char path[96];

	fprintf(f, "\nMOVES                           TOTAL        /S\n");
	counter_line(f, "promote decisions", s, p, st, pst, "decisions.promote");
	counter_line(f, "promoted (moved)", s, p, st, pst, "migrated.moved");
	counter_line(f, "demote decisions", s, p, st, pst, "decisions.demote");
	counter_line(f, "demoted (moved)", s, p, st, pst, "demoted.moved");
	fprintf(f, "HELD BY (decisions)             TOTAL        /S\n");
	if (!dec)
		return;
	json_object_object_foreach(dec, key, val)
	{
		if (!strcmp(key, "promote") || !strcmp(key, "demote") || !json_object_get_int64(val))
			continue;
		snprintf(path, sizeof(path), "decisions.%s", key);
		counter_line(f, key, s, p, st, pst, path);
		held++;
	}
	if (!held)
		fprintf(f, "  (nothing held back so far)\n");
}

/* "mem0:0x1000", or "-" off every memdev */
static const char *dpa_of(json_object *o, char *buf, size_t size)
{
	const char *md = hb_view_str(o, "memdev", NULL);

	if (!md)
		return "-";
	snprintf(buf, size, "%s:%s", md, hb_view_str(o, "dpa", "?"));
	return buf;
}

static void hottest(FILE *f, const struct sample *s)
{
	json_object *h = hb_view_get(s->heat, "heat"), *a = hb_view_get(h, "pages");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	fprintf(f, "\nHOTTEST PAGES (%llu in the table, threshold %g)\n",
		(unsigned long long)hb_view_u64(h, "table_pages"), hb_view_num(h, "threshold"));
	fprintf(f, "  %10s  %4s  %-14s  %-22s  %s\n", "HEAT", "NODE", "HPA", "MEMDEV:DPA", "REGION");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);
		char buf[64];

		fprintf(f, "  %10.1f  %4s  %-14s  %-22s  %s\n", hb_view_num(o, "heat"),
			hb_view_str(o, "node", "-"), hb_view_str(o, "page", "?"),
			dpa_of(o, buf, sizeof(buf)), hb_view_str(o, "region", "-"));
	}
}

static void decisions(FILE *f, const struct sample *s)
{
	json_object *a = hb_view_get(s->history, "history.entries");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	fprintf(f, "\nRECENT DECISIONS\n  %8s  %-8s  %-18s  %-14s  %-22s  %s\n", "AGE_S",
		"DECISION", "REASON", "HPA", "MEMDEV:DPA", "RESULT");
	for (size_t i = 0; i < n && i < TOP_DECISIONS; i++) {
		json_object *o = json_object_array_get_idx(a, i), *res = hb_view_get(o, "result");
		char buf[64], result[64];

		if (!res || json_object_is_type(res, json_type_null))
			snprintf(result, sizeof(result), "-");
		else if (hb_view_get(res, "errno"))
			snprintf(result, sizeof(result), "%s", hb_view_str(res, "errno", "?"));
		else
			snprintf(result, sizeof(result), "node %s", hb_view_str(res, "node", "?"));
		fprintf(f, "  %8s  %-8s  %-18s  %-14s  %-22s  %s\n", hb_view_str(o, "age_s", "?"),
			hb_view_str(o, "decision", "?"), hb_view_str(o, "reason", "?"),
			hb_view_str(o, "page", "?"), dpa_of(o, buf, sizeof(buf)), result);
	}
}

/* a counter_line() of a zero total and no rate ("0.0" or "-") */
static bool zero_counter(const char *line, size_t len)
{
	char zero[2][32];

	snprintf(zero[0], sizeof(zero[0]), " %14llu %10s", 0ULL, "0.0");
	snprintf(zero[1], sizeof(zero[1]), " %14llu %10s", 0ULL, "-");
	return len == 24 + strlen(zero[0]) && line[0] == ' ' && line[2] != ' ' &&
	       (!memcmp(line + 24, zero[0], len - 24) || !memcmp(line + 24, zero[1], len - 24));
}

static size_t lines_of(const char *text)
{
	size_t n = 0;

	for (const char *c = text; *c; c++)
		n += *c == '\n';
	return n;
}

/*
 * A frame taller than the terminal, made shorter in place: no blank
 * lines, no counter that is zero with no rate, no "nothing held back"
 * (nor its heading), so that on 24 rows the hottest pages show
 */
static void compact(char *text)
{
	char *out = text, *line = text, *nl;

	for (; *line && (nl = strchr(line, '\n')); line = nl + 1) {
		size_t len = (size_t)(nl - line);
		const char *next = nl + 1;
		bool held_head = !strncmp(line, "HELD BY", 7);

		if (!len || zero_counter(line, len) || strstr(line, "(nothing held back so far)"))
			continue;
		/* a heading whose lines all went: the next kept line is no line of it */
		if (held_head && (!strncmp(next, "  (nothing held back", 20) || next[0] != ' '))
			continue;
		memmove(out, line, len + 1);
		out += len + 1;
	}
	*out = '\0';
}

/* the frame as text, lines cut at cols (0: not cut) */
static void draw(const struct top *t, const struct sample *s, const struct sample *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct winsize ws = { 0 };
	unsigned int cols = 0, rows = 0, row = 0;

	if (!f)
		return;
	header(f, s);
	nodes(f, s);
	records(f, s, p);
	moves(f, s, p);
	hottest(f, s);
	decisions(f, s);
	if (t->tty)
		fputs("\n(q or Ctrl-C quits)\n", f);
	fclose(f);
	if (!text)
		return;
	if (!t->tty) {
		fputs(text, stdout);
		free(text);
		fflush(stdout);
		return;
	}
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		cols = ws.ws_col;
		rows = ws.ws_row;
	}
	if (rows && lines_of(text) > rows)
		compact(text);
	fputs("\033[H", stdout);
	for (char *line = text, *nl; *line && (!rows || row < rows); line = nl + 1, row++) {
		size_t l;

		nl = strchr(line, '\n');
		if (!nl)
			break;
		l = (size_t)(nl - line);
		if (cols && l > cols)
			l = cols;
		fwrite(line, 1, l, stdout);
		/* clear the rest of the line; no newline after the screen's last row */
		fputs(rows && row + 1 == rows ? "\033[K" : "\033[K\n", stdout);
	}
	fputs("\033[J", stdout);
	fflush(stdout);
	free(text);
}

static void screen_enter(struct top *t)
{
	struct termios raw;

	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &t->saved) == 0) {
		t->termios_saved = true;
		raw = t->saved;
		/* keys without Enter, unechoed; Ctrl-C still a signal (ISIG kept) */
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	/* the alternate screen, the cursor hidden */
	fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout);
	fflush(stdout);
	t->screen = true;
}

static void screen_leave(struct top *t)
{
	if (t->screen) {
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		t->screen = false;
	}
	if (t->termios_saved) {
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
		t->termios_saved = false;
	}
}

/*
 * Ctrl-Z on the screen: leave it and restore the terminal, stop as the
 * default action would, and when continued (fg) take the screen again.
 */
static void suspend(struct top *t)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, tstp = { .sa_handler = on_tstp };

	tstp_signal = 0;
	screen_leave(t);
	sigemptyset(&dfl.sa_mask);
	sigemptyset(&tstp.sa_mask);
	sigaction(SIGTSTP, &dfl, NULL);
	(void)raise(SIGTSTP);
	/* continued */
	sigaction(SIGTSTP, &tstp, NULL);
	screen_enter(t);
}

enum wait_end { WAIT_LEAVE, WAIT_NEXT, WAIT_RESIZED };

/*
 * until end (hb_now_ms) or a Ctrl-Z came back: WAIT_NEXT for the next
 * sample, WAIT_RESIZED to draw the same frame on a resized terminal,
 * WAIT_LEAVE on q or a signal
 */
static enum wait_end wait_key(struct top *t, int64_t end)
{
	for (;;) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		int64_t left = end - (int64_t)hb_now_ms();
		char c[16];
		ssize_t n;

		if (stop_signal)
			return WAIT_LEAVE;
		if (tstp_signal && t->screen) {
			suspend(t);
			return WAIT_NEXT; /* a fresh frame on the new screen */
		}
		if (winch_signal) {
			winch_signal = 0;
			return WAIT_RESIZED;
		}
		if (left <= 0)
			return WAIT_NEXT;
		if (!t->termios_saved) {
			/* no keys to read: sleep, woken by a signal */
			struct timespec ts = { left / 1000, (left % 1000) * 1000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = read(STDIN_FILENO, c, sizeof(c));
		if (n <= 0) {
			if (n == 0)
				return WAIT_NEXT; /* a terminal read with VMIN 0: nothing */
			continue;
		}
		for (ssize_t i = 0; i < n; i++)
			if (c[i] == 'q' || c[i] == 'Q')
				return WAIT_LEAVE;
	}
}

static void usage(FILE *f, const char *sock)
{
	fprintf(f,
		"usage: hotbridge top [--socket PATH] [--timeout SEC] [--delay SEC] [--hottest N] "
		"[--once]\n"
		"  -S, --socket PATH  the daemon's control socket, default %s\n"
		"  -t, --timeout SEC  give up on a request after SEC seconds (1 to 3600), default %d\n"
		"  -d, --delay SEC    seconds between frames (1 to 60), default 1\n"
		"  -n, --hottest N    the N hottest pages (1 to 200), default 10\n"
		"      --once         one frame (rates over one --delay), then exit\n",
		sock, HB_CONTROL_CLIENT_TIMEOUT_S);
}

int hb_cmd_top(int argc, char **argv)
{
	static const struct option opts[] = { { "socket", required_argument, NULL, 'S' },
					      { "timeout", required_argument, NULL, 't' },
					      { "delay", required_argument, NULL, 'd' },
					      { "hottest", required_argument, NULL, 'n' },
					      { "once", no_argument, NULL, '1' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	struct top t = { .timeout_s = HB_CONTROL_CLIENT_TIMEOUT_S, .delay_ms = 1000, .hottest = 10 };
	struct sample cur = { 0 }, prev = { 0 };
	struct hb_config defaults;
	struct hb_getopt g = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	const char *term;
	enum wait_end w;
	int64_t end;
	uint64_t v;
	int o, r;

	hb_config_defaults(&defaults);
	t.sock = defaults.control_socket;
	while ((o = hb_getopt(argc, argv, "S:t:d:n:h", opts, &g)) != -1) {
		switch (o) {
		case 'S':
			if (!*optarg)
				return hb_cmd_fail(2, argv[0], "--socket: an empty path");
			t.sock = optarg;
			break;
		case 't':
			if (hb_opt_u64(argv[0], "--timeout", optarg, 1, 3600,
				       "whole seconds from 1 to 3600", &v) < 0)
				return 2;
			t.timeout_s = (unsigned int)v;
			break;
		case 'd':
			if (hb_opt_u64(argv[0], "--delay", optarg, 1, 60,
				       "whole seconds from 1 to 60", &v) < 0)
				return 2;
			t.delay_ms = (unsigned int)v * 1000;
			break;
		case 'n':
			if (hb_opt_u64(argv[0], "--hottest", optarg, 1, HB_HISTORY_REPLY_MAX,
				       "a number of pages in 1..200", &v) < 0)
				return 2;
			t.hottest = (unsigned int)v;
			break;
		case '1': t.once = true; break;
		case 'h': usage(stdout, defaults.control_socket); return 0;
		default: usage(stderr, defaults.control_socket); return 2;
		}
	}
	if (optind != argc)
		return hb_cmd_fail(2, argv[0], "unexpected argument '%s'", argv[optind]);
	/* a terminal that knows no escapes (TERM unset or dumb): plain frames, as to a pipe */
	term = getenv("TERM");
	t.tty = isatty(STDOUT_FILENO) == 1 && term && *term && strcmp(term, "dumb") != 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (t.tty && !t.once) {
		struct sigaction tstp = { .sa_handler = on_tstp }, winch = { .sa_handler = on_winch };

		sigemptyset(&tstp.sa_mask);
		sigaction(SIGTSTP, &tstp, NULL);
		sigemptyset(&winch.sa_mask);
		sigaction(SIGWINCH, &winch, NULL);
	}
	/* the first sample: a daemon not there is said before the screen changes */
	r = take_sample(&t, &cur);
	if (r) {
		/* Ctrl-C while the daemon was slow to answer: a user's leave, not an error */
		if (!stop_signal)
			fputs(t.err ? t.err : "hotbridge top: out of memory\n", stderr);
		free(t.err);
		return stop_signal ? 0 : r;
	}
	if (t.tty && !t.once)
		screen_enter(&t);
	for (;;) {
		if (!t.once || prev.stats)
			draw(&t, &cur, prev.stats ? &prev : NULL);
		if (t.once && prev.stats)
			break;
		if (!t.tty && !t.once)
			fputs("\n", stdout);
		end = (int64_t)hb_now_ms() + t.delay_ms;
		while ((w = wait_key(&t, end)) == WAIT_RESIZED)
			draw(&t, &cur, prev.stats ? &prev : NULL);
		if (w == WAIT_LEAVE)
			break;
		sample_done(&prev);
		prev = cur;
		cur = (struct sample){ 0 };
		r = take_sample(&t, &cur);
		if (r && stop_signal)
			r = 0; /* left mid-request: as at q */
		if (r || stop_signal)
			break;
		/*
		 * a daemon restarted since the last frame (its uptime grew by less
		 * than the time between the frames, 1 s of slack for the requests):
		 * its counters began again, so no rate against the old daemon's
		 */
		if (hb_view_num(cur.status, "status.uptime_s") + 1.0 <
		    hb_view_num(prev.status, "status.uptime_s") +
			    (double)(cur.at_ms - prev.at_ms) / 1000)
			sample_done(&prev);
	}
	screen_leave(&t);
	if (r) {
		/* the daemon went away (or stopped answering) mid-view */
		fputs(t.err ? t.err : "hotbridge top: out of memory\n", stderr);
		fprintf(stderr, "hotbridge top: lost the daemon at %s, leaving\n", t.sock);
	}
	sample_done(&cur);
	sample_done(&prev);
	free(t.err);
	return r ? r : 0;
}
