// SPDX-License-Identifier: MIT
/*
 * Plugins load only from a safe directory; each bad plugin is refused with
 * a message naming the file and the reason, and the good ones around it
 * are kept. A plugin's source NAME comes from its file name ([NN-]NAME.so)
 * before any dlopen: one named like a built-in or like another plugin is
 * refused without being loaded, and only the plugins asked for are loaded.
 * Inspection loads a plugin in a child: a crash or a hang there is a
 * refusal here. The plugins are built by tests/meson.build
 * (HB_TEST_PLUGINS): the contrib sample (good) and bad.c in its variants.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "devices.h"

static char dir[256];

struct refusal {
	char path[512], why[512];
};
static struct refusal refusals[16];
static int nrefused;

static void on_refused(void *ud, const char *path, const char *why)
{
	if (nrefused < 16) {
		snprintf(refusals[nrefused].path, sizeof(refusals[0].path), "%s", path);
		snprintf(refusals[nrefused].why, sizeof(refusals[0].why), "%s", why);
	}
	nrefused++;
}

static const char *why_for(const char *file)
{
	for (int i = 0; i < nrefused && i < 16; i++) {
		const char *slash = strrchr(refusals[i].path, '/');

		if (slash && !strcmp(slash + 1, file))
			return refusals[i].why;
	}
	return NULL;
}

static void copy_plugin(const char *from, const char *to, mode_t mode)
{
	char cmd[2048];
	const char *src = getenv("HB_TEST_PLUGINS");

	snprintf(cmd, sizeof(cmd), "cp '%s/%s' '%s/%s' && chmod %o '%s/%s'", src, from, dir, to,
		 (unsigned)mode, dir, to);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/hb-test-plugins-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	nrefused = 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_loader_keeps_good_plugins_and_names_each_refusal(void **state)
{
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	const char *w;

	copy_plugin("libhb-sample.so", "10-sample.so", 0755);
	copy_plugin("libbad-abi.so", "20-bad-abi.so", 0755);
	copy_plugin("libbad-null.so", "30-bad-null.so", 0755);
	copy_plugin("libbad-size.so", "40-bad-size.so", 0755);
	copy_plugin("libbad-nopoll.so", "50-bad-nopoll.so", 0755);
	copy_plugin("libbad-noentry.so", "60-bad-noentry.so", 0755);
	copy_plugin("libhb-sample.so", "70-world-writable.so", 0757);
	copy_plugin("libhb-sample.so", "README", 0644); /* not *.so: ignored */
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/80-garbage.so", dir);
		FILE *f = fopen(p, "w");
		fputs("not an ELF file\n", f);
		fclose(f);
	}

	assert_int_equal(hb_plugins_load(dir, getuid(), NULL, 0, &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.v[0].ops->name, "sample");
	assert_non_null(strstr(set.v[0].path, "10-sample.so"));
	assert_int_equal(nrefused, 7);

	assert_non_null(w = why_for("20-bad-abi.so"));
	assert_non_null(strstr(w, "plugin ABI 2.0, host speaks 1.4"));
	assert_non_null(strstr(w, "20-bad-abi.so"));
	assert_non_null(w = why_for("30-bad-null.so"));
	assert_non_null(strstr(w, "no ops table"));
	assert_non_null(w = why_for("40-bad-size.so"));
	assert_non_null(strstr(w, "needs 64"));
	assert_non_null(w = why_for("50-bad-nopoll.so"));
	assert_non_null(strstr(w, "without a poll op"));
	assert_non_null(w = why_for("60-bad-noentry.so"));
	assert_non_null(strstr(w, "no hb_device_entry_v1() entry point"));
	assert_non_null(w = why_for("70-world-writable.so"));
	assert_non_null(strstr(w, "world-writable"));
	assert_non_null(w = why_for("80-garbage.so"));
	assert_non_null(strstr(w, "80-garbage.so"));
	hb_plugin_set_done(&set);
}

