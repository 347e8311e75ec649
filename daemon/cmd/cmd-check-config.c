// SPDX-License-Identifier: MIT
/*
 * hotbridge check-config: parse the configuration, run `run`'s start-up
 * checks on it (conf-check.c) with this host's facts, print it or the
 * first error.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "opt.h"
#include "config.h"
#include "conf/conf-check.h"
#include "conf/conf-keys.h"
#include "cycle/tenants.h"
#include "daemon.h"
#include "devices.h"
#include "platform/emulated-host.h"
#include "platform/platform.h"
#include "platform/source-nodes.h"
#include "translate.h"

struct refusal_ctx {
	const char *windows_why;
	bool snapshot, quiet;
};

/* a region on a node the source-node rule refuses: said, not an error */
static void warn_not_source(void *ud, const struct hb_region *rg, int node,
			    enum hb_source_node_why why)
{
	const struct refusal_ctx *rc = ud;
	char msg[HB_ERR_MSG_MAX];

	if (!rc->quiet)
		fprintf(stderr, "hotbridge check-config: warning: %s\n",
			hb_source_refusal_format(msg, sizeof(msg), rg, node, why, rc->windows_why,
						 rc->snapshot));
}

static int map_node_of(void *ud, uint64_t hpa)
{
	struct hb_node_info ni;

	if (hb_node_map_lookup(ud, hpa, &ni) < 0 || !ni.online)
		return -1;
	return ni.node;
}

/* what `run` allows a plugin to take while loading (source-host.c) */
#define PLUGIN_INSPECT_MS 5000

struct refusals {
	struct hb_plugin_refusal v[HB_MAX_SOURCES];
	size_t n;
};

static void note_refusal(void *ud, const char *path, const char *why)
{
	struct refusals *rf = ud;

	if (rf->n < HB_ARRAY_SIZE(rf->v) && hb_plugin_refusal_note(&rf->v[rf->n], path, why) == 0)
		rf->n++;
}

static void warn(void *ud, const char *msg)
{
	if (!*(const bool *)ud)
		fprintf(stderr, "hotbridge check-config: warning: %s\n", msg);
}

/*
 * The plugins the sources name, inspected in a child as `run` loads them
 * (no plugin code runs here): one `run` would refuse becomes a refusal.
 * One that crashes or hangs while loading is refused only when a source
 * runs it in the daemon (isolate = no): run keeps the sources that run it
 * in hotbridge-plugin-host, restarting their host (a warning here).
 */
static void inspect_plugins(const struct hb_config *c, const struct hb_plugin_set *set,
			    struct refusals *rf, bool quiet)
{
	for (size_t i = 0; i < set->n; i++) {
		struct hb_plugin_desc desc;
		struct hb_err why = { 0 };
		bool used = false;

		for (size_t k = 0; k < c->nsources && !used; k++)
			used = !strcmp(c->sources[k].type, set->v[i].name);
		if (!used || hb_plugin_inspect(&set->v[i], PLUGIN_INSPECT_MS, &desc, &why) == 0)
			continue;
		if ((why.code == -ECHILD || why.code == -ETIMEDOUT) &&
		    !hb_config_plugin_in_process(c, set->v[i].name)) {
			char msg[HB_ERR_MSG_MAX + 160];
			size_t len = strlen(why.msg);

			if (len > 10 && !strcmp(why.msg + len - 10, "; refusing"))
				why.msg[len - 10] = '\0';
			snprintf(msg, sizeof(msg),
				 "%s; run tries its sources anyway, each in a hotbridge-plugin-host, "
				 "and goes on without one whose host dies before it opened",
				 why.msg);
			warn(&quiet, msg);
			continue;
		}
		note_refusal(rf, set->v[i].path, why.msg);
	}
}

/*
 * run's check of the [tenant] rules against this host (tenant-step.c), in
 * its words; only "needs root" is a warning here, as check-config may run
 * as a user
 */
