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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

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
	expect_error("bad-enum.conf", "bad-enum.conf:2: migrate.backend=physical: want one of auto|phys|pagemap|dryrun");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_good_file_with_dropins),
		cmocka_unit_test(test_conf_errors_name_file_and_line),
		cmocka_unit_test(test_conf_refuses_writable_files),
		cmocka_unit_test(test_conf_numbers_are_decimal_or_hex_never_octal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
