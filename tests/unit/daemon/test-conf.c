// SPDX-License-Identifier: MIT
/*
 * Configuration files: defaults, every section, drop-ins in order, source
 * sections, command-line overrides, and errors naming file:line (a failed
 * load leaves the previous configuration untouched).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf-check.h"
#include "conf.h"

static const char *data(const char *name)
{
	static char buf[4][4096];
	static int k;

	snprintf(buf[k & 3], sizeof(buf[0]), "%s/config/%s", getenv("HB_TEST_DATA"), name);
	return buf[k++ & 3];
}

static void test_conf_defaults(void **state)
{
	struct hb_config c;

	hb_config_defaults(&c);
	assert_int_equal(c.interval_ms, 1000);
	assert_false(c.dry_run);
	assert_int_equal(c.max_entries, 1000000);
	assert_true(c.decay == 0.8);
	assert_int_equal(c.target_node, -1);
	assert_string_equal(c.backend, "auto");
	assert_string_equal(c.control_socket, "/run/hotbridge/control");
	assert_int_equal(c.nsources, 0);
}

static void test_conf_good_file_with_dropins(void **state)
{
	struct hb_config c;
	struct hb_err err = {0};

	hb_config_defaults(&c);
	assert_int_equal(hb_config_load(&c, data("good.conf"), true, &err), 0);
	assert_int_equal(c.interval_ms, 500);
	assert_true(c.dry_run);
	assert_string_equal(c.log_level, "debug");
	assert_int_equal(c.max_entries, 200000);
	assert_true(c.decay == 0.5);
	assert_true(c.threshold == 30);      /* 20-more.conf wins over 10-override.conf */
	assert_int_equal(c.top_k, 0);
	assert_int_equal(c.target_node, 0);
	assert_string_equal(c.source_nodes, "2,3");
	assert_string_equal(c.backend, "pagemap");
	assert_int_equal(c.nsources, 2);
	assert_string_equal(c.sources[0].name, "emu");
	assert_string_equal(c.sources[0].type, "emul-chmu");
	assert_string_equal(c.sources[0].memdev, "mem0");
	assert_int_equal(c.sources[0].nparams, 3);
	assert_string_equal(c.sources[0].params[0], "workload=moving:1.1");
	assert_string_equal(c.sources[0].params[2], "seed=7");
	assert_null(c.sources[0].params[3]);
	assert_non_null(strstr(c.sources[0].where, "good.conf:23"));
	assert_string_equal(c.sources[1].params[0], "socket=/run/hotbridge/feed.sock");

	assert_int_equal(hb_config_set(&c, "policy.threshold=2", &err), 0);
	assert_true(c.threshold == 2);
	assert_int_equal(hb_config_set(&c, "policy.threshold", &err), -EINVAL);
	assert_int_equal(hb_config_set(&c, "policy.nope=1", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown key policy.nope"));
	hb_config_done(&c);
}

static void expect_error(const char *file, const char *needle)
{
	struct hb_config c;
	struct hb_err err = {0};

	hb_config_defaults(&c);
	c.interval_ms = 1234;    /* "the running configuration" */
	assert_int_equal(hb_config_load(&c, data(file), false, &err), -EINVAL);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' lacks '%s'", err.msg, needle);
	assert_int_equal(c.interval_ms, 1234);   /* untouched, although line 2 was fine */
	assert_int_equal(c.nsources, 0);
}

static void test_conf_errors_name_file_and_line(void **state)
{
	expect_error("bad-range.conf", "bad-range.conf:4: table.decay=1.5: want a number in 0.001..1");
	expect_error("bad-key.conf", "bad-key.conf:5: unknown key 'threshold' in unknown section [polcy]");
	expect_error("bad-notype.conf", "bad-notype.conf:5: [source orphan] has no type=");
	expect_error("bad-enum.conf", "bad-enum.conf:2: migrate.backend=physical: want one of auto|phys|damon|pagemap|dryrun");
}

static void test_conf_refuses_writable_files(void **state)
{
	char path[] = "/tmp/hb-test-conf-XXXXXX";
	struct hb_config c;
	struct hb_err err = {0};
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[daemon]\ndry_run = yes\n", 23), 23);
	close(fd);
	hb_config_defaults(&c);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(hb_config_load(&c, path, false, &err), -EPERM);
	assert_non_null(strstr(err.msg, "world-writable (mode 0666)"));
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(hb_config_load(&c, path, false, &err), 0);
	assert_true(c.dry_run);
	unlink(path);
	assert_int_equal(hb_config_load(&c, "/nonexistent.conf", false, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent.conf"));
}

/* config keys share the CLI's number syntax: decimal or 0x hex, never octal */
static void test_conf_numbers_are_decimal_or_hex_never_octal(void **state)
{
	struct hb_config c;
	struct hb_err err = {0};

	hb_config_defaults(&c);
	assert_int_equal(hb_config_set(&c, "daemon.interval_ms=0x64", &err), 0);
	assert_int_equal(c.interval_ms, 100);
	assert_int_equal(hb_config_set(&c, "daemon.interval_ms=100", &err), 0);
	assert_int_equal(c.interval_ms, 100);
	assert_int_equal(hb_config_set(&c, "daemon.interval_ms=0100", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "daemon.interval_ms=0100"));
	assert_non_null(strstr(err.msg, "decimal or 0x hex"));
	assert_int_equal(c.interval_ms, 100);
	assert_int_equal(hb_config_set(&c, "policy.target_node=010", &err), -EINVAL);
	assert_int_equal(c.target_node, -1);
	assert_int_equal(hb_config_set(&c, "policy.target_node=-1", &err), 0);
	assert_int_equal(hb_config_set(&c, "policy.target_node=0", &err), 0);
	assert_int_equal(c.target_node, 0);
	assert_int_equal(hb_config_set(&c, "policy.target_node=0xa", &err), 0);
	assert_int_equal(c.target_node, 10);
	hb_config_done(&c);
}

/* a scratch directory (mode 0755) with files written into it */
static char *scratch(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/hb-test-conf-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	return dir;
}

static const char *put(const char *dir, const char *name, const char *text)
{
	static char path[4][4096];
	static int k;
	char *p = path[k++ & 3];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(p, 0644), 0);
	return p;
}

static void rm_rf(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* loads path (with drop-ins) and expects r with needle in the message */
static void expect_load(const char *path, int r, const char *needle)
{
	struct hb_config c;
	struct hb_err err = {0};

	hb_config_defaults(&c);
	c.interval_ms = 1234;
	assert_int_equal(hb_config_load(&c, path, true, &err), r);
	if (needle && !strstr(err.msg, needle))
		fail_msg("'%s' lacks '%s'", err.msg, needle);
	if (r < 0)
		assert_int_equal(c.interval_ms, 1234);
	hb_config_done(&c);
}

/* defect 5: configuration files pass the plugins' owner and mode checks */
static void test_conf_trusts_files_like_plugins(void **state)
{
	char *dir, path[4096], dropin[4096];

	if (geteuid() != 0)
		skip();   /* chown to another user needs root */
	dir = scratch();
	snprintf(path, sizeof(path), "%s", put(dir, "hb.conf", "[daemon]\ndry_run = true\n"));
	expect_load(path, 0, NULL);
	/* a main file owned by nobody */
	assert_int_equal(chown(path, 65534, 65534), 0);
	expect_load(path, -EPERM, "hb.conf: owned by uid 65534, not 0; refusing");
	assert_int_equal(chown(path, 0, 0), 0);
	/* a drop-in written by nobody, into a world-writable conf.d */
	snprintf(dropin, sizeof(dropin), "%s/hb.conf.d", dir);
	assert_int_equal(mkdir(dropin, 0755), 0);
	snprintf(dropin, sizeof(dropin), "%s",
		 put(dir, "hb.conf.d/50-evil.conf", "[daemon]\nmetrics_textfile = /etc/shadow\n"));
	expect_load(path, 0, NULL);                   /* root-owned drop-in: fine */
	assert_int_equal(chown(dropin, 65534, 65534), 0);
	expect_load(path, -EPERM, "50-evil.conf: owned by uid 65534, not 0; refusing");
	snprintf(dropin, sizeof(dropin), "%s/hb.conf.d", dir);
	assert_int_equal(chmod(dropin, 01777), 0);
	expect_load(path, -EPERM, "hb.conf.d: group- or world-writable (mode 1777); refusing");
	assert_int_equal(chmod(dropin, 0755), 0);
	/* the main file's own directory */
	assert_int_equal(chmod(dir, 0777), 0);
	expect_load(path, -EPERM, ": group- or world-writable (mode 0777); refusing");
	assert_int_equal(chmod(dir, 0755), 0);
	rm_rf(dir);
}

/* no symlinks, no directories, no empty main file */
static void test_conf_refuses_symlinks_directories_and_empty_files(void **state)
{
	char *dir = scratch(), link[4096], sub[4096];

	snprintf(link, sizeof(link), "%s/link.conf", dir);
	assert_int_equal(symlink(put(dir, "real.conf", "[daemon]\ndry_run = 1\n"), link), 0);
	expect_load(link, -EPERM, "link.conf: is a symlink; refusing to follow it");
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	expect_load(sub, -EISDIR, "sub: is a directory, not a configuration file");
	expect_load(put(dir, "empty.conf", ""), -EINVAL, "empty.conf: empty (no section, no key)");
	expect_load(put(dir, "comments.conf", "# nothing\n\n; here\n"), -EINVAL, "empty");
	rm_rf(dir);
}

/* inih would cut names at 49 characters: two sources would merge into one */
static void test_conf_long_names_are_errors_not_merged(void **state)
{
	char *dir = scratch();
	const char *p = put(dir, "long.conf",
		"[daemon]\n"
		"dry_run = true\n"
		"[source aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-one]\n"
		"type = replay\n"
		"[source aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-two]\n"
		"type = replay\n");

	expect_load(p, -EINVAL, "long.conf:3: section name 'source aaaa");
	expect_load(p, -EINVAL, "longer than 49 characters (a source name: at most 42)");
	p = put(dir, "key.conf", "[source a]\ntype = replay\n"
		"a_parameter_name_that_is_far_too_long_for_inih_to_keep = 1\n");
	expect_load(p, -EINVAL, "key.conf:3: key name 'a_parameter_name");
	rm_rf(dir);
}

/* a comment is never a key name, however long the text before its ':' or '=' */
static void test_conf_long_comment_with_colon_is_a_comment(void **state)
{
	char *dir = scratch();
	const char *p = put(dir, "comment.conf",
		"# As root (the file must be owned by root and not group-writable):\n"
		"[daemon]\n"
		"; a sentence of more than forty-nine characters, then key = value\n"
		"dry_run = true\n"
		"\t# an indented comment that runs on past the limit as well: here\n");

	expect_load(p, 0, NULL);
	rm_rf(dir);
}

/* the first error is named, at its own line, even after an overlong line */
static void test_conf_syntax_error_names_its_line(void **state)
{
	char *dir = scratch(), text[1024];

	expect_load(put(dir, "syn.conf", "[daemon]\ndry_run = true\nthis is not ini\n"
			"[policy]\nthreshold = banana\n"),
		    -EINVAL, "syn.conf:3: syntax error");
	expect_load(put(dir, "order.conf", "[daemon]\ninterval_ms = 1\nnot ini\n"),
		    -EINVAL, "order.conf:2: daemon.interval_ms=1");
	snprintf(text, sizeof(text), "[daemon]\n# %0300d\ndry_run = true\nnot ini\n", 0);
	expect_load(put(dir, "overlong.conf", text), -EINVAL,
		    "overlong.conf:2: line longer than 198 characters");
	rm_rf(dir);
}

/* 256 drop-ins at most: one more is an error, not silently left out */
static void test_conf_too_many_dropins_is_an_error(void **state)
{
	char *dir = scratch(), name[64], d[4096], p[4096];

	snprintf(p, sizeof(p), "%s", put(dir, "hb.conf", "[daemon]\ndry_run = true\n"));

	snprintf(d, sizeof(d), "%s/hb.conf.d", dir);
	assert_int_equal(mkdir(d, 0755), 0);
	for (int i = 0; i < 256; i++) {
		snprintf(name, sizeof(name), "hb.conf.d/%03d.conf", i);
		put(dir, name, "[policy]\nthreshold = 3\n");
	}
	expect_load(p, 0, NULL);
	put(dir, "hb.conf.d/999-last.conf", "[policy]\nthreshold = 9\n");
	expect_load(p, -E2BIG, "hb.conf.d: more than 256 drop-ins (*.conf)");
	rm_rf(dir);
}

static void note_change(void *ud, const char *section, const char *key)
{
	char *list = ud;

	snprintf(list + strlen(list), 256 - strlen(list), "%s%s%s ", section, key ? "." : "",
		 key ? key : "");
}

/* what a reload compares: every changed key once, the sources as one */
static void test_conf_diff_names_each_changed_key(void **state)
{
	struct hb_config a, b;
	char list[256] = "";

	hb_config_defaults(&a);
	hb_config_defaults(&b);
	hb_config_diff(&a, &b, note_change, list);
	assert_string_equal(list, "");
	b.interval_ms = 5;
	b.decay = 0.5;
	strcpy(b.control_socket, "/elsewhere");
	b.nsources = 1;
	strcpy(b.sources[0].name, "x");
	hb_config_diff(&a, &b, note_change, list);
	assert_string_equal(list, "daemon.interval_ms daemon.control_socket table.decay source ");
}

/* the checks run and check-config share (conf-check.c) */
static void test_conf_check_refuses_what_run_cannot_use(void **state)
{
	struct hb_numa_node nodes[HB_MAX_NODES] = { [0] = { .present = true, .has_cpus = true },
						    [2] = { .present = true } };
	struct hb_config_facts f = { .nodes = nodes, .cxl_nodes = 1u << 2, .page_size = 4096 };
	static char *params[] = { "socket=/run/x", "colour=red", NULL };
	struct hb_config c;
	struct hb_err err = {0};
	uint64_t mask;

	hb_config_defaults(&c);
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no [source NAME] section"));
	c.nsources = 1;
	strcpy(c.sources[0].name, "feed");
	strcpy(c.sources[0].type, "replay");
	strcpy(c.sources[0].where, "x.conf:3");
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	c.sources[0].params[0] = params[0];
	c.sources[0].params[1] = params[1];
	c.sources[0].nparams = 2;
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "x.conf:3: [source feed]: type replay takes no parameter 'colour'"));
	c.sources[0].nparams = 1;
	c.sources[0].params[1] = NULL;
	strcpy(c.sources[0].type, "nosuch");
	assert_int_equal(hb_config_check(&c, &f, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no source of type 'nosuch'"));
	strcpy(c.sources[0].type, "replay");
	c.target_node = 5;
	assert_int_equal(hb_config_check(&c, &f, &err), -ENOENT);
	c.target_node = 2;
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "a CXL node"));
	c.target_node = 0;
	c.burst_mb = 0.004;
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	c.burst_mb = 0;
	c.rate_mbps = 0.001;   /* the bucket is one second of rate: 1000 bytes */
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "policy.rate_mbps=0.001"));
	c.rate_mbps = 0;       /* no limit, no bucket */
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	c.emulated = true;
	assert_int_equal(hb_config_check(&c, &f, &err), -EPERM);
	c.dry_run = true;
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	/* demotion goes to a CXL node only */
	c.demote_enabled = true;
	c.demote_cxl_node = 0;
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "demote.cxl_node=0: not a CXL node"));
	c.demote_cxl_node = 2;
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	c.demote_enabled = false;
	c.demote_cxl_node = -1;
	for (const char *const *bad = (const char *const[]){ "banana", "2,", "2,,3", "-1", "64",
							     " 2", NULL }; *bad; bad++) {
		strcpy(c.source_nodes, *bad);
		assert_int_equal(hb_config_source_nodes(&c, &mask, &err), -EINVAL);
		assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	}
	strcpy(c.source_nodes, "2,3");
	assert_int_equal(hb_config_source_nodes(&c, &mask, &err), 0);
	assert_int_equal(mask, 0xc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_good_file_with_dropins),
		cmocka_unit_test(test_conf_errors_name_file_and_line),
		cmocka_unit_test(test_conf_refuses_writable_files),
		cmocka_unit_test(test_conf_numbers_are_decimal_or_hex_never_octal),
		cmocka_unit_test(test_conf_trusts_files_like_plugins),
		cmocka_unit_test(test_conf_refuses_symlinks_directories_and_empty_files),
		cmocka_unit_test(test_conf_long_names_are_errors_not_merged),
		cmocka_unit_test(test_conf_long_comment_with_colon_is_a_comment),
		cmocka_unit_test(test_conf_syntax_error_names_its_line),
		cmocka_unit_test(test_conf_too_many_dropins_is_an_error),
		cmocka_unit_test(test_conf_diff_names_each_changed_key),
		cmocka_unit_test(test_conf_check_refuses_what_run_cannot_use),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
