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
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf/conf-check.h"
#include "conf/conf.h"
#include "devices.h"

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
	struct hb_err err = { 0 };

	hb_config_defaults(&c);
	assert_int_equal(hb_config_load(&c, data("good.conf"), true, &err), 0);
	assert_int_equal(c.interval_ms, 500);
	assert_true(c.dry_run);
	assert_string_equal(c.log_level, "debug");
	assert_int_equal(c.max_entries, 200000);
	assert_true(c.decay == 0.5);
	assert_true(c.threshold == 30); /* 20-more.conf wins over 10-override.conf */
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
	struct hb_err err = { 0 };

	hb_config_defaults(&c);
	c.interval_ms = 1234; /* "the running configuration" */
	assert_int_equal(hb_config_load(&c, data(file), false, &err), -EINVAL);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' lacks '%s'", err.msg, needle);
	assert_int_equal(c.interval_ms, 1234); /* untouched, although line 2 was fine */
	assert_int_equal(c.nsources, 0);
}

static void test_conf_errors_name_file_and_line(void **state)
{
	expect_error("bad-range.conf",
		     "bad-range.conf:4: table.decay=1.5: want a decimal number in 0.001..1");
	expect_error("bad-key.conf",
		     "bad-key.conf:5: unknown key 'threshold' in unknown section [polcy]");
	expect_error("bad-notype.conf", "bad-notype.conf:5: [source orphan] has no type=");
	expect_error("bad-enum.conf",
		     "bad-enum.conf:2: migrate.backend=physical: want one of auto|phys|damon|pagemap|dryrun");
}

static char *scratch(void);

