// SPDX-License-Identifier: MIT
/*
 * hotbridge list: the hotness sources on this host, as JSON (cxl list
 * style): built-in sources, CXL memory devices with their register blocks
 * and CHMU capabilities, CHMU perf PMUs the kernel offers, and the vendor
 * plugins of the plugin directory (with the reason for each one refused),
 * and which migrator backend = auto would use (with the reasons the ones
 * before it are unavailable; nothing is written to find out).
 * Plugins are inspected in a child process each; this process never loads
 * one.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "builtin.h"
#include "opt.h"
#include "config.h"
#include "devices.h"
#include "kernel.h"
#include "test-hooks.h"
#include "translate.h"

/* a plugin whose inspection takes longer is refused */
#define PLUGIN_INSPECT_TIMEOUT_MS 5000

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge list [--plugin-dir DIR]" HB_TEST_HOOK_USAGE(
			" [--pci-dump FILE] [--sysfs-root DIR]") "\n"
								 "  -p, --plugin-dir DIR  vendor plugins (default: %s)\n" HB_TEST_HOOK_USAGE(
									 "  -d, --pci-dump FILE   read PCI config space from an `lspci -xxxx` dump (test hook)\n"
									 "  -s, --sysfs-root DIR  prefix before /sys, /proc/iomem and /dev/mem (test hook)\n"),
		HB_PLUGINDIR);
}

static json_object *caps_array(uint64_t caps)
{
	static const char *const names[] = { "poll", "fd", "dpa", "hpa" };
	json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < 4; i++)
		if (caps & (1ULL << i))
			json_object_array_add(a, json_object_new_string(names[i]));
	return a;
}

static json_object *desc_json(const struct hb_plugin_desc *desc, const char *origin)
{
	json_object *o = json_object_new_object();
	char abi[32];

	snprintf(abi, sizeof(abi), "%u.%u", desc->abi_major, desc->abi_minor);
	json_object_object_add(o, "source", json_object_new_string(desc->name));
	json_object_object_add(o, "origin", json_object_new_string(origin));
	json_object_object_add(o, "abi", json_object_new_string(abi));
	json_object_object_add(o, "capabilities", caps_array(desc->caps));
	return o;
}

static json_object *source_json(const struct hb_device_ops *ops, const char *origin)
{
	struct hb_plugin_desc desc = { .abi_major = ops->abi_major,
				       .abi_minor = ops->abi_minor,
				       .caps = ops->caps };

	snprintf(desc.name, sizeof(desc.name), "%s", ops->name);
	return desc_json(&desc, origin);
}

static json_object *chmu_caps_json(const struct hb_chmu_summary *k)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "version", json_object_new_int((int)k->version));
	json_object_object_add(o, "instances", json_object_new_int((int)k->instances));
	json_object_object_add(o, "hotlist_size", json_object_new_int((int)k->hotlist_size));
	json_object_object_add(o, "counter_width", json_object_new_int((int)k->counter_width));
	json_object_object_add(o, "unit_sizes", json_object_new_string(k->unit_sizes));
	json_object_object_add(o, "downsampling_factors", json_object_new_string(k->ds_factors));
	json_object_object_add(o, "epoch_based", json_object_new_boolean(k->epoch_based));
	json_object_object_add(o, "always_on", json_object_new_boolean(k->always_on));
	json_object_object_add(o, "min_epoch_ns", json_object_new_int64((int64_t)k->min_epoch_ns));
	json_object_object_add(o, "max_epoch_ns", json_object_new_int64((int64_t)k->max_epoch_ns));
	return o;
}

