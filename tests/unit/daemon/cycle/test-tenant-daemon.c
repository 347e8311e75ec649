// SPDX-License-Identifier: MIT
/*
 * [tenant] rules in the daemon's cycle (cycle/tenant-step.c), over the
 * emulated host (two emul-chmu sources, the dry-run migrator) with the
 * owners of its region's pages read from a fake tree (env.owners_root):
 * region0's 2-way interleave puts even PFNs on mem0, charged here to /web,
 * and odd ones on mem1, charged to /batch.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake-tree.h"
#include "daemon-private.h"
#include "cycle/tenants.h"
#include "platform/emulated-host.h"

#include <json-c/json.h>

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define REGION_PAGES (1ULL << 18) /* region0: 1 GiB of 4 KiB pages */

static char root[64];

static const char *const params[2][5] = {
	{ "capacity=536870912", "accesses=20000", "threshold=2", "seed=1", NULL },
	{ "capacity=536870912", "accesses=20000", "threshold=2", "seed=2", NULL },
};

static uint64_t ino_of(const char *cg)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/sys/fs/cgroup%s", root, cg);
	assert_int_equal(stat(p, &st), 0);
	return st.st_ino;
}

static int setup(void **state)
{
	uint64_t *ino = calloc(REGION_PAGES, sizeof(*ino));
	uint64_t web, batch;
	char p[256];
	int fd;

	(void)state;
	assert_non_null(ino);
	hb_fake_tree_new(root, sizeof(root), "test-tenant-daemon");
	hb_fake_put(root, "/proc", NULL);
	hb_fake_put(root, "/sys/fs/cgroup/cgroup.controllers", "memory\n");
	hb_fake_put(root, "/sys/fs/cgroup/web", NULL);
	hb_fake_put(root, "/sys/fs/cgroup/batch", NULL);
	web = ino_of("/web");
	batch = ino_of("/batch");
	for (uint64_t i = 0; i < REGION_PAGES; i++)
		ino[i] = (HB_EMU_REGION_BASE / 4096 + i) % 2 ? batch : web;
	snprintf(p, sizeof(p), "%s/proc/kpagecgroup", root);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(pwrite(fd, ino, REGION_PAGES * 8, (off_t)(HB_EMU_REGION_BASE / 4096 * 8)),
			 (ssize_t)(REGION_PAGES * 8));
	close(fd);
	free(ino);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hb_fake_tree_remove(root);
	return 0;
}

static void config_on(struct hb_config *cfg, const char *deny, const char *budgets)
{
	hb_config_defaults(cfg);
	cfg->interval_ms = 100;
	cfg->dry_run = true;
	cfg->threshold = 2;
	cfg->max_entries = 1 << 16;
	cfg->rate_mbps = 0;
	cfg->hysteresis_ms = 0;
	cfg->control_socket[0] = cfg->plugin_dir[0] = '\0';
	snprintf(cfg->log_level, sizeof(cfg->log_level), "err");
	snprintf(cfg->tenant_deny, sizeof(cfg->tenant_deny), "%s", deny);
	snprintf(cfg->tenant_budget_mb, sizeof(cfg->tenant_budget_mb), "%s", budgets);
	cfg->nsources = 2;
	for (int m = 0; m < 2; m++) {
		struct hb_source_config *s = &cfg->sources[m];

		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "emu%d", m);
		strcpy(s->type, "emul-chmu");
		snprintf(s->memdev, sizeof(s->memdev), "mem%d", m);
		for (int i = 0; params[m][i]; i++) {
			s->params[s->nparams] = strdup(params[m][i]);
			assert_non_null(s->params[s->nparams++]);
		}
	}
}

static int daemon_of(struct hb_emulated_host *host, struct hb_config *cfg, const char *owners,
		     struct hb_daemon **ret, struct hb_err *err)
{
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };

	env.owners_root = owners;
	env.coldness = hb_emulated_coldness(host);
	assert_int_equal(hb_emulated_platform_new(host, &env.platform, err), 0);
	return hb_daemon_new(cfg, &env, ret, err);
}

