// SPDX-License-Identifier: MIT
/*
 * Plugins load only from a safe directory; each bad plugin is refused with
 * a message naming the file and the reason, and the good ones around it
 * are kept. The plugins are built by tests/meson.build (HB_TEST_PLUGINS):
 * the contrib sample (good) and bad.c in five variants.
 */
#define _GNU_SOURCE
#include <setjmp.h>
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
	struct hb_err err = {0};
	const char *w;

	copy_plugin("libhb-sample.so", "10-sample.so", 0755);
	copy_plugin("libbad-abi.so", "20-bad-abi.so", 0755);
	copy_plugin("libbad-null.so", "30-bad-null.so", 0755);
	copy_plugin("libbad-size.so", "40-bad-size.so", 0755);
	copy_plugin("libbad-nopoll.so", "50-bad-nopoll.so", 0755);
	copy_plugin("libbad-noentry.so", "60-bad-noentry.so", 0755);
	copy_plugin("libhb-sample.so", "70-world-writable.so", 0757);
	copy_plugin("libhb-sample.so", "README", 0644);       /* not *.so: ignored */
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/80-garbage.so", dir);
		FILE *f = fopen(p, "w");
		fputs("not an ELF file\n", f);
		fclose(f);
	}

	assert_int_equal(hb_plugins_load(dir, getuid(), &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.v[0].ops->name, "sample");
	assert_non_null(strstr(set.v[0].path, "10-sample.so"));
	assert_int_equal(nrefused, 7);

	assert_non_null(w = why_for("20-bad-abi.so"));
	assert_non_null(strstr(w, "plugin ABI 2.0, host speaks 1.0"));
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
	struct hb_err err = {0};
	char link[300];

	copy_plugin("libhb-sample.so", "10-sample.so", 0755);
	assert_int_equal(chmod(dir, 0775), 0);
	assert_int_equal(hb_plugins_load(dir, getuid(), &set, on_refused, NULL, &err), -EPERM);
	assert_non_null(strstr(err.msg, "group- or world-writable (mode 0775)"));
	assert_int_equal(set.n, 0);

	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(hb_plugins_load(dir, getuid() + 1, &set, on_refused, NULL, &err), -EPERM);
	assert_non_null(strstr(err.msg, "not"));
	assert_non_null(strstr(err.msg, "refusing"));

	snprintf(link, sizeof(link), "%s.link", dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(hb_plugins_load(link, getuid(), &set, on_refused, NULL, &err), -EPERM);
	assert_non_null(strstr(err.msg, "symlink"));
	unlink(link);

	assert_int_equal(hb_plugins_load("/nonexistent/plugins", getuid(), &set, NULL, NULL, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/plugins"));
}

static void test_loader_a_plugin_that_fails_to_open_is_named(void **state)
{
	struct hb_host_ops host = { .abi_major = 1, .size = sizeof(host) };
	struct hb_dev_info info = { .size = sizeof(info), .name = "acme0" };
	struct hb_plugin_set set;
	struct hb_err err = {0};
	void *priv = (void *)1;

	copy_plugin("libbad-openfail.so", "10-acme.so", 0755);
	copy_plugin("libhb-sample.so", "20-sample.so", 0755);
	assert_int_equal(hb_plugins_load(dir, getuid(), &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 2);
	assert_int_equal(hb_source_open(set.v[0].ops, set.v[0].path, &host, NULL, &info, &priv,
					&err), -ENXIO);
	assert_null(priv);
	assert_non_null(strstr(err.msg, "10-acme.so (bad): open of 'acme0' failed: No such device or address"));
	/* the other plugin is unaffected: the sample refuses only for want of a memdev */
	info.memdev = "mem0";
	assert_int_equal(hb_source_open(set.v[1].ops, set.v[1].path, &host, NULL, &info, &priv,
					&err), 0);
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
	static const char *const params[] = { "base=0x40000000", "size=0x400000",
					      "window=0x100000", NULL };
	struct hb_host_ops host = {
		.abi_major = 1, .size = sizeof(host), .log = host_log, .submit = host_submit,
	};
	struct hb_dev_info info = { .size = sizeof(info), .name = "s", .memdev = "mem3",
				    .params = params };
	struct hb_plugin_set set;
	struct hb_err err = {0};
	void *priv = NULL;

	copy_plugin("libhb-sample.so", "10-sample.so", 0755);
	assert_int_equal(hb_plugins_load(dir, getuid(), &set, on_refused, NULL, &err), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.v[0].ops->open(&host, NULL, &info, &priv), 0);
	submitted = 0;
	for (int i = 0; i < 4; i++)
		assert_int_equal(set.v[0].ops->poll(priv), 0);
	assert_int_equal(submitted, 4);
	set.v[0].ops->close(priv);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