static int check_tenants(const struct hb_config *c, bool quiet, struct hb_err *err)
{
	struct hb_tenant_rules *rules = malloc(sizeof(*rules));
	struct hb_err why = { 0 };
	int r;

	if (!rules)
		return hb_err_set(err, -ENOMEM, "out of memory");
	if ((r = hb_config_tenant_rules(c, rules, err)) == 0 && rules->active &&
	    (r = hb_tenants_host_check(NULL, c->emulated, &why)) < 0) {
		if ((r == -EACCES || r == -EPERM) && geteuid() != 0) {
			warn(&quiet, why.msg);
			r = 0;
		} else {
			hb_err_set(err, r, "%s", why.msg);
		}
	}
	free(rules);
	return r;
}

/*
 * The facts `run` checks against: NUMA nodes, the topology's CXL nodes,
 * the plugins' names. A live topology that cannot be read here (no CXL on
 * this machine) only skips the CXL-node check; a snapshot must load.
 */
static int check_host(const struct hb_config *c, const char *path, bool quiet, struct hb_err *err)
{
	static struct hb_numa_node nodes[HB_MAX_NODES];
	static uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	_hb_cleanup_node_map_ struct hb_node_map *m = NULL;
	struct hb_plugin_set scanned = { 0 };
	static struct refusals rf;
	struct hb_config_facts f = { .plugins = &scanned,
				     .mem_bytes = hb_config_mem_bytes(),
				     .warn = warn,
				     .warn_ud = &quiet,
				     .config_path = path };
	struct hb_err why = { 0 }, why_windows = { 0 };
	struct refusal_ctx rc = { .snapshot = c->topology[0] && !c->emulated, .quiet = quiet };
	struct hb_source_facts sf = { .nodes = nodes };
	long ps = sysconf(_SC_PAGESIZE);
	int r;

	f.page_size = ps > 0 ? (uint64_t)ps : 4096;
	if (c->emulated) {
		struct hb_emulated_host emu = { .dram_free = 8ULL << 30 };
		_hb_cleanup_(hb_platform_freep) struct hb_platform *p = NULL;

		r = hb_emulated_platform_new(&emu, &p, err);
		if (r < 0)
			return r;
		if (hb_platform_nodes(p, nodes, dist) == 0)
			f.nodes = nodes;
		sf.window_nodes = hb_platform_window_nodes(p, &sf.windows_why);
		if ((r = hb_emulated_topology(&t, err)) < 0)
			return r;
		f.cxl_nodes =
			hb_source_nodes_of_topology(hb_platform_topology(p), hb_platform_node_of_ud,
						    p, &sf, warn_not_source, &rc);
	} else {
		struct hb_topology_source ts = { .topology = c->topology[0] ? c->topology : NULL,
						 .cedt = c->cedt[0] ? c->cedt : NULL };

		if (hb_numa_nodes(NULL, nodes, dist) == 0)
			f.nodes = nodes;
		r = hb_topology_open(&ts, &t, &why);
		if (r < 0 && ts.topology)
			return hb_err_set(err, r, "%s", why.msg);
		if (r == 0 && !quiet)
			hb_cmd_warn_cedt_unmatched(t, &ts, "hotbridge check-config");
		if (r == 0 && hb_node_map_load(NULL, &m, &why) == 0) {
			if (hb_live_window_nodes("/proc/iomem", -1, m, &sf.window_nodes,
						 &why_windows) < 0)
				sf.windows_why = why_windows.msg;
			rc.windows_why = sf.windows_why;
			f.cxl_nodes = hb_source_nodes_of_topology(t, map_node_of, m, &sf,
								  warn_not_source, &rc);
		} else if (c->target_node >= 0 && !c->source_nodes[0] && !quiet)
			fprintf(stderr,
				"hotbridge check-config: %s; target_node not checked "
				"against the CXL nodes\n",
				why.msg);
	}
	f.window_nodes = sf.window_nodes;
	f.windows_why = sf.windows_why;
	f.topology = t;
	/* run's topology warnings, in the same words (D13: an empty one was not said) */
	hb_topology_warn(c->emulated ? NULL : t, warn, &quiet);
	hb_err_clear(&why);
	rf.n = 0;
	if (c->plugin_dir[0] &&
	    hb_plugins_scan(c->plugin_dir, 0, &scanned, note_refusal, &rf, &why) < 0 &&
	    why.code == -ENOENT)
		hb_err_clear(&why);
	else if (why.code) { /* as run says it (source-host.c, reload.c) */
		char msg[HB_ERR_MSG_MAX + 32];

		snprintf(msg, sizeof(msg), "plugins: %s, ignoring", why.msg);
		warn(&quiet, msg);
	}
	inspect_plugins(c, &scanned, &rf, quiet);
	/* D6: a feed where another user may put a file of their choosing */
	for (size_t i = 0; i < c->nsources; i++) {
		struct hb_dev_info info;
		char msg[PATH_MAX + 256];

		hb_source_info(&c->sources[i], &info);
		if (!strcmp(c->sources[i].type, "replay") &&
		    hb_source_replay_dir_unsafe(&info, msg, sizeof(msg)) > 0)
			warn(&quiet, msg);
	}
	f.refused = rf.v;
	f.nrefused = rf.n;
	r = hb_config_check(c, &f, err);
	if (r == 0)
		r = check_tenants(c, quiet, err);
	/* a type unknown because the plugin directory itself was refused */
	if (r == -ENOENT && why.code)
		fprintf(stderr, "hotbridge check-config: plugins: %s\n", why.msg);
	hb_plugin_set_done(&scanned);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge check-config [--config FILE] [--dry-run] [--quiet] [--no-dropins] [--set SECTION.KEY=VALUE]...\n"
		"  -c, --config FILE   default %s (then FILE.d/*.conf)\n"
		"  -n, --dry-run       check as for `hotbridge run --dry-run` (-n there too)\n"
		"  -q, --quiet         print errors only: no configuration, no warnings\n"
		"  -s, --set A=V       override one key, as `hotbridge run` would;\n"
		"                      source.NAME.KEY=V sets a parameter of [source NAME]\n"
		"      --no-dropins    do not read FILE.d/\n"
		"  -m, --man           print hotbridge.conf(5), from the key table\n"
		"Runs the start-up checks of `hotbridge run` (sources and their parameters,\n"
		"nodes, files' owners and modes) and prints the effective configuration, each\n"
		"key with its meaning and default and, after its value, where it was set\n"
		"(; FILE:LINE, ; --set, ; default); exits 1 naming the first error. A source\n"
		"this host cannot serve is a warning (run goes on without it).\n",
		HB_CONFIG_DEFAULT);
}