static json_object *device_json(const struct hb_cxl_device_info *d)
{
	json_object *o = json_object_new_object(), *blocks = json_object_new_array();
	char hex[32];

	json_object_object_add(o, "pci", json_object_new_string(d->bdf));
	if (d->memdev[0])
		json_object_object_add(o, "memdev", json_object_new_string(d->memdev));
	snprintf(hex, sizeof(hex), "%#06x", d->vendor);
	json_object_object_add(o, "vendor", json_object_new_string(hex));
	snprintf(hex, sizeof(hex), "%#06x", d->device);
	json_object_object_add(o, "device", json_object_new_string(hex));
	for (unsigned int k = 0; k < d->nblocks; k++) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "id", json_object_new_int((int)d->blocks[k].id));
		json_object_object_add(b, "type", json_object_new_string(d->blocks[k].type));
		json_object_object_add(b, "bar", json_object_new_int((int)d->blocks[k].bar));
		json_object_object_add(b, "offset", hb_json_hex(d->blocks[k].offset));
		json_object_array_add(blocks, b);
	}
	json_object_object_add(o, "register_blocks", blocks);
	json_object_object_add(o, "chmu", json_object_new_boolean(d->has_chmu));
	if (d->chmu_mapping[0])
		json_object_object_add(o, "chmu_mapping", json_object_new_string(d->chmu_mapping));
	if (d->chmu_error[0])
		json_object_object_add(o, "chmu_error", json_object_new_string(d->chmu_error));
	if (d->chmu_read)
		json_object_object_add(o, "chmu_capabilities", chmu_caps_json(&d->chmu));
	return o;
}

static json_object *pmus(const char *sysroot)
{
	json_object *a = json_object_new_array();
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", sysroot);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "cxl_hmu", 7))
			json_object_array_add(a, json_object_new_string(de->d_name));
	if (d)
		closedir(d);
	return a;
}

/* cxl-hmu: whether the kernel offers a CHMU perf PMU here, and why not */
static void hmu_availability(json_object *o, const char *sysroot)
{
	char why[256];
	int ok = hb_hmu_available(sysroot, why, sizeof(why));

	json_object_object_add(o, "available", json_object_new_boolean(ok));
	json_object_object_add(o, "why", json_object_new_string(why));
}

/*
 * Every source says "available" (and "why"): cxl-events asks the kernel;
 * chmu wants a CXL device with a CHMU block that maps (the inventory
 * above); emul-chmu and replay need nothing of the host.
 */
static void builtin_availability(json_object *o, const char *name,
				 const struct hb_cxl_device_info *devs, size_t ndev)
{
	char why[HB_ERR_MSG_MAX + 64] = "";
	int avail = hb_builtin_available(name, why, sizeof(why));

	if (avail < 0 && !strcmp(name, "chmu")) {
		const struct hb_cxl_device_info *bad = NULL;

		avail = 0;
		for (size_t i = 0; i < ndev && !avail; i++) {
			if (!devs[i].has_chmu)
				continue;
			if (devs[i].chmu_error[0]) {
				bad = bad ? bad : &devs[i];
				continue;
			}
			avail = 1;
			snprintf(why, sizeof(why), "a CHMU on %s%s%s%s", devs[i].bdf,
				 devs[i].memdev[0] ? " (" : "", devs[i].memdev,
				 devs[i].memdev[0] ? ")" : "");
		}
		if (!avail && bad)
			snprintf(why, sizeof(why), "%s: %s", bad->bdf, bad->chmu_error);
		else if (!avail)
			snprintf(why, sizeof(why),
				 "no CXL memory device with a CHMU register block "
				 "(cxl_memdevs)");
	} else if (avail < 0) {
		/* emul-chmu, replay: an emulator, a file or FIFO of records */
		avail = 1;
		snprintf(why, sizeof(why), "needs no hardware");
	}
	json_object_object_add(o, "available", json_object_new_boolean(avail));
	json_object_object_add(o, "why", json_object_new_string(why));
}

struct refusals {
	json_object *a;
};

static void on_refused(void *ud, const char *path, const char *why)
{
	struct refusals *r = ud;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "refused", json_object_new_string(why));
	json_object_array_add(r->a, o);
}

/* what backend = auto would pick, and why the ones before it would not do */
static json_object *migrators_json(const char *sysroot)
{
	struct hb_migrator_config mc = { .root = sysroot[0] ? sysroot : NULL };
	struct hb_migrator_choice c;
	json_object *o = json_object_new_object();

	hb_migrator_probe_auto(&mc, &c);
	json_object_object_add(o, "auto", json_object_new_string(hb_migrator_kind_to_string(c.kind)));
	for (int k = 0; k < _HB_MIGRATOR_MAX; k++)
		if (c.why[k][0])
			json_object_object_add(o, hb_migrator_kind_to_string(k),
					       json_object_new_string(c.why[k]));
	return o;
}

