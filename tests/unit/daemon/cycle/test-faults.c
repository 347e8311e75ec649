// SPDX-License-Identifier: MIT
/*
 * Fault injection at the migration seam: the daemon runs its real cycle
 * (emulated host, emulated CHMU, phys migrator over a probed fixture) while
 * the wrapped move_phys_pages answers each page (by bits 13+ of its address:
 * only mem0 reports, so its pages are the even ones) with EBUSY, ENOMEM, EACCES,
 * EFAULT, ENOENT or EXDEV (the owners' memory policy) by pattern, or fails the whole call. Every failure is
 * counted by class, ENOMEM rests the target node, and no page is ever sent
 * to a node other than the target. Also: the topology changes between the
 * records' intake and their decision; the target node is below its
 * watermark; a plugin's poll keeps failing; explain and history tell a page
 * the kernel refused (its errno) from one moved (hysteresis), and, once the
 * hold lapses, still say what was last done with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "daemon.h"
#include "emul-config.h"
#include "platform/emulated-host.h"

static int calls, wrong_node, pattern_on = 1;
static uint64_t next_hysteresis_ms; /* for the next daemon_with_watermark() */
static const char *next_log_level;  /* its log level, when not the tests' "err" */
static long whole_call;
static uint64_t pages_asked;

long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags);
long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags)
{
	static const int pattern[] = { 0, -EBUSY, -ENOMEM, -EACCES, -EFAULT, -ENOENT, -EXDEV, 0 };

	/* the phys backend's open asks, for no page, whether the flag 0x100 is known */
	if (!count && !nodes)
		return 0;
	calls++;
	if (whole_call)
		return whole_call;
	for (unsigned long i = 0; i < count; i++) {
		pages_asked++;
		if (nodes[i] != 0)
			wrong_node++;
		status[i] = pattern_on ?
				    (pattern[(pages[i] >> 13) % 8] ? pattern[(pages[i] >> 13) % 8] :
								     nodes[i]) :
				    nodes[i];
	}
	return 0;
}

static const char *probe_root(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/mpp-probe/ported", getenv("HB_TEST_DATA"));
	return buf;
}

static struct hb_daemon *daemon_with_watermark(struct hb_emulated_host *host, struct hb_config *cfg,
					       uint64_t watermark_mb)
{
	struct hb_migrator_config mc = { .root = probe_root() };
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };
	static const char *const params[] = { "capacity=536870912", "accesses=50000", NULL };
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };

	hb_test_emul_config(cfg, params);
	cfg->threshold = 4;
	cfg->rate_mbps = 0;
	cfg->hysteresis_ms = next_hysteresis_ms;
	cfg->watermark_mb = watermark_mb;
	if (next_log_level)
		snprintf(cfg->log_level, sizeof(cfg->log_level), "%s", next_log_level);
	assert_int_equal(hb_emulated_platform_new(host, &env.platform, &err), 0);
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &mc, &env.migrator, &err), 0);
	assert_int_equal(hb_daemon_new(cfg, &env, &d, &err), 0);
	host->d = d;
	return d;
}

static struct hb_daemon *daemon_with_faults(struct hb_emulated_host *host, struct hb_config *cfg)
{
	return daemon_with_watermark(host, cfg, 0);
}