/* status's tenants and the metrics show /web's pages against its 1 MiB budget */
static void check_reports(struct hb_daemon *d, const char *promoted, bool at_budget)
{
	json_object *o = hb_daemon_status_json(d), *t, *b, *v;
	char *text = NULL, want[128];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_true(json_object_object_get_ex(o, "tenants", &t));
	assert_true(json_object_object_get_ex(t, "budgets", &b));
	assert_int_equal(json_object_array_length(b), 1);
	b = json_object_array_get_idx(b, 0);
	assert_true(json_object_object_get_ex(b, "cgroup", &v));
	assert_string_equal(json_object_get_string(v), "/web");
	assert_true(json_object_object_get_ex(b, "promoted_pages", &v));
	assert_string_equal(json_object_get_string(v), promoted);
	assert_true(json_object_object_get_ex(b, "cgroups", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(b, "at_budget", &v));
	assert_int_equal(json_object_get_boolean(v), at_budget);
	json_object_put(o);
	assert_non_null(f);
	hb_daemon_metrics(d, f);
	fclose(f);
	snprintf(want, sizeof(want), "\nhotbridge_tenant_promoted_pages{tenant=\"/web\"} %s\n",
		 promoted);
	if (!strstr(text, want))
		fail_msg("no '%s' in the metrics", want);
	assert_non_null(strstr(text, "\nhotbridge_tenant_budget_pages{tenant=\"/web\"} 256\n"));
	free(text);
}

/* explain of the newest page refused for reason r: its decision and its tenant line */
static void check_explain(struct hb_daemon *d, enum hb_reason r, const char *tenant)
{
	const struct hb_history_entry *e[4096];
	size_t n = hb_history_find(d->history, false, 0, 4096, e, 4096);
	struct hb_err err = { 0 };
	json_object *o, *v;
	size_t i;

	for (i = 0; i < n && e[i]->reason != r; i++)
		;
	assert_true(i < n);
	/* its heat has decayed since: any heat is enough now, so the policy alone would promote */
	d->pcfg.threshold = 1e-9;
	assert_int_equal(hb_daemon_explain(d, e[i]->hpa, &o, &err), 0);
	assert_true(json_object_object_get_ex(o, "tenant", &v));
	assert_string_equal(json_object_get_string(v), tenant);
	assert_true(json_object_object_get_ex(o, "decision", &v));
	assert_string_equal(json_object_get_string(v), hb_reason_to_string(r));
	json_object_put(o);
}

/*
 * /batch denied, /web held at its 1 MiB budget (256 pages): of the hot
 * pages of both, exactly 256 of /web's reach DRAM and none of /batch's;
 * a raised budget (as a reload gives it) lets 256 more in.
 */
static void test_tenant_daemon_denies_and_holds_at_budget(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };
	const struct hb_daemon_stats *s;

	(void)state;
	config_on(&cfg, "/batch", "/web=1");
	assert_int_equal(daemon_of(&host, &cfg, root, &d, &err), 0);
	s = hb_daemon_stats(d);
	hb_emulated_host_attach(&host, d);
	assert_int_equal(hb_daemon_simulate(d, 20), 0);
	assert_int_equal(s->migrated.by_class[HB_MIGRATE_MOVED], 256);
	assert_int_equal(hb_tenants_promoted(d->tenants, 0), 256);
	assert_true(s->decisions[HB_REASON_TENANT_DENIED] > 0);
	assert_true(s->decisions[HB_REASON_TENANT_BUDGET] > 0);
	assert_int_equal(hb_tenants_stats(d->tenants)->owner_unknown, 0);
	check_reports(d, "256", true);
	check_explain(d, HB_REASON_TENANT_DENIED, "cgroup /batch: denied by tenant.deny /batch");
	check_explain(d, HB_REASON_TENANT_BUDGET,
		      "cgroup /web: tenant.budget_mb /web=1 held (256 pages promoted of 256)");
	/* the budget raised to 2 MiB */
	snprintf(cfg.tenant_budget_mb, sizeof(cfg.tenant_budget_mb), "/web=2");
	assert_int_equal(hb_daemon_tenants_apply(d, &cfg, &err), 0);
	assert_int_equal(hb_daemon_simulate(d, 20), 0);
	assert_int_equal(s->migrated.by_class[HB_MIGRATE_MOVED], 512);
	assert_int_equal(hb_tenants_promoted(d->tenants, 0), 512);
	hb_daemon_free(d);
	hb_emulated_host_done(&host);
	hb_config_done(&cfg);
}

/*
 * A reload that halves /web's budget (2 MiB to 1: 512 pages promoted, 256
 * over) with demotion on and DRAM to spare: /web's pages go back to the
 * CXL node until it holds its new budget, and no further (the issue:
 * "restored by demotion first when a tenant is over its budget"; before,
 * nothing was demoted until a node ran short of room).
 */
static void test_tenant_daemon_lowered_budget_demotes_down_to_it(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };
	const struct hb_daemon_stats *s;

	(void)state;
	config_on(&cfg, "/batch", "/web=2");
	cfg.demote_enabled = true;
	cfg.demote_room_mb = 0; /* 8 GiB free: no node ever needs room */
	cfg.demote_rate_pages = 0;
	cfg.demote_cxl_floor_mb = 0; /* the emulated CXL node's free memory is small */
	assert_int_equal(daemon_of(&host, &cfg, root, &d, &err), 0);
	s = hb_daemon_stats(d);
	hb_emulated_host_attach(&host, d);
	assert_int_equal(hb_daemon_simulate(d, 20), 0);
	assert_int_equal(hb_tenants_promoted(d->tenants, 0), 512);
	assert_int_equal(s->demoted.by_class[HB_MIGRATE_MOVED], 0);
	snprintf(cfg.tenant_budget_mb, sizeof(cfg.tenant_budget_mb), "/web=1");
	assert_int_equal(hb_daemon_tenants_apply(d, &cfg, &err), 0);
	assert_int_equal(hb_daemon_simulate(d, 20), 0);
	assert_int_equal(s->demoted.by_class[HB_MIGRATE_MOVED], 256);
	assert_int_equal(hb_tenants_promoted(d->tenants, 0), 256);
	assert_int_equal(hb_placed_len(d->dm.placed), 256);
	/* and held there: nothing more goes either way */
	assert_int_equal(hb_daemon_simulate(d, 10), 0);
	assert_int_equal(s->demoted.by_class[HB_MIGRATE_MOVED], 256);
	assert_int_equal(hb_tenants_promoted(d->tenants, 0), 256);
	hb_daemon_free(d);
	hb_emulated_host_done(&host);
	hb_config_done(&cfg);
}

/* the emulated host without an owners tree refuses tenant rules, saying why */
static void test_tenant_daemon_emulated_host_refuses_rules(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };

	(void)state;
	config_on(&cfg, "/batch", "");
	assert_int_equal(daemon_of(&host, &cfg, NULL, &d, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "tenant rules need a live host"));
	hb_emulated_host_done(&host);
	hb_config_done(&cfg);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_tenant_daemon_denies_and_holds_at_budget),
		T(test_tenant_daemon_emulated_host_refuses_rules),
		T(test_tenant_daemon_lowered_budget_demotes_down_to_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