static void test_conf_refuses_writable_files(void **state)
{
	char path[4096];
	struct hb_config c;
	struct hb_err err = { 0 };
	char *dir = scratch();
	int fd;

	snprintf(path, sizeof(path), "%s/hb.conf", dir);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);

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
	rmdir(dir);
	assert_int_equal(hb_config_load(&c, "/nonexistent.conf", false, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent.conf"));
}

/* config keys share the CLI's number syntax: decimal or 0x hex, never octal */
static void test_conf_numbers_are_decimal_or_hex_never_octal(void **state)
{
	struct hb_config c;
	struct hb_err err = { 0 };

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
	struct hb_err err = { 0 };

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
		skip(); /* chown to another user needs root */
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
	expect_load(path, 0, NULL); /* root-owned drop-in: fine */
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

/* a root-owned sticky world-writable directory (like /tmp) is refused as 0777 is */
static void test_conf_refuses_a_sticky_world_writable_directory(void **state)
{
	char *dir, path[4096];

	if (geteuid() != 0)
		skip(); /* the rule under test was about root-owned directories */
	dir = scratch();
	snprintf(path, sizeof(path), "%s", put(dir, "hb.conf", "[daemon]\ndry_run = true\n"));
	expect_load(path, 0, NULL);
	assert_int_equal(chmod(dir, 01777), 0);
	expect_load(path, -EPERM, ": group- or world-writable (mode 1777); refusing");
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
	p = put(dir, "key.conf",
		"[source a]\ntype = replay\n"
		"a_parameter_name_that_is_far_too_long_for_inih_to_keep = 1\n");
	expect_load(p, -EINVAL, "key.conf:3: key name 'a_parameter_name");
	rm_rf(dir);
}

/*
 * newuser r4 D20: an empty [source NAME] was dropped silently and an
 * unknown empty section too; "Type = replay" was reported as "has no
 * type=". Names are case-sensitive, and a miscased one is named.
 */
static void test_conf_empty_and_miscased_sections_are_named(void **state)
{
	char *dir = scratch();
	struct hb_config c;
	struct hb_err err = { 0 };
	const char *p;

	p = put(dir, "empty.conf", "[daemon]\ndry_run = true\n[source y]\n\n# nothing\n[policy]\n");
	expect_load(p, -EINVAL, "empty.conf:3: [source y] is empty: a source needs type=");
	p = put(dir, "last.conf", "[daemon]\ndry_run = true\n[source y]\n");
	expect_load(p, -EINVAL, "last.conf:3: [source y] is empty");
	p = put(dir, "unknown.conf", "[demon]\n[daemon]\ndry_run = true\n");
	expect_load(p, -EINVAL, "unknown.conf:1: unknown section [demon]");
	p = put(dir, "bare.conf", "[source]\n[daemon]\ndry_run = true\n");
	expect_load(p, -EINVAL, "bare.conf:1: unknown section [source]: a source is [source NAME]");
	p = put(dir, "type.conf", "[source y]\nType = replay\npath = /dev/null\n");
	expect_load(p, -EINVAL,
		    "type.conf:2: [source y]: unknown key 'Type' (names are case-sensitive: "
		    "did you mean 'type'?)");
	p = put(dir, "key.conf", "[daemon]\nDry_run = true\n");
	expect_load(p, -EINVAL,
		    "key.conf:2: unknown key 'Dry_run' in [daemon] (names are case-sensitive: "
		    "did you mean daemon.dry_run?)");
	/* an empty known section is fine */
	p = put(dir, "fine.conf", "[policy]\n[daemon]\ndry_run = true\n[table]\n");
	expect_load(p, 0, NULL);
	hb_config_defaults(&c);
	assert_int_equal(hb_config_set(&c, "Daemon.dry_run=true", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "did you mean daemon.dry_run?"));
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

	expect_load(put(dir, "syn.conf",
			"[daemon]\ndry_run = true\nthis is not ini\n"
			"[policy]\nthreshold = banana\n"),
		    -EINVAL, "syn.conf:3: syntax error");
	expect_load(put(dir, "order.conf", "[daemon]\ninterval_ms = 1\nnot ini\n"), -EINVAL,
		    "order.conf:2: daemon.interval_ms=1");
	/* a long comment is a comment (D26): the error is the syntax one, at its line */
	snprintf(text, sizeof(text), "[daemon]\n# %0300d\ndry_run = true\nnot ini\n", 0);
	expect_load(put(dir, "overlong.conf", text), -EINVAL, "overlong.conf:4: syntax error");
	rm_rf(dir);
}

/*
 * newuser r4 D26: lines were limited to 198 characters (inih's buffer), so
 * check-config's output for a 234-character path did not load back. Long
 * key = value lines load as inih would read them (blanks and an inline
 * comment stripped), and the output round-trips.
 */
static void test_conf_long_lines_load_and_round_trip(void **state)
{
	char *dir = scratch(), path[300], text[1024], out[4096];
	struct hb_config c, back;
	struct hb_err err = { 0 };
	const char *p;
	FILE *f;

	/* a 234-character path under dir */
	snprintf(path, sizeof(path), "%s/%0*d", dir, 234 - (int)strlen(dir) - 1, 0);
	assert_int_equal(strlen(path), 234);
	snprintf(text, sizeof(text),
		 "[daemon]\nmetrics_textfile =   %s   ; where Prometheus looks\n"
		 "[source feed]\ntype = replay\npath = %s\n",
		 path, path);
	p = put(dir, "long.conf", text);
	assert_int_equal(hb_config_read(&c, p, false, NULL, 0, &err), 0);
	assert_string_equal(c.metrics_textfile, path);
	assert_int_equal(c.nsources, 1);
	snprintf(text, sizeof(text), "path=%s", path);
	assert_string_equal(c.sources[0].params[0], text);
	/* check-config's output loads back to the same values */
	f = fopen(strcpy(out, put(dir, "out.conf", "")), "w");
	assert_non_null(f);
	hb_config_write(&c, f);
	fclose(f);
	assert_int_equal(hb_config_read(&back, out, false, NULL, 0, &err), 0);
	assert_string_equal(back.metrics_textfile, path);
	assert_string_equal(back.sources[0].params[0], c.sources[0].params[0]);
	hb_config_done(&back);
	hb_config_done(&c);
	/* a long line that is neither a key nor a comment (a continuation) is an error */
	snprintf(text, sizeof(text), "[daemon]\ndry_run = true\n\t%0300d\n", 0);
	expect_load(put(dir, "hdr.conf", text), -EINVAL,
		    "hdr.conf:3: line longer than 198 characters that is not key = value");
	rm_rf(dir);
}

/*
 * check-config's output: each key's help comes whole, ending with its
 * default (trial39b: tenant.budget_mb's was cut at 511 characters)
 */
static void test_conf_write_cuts_no_help(void **state)
{
	char *text = NULL, *line, *save = NULL, block[8192] = "";
	size_t len = 0, keys = 0;
	bool budget = false;
	struct hb_config c;
	FILE *m;

	hb_config_defaults(&c);
	m = open_memstream(&text, &len);
	assert_non_null(m);
	hb_config_write(&c, m);
	assert_int_equal(fclose(m), 0);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# ", 2)) {
			if (strlen(block) + strlen(line) + 1 < sizeof(block))
				strcat(strcat(block, " "), line + 2);
			continue;
		}
		if (line[0] != '[' && strchr(line, '=')) {
			if (!strstr(block, " (default ") || block[strlen(block) - 1] != ')')
				fail_msg("%s: its help is cut: ...%s", line,
					 block + (strlen(block) > 60 ? strlen(block) - 60 : 0));
			keys++;
			budget |= !strncmp(line, "budget_mb = ", 12);
		}
		block[0] = '\0';
	}
	if (keys < 40) /* 45 in December 2026 */
		fail_msg("%zu keys only", keys);
	assert_true(budget);
	free(text);
	hb_config_done(&c);
	(void)state;
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
	struct hb_numa_node nodes[HB_MAX_NODES] = {
		[0] = { .present = true, .has_cpus = true }, [2] = { .present = true }
	};
	struct hb_config_facts f = { .nodes = nodes, .cxl_nodes = 1u << 2, .page_size = 4096 };
	static char *params[] = { "socket=/run/x", "colour=red", NULL };
	struct hb_config c;
	struct hb_err err = { 0 };
	uint64_t mask;

	hb_config_defaults(&c);
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no [source NAME] section"));
	c.nsources = 1;
	strcpy(c.sources[0].name, "feed");
	strcpy(c.sources[0].type, "replay");
	strcpy(c.sources[0].where, "x.conf:3");
	c.sources[0].params[0] = params[0];
	c.sources[0].nparams = 1;
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	c.sources[0].params[1] = params[1];
	c.sources[0].nparams = 2;
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg,
			       "x.conf:3: [source feed]: type replay takes no parameter 'colour'"));
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
	c.rate_mbps = 0.001; /* the bucket is one second of rate: 1000 bytes */
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "policy.rate_mbps=0.001"));
	/* defect 26: burst_mb = 0 means one second of rate_mbps, and the error says so */
	assert_non_null(strstr(err.msg, "burst_mb = 0: one second of rate_mbps"));
	c.rate_mbps = 0; /* no limit, no bucket */
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
	for (const char *const *bad =
		     (const char *const[]){ "banana", "2,", "2,,3", "-1", "64", " 2", NULL };
	     *bad; bad++) {
		strcpy(c.source_nodes, *bad);
		assert_int_equal(hb_config_source_nodes(&c, &mask, &err), -EINVAL);
		assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	}
	strcpy(c.source_nodes, "2,3");
	assert_int_equal(hb_config_source_nodes(&c, &mask, &err), 0);
	assert_int_equal(mask, 0xc);
}

