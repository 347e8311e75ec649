// SPDX-License-Identifier: MIT
/*
 * Other movers of the same pages, as the daemon reports them: the log's
 * warnings at start and on reload, and `status`'s "conflicts". The daemon
 * runs on the emulated host with env.conflicts_root naming a copy of a
 * fixture tree of tests/data/sysfs/ (kernel/migrate/conflicts.c reads it).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "daemon.h"
#include "platform/emulated-host.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static char tmp[64], conf[128], root[128];
static int saved_fd = -1;
static FILE *log_f;

/* stderr (the daemon's log) into a file until log_end() */
static void log_begin(void)
{
	fflush(stderr);
	log_f = tmpfile();
	assert_non_null(log_f);
	saved_fd = dup(2);
	assert_true(dup2(fileno(log_f), 2) == 2);
}

static void log_end(char *buf, size_t size)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(saved_fd, 2) == 2);
	close(saved_fd);
	rewind(log_f);
	n = fread(buf, 1, size - 1, log_f);
	buf[n] = 0;
	fclose(log_f);
}

static size_t count(const char *s, const char *what)
{
	size_t k = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		k++;
	return k;
}

static void put(const char *rel, const char *v)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(v, f);
	fclose(f);
}

/*
 * A real run (dry_run = false: the tests hand the daemon a dry-run migrator,
 * as the emulated host needs one) or a dry run, logging from `info`.
 */
static void write_conf(const char *path, bool dry_run)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f,
		"[daemon]\ninterval_ms = 10\nlog_level = %s\ncontrol_socket =\n"
		"dry_run = %s\n[table]\nmax_entries = 4096\n[topology]\nemulated = true\n"
		"[source emu]\ntype = emul-chmu\nmemdev = mem0\n",
		dry_run ? "info" : "warning", dry_run ? "true" : "false");
	fclose(f);
}

static int setup(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/hb-test-conflict-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(cmd, sizeof(cmd), "cp -R '%s/sysfs/tiering-busy' '%s'", getenv("HB_TEST_DATA"),
		 root);
	assert_int_equal(system(cmd), 0);
	snprintf(conf, sizeof(conf), "%s/hb.conf", tmp);
	write_conf(conf, false);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static struct hb_daemon *daemon_from(const char *path, struct hb_emulated_host *host,
				     struct hb_config *cfg, const char *conflicts_root)
{
	struct hb_daemon_env env = { .quiet = true,
				     .keep_capabilities = true,
				     .conflicts_root = conflicts_root };
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };

	assert_int_equal(hb_config_read(cfg, path, true, NULL, 0, &err), 0);
	assert_int_equal(hb_emulated_platform_new(host, &env.platform, &err), 0);
	if (!cfg->dry_run)
		assert_int_equal(hb_migrator_new(HB_MIGRATOR_DRYRUN, &(struct hb_migrator_config){ 0 },
						 &env.migrator, &err),
				 0);
	assert_int_equal(hb_daemon_new(cfg, &env, &d, &err), 0);
	host->d = d;
	return d;
}

static struct hb_daemon *daemon_on(struct hb_emulated_host *host, struct hb_config *cfg,
				   const char *conflicts_root)
{
	return daemon_from(conf, host, cfg, conflicts_root);
}

