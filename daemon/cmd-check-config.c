// SPDX-License-Identifier: MIT
/* hotbridge check-config: parse the configuration, print it or the first error. */
#include <getopt.h>
#include <stdio.h>

#include "builtin.h"
#include "conf.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge check-config [--config FILE] [--no-dropins] [--set SECTION.KEY=VALUE]...\n"
		"  -c, --config FILE   default %s (then FILE.d/*.conf)\n"
		"  -n, --no-dropins    do not read FILE.d/\n"
		"  -s, --set A=V       override one key, as `hotbridge run` would\n"
		"  -m, --man           print hotbridge.conf(5), from the key table\n"
		"Prints the effective configuration, each key with its meaning and default;\n"
		"exits 1 naming file:line on the first error.\n", HB_CONFIG_DEFAULT);
}

int hb_cmd_check_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "no-dropins", no_argument, NULL, 'n' },
		{ "set", required_argument, NULL, 's' },
		{ "man", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *path = HB_CONFIG_DEFAULT, *sets[64];
	struct hb_config c;
	struct hb_err err = { 0 };
	bool dropins = true;
	size_t nsets = 0;
	int o;

	while ((o = getopt_long(argc, argv, "c:ns:mh", opts, NULL)) != -1) {
		switch (o) {
		case 'm': hb_config_write_man(stdout); return 0;
		case 'c': path = optarg; break;
		case 'n': dropins = false; break;
		case 's':
			if (nsets < 64)
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
	hb_config_write(&c, stdout);
	hb_config_done(&c);
	return 0;
}