/*
 * newuser r4 D18: a semantic error about one key (a node this host lacks)
 * names where the value was set: FILE:LINE for a file's, --set for an
 * override; a default names neither.
 */
static void test_conf_check_errors_name_where_the_key_was_set(void **state)
{
	struct hb_numa_node nodes[HB_MAX_NODES] = {
		[0] = { .present = true, .has_cpus = true }, [2] = { .present = true }
	};
	struct hb_config_facts f = { .nodes = nodes, .cxl_nodes = 1u << 2, .page_size = 4096 };
	char *dir = scratch();
	const char *p = put(dir, "semantic.conf",
			    "[daemon]\ndry_run = true\n[policy]\ntarget_node = 5\n"
			    "[demote]\nenabled = true\ncxl_node = 0\n"
			    "[source feed]\ntype = emul-chmu\nmemdev = mem0\n");
	const char *const set_nodes[] = { "policy.target_node=0", "policy.source_nodes=7" };
	const char *const set_demote[] = { "policy.target_node=0" };
	struct hb_config c;
	struct hb_err err = { 0 };
	char want[512];

	assert_int_equal(hb_config_read(&c, p, false, NULL, 0, &err), 0);
	if (hb_config_check(&c, &f, &err) != -ENOENT)
		fail_msg("%s", err.msg);
	snprintf(want, sizeof(want), "%s:4: policy.target_node=5: no such NUMA node", p);
	if (strncmp(err.msg, want, strlen(want)))
		fail_msg("'%s' does not start with '%s'", err.msg, want);
	hb_config_done(&c);

	assert_int_equal(hb_config_read(&c, p, false, set_demote, 1, &err), 0);
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:7: demote.cxl_node=0: not a CXL node", p);
	if (strncmp(err.msg, want, strlen(want)))
		fail_msg("'%s' does not start with '%s'", err.msg, want);
	hb_config_done(&c);

	assert_int_equal(hb_config_read(&c, p, false, set_nodes, 2, &err), 0);
	assert_true(hb_config_check(&c, &f, &err) < 0);
	if (strncmp(err.msg, "--set: policy.source_nodes=7: ", 30))
		fail_msg("'%s' does not start with '--set: policy.source_nodes=7: '", err.msg);
	hb_config_done(&c);

	/* a default's error names no place */
	hb_config_defaults(&c);
	c.max_entries = 1 << 30;
	assert_int_equal(hb_config_check_table(&c, 1 << 20, &err), -ENOMEM);
	assert_int_equal(strncmp(err.msg, "table.max_entries=", 18), 0);
	rm_rf(dir);
}