int hb_cmd_list(int argc, char **argv)
{
	static const struct option opts[] = { { "plugin-dir", required_argument, NULL, 'p' },
					      { "pci-dump", required_argument, NULL, 'd' },
					      { "sysfs-root", required_argument, NULL, 's' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	const char *plugindir = HB_PLUGINDIR, *dump = NULL, *sysroot = "";
	const struct hb_device_ops *const *builtins;
	struct hb_cxl_device_info *devs = NULL;
	struct hb_plugin_set set = { 0 };
	struct refusals ref;
	struct hb_err err = { 0 };
	json_object *top, *srcs, *chmus, *plugins;
	size_t n, ndev = 0;
	struct hb_getopt g = { 0 };
	bool plugindir_given = false;
	int c, rc = 0;

	while ((c = hb_getopt(argc, argv, "p:d:s:h", opts, &g)) != -1) {
		switch (c) {
		case 'p':
			plugindir = optarg;
			plugindir_given = true;
			break;
		case 'd':
			if (!hb_test_hook_allowed(argv[0], "--pci-dump"))
				return 2;
			dump = optarg;
			break;
		case 's':
			if (!hb_test_hook_allowed(argv[0], "--sysfs-root"))
				return 2;
			sysroot = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc)
		return hb_cmd_fail(2, "hotbridge list", "unexpected argument '%s'", argv[optind]);
	chmus = json_object_new_array();
	if (hb_cxl_inventory(dump, sysroot, &devs, &ndev, &err) < 0) {
		fprintf(stderr, "hotbridge list: PCI scan: %s\n", err.msg);
		rc = 1;
	}
	for (size_t i = 0; i < ndev; i++)
		json_object_array_add(chmus, device_json(&devs[i]));

	top = json_object_new_object();
	srcs = json_object_new_array();
	n = hb_builtin_sources(&builtins);
	for (size_t i = 0; i < n; i++) {
		json_object *o = source_json(builtins[i], "built-in");

		if (!strcmp(builtins[i]->name, "cxl-hmu"))
			hmu_availability(o, sysroot);
		else
			builtin_availability(o, builtins[i]->name, devs, ndev);
		json_object_array_add(srcs, o);
	}
	free(devs);

	plugins = json_object_new_array();
	ref.a = plugins;
	/* the default directory may well not exist; one the user named must */
	if (hb_plugins_scan(plugindir, 0, &set, on_refused, &ref, &err) < 0 &&
	    (err.code != -ENOENT || plugindir_given)) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "path", json_object_new_string(plugindir));
		json_object_object_add(o, "refused", json_object_new_string(err.msg));
		json_object_array_add(plugins, o);
		if (plugindir_given) {
			fprintf(stderr, "hotbridge list: --plugin-dir: %s\n", err.msg);
			rc = 1;
		}
	}
	/* each plugin is loaded in a child only: a crash there is a refusal here */
	for (size_t i = 0; i < set.n; i++) {
		struct hb_plugin_desc desc;
		struct hb_err why = { 0 };
		json_object *o;

		if (hb_plugin_inspect(&set.v[i], PLUGIN_INSPECT_TIMEOUT_MS, &desc, &why) < 0) {
			on_refused(&ref, set.v[i].path, why.msg);
			continue;
		}
		o = desc_json(&desc, "plugin");
		json_object_object_add(o, "path", json_object_new_string(set.v[i].path));
		/* what a plugin needs of the host is its own to tell, at open */
		json_object_object_add(o, "available", json_object_new_boolean(true));
		json_object_object_add(o, "why",
				       json_object_new_string("inspected: loads and "
							      "passes the ABI checks"));
		json_object_array_add(srcs, o);
	}
	hb_plugin_set_done(&set);

	json_object_object_add(top, "sources", srcs);
	json_object_object_add(top, "cxl_memdevs", chmus);
	json_object_object_add(top, "chmu_perf_pmus", pmus(sysroot));
	json_object_object_add(top, "plugin_dir", json_object_new_string(plugindir));
	json_object_object_add(top, "plugins_refused", plugins);
	json_object_object_add(top, "migrators", migrators_json(sysroot));
	puts(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
	return rc;
}