static void test_faults_every_status_is_counted_by_class(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = daemon_with_faults(&host, &cfg);
	const struct hb_daemon_stats *s;
	uint64_t total = 0;

	calls = wrong_node = 0;
	pages_asked = 0;
	pattern_on = 1;
	assert_int_equal(hb_daemon_cycle(d), 0);
	s = hb_daemon_stats(d);
	assert_true(calls >= 1);
	assert_int_equal(wrong_node, 0);
	for (int c = 0; c < _HB_MIGRATE_CLASS_MAX; c++)
		total += s->migrated.by_class[c];
	assert_int_equal(total, pages_asked);
	assert_true(s->migrated.by_class[HB_MIGRATE_MOVED] > 0);
	assert_true(s->migrated.by_class[HB_MIGRATE_RETRY] > 0);
	assert_true(s->migrated.by_class[HB_MIGRATE_BACKOFF] > 0);
	assert_true(s->migrated.by_class[HB_MIGRATE_DROP] > 0);
	assert_true(s->migrated.by_errno[EACCES] > 0 && s->migrated.by_errno[EFAULT] > 0 &&
		    s->migrated.by_errno[ENOENT] > 0 && s->migrated.by_errno[EBUSY] > 0);
	/* the memory policy's refusals: a class of their own, not drops */
	assert_true(s->migrated.by_class[HB_MIGRATE_POLICY] > 0);
	assert_int_equal(s->migrated.by_class[HB_MIGRATE_POLICY], s->migrated.by_errno[EXDEV]);
	{
		char *text = NULL, line[128];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		hb_daemon_metrics(d, f);
		fclose(f);
		snprintf(line, sizeof(line),
			 "hotbridge_pages_migrated_total{status=\"policy\"} %llu\n",
			 (unsigned long long)s->migrated.by_class[HB_MIGRATE_POLICY]);
		assert_non_null(strstr(text, line));
		assert_non_null(
			strstr(text, "hotbridge_pages_migrated_errors_total{errno=\"EXDEV\"}"));
		free(text);
	}
	print_message("# cycle 1: %llu pages asked: %llu moved, %llu retry, %llu backoff, %llu drop\n",
		      (unsigned long long)pages_asked,
		      (unsigned long long)s->migrated.by_class[HB_MIGRATE_MOVED],
		      (unsigned long long)s->migrated.by_class[HB_MIGRATE_RETRY],
		      (unsigned long long)s->migrated.by_class[HB_MIGRATE_BACKOFF],
		      (unsigned long long)s->migrated.by_class[HB_MIGRATE_DROP]);

	/* ENOMEM rested node 0: the next cycles promote nothing and say why */
	pages_asked = 0;
	pattern_on = 0;
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(pages_asked, 0);
	assert_true(hb_daemon_stats(d)->decisions[HB_REASON_WATERMARK] > 0);
	assert_int_equal(wrong_node, 0);
	hb_daemon_free(d);
}

static void test_faults_a_failed_call_is_counted_and_survived(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = daemon_with_faults(&host, &cfg);
	const struct hb_daemon_stats *s;

	whole_call = -EPERM;
	calls = 0;
	for (int i = 0; i < 3; i++)
		assert_int_equal(hb_daemon_cycle(d), 0);
	s = hb_daemon_stats(d);
	assert_true(calls >= 3);
	assert_true(s->migrated.by_errno[EPERM] > 0);
	assert_int_equal(s->migrated.by_class[HB_MIGRATE_MOVED], 0);
	assert_int_equal(s->cycles, 3);
	whole_call = 0;
	hb_daemon_free(d);
}

static uint64_t moved(const struct hb_daemon *d)
{
	return hb_daemon_stats(d)->migrated.by_class[HB_MIGRATE_MOVED];
}

/*
 * Records taken in under region0, then region0 is destroyed before their
 * decision: nothing of it is migrated, its pages leave the table, records
 * arriving meanwhile are counted as unmapped; re-created, it promotes again.
 */
static void test_faults_topology_change_between_intake_and_decision(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = daemon_with_faults(&host, &cfg);
	struct hb_err err = { 0 };
	const struct hb_daemon_stats *s = hb_daemon_stats(d);
	json_object *st;
	uint64_t table;

	pattern_on = 0;
	calls = wrong_node = 0;
	pages_asked = 0;
	hb_daemon_pause(d, true); /* cycle 1: intake only */
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(pages_asked, 0);
	st = hb_daemon_status_json(d);
	table = (uint64_t)json_object_get_int64(json_object_object_get(st, "table_pages"));
	json_object_put(st);
	assert_true(table > 100);

	host.region_offline = true; /* cxl destroy-region */
	assert_int_equal(hb_daemon_rebuild_topology(d, &err), 0);
	assert_int_equal(s->topology_pages_dropped, table);
	hb_daemon_pause(d, false);
	assert_int_equal(hb_daemon_cycle(d), 0); /* its records now: unmapped */
	assert_int_equal(pages_asked, 0);
	assert_true(s->in.dropped[HB_DROP_UNMAPPED] > 100);
	assert_int_equal(moved(d), 0);

	host.region_offline = false; /* cxl create-region */
	assert_int_equal(hb_daemon_rebuild_topology(d, &err), 0);
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_true(pages_asked > 0);
	assert_int_equal(moved(d), pages_asked);
	assert_int_equal(wrong_node, 0);
	assert_int_equal(s->topology_reloads, 2);
	print_message("# %llu pages dropped with region0, %llu records unmapped meanwhile, "
		      "%llu promoted after it came back\n",
		      (unsigned long long)table, (unsigned long long)s->in.dropped[HB_DROP_UNMAPPED],
		      (unsigned long long)moved(d));
	hb_daemon_free(d);
}

