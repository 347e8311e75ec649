// SPDX-License-Identifier: MIT
/* hotbridge status|stats|sources|explain|history|pause|resume|reload: ask the daemon. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "conf/conf.h"
#include "control/control.h"
#include "control/history-json.h"
#include "opt.h"
#include "util/util.h"

static void usage(FILE *f, const char *cmd, const char *sock)
{
	fprintf(f,
		"usage: hotbridge %s [--socket PATH] [--timeout SEC]%s\n"
		"  -S, --socket PATH  the daemon's control socket, default %s\n"
		"  -t, --timeout SEC  give up after SEC seconds (1 to 3600), default %d\n%s",
		cmd,
		!strcmp(cmd, "explain") ? " HPA|MEMDEV:DPA" :
		!strcmp(cmd, "history") ? " [--last N] [HPA|MEMDEV:DPA]" :
					  "",
		sock, HB_CONTROL_CLIENT_TIMEOUT_S,
		!strcmp(cmd, "history") ?
			"  -n, --last N       the N newest entries (1 to 200), default 20\n" :
			"");
}

/* HPA or MEMDEV:DPA as request fields, checked here so the error names the argument */
static int address_fields(const char *prog, const char *arg, char *buf, size_t size)
{
	const char *colon = strchr(arg, ':');
	uint64_t v;
	int r;

	if (colon) {
		size_t len = (size_t)(colon - arg);

		if (len == 0 || len > 31 || strpbrk(arg, "\"\\"))
			return hb_cmd_fail(-EINVAL, prog,
					   "'%s' is not MEMDEV:DPA (e.g. mem0:0x1000)", arg);
		r = hb_parse_u64(colon + 1, &v);
		if (r < 0)
			return hb_cmd_fail(-EINVAL, prog,
					   "'%s' is not MEMDEV:DPA (e.g. mem0:0x1000): DPA '%s' %s",
					   arg, colon + 1, hb_parse_u64_why(colon + 1, r));
		snprintf(buf, size, ",\"memdev\":\"%.*s\",\"dpa\":\"%s\"", (int)len, arg, colon + 1);
		return 0;
	}
	r = hb_parse_u64(arg, &v);
	if (r < 0)
		return hb_cmd_fail(-EINVAL, prog,
				   "'%s' is not an address (HPA, e.g. 0x390001000, "
				   "or MEMDEV:DPA): it %s",
				   arg, hb_parse_u64_why(arg, r));
	snprintf(buf, size, ",\"hpa\":\"%s\"", arg);
	return 0;
}

static int ask(int argc, char **argv, const char *cmd)
{
	static const struct option opts[] = { { "socket", required_argument, NULL, 'S' },
					      { "timeout", required_argument, NULL, 't' },
					      { "last", required_argument, NULL, 'n' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	bool history = !strcmp(cmd, "history"), explain = !strcmp(cmd, "explain");
	struct hb_config defaults;
	char req[512], addr[256] = "", last[32] = "", prog[32];
	unsigned int timeout_s = HB_CONTROL_CLIENT_TIMEOUT_S;
	struct hb_getopt g = { 0 };
	const char *sock;
	char want[48];
	uint64_t v;
	int o;

	snprintf(prog, sizeof(prog), "hotbridge %s", cmd);
	hb_config_defaults(&defaults);
	sock = defaults.control_socket;
	while ((o = hb_getopt(argc, argv, history ? "S:t:n:h" : "S:t:h", opts, &g)) != -1) {
		switch (o) {
		case 'S':
			if (!*optarg)
				return hb_cmd_fail(2, prog, "--socket: an empty path");
			sock = optarg;
			break;
		case 't':
			if (hb_opt_u64(argv[0], "--timeout", optarg, 1, 3600,
				       "whole seconds from 1 to 3600", &v) < 0)
				return 2;
			timeout_s = (unsigned int)v;
			break;
		case 'n':
			if (!history)
				return hb_cmd_fail(2, prog, "--last is for history only");
			snprintf(want, sizeof(want), "a number of entries in 1..%d",
				 HB_HISTORY_REPLY_MAX);
			if (hb_opt_u64(argv[0], "--last", optarg, 1, HB_HISTORY_REPLY_MAX, want,
				       &v) < 0)
				return 2;
			snprintf(last, sizeof(last), ",\"last\":%llu", (unsigned long long)v);
			break;
		case 'h': usage(stdout, cmd, defaults.control_socket); return 0;
		default: usage(stderr, cmd, defaults.control_socket); return 2;
		}
	}
	if (explain || history) {
		if (explain ? optind + 1 != argc : optind + 1 < argc) {
			usage(stderr, cmd, defaults.control_socket);
			return 2;
		}
		if (optind < argc && address_fields(prog, argv[optind], addr, sizeof(addr)) < 0)
			return 2;
	} else if (optind != argc) {
		return hb_cmd_fail(2, prog, "unexpected argument '%s'", argv[optind]);
	}
	snprintf(req, sizeof(req), "{\"command\":\"%s\"%s%s}", cmd, addr, last);
	return hb_control_client(cmd, sock, req, timeout_s);
}

int hb_cmd_status(int argc, char **argv)
{
	return ask(argc, argv, "status");
}
int hb_cmd_stats(int argc, char **argv)
{
	return ask(argc, argv, "stats");
}
int hb_cmd_sources(int argc, char **argv)
{
	return ask(argc, argv, "sources");
}
int hb_cmd_explain(int argc, char **argv)
{
	return ask(argc, argv, "explain");
}
int hb_cmd_history(int argc, char **argv)
{
	return ask(argc, argv, "history");
}
int hb_cmd_pause(int argc, char **argv)
{
	return ask(argc, argv, "pause");
}
int hb_cmd_resume(int argc, char **argv)
{
	return ask(argc, argv, "resume");
}
int hb_cmd_reload(int argc, char **argv)
{
	return ask(argc, argv, "reload");
}
int hb_cmd_metrics(int argc, char **argv)
{
	return ask(argc, argv, "metrics");
}
