// SPDX-License-Identifier: MIT
/* hotbridge status|stats|sources|explain|pause|resume|reload: ask the daemon. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "conf.h"
#include "control.h"

static void usage(FILE *f, const char *cmd, const char *sock)
{
	fprintf(f, "usage: hotbridge %s [--socket PATH]%s\n  default socket: %s\n", cmd,
		strcmp(cmd, "explain") ? "" : " HPA|MEMDEV:DPA", sock);
}

static int ask(int argc, char **argv, const char *cmd)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct hb_config defaults;
	char req[512];
	const char *sock;
	int o;

	hb_config_defaults(&defaults);
	sock = defaults.control_socket;
	while ((o = getopt_long(argc, argv, "S:h", opts, NULL)) != -1) {
		switch (o) {
		case 'S': sock = optarg; break;
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
			fprintf(stderr, "usage: hotbridge explain [--socket PATH] HPA|MEMDEV:DPA\n");
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
	return hb_control_client(sock, req);
}

int hb_cmd_status(int argc, char **argv) { return ask(argc, argv, "status"); }
int hb_cmd_stats(int argc, char **argv) { return ask(argc, argv, "stats"); }
int hb_cmd_sources(int argc, char **argv) { return ask(argc, argv, "sources"); }
int hb_cmd_explain(int argc, char **argv) { return ask(argc, argv, "explain"); }
int hb_cmd_pause(int argc, char **argv) { return ask(argc, argv, "pause"); }
int hb_cmd_resume(int argc, char **argv) { return ask(argc, argv, "resume"); }
int hb_cmd_reload(int argc, char **argv) { return ask(argc, argv, "reload"); }
int hb_cmd_metrics(int argc, char **argv) { return ask(argc, argv, "metrics"); }
