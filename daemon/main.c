// SPDX-License-Identifier: MIT
/* hotbridge: the command dispatcher (cxl-cli style). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "config.h"
#include "builtin.h"
#include "log.h"

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
	{ "explain", hb_cmd_explain, "ask the running daemon: what it would do with a page, and did" },
	{ "history", hb_cmd_history,
	  "ask the running daemon: its latest decisions and their results" },
	{ "pause", hb_cmd_pause, "stop promoting (sources keep feeding the table)" },
	{ "resume", hb_cmd_resume, "promote again" },
	{ "reload", hb_cmd_reload, "re-read the policy settings (as SIGHUP)" },
	{ "metrics", hb_cmd_metrics, "ask the running daemon: Prometheus text exposition" },
	{ "check-config", hb_cmd_check_config,
	  "parse the configuration; print it, or the first error" },
	{ "list", hb_cmd_list, "hotness sources on this host: built-ins, CHMUs, plugins (JSON)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: hotbridge [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nSee 'hotbridge help COMMAND' or 'hotbridge COMMAND --help'.\n");
}

static const struct hb_command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h") || !strcmp(arg, "help");
}

/* argv[0] of a command is "hotbridge CMD", so getopt's messages say so */
static int run_command(const struct hb_command *cmd, int argc, char **argv)
{
	char prog[64];

	snprintf(prog, sizeof(prog), "hotbridge %s", cmd->name);
	argv[0] = prog;
	return cmd->fn(argc, argv);
}

int main(int argc, char **argv)
{
	const struct hb_command *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (is_help(argv[1])) {
		char *help_argv[] = { NULL, (char *)"--help", NULL };

		/* `hotbridge --help CMD` as `hotbridge help CMD` */
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		if (argc > 3) {
			hb_log_early(LOG_ERR, "hotbridge help",
				     "unexpected argument '%s' (one COMMAND at most)", argv[3]);
			return 2;
		}
		/* help is in the synopsis too: its own usage (help help, help --help) */
		if (is_help(argv[2])) {
			printf("usage: hotbridge help [COMMAND]\n"
			       "The list of commands, or COMMAND's usage (as hotbridge COMMAND --help).\n");
			return 0;
		}
		/* hotbridge help CMD: that command's usage, as CMD --help */
		cmd = find_command(argv[2]);
		if (!cmd) {
			hb_log_early(LOG_ERR, "hotbridge help",
				     "'%s' is not a command. See 'hotbridge --help'.", argv[2]);
			return 2;
		}
		return run_command(cmd, 2, help_argv);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		if (argc > 2) {
			hb_log_early(LOG_ERR, "hotbridge", "%s takes no argument: unexpected '%s'",
				     argv[1], argv[2]);
			return 2;
		}
		printf("%s\n", HB_VERSION);
		return 0;
	}
	cmd = find_command(argv[1]);
	if (cmd)
		return run_command(cmd, argc - 1, argv + 1);
	hb_log_early(LOG_ERR, "hotbridge", "'%s' is not a command. See 'hotbridge --help'.", argv[1]);
	return 2;
}