/* the daemon's log (stderr) during one rebuild, into buf */
static int rebuild_logged(struct hb_daemon *d, char *buf, size_t size)
{
	struct hb_err err = { 0 };
	FILE *f = tmpfile();
	int saved, r;
	size_t n;

	assert_non_null(f);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	r = hb_daemon_rebuild_topology(d, &err);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
	fputs(buf, stderr);
	return r;
}

/*
 * cxl disable-memdev --force or cxl_pci unbound under a region whose memory
 * is online: the kernel resets the decoders and the region leaves the
 * topology, but its memory blocks stay online on the CXL node (dax kmem
 * cannot remove them). The pages taken in under region0 must leave the
 * table all the same, and nothing of region0 is migrated until it is back.
 */
static void test_faults_region_gone_with_memory_online_moves_nothing(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d;
	const struct hb_daemon_stats *s;
	char log[4096];

	next_log_level = "info"; /* the rebuild's lines */
	d = daemon_with_faults(&host, &cfg);
	next_log_level = NULL;
	s = hb_daemon_stats(d);
	json_object *st;
	uint64_t table;

	pattern_on = 0;
	calls = wrong_node = 0;
	pages_asked = 0;
	hb_daemon_pause(d, true); /* cycle 1: intake only */
	assert_int_equal(hb_daemon_cycle(d), 0);
	st = hb_daemon_status_json(d);
	table = (uint64_t)json_object_get_int64(json_object_object_get(st, "table_pages"));
	json_object_put(st);
	assert_true(table > 100);

	host.region_undecoded = true; /* cxl disable-memdev --force mem0 */
	assert_int_equal(rebuild_logged(d, log, sizeof(log)), 0);
	assert_non_null(strstr(log, "region region0 (HPA 0x390000000-0x3cfffffff) left the "
				    "topology: nothing of it is promoted"));
	assert_int_equal(s->topology_pages_dropped, table);
	hb_daemon_pause(d, false);
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(pages_asked, 0);
	assert_int_equal(moved(d), 0);

	host.region_undecoded = false; /* back: enabled and the region committed again */
	assert_int_equal(rebuild_logged(d, log, sizeof(log)), 0);
	assert_non_null(strstr(log, "region region0 (HPA 0x390000000-0x3cfffffff) joined the "
				    "topology"));
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_true(pages_asked > 0);
	assert_int_equal(moved(d), pages_asked);
	assert_int_equal(wrong_node, 0);
	print_message("# %llu pages dropped with region0 undecoded (memory online), "
		      "%llu promoted after it came back\n",
		      (unsigned long long)table, (unsigned long long)moved(d));
	hb_daemon_free(d);
}

/* Node 0 below its watermark: no promotion until it has room, then only down to it. */
static void test_faults_target_below_watermark_promotes_nothing(void **state)
{
	struct hb_emulated_host host = { .dram_free = 200ULL << 20 };
	struct hb_config cfg;
	struct hb_daemon *d = daemon_with_watermark(&host, &cfg, 256);
	const struct hb_daemon_stats *s;

	pattern_on = 0;
	calls = wrong_node = 0;
	pages_asked = 0;
	s = hb_daemon_stats(d);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(pages_asked, 0);
	assert_true(s->decisions[HB_REASON_WATERMARK] > 100);
	/* memory freed on node 0: 8 MiB above the watermark, promoted up to it */
	host.dram_free = (256ULL + 8) << 20;
	for (int i = 0; i < 12; i++)
		assert_int_equal(hb_daemon_cycle(d), 0);
	assert_true(pages_asked > 0);
	assert_true(s->promoted_bytes <= 8ULL << 20);
	assert_true(s->promoted_bytes > 6ULL << 20);
	assert_int_equal(wrong_node, 0);
	print_message("# below the watermark: %llu watermark decisions, 0 pages asked; with 8 MiB "
		      "of room: %llu KiB promoted\n",
		      (unsigned long long)s->decisions[HB_REASON_WATERMARK],
		      (unsigned long long)(s->promoted_bytes >> 10));
	hb_daemon_free(d);
}