static void test_loader_refuses_an_unsafe_directory(void **state)
{
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	char link[300];

	copy_plugin("libhb-sample.so", "10-sample.so", 0755);
	assert_int_equal(chmod(dir, 0775), 0);
	assert_int_equal(hb_plugins_load(dir, getuid(), NULL, 0, &set, on_refused, NULL, &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "group- or world-writable (mode 0775)"));
	assert_int_equal(set.n, 0);

	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(hb_plugins_load(dir, getuid() + 1, NULL, 0, &set, on_refused, NULL, &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "not"));
	assert_non_null(strstr(err.msg, "refusing"));

	snprintf(link, sizeof(link), "%s.link", dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(hb_plugins_load(link, getuid(), NULL, 0, &set, on_refused, NULL, &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "symlink"));
	unlink(link);

	assert_int_equal(hb_plugins_load("/nonexistent/plugins", getuid(), NULL, 0, &set, NULL,
					 NULL, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/plugins"));
}

static void test_loader_a_plugin_that_fails_to_open_is_named(void **state)
{
	struct hb_host_ops host = { .abi_major = 1, .size = sizeof(host) };
	struct hb_dev_info info = { .size = sizeof(info), .name = "acme0" };
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	void *priv = (void *)1;

	copy_plugin("libbad-openfail.so", "10-bad.so", 0755);
	copy_plugin("libhb-sample.so", "20-sample.so", 0755);
	assert_int_equal(hb_plugins_load(dir, getuid(), NULL, 0, &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 2);
	assert_int_equal(hb_source_open(set.v[0].ops, set.v[0].path, &host, NULL, &info, &priv, &err),
			 -ENXIO);
	assert_null(priv);
	assert_non_null(strstr(err.msg,
			       "10-bad.so (bad): open of 'acme0' failed: No such device or address"));
	/* the other plugin is unaffected: the sample refuses only for want of a memdev */
	info.memdev = "mem0";
	assert_int_equal(hb_source_open(set.v[1].ops, set.v[1].path, &host, NULL, &info, &priv, &err),
			 0);
	set.v[1].ops->close(priv);
	hb_plugin_set_done(&set);
}

static int submitted;

static int host_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	assert_int_equal(r[0].space, HB_SPACE_DPA);
	assert_string_equal(r[0].memdev, "mem3");
	assert_int_equal(r[0].len, 0x100000);
	assert_int_equal(r[0].addr, 0x40000000 + (uint64_t)submitted * 0x100000);
	submitted++;
	return 0;
}

static void host_log(struct hb_host *h, int prio, const char *fmt, ...)
{
}

static void test_loader_sample_plugin_runs_through_its_ops(void **state)
{
	static const char *const params[] = { "base=0x40000000", "size=0x400000", "window=0x100000",
					      NULL };
	struct hb_host_ops host = {
		.abi_major = 1,
		.size = sizeof(host),
		.log = host_log,
		.submit = host_submit,
	};
	struct hb_dev_info info = {
		.size = sizeof(info), .name = "s", .memdev = "mem3", .params = params
	};
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	void *priv = NULL;

	copy_plugin("libhb-sample.so", "10-sample.so", 0755);
	assert_int_equal(hb_plugins_load(dir, getuid(), NULL, 0, &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.v[0].ops->open(&host, NULL, &info, &priv), 0);
	submitted = 0;
	for (int i = 0; i < 4; i++)
		assert_int_equal(set.v[0].ops->poll(priv), 0);
	assert_int_equal(submitted, 4);
	set.v[0].ops->close(priv);
	hb_plugin_set_done(&set);
}

static bool marker_exists(const char *marker)
{
	return access(marker, F_OK) == 0;
}

static void set_marker(char *marker, size_t size)
{
	snprintf(marker, size, "%s.ctor-ran", dir);
	unlink(marker);
	assert_int_equal(setenv("HB_TEST_CTOR_MARKER", marker, 1), 0);
}

static void test_loader_file_name_gives_the_source_name(void **state)
{
	static const struct {
		const char *file, *name;
	} good[] = {
		{ "10-sample.so", "sample" },  { "sample.so", "sample" },
		{ "007-acme_x.so", "acme_x" }, { "10-20-x.so", "20-x" },
		{ "9lives.so", "9lives" },     { "1-emul-chmu.so", "emul-chmu" },
	};
	static const char *const bad[] = {
		"Sample.so",
		"10-.so",
		"-x.so",
		"_x.so",
		"a b.so",
		".so",
		"10-sample.so.1",
		"sample.sox",
		"x/y.so",
		"10-ACME.so",
		"10-a123456789012345678901234567890123456789012345678901234567890123.so",
	};
	char name[HB_PLUGIN_NAME_MAX];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(hb_plugin_file_name(good[i].file, name, sizeof(name)), 0);
		assert_string_equal(name, good[i].name);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (hb_plugin_file_name(bad[i], name, sizeof(name)) != -EINVAL)
			fail_msg("'%s' accepted as '%s'", bad[i], name);
}

static void test_loader_loads_only_the_plugins_asked_for(void **state)
{
	static const char *const want[] = { "sample", NULL };
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	char marker[300];

	set_marker(marker, sizeof(marker));
	copy_plugin("libbad-crashctor.so", "10-crashy.so", 0755);
	copy_plugin("libhb-sample.so", "20-sample.so", 0755);
	/* scanning opens nothing: both are listed, the constructor never ran */
	assert_int_equal(hb_plugins_scan(dir, getuid(), &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.v[0].name, "crashy");
	assert_null(set.v[0].handle);
	assert_string_equal(set.v[1].name, "sample");
	hb_plugin_set_done(&set);
	/* loading what a source names leaves the crashing plugin alone */
	assert_int_equal(hb_plugins_load(dir, getuid(), want, 0, &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.v[0].ops->name, "sample");
	assert_int_equal(nrefused, 0);
	assert_false(marker_exists(marker));
	hb_plugin_set_done(&set);
}

static void test_loader_refuses_builtin_and_duplicate_names_before_loading(void **state)
{
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	char marker[300];
	const char *w;

	set_marker(marker, sizeof(marker));
	copy_plugin("libbad-builtin.so", "10-replay.so", 0755);
	copy_plugin("libbad-crashctor.so", "emul-chmu.so", 0755); /* would crash if loaded */
	copy_plugin("libhb-sample.so", "20-sample.so", 0755);
	copy_plugin("libbad-crashctor.so", "30-sample.so", 0755); /* would crash if loaded */
	copy_plugin("libbad-pollfail.so", "40-bad.so", 0755);
	copy_plugin("libhb-sample.so", "50-Bad Name.so", 0755);
	assert_int_equal(hb_plugins_load(dir, getuid(), NULL, 0, &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.v[0].ops->name, "bad");
	assert_int_equal(nrefused, 5);
	assert_false(marker_exists(marker));

	assert_non_null(w = why_for("10-replay.so"));
	assert_non_null(strstr(w, "source name 'replay' is a built-in source's"));
	assert_non_null(w = why_for("emul-chmu.so"));
	assert_non_null(strstr(w, "source name 'emul-chmu' is a built-in source's"));
	assert_non_null(w = why_for("20-sample.so"));
	assert_non_null(strstr(w, "20-sample.so: source name 'sample' is also claimed by"));
	assert_non_null(strstr(w, "/30-sample.so; refusing both"));
	assert_non_null(w = why_for("30-sample.so"));
	assert_non_null(strstr(w, "30-sample.so: source name 'sample' is also claimed by"));
	assert_non_null(strstr(w, "/20-sample.so; refusing both"));
	assert_non_null(w = why_for("50-Bad Name.so"));
	assert_non_null(strstr(w, "not a plugin file name: want [NN-]NAME.so"));
	hb_plugin_set_done(&set);
}

static void test_loader_refuses_a_plugin_whose_file_name_is_not_its_source_name(void **state)
{
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	const char *w;

	copy_plugin("libhb-sample.so", "10-acme.so", 0755);
	assert_int_equal(hb_plugins_load(dir, getuid(), NULL, 0, &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 0);
	assert_non_null(w = why_for("10-acme.so"));
	assert_non_null(strstr(w, "the file name says source 'acme' but the plugin calls itself "
				  "'sample'"));
	hb_plugin_set_done(&set);
}

static void inspect_one(const char *from, const char *to, int timeout_ms, int want_rc,
			const char *want_msg)
{
	struct hb_plugin_set set;
	struct hb_plugin_desc desc;
	struct hb_err err = { 0 };
	char path[600];

	copy_plugin(from, to, 0755);
	assert_int_equal(hb_plugins_scan(dir, getuid(), &set, on_refused, NULL, &err), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, to);
	for (size_t i = 0; i < set.n; i++) {
		if (strcmp(set.v[i].path, path))
			continue;
		memset(&err, 0, sizeof(err));
		if (hb_plugin_inspect(&set.v[i], timeout_ms, &desc, &err) != want_rc)
			fail_msg("%s: rc %d, '%s'", to, err.code, err.msg);
		if (want_msg && (!strstr(err.msg, want_msg) || !strstr(err.msg, to)))
			fail_msg("%s: '%s' lacks '%s'", to, err.msg, want_msg);
		assert_null(set.v[i].handle);
		hb_plugin_set_done(&set);
		return;
	}
	fail_msg("%s not scanned", to);
}

static void test_inspect_reports_a_crash_or_a_hang_as_a_refusal(void **state)
{
	struct hb_plugin_set set;
	struct hb_plugin_desc desc;
	struct hb_err err = { 0 };
	char marker[300];

	set_marker(marker, sizeof(marker));
	inspect_one("libbad-crashctor.so", "10-crashy.so", 30000, -ECHILD,
		    "crashed (SIGSEGV) while loading; refusing");
	/* the constructor did run, in the child: this process survived it */
	assert_true(marker_exists(marker));
	unlink(marker);
	inspect_one("libbad-crashentry.so", "20-crashentry.so", 30000, -ECHILD,
		    "crashed (SIGSEGV) while loading");
	inspect_one("libbad-hang.so", "30-hang.so", 300, -ETIMEDOUT,
		    "no answer within 300 ms while loading; refusing");
	inspect_one("libbad-abi.so", "40-bad-abi.so", 30000, -EPROTO,
		    "plugin ABI 2.0, host speaks 1.4");

	/* a good plugin is described, and still not loaded here */
	copy_plugin("libhb-sample.so", "50-sample.so", 0755);
	assert_int_equal(hb_plugins_scan(dir, getuid(), &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 5);
	assert_string_equal(set.v[4].name, "sample");
	assert_int_equal(hb_plugin_inspect(&set.v[4], 30000, &desc, &err), 0);
	assert_string_equal(desc.name, "sample");
	assert_int_equal(desc.abi_major, HB_DEVICE_ABI_MAJOR);
	assert_int_equal(desc.caps, HB_DEV_CAP_POLL | HB_DEV_CAP_DPA);
	assert_null(set.v[4].handle);
	hb_plugin_set_done(&set);
}

static void test_loader_refuses_a_wanted_plugin_that_crashes_while_loading(void **state)
{
	static const char *const want[] = { "crashy", "crashentry", "hang", "sample", NULL };
	struct hb_plugin_set set;
	struct hb_err err = { 0 };
	const char *w;

	copy_plugin("libbad-crashctor.so", "10-crashy.so", 0755);
	copy_plugin("libbad-crashentry.so", "20-crashentry.so", 0755);
	copy_plugin("libbad-hang.so", "30-hang.so", 0755);
	copy_plugin("libhb-sample.so", "40-sample.so", 0755);
	/* inspected in a child first: the crashes and the hang are refusals here */
	assert_int_equal(hb_plugins_load(dir, getuid(), want, 2000, &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.v[0].ops->name, "sample");
	assert_non_null(set.v[0].handle);
	assert_int_equal(nrefused, 3);
	assert_non_null(w = why_for("10-crashy.so"));
	assert_non_null(strstr(w, "crashed (SIGSEGV)"));
	assert_non_null(w = why_for("20-crashentry.so"));
	assert_non_null(strstr(w, "crashed (SIGSEGV)"));
	assert_non_null(w = why_for("30-hang.so"));
	assert_non_null(strstr(w, "no answer within 2000 ms"));
	hb_plugin_set_done(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_loader_keeps_good_plugins_and_names_each_refusal,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_loader_refuses_an_unsafe_directory, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_loader_sample_plugin_runs_through_its_ops,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_loader_a_plugin_that_fails_to_open_is_named,
						setup, teardown),
		cmocka_unit_test(test_loader_file_name_gives_the_source_name),
		cmocka_unit_test_setup_teardown(test_loader_loads_only_the_plugins_asked_for, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_loader_refuses_builtin_and_duplicate_names_before_loading, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_loader_refuses_a_plugin_whose_file_name_is_not_its_source_name, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_inspect_reports_a_crash_or_a_hang_as_a_refusal,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_loader_refuses_a_wanted_plugin_that_crashes_while_loading, setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
