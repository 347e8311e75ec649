// SPDX-License-Identifier: MIT
/* hotbridge: the command dispatcher (cxl-cli style). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

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
	{ "top", hb_cmd_top, "a live view of the running daemon, refreshed each second" },
	{ "heatmap", hb_cmd_heatmap, "ask the running daemon: hotness over time by address, as SVG" },
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

static int dispatch(int argc, char **argv)
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

/*
 * Every command's output is checked here, once (newuser r5 E9): standard
 * output goes through out_write, which keeps the reason of a write that
 * failed (a full disk, a closed descriptor), and at the exit a failure is
 * an error naming it, exit 1 unless the command failed already. EPIPE stays
 * quiet: its reader is gone (hotbridge(8) SIGNALS: the commands die of
 * SIGPIPE; run, which ignores it, sees EPIPE).
 */
static int out_errno;
static bool out_wrote;

static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
	size_t done = 0;

	(void)cookie;
	out_wrote = true;
	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_errno = n < 0 ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int out_close(void *cookie)
{
	(void)cookie;
	/* nothing written to a closed descriptor is no error */
	if (close(STDOUT_FILENO) < 0 && (errno != EBADF || out_wrote)) {
		if (!out_errno)
			out_errno = errno;
		return -1;
	}
	return 0;
}

static void open_stdout(void)
{
	FILE *f = fopencookie(NULL, "w",
			      (cookie_io_functions_t){ .write = out_write, .close = out_close });

	if (!f)
		return; /* stdout as it is: a failure still shows in ferror */
	(void)setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

static int close_stdout(const char *who, int rc)
{
	bool failed = ferror(stdout) != 0;

	if (fclose(stdout) != 0)
		failed = true;
	if (!failed || out_errno == EPIPE)
		return rc;
	if (out_errno)
		hb_log_early(LOG_ERR, who, "error writing standard output: %s", strerror(out_errno));
	else
		hb_log_early(LOG_ERR, who, "error writing standard output");
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	char who[64];

	snprintf(who, sizeof(who), "hotbridge%s%s", argc > 1 && argv[1][0] != '-' ? " " : "",
		 argc > 1 && argv[1][0] != '-' ? argv[1] : "");
	open_stdout();
	return close_stdout(who, dispatch(argc, argv));
}
