// SPDX-License-Identifier: MIT
/* hotbridge status|stats|sources|explain|pause|resume|reload: ask the daemon. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "conf.h"
#include "control.h"
#include "util.h"

static void usage(FILE *f, const char *cmd, const char *sock)
{
	fprintf(f, "usage: hotbridge %s [--socket PATH] [--timeout SEC]%s\n"
		"  -S, --socket PATH  the daemon's control socket, default %s\n"
		"  -t, --timeout SEC  give up after SEC seconds (1 to 3600), default %d\n", cmd,
		strcmp(cmd, "explain") ? "" : " HPA|MEMDEV:DPA", sock, HB_CONTROL_CLIENT_TIMEOUT_S);
}

static int ask(int argc, char **argv, const char *cmd)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct hb_config defaults;
	char req[512];
	unsigned int timeout_s = HB_CONTROL_CLIENT_TIMEOUT_S;
	const char *sock;
	uint64_t v;
	int o;

	hb_config_defaults(&defaults);
	sock = defaults.control_socket;
	while ((o = getopt_long(argc, argv, "S:t:h", opts, NULL)) != -1) {
		switch (o) {
		case 'S': sock = optarg; break;
		case 't':
			if (hb_parse_u64(optarg, &v) < 0 || v < 1 || v > 3600) {
				fprintf(stderr, "hotbridge %s: --timeout '%s': want whole seconds "
					"from 1 to 3600\n", cmd, optarg);
				return 2;
			}
			timeout_s = (unsigned int)v;
			break;
		case 'h':
			usage(stdout, cmd, defaults.control_socket);
			return 0;
		default:
			usage(stderr, cmd, defaults.control_socket);
			return 2;
		}
	}
	if (!strcmp(cmd, "explain")) {
		const char *colon;

		if (optind + 1 != argc) {
			fprintf(stderr, "usage: hotbridge explain [--socket PATH] [--timeout SEC] "
				"HPA|MEMDEV:DPA\n");
			return 2;
		}
		colon = strchr(argv[optind], ':');
		if (colon)
			snprintf(req, sizeof(req), "{\"command\":\"explain\",\"memdev\":\"%.*s\",\"dpa\":\"%s\"}",
				 (int)(colon - argv[optind]) > 31 ? 31 : (int)(colon - argv[optind]),
				 argv[optind], colon + 1);
		else
			snprintf(req, sizeof(req), "{\"command\":\"explain\",\"hpa\":\"%s\"}", argv[optind]);
		if (strpbrk(argv[optind], "\"\\")) {
			fprintf(stderr, "hotbridge explain: '%s' is not an address\n", argv[optind]);
			return 2;
		}
	} else {
		if (optind != argc) {
			fprintf(stderr, "hotbridge %s: unexpected argument '%s'\n", cmd, argv[optind]);
			return 2;
		}
		snprintf(req, sizeof(req), "{\"command\":\"%s\"}", cmd);
	}
	return hb_control_client(cmd, sock, req, timeout_s);
}

int hb_cmd_status(int argc, char **argv) { return ask(argc, argv, "status"); }
int hb_cmd_stats(int argc, char **argv) { return ask(argc, argv, "stats"); }
int hb_cmd_sources(int argc, char **argv) { return ask(argc, argv, "sources"); }
int hb_cmd_explain(int argc, char **argv) { return ask(argc, argv, "explain"); }
int hb_cmd_pause(int argc, char **argv) { return ask(argc, argv, "pause"); }
int hb_cmd_resume(int argc, char **argv) { return ask(argc, argv, "resume"); }
int hb_cmd_reload(int argc, char **argv) { return ask(argc, argv, "reload"); }
int hb_cmd_metrics(int argc, char **argv) { return ask(argc, argv, "metrics"); }