/* defect 8: a key or a [source] twice in one file is an error naming both lines */
static void test_conf_duplicates_in_one_file_name_both_lines(void **state)
{
	char *dir = scratch(), main_file[4096], d[4096], where[4096];
	struct hb_config c;
	struct hb_err err = { 0 };

	snprintf(where, sizeof(where), "src.conf:4: [source a] again (first at %s/src.conf:1)", dir);
	expect_load(put(dir, "src.conf",
			"[source a]\ntype = replay\npath = /x\n"
			"[source a]\ntype = replay\npath = /y\n"),
		    -EINVAL, where);
	snprintf(where, sizeof(where),
		 "keys.conf:3: policy.threshold given again (first at "
		 "%s/keys.conf:2)",
		 dir);
	expect_load(put(dir, "keys.conf", "[policy]\nthreshold = 12\nthreshold = 13\n"), -EINVAL,
		    where);
	/* the same section header twice with the key in each */
	expect_load(put(dir, "split.conf",
			"[policy]\nthreshold = 12\n[daemon]\ndry_run = 1\n"
			"[policy]\nthreshold = 13\n"),
		    -EINVAL, "split.conf:6: policy.threshold given again");
	expect_load(put(dir, "param.conf", "[source a]\ntype = replay\npath = /x\npath = /y\n"),
		    -EINVAL, "param.conf:4: [source a] path given again");
	/* drop-ins override the main file key by key, a source's parameters too */
	snprintf(main_file, sizeof(main_file), "%s",
		 put(dir, "hb.conf",
		     "[policy]\nthreshold = 12\n[source a]\ntype = replay\n"
		     "path = /x\n"));
	snprintf(d, sizeof(d), "%s/hb.conf.d", dir);
	assert_int_equal(mkdir(d, 0755), 0);
	put(dir, "hb.conf.d/50-over.conf",
	    "[policy]\nthreshold = 13\n[source a]\npath = /y\n"
	    "extra = 1\n");
	hb_config_defaults(&c);
	assert_int_equal(hb_config_load(&c, main_file, true, &err), 0);
	assert_true(c.threshold == 13);
	assert_int_equal(c.nsources, 1);
	assert_int_equal(c.sources[0].nparams, 2);
	assert_string_equal(c.sources[0].params[0], "path=/y");
	assert_string_equal(c.sources[0].params[1], "extra=1");
	assert_non_null(strstr(c.sources[0].param_where[0], "50-over.conf:4"));
	assert_non_null(strstr(c.sources[0].fixed_where[0], "hb.conf:4"));
	hb_config_done(&c);
	rm_rf(dir);
}

/* defect 28: float keys refuse a leading zero like integer keys; 0.5 and 1e3 are fine */
static void test_conf_float_keys_refuse_a_leading_zero(void **state)
{
	struct hb_config c;
	struct hb_err err = { 0 };

	hb_config_defaults(&c);
	for (const char *const *bad = (const char *const[]){ "010", "00.5", "0x10", "inf", "nan",
							     "1.", ".5", "1e", "+3", " 3", NULL };
	     *bad; bad++) {
		char set[64];

		snprintf(set, sizeof(set), "policy.threshold=%s", *bad);
		if (hb_config_set(&c, set, &err) != -EINVAL)
			fail_msg("%s accepted", set);
		assert_non_null(strstr(err.msg, "no leading zero"));
	}
	assert_true(c.threshold == 8);
	assert_int_equal(hb_config_set(&c, "policy.threshold=0.5", &err), 0);
	assert_true(c.threshold == 0.5);
	assert_int_equal(hb_config_set(&c, "policy.threshold=0", &err), 0);
	assert_int_equal(hb_config_set(&c, "policy.threshold=1e3", &err), 0);
	assert_true(c.threshold == 1000);
	assert_int_equal(hb_config_set(&c, "policy.threshold=12.25", &err), 0);
	assert_true(c.threshold == 12.25);
	/* newuser r5 E4: no sign on a key that takes no negatives, as for integers: no -0 */
	for (const char *const *bad = (const char *const[]){ "-0", "-0.0", "-0e5", "-1", NULL };
	     *bad; bad++) {
		char set[64];

		snprintf(set, sizeof(set), "policy.threshold=%s", *bad);
		if (hb_config_set(&c, set, &err) != -EINVAL)
			fail_msg("%s accepted", set);
		assert_non_null(strstr(err.msg, "no sign is taken"));
	}
	assert_true(c.threshold == 12.25);
	for (const char *const *bad =
		     (const char *const[]){ "table.decay=-0.5", "policy.rate_mbps=-0", NULL };
	     *bad; bad++)
		if (hb_config_set(&c, *bad, &err) != -EINVAL)
			fail_msg("%s accepted", *bad);
}