static const char *status_conflicts(struct hb_daemon *d, char *buf, size_t size)
{
	json_object *o = hb_daemon_status_json(d), *c;

	assert_true(json_object_object_get_ex(o, "conflicts", &c));
	snprintf(buf, size, "%s", json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return buf;
}

static void test_conflicts_warned_at_start_and_shown_by_status(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d;
	char log[8192], st[2048];

	(void)state;
	log_begin();
	d = daemon_on(&host, &cfg, root);
	log_end(log, sizeof(log));
	assert_int_equal(count(log, "start: "), 3);
	assert_non_null(strstr(log, "start: numa_balancing_tiering moves the same pages as "
				    "hotbridge: /proc/sys/kernel/numa_balancing is 2"));
	assert_non_null(strstr(log, "start: kernel_demotion moves the same pages"));
	assert_non_null(strstr(log, "start: damon_user moves the same pages"));
	status_conflicts(d, st, sizeof(st));
	assert_non_null(strstr(st, "{\"conflict\":\"numa_balancing_tiering\",\"detail\":"));
	assert_non_null(strstr(st, "{\"conflict\":\"kernel_demotion\",\"detail\":"
				   "\"\\/sys\\/kernel\\/mm\\/numa\\/demotion_enabled is true"));
	assert_non_null(strstr(st, "\"conflict\":\"damon_user\""));
	hb_daemon_free(d);
	hb_config_done(&cfg);
}

/* a dry run moves nothing: no warning, an info line that says "would"; status still lists them */
static void test_dry_run_does_not_warn_of_conflicts(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d;
	char log[8192], st[2048], dry[160];

	(void)state;
	snprintf(dry, sizeof(dry), "%s/dry.conf", tmp);
	write_conf(dry, true);
	log_begin();
	d = daemon_from(dry, &host, &cfg, root);
	log_end(log, sizeof(log));
	assert_int_equal(count(log, "moves the same pages"), 0);
	assert_int_equal(count(log,
			       "would move the same pages as hotbridge (none moved in a dry run)"),
			 3);
	assert_non_null(strstr(log, "start: damon_user would move the same pages"));
	status_conflicts(d, st, sizeof(st));
	assert_non_null(strstr(st, "\"conflict\":\"damon_user\""));
	assert_non_null(strstr(st, "\"conflict\":\"kernel_demotion\""));
	hb_daemon_free(d);
	hb_config_done(&cfg);
}

static void test_emulated_host_without_a_root_checks_nothing(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = daemon_on(&host, &cfg, NULL);
	char st[256];

	(void)state;
	assert_string_equal(status_conflicts(d, st, sizeof(st)), "[]");
	hb_daemon_free(d);
	hb_config_done(&cfg);
}

/* the host changes between start and reload: the reload sees it */
static void reload_after_first_cycle(void *ud, struct hb_daemon *d)
{
	struct hb_err err = { 0 };

	(void)ud;
	if (hb_daemon_stats(d)->cycles != 1)
		return;
	put("/sys/kernel/mm/numa/demotion_enabled", "false\n");
	put("/proc/sys/kernel/numa_balancing", "0\n"); /* 1 would be a conflict too */
	assert_int_equal(hb_daemon_reload(d, &err), 0);
}

static void test_reload_checks_again(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_daemon_env env = { .quiet = true,
				     .keep_capabilities = true,
				     .conflicts_root = root,
				     .after_cycle = reload_after_first_cycle,
				     .stop_cycles = 2 };
	struct hb_config cfg;
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };
	char log[8192], st[2048];

	(void)state;
	assert_int_equal(hb_config_read(&cfg, conf, true, NULL, 0, &err), 0);
	assert_int_equal(hb_emulated_platform_new(&host, &env.platform, &err), 0);
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_DRYRUN, &(struct hb_migrator_config){ 0 },
					 &env.migrator, &err),
			 0);
	log_begin();
	assert_int_equal(hb_daemon_new(&cfg, &env, &d, &err), 0);
	host.d = d;
	assert_int_equal(hb_daemon_run(d, conf), 0);
	log_end(log, sizeof(log));
	assert_int_equal(count(log, "start: "), 3);
	assert_int_equal(count(log, "reload: "), 1);
	assert_non_null(strstr(log, "reload: damon_user moves the same pages"));
	status_conflicts(d, st, sizeof(st));
	assert_null(strstr(st, "kernel_demotion"));
	assert_null(strstr(st, "numa_balancing_tiering"));
	assert_non_null(strstr(st, "damon_user"));
	hb_daemon_free(d);
	hb_config_done(&cfg);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_conflicts_warned_at_start_and_shown_by_status),
		T(test_dry_run_does_not_warn_of_conflicts),
		T(test_emulated_host_without_a_root_checks_nothing),
		T(test_reload_checks_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