int hb_cmd_check_config(int argc, char **argv)
{
	static const struct option opts[] = { { "config", required_argument, NULL, 'c' },
					      { "no-dropins", no_argument, NULL, 'N' },
					      { "quiet", no_argument, NULL, 'q' },
					      { "set", required_argument, NULL, 's' },
					      { "man", no_argument, NULL, 'm' },
					      { "dry-run", no_argument, NULL, 'n' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	const char *path = HB_CONFIG_DEFAULT, *sets[HB_MAX_SETS];
	struct hb_config c;
	struct hb_err err = { 0 };
	bool dropins = true, dry = false, quiet = false;
	size_t nsets = 0;
	struct hb_getopt g = { .repeatable = "s" };
	int o;

	while ((o = hb_getopt(argc, argv, "c:nqs:mh", opts, &g)) != -1) {
		switch (o) {
		case 'm': hb_config_write_man(stdout); return 0;
		case 'c': path = optarg; break;
		case 'N': dropins = false; break;
		case 'n': dry = true; break;
		case 'q': quiet = true; break;
		case 's':
			if (nsets == HB_MAX_SETS)
				return hb_cmd_fail(2, "hotbridge check-config",
						   "more than %d --set options", HB_MAX_SETS);
			sets[nsets++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc)
		return hb_cmd_fail(2, "hotbridge check-config", "unexpected argument '%s'",
				   argv[optind]);
	if (hb_config_read(&c, path, dropins, sets, nsets, &err) < 0)
		return hb_cmd_fail(1, "hotbridge check-config", "%s", err.msg);
	if (dry) {
		c.dry_run = true;
		snprintf(c.key_where[hb_conf_key_index(hb_conf_key_find("daemon", "dry_run"))],
			 HB_CONF_WHERE_MAX, "--dry-run");
	}
	if (check_host(&c, path, quiet, &err) < 0) {
		fprintf(stderr, "hotbridge check-config: %s\n", err.msg);
		hb_config_done(&c);
		return 1;
	}
	if (!quiet)
		hb_config_write(&c, stdout);
	hb_config_done(&c);
	return 0;
}