/*
 * newuser r4 D27: a boolean is one documented set in any case (yes and 1
 * were taken while TRUE was refused); the message lists the set.
 */
static void test_conf_booleans_are_one_set_in_any_case(void **state)
{
	static const struct {
		const char *v;
		int want; /* 1 true, 0 false, -1 refused */
	} cases[] = {
		{ "true", 1 }, { "TRUE", 1 },  { "True", 1 },  { "yes", 1 }, { "YES", 1 },
		{ "1", 1 },    { "false", 0 }, { "FALSE", 0 }, { "No", 0 },  { "0", 0 },
		{ "", -1 },    { "on", -1 },   { "tru", -1 },  { "01", -1 }, { "true ", -1 },
		{ "y", -1 },   { "2", -1 },
	};
	struct hb_config c;
	struct hb_err err = { 0 };

	hb_config_defaults(&c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char set[64];
		int r;

		c.dry_run = cases[i].want != 1;
		snprintf(set, sizeof(set), "daemon.dry_run=%s", cases[i].v);
		r = hb_config_set(&c, set, &err);
		if (cases[i].want < 0 ? r != -EINVAL : r != 0 || c.dry_run != (cases[i].want == 1))
			fail_msg("%s: %d, dry_run %d", set, r, c.dry_run);
		if (r < 0 && !strstr(err.msg, "want true or false (or yes/no, 1/0; any case)"))
			fail_msg("%s: '%s'", set, err.msg);
	}
}

/* --set source.NAME.KEY=VALUE changes a configured source; an unknown NAME is an error */
static void test_conf_set_changes_a_source_parameter(void **state)
{
	char *dir = scratch();
	struct hb_config c;
	struct hb_err err = { 0 };

	hb_config_defaults(&c);
	assert_int_equal(hb_config_load(&c,
					put(dir, "s.conf",
					    "[source feed]\ntype = replay\n"
					    "path = /x\n"),
					false, &err),
			 0);
	assert_int_equal(hb_config_set(&c, "source.feed.path=/y", &err), 0);
	assert_int_equal(c.sources[0].nparams, 1);
	assert_string_equal(c.sources[0].params[0], "path=/y");
	assert_string_equal(c.sources[0].param_where[0], "--set");
	assert_int_equal(hb_config_set(&c, "source feed.colour=red", &err), 0);
	assert_string_equal(c.sources[0].params[1], "colour=red");
	assert_int_equal(hb_config_set(&c, "source.feed.type=emul-chmu", &err), 0);
	assert_string_equal(c.sources[0].type, "emul-chmu");
	assert_int_equal(hb_config_set(&c, "source.nosuch.path=/z", &err), -ENOENT);
	assert_non_null(
		strstr(err.msg, "no [source nosuch] in the configuration (its sources: feed)"));
	assert_int_equal(hb_config_set(&c, "source.feed=1", &err), -EINVAL);
	assert_int_equal(hb_config_set(&c, "source.feed.=1", &err), -EINVAL);
	hb_config_done(&c);
	rm_rf(dir);
}

