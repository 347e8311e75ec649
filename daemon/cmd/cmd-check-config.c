// SPDX-License-Identifier: MIT
/*
 * hotbridge check-config: parse the configuration, run `run`'s start-up
 * checks on it (conf-check.c) with this host's facts, print it or the
 * first error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "opt.h"
#include "config.h"
#include "conf-check.h"
#include "daemon.h"
#include "devices.h"
#include "emulated-host.h"
#include "platform.h"
#include "translate.h"

static int map_node_of(void *ud, uint64_t hpa)
{
	struct hb_node_info ni;

	if (hb_node_map_lookup(ud, hpa, &ni) < 0 || !ni.online)
		return -1;
	return ni.node;
}

/*
 * The facts `run` checks against: NUMA nodes, the topology's CXL nodes,
 * the plugins' names. A live topology that cannot be read here (no CXL on
 * this machine) only skips the CXL-node check; a snapshot must load.
 */
static int check_host(const struct hb_config *c, struct hb_err *err)
{
	static struct hb_numa_node nodes[HB_MAX_NODES];
	static uint8_t dist[HB_MAX_NODES][HB_MAX_NODES];
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	_hb_cleanup_node_map_ struct hb_node_map *m = NULL;
	struct hb_plugin_set scanned = { 0 };
	struct hb_config_facts f = { .plugins = &scanned };
	struct hb_err why = { 0 };
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
		f.cxl_nodes = hb_topology_cxl_nodes(hb_platform_topology(p), hb_platform_node_of_ud,
						    p);
	} else {
		struct hb_topology_source ts = { .topology = c->topology[0] ? c->topology : NULL,
						 .cedt = c->cedt[0] ? c->cedt : NULL };

		if (hb_numa_nodes(NULL, nodes, dist) == 0)
			f.nodes = nodes;
		r = hb_topology_open(&ts, &t, &why);
		if (r < 0 && ts.topology)
			return hb_err_set(err, r, "%s", why.msg);
		if (r == 0 && hb_node_map_load(NULL, &m, &why) == 0)
			f.cxl_nodes = hb_topology_cxl_nodes(t, map_node_of, m);
		else if (c->target_node >= 0 && !c->source_nodes[0])
			fprintf(stderr, "hotbridge check-config: %s; target_node not checked "
				"against the CXL nodes\n", why.msg);
	}
	hb_err_clear(&why);
	if (c->plugin_dir[0] && hb_plugins_scan(c->plugin_dir, 0, &scanned, NULL, NULL, &why) < 0 &&
	    why.code == -ENOENT)
		hb_err_clear(&why);
	r = hb_config_check(c, &f, err);
	/* a type unknown because the plugin directory itself was refused */
	if (r == -ENOENT && why.code)
		fprintf(stderr, "hotbridge check-config: plugins: %s\n", why.msg);
	hb_plugin_set_done(&scanned);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge check-config [--config FILE] [--no-dropins] [--dry-run] [--set SECTION.KEY=VALUE]...\n"
		"  -c, --config FILE   default %s (then FILE.d/*.conf)\n"
		"  -n, --no-dropins    do not read FILE.d/\n"
		"  -s, --set A=V       override one key, as `hotbridge run` would\n"
		"      --dry-run       check as for `hotbridge run --dry-run`\n"
		"  -m, --man           print hotbridge.conf(5), from the key table\n"
		"Runs the start-up checks of `hotbridge run` (sources and their parameters,\n"
		"nodes, files' owners and modes) and prints the effective configuration, each\n"
		"key with its meaning and default; exits 1 naming the first error.\n", HB_CONFIG_DEFAULT);
}

int hb_cmd_check_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "no-dropins", no_argument, NULL, 'n' },
		{ "set", required_argument, NULL, 's' },
		{ "man", no_argument, NULL, 'm' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *path = HB_CONFIG_DEFAULT, *sets[HB_MAX_SETS];
	struct hb_config c;
	struct hb_err err = { 0 };
	bool dropins = true, dry = false;
	size_t nsets = 0;
	struct hb_getopt g = { .repeatable = "s" };
	int o;

	while ((o = hb_getopt(argc, argv, "c:ns:mh", opts, &g)) != -1) {
		switch (o) {
		case 'm': hb_config_write_man(stdout); return 0;
		case 'c': path = optarg; break;
		case 'n': dropins = false; break;
		case 'D': dry = true; break;
		case 's':
			if (nsets == HB_MAX_SETS) {
				fprintf(stderr, "hotbridge check-config: more than %d --set options\n",
					HB_MAX_SETS);
				return 2;
			}
			sets[nsets++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hotbridge check-config: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (hb_config_read(&c, path, dropins, sets, nsets, &err) < 0) {
		fprintf(stderr, "hotbridge check-config: %s\n", err.msg);
		return 1;
	}
	if (dry)
		c.dry_run = true;
	if (check_host(&c, &err) < 0) {
		fprintf(stderr, "hotbridge check-config: %s\n", err.msg);
		hb_config_done(&c);
		return 1;
	}
	hb_config_write(&c, stdout);
	hb_config_done(&c);
	return 0;
}