/* A plugin whose poll always fails: disabled after 10 tries, the rest goes on. */
static void test_faults_a_failing_plugin_is_disabled_not_fatal(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };
	char dir[] = "/tmp/hb-test-faults-XXXXXX", cmd[1024];
	static const char *const params[] = { "capacity=536870912", "accesses=20000", NULL };
	struct hb_config cfg;
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };
	json_object *o;

	if (geteuid() != 0)
		skip(); /* the plugin directory must be root-owned */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cp %s/libbad-pollfail.so %s/bad.so && chmod 0755 %s/bad.so",
		 getenv("HB_TEST_PLUGINS"), dir, dir);
	assert_int_equal(system(cmd), 0);
	hb_config_defaults(&cfg);
	cfg.dry_run = true;
	cfg.control_socket[0] = '\0';
	snprintf(cfg.plugin_dir, sizeof(cfg.plugin_dir), "%s", dir);
	snprintf(cfg.log_level, sizeof(cfg.log_level), "err");
	cfg.nsources = 2;
	memset(cfg.sources, 0, 2 * sizeof(cfg.sources[0]));
	strcpy(cfg.sources[0].name, "vendor");
	strcpy(cfg.sources[0].type, "bad");
	strcpy(cfg.sources[1].name, "emu");
	strcpy(cfg.sources[1].type, "emul-chmu");
	strcpy(cfg.sources[1].memdev, "mem0");
	cfg.sources[1].params[0] = (char *)params[0];
	cfg.sources[1].params[1] = (char *)params[1];
	assert_int_equal(hb_emulated_platform_new(&host, &env.platform, &err), 0);
	assert_int_equal(hb_daemon_new(&cfg, &env, &d, &err), 0);
	host.d = d;
	for (int i = 0; i < 15; i++)
		assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(hb_daemon_stats(d)->source_errors, 10);
	assert_true(hb_daemon_stats(d)->in.records > 0); /* emu kept feeding */
	o = hb_daemon_sources_json(d);
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			       "\"name\":\"vendor\",\"source\":\"bad\""));
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			       "\"disabled\":true"));
	json_object_put(o);
	hb_daemon_free(d);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* an explain answer's field as a string ("" when absent or null) */
static const char *field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "";
}

/*
 * explain tells the kernel's refusal (with its errno) from hysteresis after
 * a move, and history holds each page's result: the node, or the errno.
 */
static void test_faults_explain_and_history_tell_refused_from_moved(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_err err = { 0 };
	struct hb_config cfg;
	struct hb_daemon *d;
	json_object *h, *entries, *x;
	bool seen_refused = false, seen_moved = false, seen_policy = false;
	uint64_t policy_page = 0, asked;

	next_hysteresis_ms = 60000;
	d = daemon_with_faults(&host, &cfg);
	next_hysteresis_ms = 0;
	pattern_on = 1;
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(hb_daemon_history(d, false, 0, 200, &h, &err), 0);
	assert_true(json_object_object_get_ex(h, "entries", &entries));
	assert_true(json_object_array_length(entries) > 0);
	for (size_t i = 0; i < json_object_array_length(entries); i++) {
		json_object *e = json_object_array_get_idx(entries, i), *res, *v;
		uint64_t page = strtoull(field(e, "page"), NULL, 16);
		bool refused;

		if (strcmp(field(e, "decision"), "promote") ||
		    !json_object_object_get_ex(e, "result", &res) || !res)
			continue;
		refused = json_object_object_get_ex(res, "errno", &v);
		if (refused && !strcmp(json_object_get_string(v), "EXDEV") && !seen_policy) {
			/* the owners' memory policy, named as such in both */
			assert_non_null(strstr(field(res, "error"), "memory policy"));
			assert_int_equal(hb_daemon_explain(d, page, &x, &err), 0);
			assert_string_equal(field(x, "decision"), "refused_by_kernel");
			assert_non_null(strstr(field(x, "reason"), "memory policy"));
			assert_non_null(strstr(field(x, "reason"), "override_mempolicy"));
			print_message("# %s: %s\n", field(e, "page"), field(x, "reason"));
			json_object_put(x);
			seen_policy = true;
			policy_page = page;
			continue;
		}
		if (refused && strcmp(json_object_get_string(v), "EACCES"))
			continue; /* EACCES stands for the kernel's refusals */
		if (refused ? seen_refused : seen_moved)
			continue;
		assert_int_equal(hb_daemon_explain(d, page, &x, &err), 0);
		if (refused) {
			assert_string_equal(field(x, "decision"), "refused_by_kernel");
			assert_non_null(strstr(field(x, "reason"), "EACCES"));
			seen_refused = true;
		} else {
			assert_string_equal(field(x, "decision"), "hysteresis");
			assert_non_null(strstr(field(x, "reason"), "result: node 0"));
			seen_moved = true;
		}
		print_message("# %s: %s\n", field(e, "page"), field(x, "reason"));
		json_object_put(x);
	}
	assert_true(seen_refused && seen_moved && seen_policy);
	json_object_put(h);
	/* held for hysteresis_ms: the next cycle does not ask for it again */
	pages_asked = 0;
	asked = hb_daemon_stats(d)->migrated.by_class[HB_MIGRATE_POLICY];
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(hb_daemon_stats(d)->migrated.by_class[HB_MIGRATE_POLICY], asked);
	assert_int_equal(hb_daemon_explain(d, policy_page, &x, &err), 0);
	assert_string_equal(field(x, "decision"), "refused_by_kernel");
	json_object_put(x);
	hb_daemon_free(d);
}

