// SPDX-License-Identifier: MIT
/* hotbridge: the command dispatcher (cxl-cli style). */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "builtin.h"

struct hb_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct hb_command commands[] = {
	{ "translate", hb_cmd_translate, "DPA <-> HPA, NUMA node and PFN" },
	{ "topology", hb_cmd_topology, "print the CXL topology model as JSON" },
	{ "run", hb_cmd_run, "the service: sources -> translation -> policy -> migration" },
	{ "demo", hb_cmd_demo, "the service on a built-in emulated CXL host, with a summary" },
	{ "status", hb_cmd_status, "ask the running daemon: state, migrator, table" },
	{ "stats", hb_cmd_stats, "ask the running daemon: counters" },
	{ "sources", hb_cmd_sources, "ask the running daemon: its sources" },
	{ "explain", hb_cmd_explain, "ask the running daemon: what it would do with a page" },
	{ "pause", hb_cmd_pause, "stop promoting (sources keep feeding the table)" },
	{ "resume", hb_cmd_resume, "promote again" },
	{ "reload", hb_cmd_reload, "re-read the policy settings (as SIGHUP)" },
	{ "metrics", hb_cmd_metrics, "ask the running daemon: Prometheus text exposition" },
	{ "check-config", hb_cmd_check_config, "parse the configuration; print it, or the first error" },
	{ "list", hb_cmd_list, "hotness sources on this host: built-ins, CHMUs, plugins (JSON)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: hotbridge [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nSee 'hotbridge COMMAND --help'.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s\n", HB_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "hotbridge: '%s' is not a command. See 'hotbridge --help'.\n", argv[1]);
	return 2;
}