/* check-config's output names where each value was set, and reads back as the same */
static void test_conf_write_names_where_each_value_was_set(void **state)
{
	char *dir = scratch(), path[4096], want[4200], *text = NULL;
	size_t len = 0;
	struct hb_config c, back;
	struct hb_err err = { 0 };
	FILE *m;

	snprintf(path, sizeof(path), "%s",
		 put(dir, "w.conf",
		     "[policy]\nthreshold = 13\n"
		     "[source feed]\ntype = replay\npath = /x\n"));
	hb_config_defaults(&c);
	assert_int_equal(hb_config_load(&c, path, false, &err), 0);
	assert_int_equal(hb_config_set(&c, "table.decay=0.3", &err), 0);
	m = open_memstream(&text, &len);
	assert_non_null(m);
	hb_config_write(&c, m);
	assert_int_equal(fclose(m), 0);
	snprintf(want, sizeof(want), "\nthreshold = 13   ; %s:2\n", path);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "\npath = /x   ; %s:5\n", path);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "\ndecay = 0.3   ; --set\n"));
	assert_non_null(strstr(text, "\ninterval_ms = 1000   ; default\n"));
	/* valid configuration: the same values when read back */
	put(dir, "back.conf", text);
	snprintf(path, sizeof(path), "%s/back.conf", dir);
	hb_config_defaults(&back);
	if (hb_config_load(&back, path, false, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(back.threshold == 13 && back.decay == 0.3 && back.interval_ms == 1000);
	assert_string_equal(back.control_socket, c.control_socket);
	assert_string_equal(back.metrics_textfile, "");
	assert_string_equal(back.sources[0].params[0], "path=/x");
	free(text);
	hb_config_done(&c);
	hb_config_done(&back);
	rm_rf(dir);
}

static void note_warning(void *ud, const char *msg)
{
	snprintf(ud, 512, "%s", msg);
}

/* every warning, one a line */
static void gather_warnings(void *ud, const char *msg)
{
	size_t len = strlen(ud);

	snprintf((char *)ud + len, 2048 - len, "%s\n", msg);
}

static int check_warns(const struct hb_config *c, char *warned)
{
	struct hb_config_facts f = { .page_size = 4096, .warn = gather_warnings, .warn_ud = warned };
	struct hb_err err = { 0 };

	warned[0] = '\0';
	return hb_config_check(c, &f, &err);
}

/*
 * A tenant.budget_mb pattern an earlier one covers never counts a page:
 * check-config warns, naming both (trial39b #5); an order that works is
 * not warned of
 */
static void test_conf_check_warns_of_a_shadowed_budget(void **state)
{
	char warned[2048];
	struct hb_config c;

	(void)state;
	hb_config_defaults(&c);
	c.nsources = 1;
	strcpy(c.sources[0].name, "a");
	strcpy(c.sources[0].type, "cxl-events");
	strcpy(c.tenant_budget_mb, "/k8s/batch=256,/k8s=1024");
	assert_int_equal(check_warns(&c, warned), 0);
	assert_null(strstr(warned, "tenant.budget_mb"));
	strcpy(c.tenant_budget_mb, "/k8s=1024,/k8s/batch=256");
	assert_int_equal(check_warns(&c, warned), 0);
	assert_non_null(strstr(warned, "tenant.budget_mb /k8s/batch=256: every cgroup it matches "
				       "counts to the earlier /k8s=1024"));
	hb_config_done(&c);
}

/*
 * newuser r4 D7: rate_mbps bounds promotion; the defaults have no tighter
 * cap, and a top_k, a cycle's candidates or a burst_mb that caps it below
 * rate_mbps at interval_ms is warned about, with what lifts it
 */
static void test_conf_check_warns_of_a_cap_below_rate_mbps(void **state)
{
	char warned[2048];
	struct hb_config c;

	(void)state;
	hb_config_defaults(&c);
	c.nsources = 1;
	strcpy(c.sources[0].name, "a");
	strcpy(c.sources[0].type, "cxl-events");
	assert_int_equal(check_warns(&c, warned), 0);
	assert_null(strstr(warned, "caps promotion"));
	/* the bucket is one interval of rate_mbps, at least a second's */
	assert_true(hb_config_burst_mb(&c) == c.rate_mbps);
	c.interval_ms = 4000;
	assert_true(hb_config_burst_mb(&c) == 4 * c.rate_mbps);
	c.interval_ms = 1000;
	/* the old defaults: 4096 pages a second is 16.8 MB/s; 64 MB a second */
	c.top_k = 4096;
	c.burst_mb = 64;
	assert_int_equal(check_warns(&c, warned), 0);
	assert_non_null(strstr(warned, "policy.top_k = 4096 caps promotion at 16.78 MB/s"));
	assert_non_null(strstr(warned, "below policy.rate_mbps = 256: set top_k = 0 (no limit) "
				       "or at least 62500"));
	assert_non_null(strstr(warned, "policy.burst_mb = 64 caps promotion at 64 MB/s"));
	/* the report's burst case: 0.01 MB against 1 MB/s */
	c.top_k = 0;
	c.rate_mbps = 1;
	c.burst_mb = 0.01;
	assert_int_equal(check_warns(&c, warned), 0);
	assert_non_null(strstr(warned, "policy.burst_mb = 0.01 caps promotion at 0.01 MB/s"));
	/* a long interval: a cycle's 65536 candidates are less than its rate */
	c.burst_mb = 0;
	c.rate_mbps = 256;
	c.interval_ms = 2000;
	assert_int_equal(check_warns(&c, warned), 0);
	assert_non_null(strstr(warned, "a cycle takes at most 65536 hot pages"));
	/* no rate limit: nothing to fall short of */
	c.rate_mbps = 0;
	c.top_k = 1;
	assert_int_equal(check_warns(&c, warned), 0);
	assert_null(strstr(warned, "caps promotion"));
	assert_null(strstr(warned, "hot pages"));
	hb_config_done(&c);
}

/* newuser r4 D9: demotion on the emulated host needs an emul-chmu source's ground truth */
static void test_conf_check_warns_of_emulated_demotion_without_emul_chmu(void **state)
{
	char warned[2048];
	struct hb_config c;

	(void)state;
	hb_config_defaults(&c);
	c.emulated = c.dry_run = c.demote_enabled = true;
	c.nsources = 1;
	strcpy(c.sources[0].name, "a");
	strcpy(c.sources[0].type, "cxl-events");
	assert_int_equal(check_warns(&c, warned), 0);
	assert_non_null(strstr(warned, "demote.enabled = true on the emulated host with no "
				       "emul-chmu source"));
	c.demote_enabled = false;
	assert_int_equal(check_warns(&c, warned), 0);
	assert_null(strstr(warned, "emul-chmu"));
	c.demote_enabled = true;
	strcpy(c.sources[0].type, "emul-chmu");
	strcpy(c.sources[0].memdev, "mem0");
	(void)check_warns(&c, warned);
	assert_null(strstr(warned, "emul-chmu"));
	hb_config_done(&c);
}

/* migrate.override_mempolicy: off by default, a boolean, named where it changes nothing */
static void test_conf_override_mempolicy_is_a_checked_boolean(void **state)
{
	char warned[2048];
	struct hb_config c;
	struct hb_err err = { 0 };

	(void)state;
	hb_config_defaults(&c);
	assert_false(c.override_mempolicy);
	assert_int_equal(hb_config_set(&c, "migrate.override_mempolicy=yes", &err), 0);
	assert_true(c.override_mempolicy);
	assert_int_equal(hb_config_set(&c, "migrate.override_mempolicy=maybe", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "migrate.override_mempolicy=maybe: want true or false"));
	assert_true(c.override_mempolicy); /* a refused value keeps what was accepted */
	c.emulated = c.dry_run = true;
	c.nsources = 1;
	strcpy(c.sources[0].name, "a");
	strcpy(c.sources[0].type, "cxl-events");
	strcpy(c.backend, "damon");
	assert_int_equal(check_warns(&c, warned), 0);
	assert_non_null(strstr(warned, "migrate.override_mempolicy = true with backend = damon"));
	strcpy(c.backend, "phys");
	assert_int_equal(check_warns(&c, warned), 0);
	assert_non_null(strstr(warned, "migrate.override_mempolicy = true in a dry run"));
	c.override_mempolicy = false;
	strcpy(c.backend, "damon");
	(void)check_warns(&c, warned);
	assert_null(strstr(warned, "override_mempolicy"));
	hb_config_done(&c);
}

/* defects 7, 9, 14, 20, 33: the shared check refuses what run would refuse */
static void test_conf_check_runs_the_sources_own_checks(void **state)
{
	struct hb_numa_node nodes[HB_MAX_NODES] = {
		[0] = { .present = true, .has_cpus = true }, [2] = { .present = true }
	};
	struct hb_plugin_refusal refused = { .name = "crashy",
					     .why = "crashed (SIGSEGV) while loading" };
	char warned[512] = "", why[256];
	struct hb_config_facts f = { .nodes = nodes,
				     .cxl_nodes = 1u << 2,
				     .page_size = 4096,
				     .refused = &refused,
				     .nrefused = 1,
				     .warn = note_warning,
				     .warn_ud = warned };
	static char *p_path[] = { "path=/nonexistent", NULL },
		    *p_both[] = { "path=/", "socket=/s", NULL },
		    *p_evil[] = { "instance=../../evil", NULL }, *p_dir[] = { "path=/", NULL },
		    *p_ok[] = { "path=/dev/null", NULL };
	struct hb_config c;
	struct hb_err err = { 0 };

	hb_config_defaults(&c);
	c.nsources = 1;
	strcpy(c.sources[0].name, "a");
	strcpy(c.sources[0].type, "replay");
	strcpy(c.sources[0].where, "t.conf:1");
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "t.conf:1: [source a]: replay: give exactly one of path="));
	memcpy(c.sources[0].params, p_both, sizeof(p_both));
	c.sources[0].nparams = 2;
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	memcpy(c.sources[0].params, p_path, sizeof(p_path));
	c.sources[0].nparams = 1;
	assert_int_equal(hb_config_check(&c, &f, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "[source a]: replay: path=/nonexistent: No such file"));
	memcpy(c.sources[0].params, p_dir, sizeof(p_dir));
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "neither a file nor a FIFO"));
	memcpy(c.sources[0].params, p_ok, sizeof(p_ok));
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL); /* a device: no */
	strcpy(c.sources[0].type, "cxl-events");
	memcpy(c.sources[0].params, p_evil, sizeof(p_evil));
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg,
			       "[source a]: cxl-events: instance=../../evil is not a directory name"));
	/* a built-in this host cannot serve: a warning with the reason, no error */
	c.sources[0].nparams = 0;
	c.sources[0].params[0] = NULL;
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	if (hb_builtin_available("cxl-events", why, sizeof(why)) == 0) {
		assert_non_null(
			strstr(warned,
			       "[source a]: built-in cxl-events cannot serve 'a' on this host: "));
		assert_non_null(strstr(warned, why));
	}
	/* a plugin refused while loading is named, not "no source of type" */
	strcpy(c.sources[0].type, "crashy");
	assert_int_equal(hb_config_check(&c, &f, &err), -ENOENT);
	assert_non_null(
		strstr(err.msg,
		       "[source a]: plugin crashy was refused (crashed (SIGSEGV) while loading)"));
	strcpy(c.sources[0].type, "cxl-events");
	/* the textfile's directory */
	strcpy(c.metrics_textfile, "/nonexistent/dir/x.prom");
	assert_int_equal(hb_config_check(&c, &f, &err), -ENOENT);
	assert_non_null(strstr(
		err.msg,
		"daemon.metrics_textfile=/nonexistent/dir/x.prom: its directory /nonexistent/dir"));
	strcpy(c.metrics_textfile, "/tmp/");
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	/* newuser r4 D16: a directory without the slash, and damon_state's too */
	strcpy(c.metrics_textfile, "/tmp");
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "daemon.metrics_textfile=/tmp: names a directory"));
	strcpy(c.metrics_textfile, "");
	strcpy(c.damon_state, "/tmp");
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "migrate.damon_state=/tmp: names a directory"));
	/* newuser r5 E19, E20, E7: a device node, a world-writable directory */
	strcpy(c.damon_state, "/dev/null");
	assert_int_equal(hb_config_check(&c, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "migrate.damon_state=/dev/null: names a character device"));
	strcpy(c.damon_state, "/run/hotbridge/damon-state");
	strcpy(c.metrics_textfile, "/tmp/x.prom");
	assert_int_equal(hb_config_check(&c, &f, &err), -EPERM);
	assert_non_null(strstr(err.msg, "daemon.metrics_textfile=/tmp/x.prom: /tmp: group- or "
					"world-writable"));
	strcpy(c.metrics_textfile, "");
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	/* a table larger than memory: the entries asked for and the bytes they need */
	c.max_entries = 1u << 30;
	f.mem_bytes = 23ULL << 30;
	assert_int_equal(hb_config_check(&c, &f, &err), -ENOMEM);
	assert_non_null(
		strstr(err.msg, "table.max_entries=1073741824: the hotness table needs 48.0 GiB"));
	c.max_entries = 1000000;
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
	/* the emulated host takes the dryrun backend as it takes --dry-run */
	c.emulated = true;
	assert_int_equal(hb_config_check(&c, &f, &err), -EPERM);
	strcpy(c.backend, "dryrun");
	assert_int_equal(hb_config_check(&c, &f, &err), 0);
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
		cmocka_unit_test(test_conf_long_lines_load_and_round_trip),
		cmocka_unit_test(test_conf_too_many_dropins_is_an_error),
		cmocka_unit_test(test_conf_diff_names_each_changed_key),
		cmocka_unit_test(test_conf_check_refuses_what_run_cannot_use),
		cmocka_unit_test(test_conf_check_errors_name_where_the_key_was_set),
		cmocka_unit_test(test_conf_refuses_a_sticky_world_writable_directory),
		cmocka_unit_test(test_conf_duplicates_in_one_file_name_both_lines),
		cmocka_unit_test(test_conf_float_keys_refuse_a_leading_zero),
		cmocka_unit_test(test_conf_booleans_are_one_set_in_any_case),
		cmocka_unit_test(test_conf_empty_and_miscased_sections_are_named),
		cmocka_unit_test(test_conf_set_changes_a_source_parameter),
		cmocka_unit_test(test_conf_write_names_where_each_value_was_set),
		cmocka_unit_test(test_conf_check_runs_the_sources_own_checks),
		cmocka_unit_test(test_conf_check_warns_of_a_cap_below_rate_mbps),
		cmocka_unit_test(test_conf_check_warns_of_emulated_demotion_without_emul_chmu),
		cmocka_unit_test(test_conf_override_mempolicy_is_a_checked_boolean),
		cmocka_unit_test(test_conf_write_cuts_no_help),
		cmocka_unit_test(test_conf_check_warns_of_a_shadowed_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