/*
 * trial42 #9: once the hold of a refused page lapses, the page has left the
 * heat table (heat 0) and its decision is below_threshold again. explain
 * says what last happened to it (refused by the memory policy, when, the
 * errno), not "never promoted"; and for a moved page, that it was promoted.
 */
static void test_faults_explain_after_the_hold_names_the_last_result(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_err err = { 0 };
	struct hb_config cfg;
	struct hb_daemon *d;
	json_object *h, *entries, *x;
	uint64_t policy_page = 0, moved_page = 0;

	next_hysteresis_ms = 1;
	d = daemon_with_faults(&host, &cfg);
	next_hysteresis_ms = 0;
	pattern_on = 1;
	assert_int_equal(hb_daemon_cycle(d), 0);
	assert_int_equal(hb_daemon_history(d, false, 0, 200, &h, &err), 0);
	assert_true(json_object_object_get_ex(h, "entries", &entries));
	for (size_t i = 0; i < json_object_array_length(entries); i++) {
		json_object *e = json_object_array_get_idx(entries, i), *res, *v;
		uint64_t page = strtoull(field(e, "page"), NULL, 16);

		if (strcmp(field(e, "decision"), "promote") ||
		    !json_object_object_get_ex(e, "result", &res) || !res)
			continue;
		if (json_object_object_get_ex(res, "errno", &v)) {
			if (!policy_page && !strcmp(json_object_get_string(v), "EXDEV"))
				policy_page = page;
		} else if (!moved_page) {
			moved_page = page;
		}
	}
	json_object_put(h);
	assert_true(policy_page && moved_page);
	usleep(20 * 1000); /* past hysteresis_ms = 1 */

	assert_int_equal(hb_daemon_explain(d, policy_page, &x, &err), 0);
	print_message("# %#llx: %s: %s\n", (unsigned long long)policy_page, field(x, "decision"),
		      field(x, "reason"));
	assert_string_equal(field(x, "decision"), "below_threshold");
	assert_null(strstr(field(x, "reason"), "never promoted"));
	assert_non_null(strstr(field(x, "reason"), "last promotion"));
	assert_non_null(strstr(field(x, "reason"), "s ago"));
	assert_non_null(strstr(field(x, "reason"), "EXDEV"));
	assert_non_null(strstr(field(x, "reason"), "memory policy"));
	assert_non_null(strstr(field(x, "reason"), "override_mempolicy"));
	json_object_put(x);

	assert_int_equal(hb_daemon_explain(d, moved_page, &x, &err), 0);
	print_message("# %#llx: %s: %s\n", (unsigned long long)moved_page, field(x, "decision"),
		      field(x, "reason"));
	assert_string_equal(field(x, "decision"), "below_threshold");
	assert_null(strstr(field(x, "reason"), "never promoted"));
	assert_non_null(strstr(field(x, "reason"), "last promoted"));
	assert_non_null(strstr(field(x, "reason"), "to node 0"));
	json_object_put(x);
	hb_daemon_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_faults_every_status_is_counted_by_class),
		cmocka_unit_test(test_faults_a_failed_call_is_counted_and_survived),
		cmocka_unit_test(test_faults_a_failing_plugin_is_disabled_not_fatal),
		cmocka_unit_test(test_faults_topology_change_between_intake_and_decision),
		cmocka_unit_test(test_faults_region_gone_with_memory_online_moves_nothing),
		cmocka_unit_test(test_faults_target_below_watermark_promotes_nothing),
		cmocka_unit_test(test_faults_explain_and_history_tell_refused_from_moved),
		cmocka_unit_test(test_faults_explain_after_the_hold_names_the_last_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
