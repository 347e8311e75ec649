// SPDX-License-Identifier: MIT
/*
 * hb_daemon_simulate() over the emulated host (what `hotbridge demo`
 * runs): the clock that times the rate limit advances by interval_ms a
 * cycle whatever the machine does, every source is polled each cycle, the
 * same seeds give the same run; and the pages the daemon placed on DRAM
 * are away from the emulated CHMUs (hb_emulated_host_attach()): the
 * workload's accesses to them reach the ground truth, not the devices.
 * Every rule reads the simulated clock only: the run is the same whether
 * the machine's clocks stand still or leap an hour at every read
 * (clock_gettime is wrapped, tests/meson.build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "daemon.h"
#include "devices.h"
#include "platform/emulated-host.h"

/*
 * The machine's clocks as every hotbridge library reads them (linked with
 * --wrap=clock_gettime): as they are, standing still, or leaping an hour
 * at every read. libc's own and shared libraries' reads are not wrapped.
 */
enum machine_clock { MACHINE_AS_IS, MACHINE_STILL, MACHINE_LEAPING };
static enum machine_clock machine_clock = MACHINE_AS_IS;

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	static time_t leaped;
	int r = __real_clock_gettime(id, ts);

	if (r == 0 && machine_clock == MACHINE_STILL) {
		ts->tv_sec = 1000000;
		ts->tv_nsec = 0;
	} else if (r == 0 && machine_clock == MACHINE_LEAPING) {
		leaped += 3600;
		ts->tv_sec += leaped;
	}
	return r;
}

static const char *const params[2][5] = {
	{ "capacity=536870912", "accesses=20000", "threshold=2", "seed=1", NULL },
	{ "capacity=536870912", "accesses=20000", "threshold=2", "seed=2", NULL },
};

/* emul-chmu on mem0 and mem1, the dry-run migrator, demotion on (DRAM has room) */
static void config_on(struct hb_config *cfg, double rate_mbps, double burst_mb)
{
	hb_config_defaults(cfg);
	cfg->interval_ms = 100;
	cfg->dry_run = true;
	cfg->threshold = 4;
	cfg->max_entries = 1 << 16; /* the default million takes longer to set up than to run */
	cfg->rate_mbps = rate_mbps;
	cfg->burst_mb = burst_mb;
	cfg->hysteresis_ms = 0;
	cfg->demote_enabled = true;
	cfg->demote_room_mb = 0;
	cfg->demote_cxl_floor_mb = 0;
	cfg->control_socket[0] = cfg->plugin_dir[0] = '\0';
	snprintf(cfg->log_level, sizeof(cfg->log_level), "err");
	cfg->nsources = 2;
	for (int m = 0; m < 2; m++) {
		struct hb_source_config *s = &cfg->sources[m];

		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "emu%d", m);
		strcpy(s->type, "emul-chmu");
		snprintf(s->memdev, sizeof(s->memdev), "mem%d", m);
		for (int i = 0; params[m][i]; i++) {
			s->params[s->nparams] = strdup(params[m][i]); /* hb_config_done() frees them */
			assert_non_null(s->params[s->nparams++]);
		}
	}
}

static struct hb_daemon *daemon_of(struct hb_emulated_host *host, struct hb_config *cfg)
{
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };

	env.coldness = hb_emulated_coldness(host);
	assert_int_equal(hb_emulated_platform_new(host, &env.platform, &err), 0);
	assert_int_equal(hb_daemon_new(cfg, &env, &d, &err), 0);
	return d;
}

static struct hb_daemon *daemon_on(struct hb_emulated_host *host, struct hb_config *cfg,
				   double rate_mbps, double burst_mb)
{
	config_on(cfg, rate_mbps, burst_mb);
	return daemon_of(host, cfg);
}

static void done(struct hb_daemon *d, struct hb_emulated_host *host, struct hb_config *cfg)
{
	hb_daemon_free(d);
	hb_emulated_host_done(host);
	hb_config_done(cfg);
}

/* the number key of in (a part of o), o released */
static double number_of(json_object *o, json_object *in, const char *key)
{
	json_object *v;
	double n;

	assert_true(json_object_object_get_ex(in, key, &v));
	n = json_object_get_double(v);
	json_object_put(o);
	return n;
}

static uint64_t source_records(struct hb_daemon *d, size_t i)
{
	json_object *a = hb_daemon_sources_json(d);

	return (uint64_t)number_of(a, json_object_array_get_idx(a, i), "records");
}

/*
 * Two pages a cycle by the rate limit (8192 bytes each 100 ms, a burst of
 * two pages): 20 cycles promote 40 though they run back to back, in far
 * less than the 2 s the machine's clock would want for it (on that clock
 * the first cycle takes the burst and the rest little more).
 */
static void test_simulate_times_the_rate_limit_by_cycles(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = daemon_on(&host, &cfg, 0.08192, 0.008192);
	const struct hb_daemon_stats *s = hb_daemon_stats(d);
	uint64_t before[2];

	(void)state;
	hb_emulated_host_attach(&host, d);
	assert_int_equal(hb_daemon_simulate(d, 20), 0);
	assert_int_equal(s->cycles, 20);
	assert_in_range(s->migrated.by_class[HB_MIGRATE_MOVED], 39, 41);
	/* a second call goes on: one more cycle polls both sources, promotes two */
	before[0] = source_records(d, 0);
	before[1] = source_records(d, 1);
	assert_int_equal(hb_daemon_simulate(d, 1), 0);
	assert_true(before[0] > 0 && before[1] > 0);
	assert_true(source_records(d, 0) > before[0] && source_records(d, 1) > before[1]);
	assert_in_range(s->migrated.by_class[HB_MIGRATE_MOVED], 41, 43);
	done(d, &host, &cfg);
}

/* status's promotion_limit and promotion_reason after a few cycles of a run with these limits */
static void status_limit(size_t top_k, double rate_mbps, double burst_mb, char *limit, char *reason)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d;
	json_object *o, *v;

	config_on(&cfg, rate_mbps, burst_mb);
	cfg.top_k = top_k;
	d = daemon_of(&host, &cfg);
	hb_emulated_host_attach(&host, d);
	assert_int_equal(hb_daemon_simulate(d, 5), 0);
	o = hb_daemon_status_json(d);
	assert_true(json_object_object_get_ex(o, "promotion_limit", &v));
	snprintf(limit, 32, "%s", json_object_get_string(v));
	assert_true(json_object_object_get_ex(o, "promotion_reason", &v));
	snprintf(reason, 512, "%s", json_object_get_string(v));
	json_object_put(o);
	done(d, &host, &cfg);
}

/*
 * newuser r4 D7: status says which limit held the last cycle's
 * promotions: top_k, the rate limit (rate_mbps), or a bucket shallower
 * than a cycle of it (burst_mb); none when every hot page went
 */
static void test_status_names_the_limit_that_holds_promotion(void **state)
{
	char limit[32], reason[512];

	(void)state;
	status_limit(2, 0, 0, limit, reason);
	assert_string_equal(limit, "top_k");
	assert_non_null(strstr(reason, "promoted top_k = 2 pages and left "));
	/* 8192 bytes a cycle of 100 ms, and a bucket of as much */
	status_limit(0, 0.08192, 0.008192, limit, reason);
	assert_string_equal(limit, "rate_mbps");
	assert_non_null(strstr(reason, "hot pages for rate_mbps = 0.08192"));
	/* a bucket of one page: half of what the rate allows a cycle */
	status_limit(0, 0.08192, 0.004096, limit, reason);
	assert_string_equal(limit, "burst_mb");
	assert_non_null(strstr(reason, "hot pages for burst_mb = 0.004096"));
	status_limit(0, 0, 0, limit, reason);
	assert_string_equal(limit, "none");
	assert_null(strstr(reason, "last cycle"));
}

/*
 * newuser r4 D34: an idle daemon logs its first cycle, then one line every
 * 10 minutes (of simulated time: 1 s cycles), not one a cycle; a cycle
 * that took a record has its line as before
 */
static void test_idle_cycles_have_a_line_every_ten_minutes(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_daemon_env env = { .keep_capabilities = true };
	char feed[] = "/tmp/hb-idle-feed-XXXXXX", log[] = "/tmp/hb-idle-log-XXXXXX", *text;
	int ffd = mkstemp(feed), lfd = mkstemp(log), saved = dup(2);
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };
	struct hb_config cfg;
	size_t lines = 0, idle = 0;
	FILE *f;

	(void)state;
	assert_true(ffd >= 0 && lfd >= 0 && saved >= 0);
	assert_int_equal(fchmod(ffd, 0644), 0);
	hb_config_defaults(&cfg);
	cfg.interval_ms = 1000;
	cfg.dry_run = true;
	cfg.max_entries = 1 << 16;
	cfg.control_socket[0] = cfg.plugin_dir[0] = '\0';
	snprintf(cfg.log_level, sizeof(cfg.log_level), "info");
	cfg.nsources = 1;
	strcpy(cfg.sources[0].name, "f");
	strcpy(cfg.sources[0].type, "replay");
	cfg.sources[0].params[0] = malloc(sizeof(feed) + 5); /* hb_config_done() frees it */
	assert_non_null(cfg.sources[0].params[0]);
	snprintf(cfg.sources[0].params[0], sizeof(feed) + 5, "path=%s", feed);
	cfg.sources[0].nparams = 1;
	assert_int_equal(hb_emulated_platform_new(&host, &env.platform, &err), 0);
	assert_int_equal(dup2(lfd, 2), 2);
	assert_int_equal(hb_daemon_new(&cfg, &env, &d, &err), 0);
	assert_int_equal(hb_daemon_simulate(d, 1300), 0);
	assert_int_equal(write(ffd, "mem0 dpa=0x0 len=4096 count=1\n", 30), 30);
	assert_int_equal(hb_daemon_simulate(d, 2), 0);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	f = fdopen(lfd, "r");
	assert_non_null(f);
	rewind(f);
	text = calloc(1, 1 << 16);
	assert_non_null(text);
	for (char line[512]; fgets(line, sizeof(line), f);) {
		unsigned long long a, b;

		lines += sscanf(line, "hotbridge: cycle %llu:", &a) == 1;
		idle += sscanf(line, "hotbridge: cycles %llu-%llu idle:", &a, &b) == 2;
		if (strlen(text) + strlen(line) < (1 << 16))
			strcat(text, line);
	}
	if (lines != 2 || idle != 2)
		fail_msg("%zu cycle lines, %zu idle lines (want 2, 2):\n%s", lines, idle, text);
	assert_non_null(strstr(text, "cycles 2-601 idle: no records, nothing hot; table 0 pages"));
	assert_non_null(strstr(text, "cycles 602-1201 idle: "));
	assert_non_null(strstr(text, "hotbridge: cycle 1301: 1 records (0 dropped)"));
	free(text);
	fclose(f);
	close(ffd);
	unlink(feed);
	unlink(log);
	done(d, &host, &cfg);
}

/*
 * The demo's rules on simulated time: 100 ms cycles, hysteresis 300 ms,
 * a promotion rate limit below its burst, demotion once DRAM's room runs
 * low at its own rate. The stats of one run, on the machine's clocks as
 * machine_clock has them.
 */
/* what explain says of region0's first 8192 pages, decision and reason, a line each */
static char *explained(struct hb_daemon *d)
{
	size_t size = 1 << 21, len = 0;
	char *buf = calloc(1, size);

	assert_non_null(buf);
	for (uint64_t i = 0; i < 8192; i++) {
		struct hb_err err = { 0 };
		json_object *o, *dec, *why;

		assert_int_equal(hb_daemon_explain(d, HB_EMU_REGION_BASE + i * 4096, &o, &err), 0);
		assert_true(json_object_object_get_ex(o, "decision", &dec));
		assert_true(json_object_object_get_ex(o, "reason", &why));
		len += (size_t)snprintf(buf + len, size - len, "%s: %s\n",
					json_object_get_string(dec), json_object_get_string(why));
		assert_true(len < size);
		json_object_put(o);
	}
	return buf;
}

static struct hb_daemon_stats rules_run(enum machine_clock mc, size_t *ret_placed,
					char **ret_explained)
{
	struct hb_emulated_host host = { .dram_free = (1024ULL + 8) << 20 };
	struct hb_daemon_stats st;
	struct hb_config cfg;
	struct hb_daemon *d;

	machine_clock = mc;
	config_on(&cfg, 4, 0.8);
	cfg.hysteresis_ms = 300;
	cfg.watermark_mb = 1024;
	cfg.demote_room_mb = 4;
	cfg.demote_rate_pages = 500;
	cfg.demote_cold_cycles = 2;
	d = daemon_of(&host, &cfg);
	hb_emulated_host_attach(&host, d);
	assert_int_equal(hb_daemon_simulate(d, 20), 0);
	st = *hb_daemon_stats(d);
	*ret_placed = hb_placed_len(hb_daemon_placed(d));
	*ret_explained = explained(d);
	done(d, &host, &cfg);
	machine_clock = MACHINE_AS_IS;
	return st;
}

/*
 * Rule timing reads hb_daemon_clock() and nothing else: with the
 * machine's clocks standing still, or leaping an hour at each read, the
 * run decides exactly as on the machine's own, and explain says the same
 * of every page. A rule that read the machine's clock would refill no
 * bucket and release no hold on the still clock, and hold nothing back on
 * the leaping one. Covered: hysteresis after promotion and after
 * demotion, the promotion and demotion rate limits, explain's account of
 * them; not the ENOMEM back-off (the dry-run migrator never fails).
 */
static void test_rules_read_the_simulated_clock_only(void **state)
{
	static const char *const name[] = { "as is", "standing still", "leaping" };
	struct hb_daemon_stats st[3];
	size_t placed[3];
	char *ex[3];

	(void)state;
	for (int k = 0; k < 3; k++)
		st[k] = rules_run((enum machine_clock)k, &placed[k], &ex[k]);
	/* the run exercises every timed rule */
	assert_true(st[0].decisions[HB_REASON_PROMOTE] > 0);
	assert_true(st[0].decisions[HB_REASON_RATE_LIMIT] > 0);
	assert_true(st[0].decisions[HB_REASON_DEMOTE] > 0);
	assert_true(st[0].decisions[HB_REASON_DEMOTED_RECENTLY] > 0);
	/* and explain's answers time them too ("handed to the migrator 0.2 s ago") */
	assert_non_null(strstr(ex[0], "\nhysteresis: "));
	assert_non_null(strstr(ex[0], "\ndemoted_recently: "));
	assert_non_null(strstr(ex[0], "\nrate_limit: "));
	for (int k = 1; k < 3; k++) {
		for (int r = 0; r < _HB_REASON_MAX; r++)
			if (st[k].decisions[r] != st[0].decisions[r])
				fail_msg("machine's clock %s: %s decisions %llu, on its own clock %llu",
					 name[k], hb_reason_to_string((enum hb_reason)r),
					 (unsigned long long)st[k].decisions[r],
					 (unsigned long long)st[0].decisions[r]);
		assert_int_equal(st[k].in.records, st[0].in.records);
		assert_memory_equal(&st[k].migrated, &st[0].migrated, sizeof(st[0].migrated));
		assert_memory_equal(&st[k].demoted, &st[0].demoted, sizeof(st[0].demoted));
		assert_int_equal(placed[k], placed[0]);
		assert_string_equal(ex[k], ex[0]);
	}
	for (int k = 0; k < 3; k++)
		free(ex[k]);
}

/* the same seeds, the same run: records, promotions, decisions */
static void test_simulate_same_seeds_same_run(void **state)
{
	struct hb_daemon_stats st[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
		struct hb_config cfg;
		struct hb_daemon *d = daemon_on(&host, &cfg, 40, 4);

		hb_emulated_host_attach(&host, d);
		assert_int_equal(hb_daemon_simulate(d, 15), 0);
		st[k] = *hb_daemon_stats(d);
		done(d, &host, &cfg);
	}
	assert_true(st[0].in.records > 0 && st[0].migrated.by_class[HB_MIGRATE_MOVED] > 0);
	assert_int_equal(st[0].in.records, st[1].in.records);
	assert_memory_equal(st[0].decisions, st[1].decisions, sizeof(st[0].decisions));
	assert_memory_equal(&st[0].migrated, &st[1].migrated, sizeof(st[0].migrated));
}

static double heat_of(struct hb_daemon *d, uint64_t hpa)
{
	struct hb_err err = { 0 };
	json_object *o;

	assert_int_equal(hb_daemon_explain(d, hpa, &o, &err), 0);
	return number_of(o, o, "heat");
}

/*
 * Pages placed on DRAM get no more CHMU reports (their heat, forgotten at
 * promotion, stays 0) while the workload keeps touching them (their
 * ground truth grows). Without the attachment the devices would go on
 * reporting them and their heat would be back above the threshold.
 */
static void test_placed_pages_are_away_from_the_chmus(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = daemon_on(&host, &cfg, 40, 4);
	const struct hb_placed *placed;
	const uint64_t *truth;
	uint64_t *hpa, *was, unit, grew = 0;
	size_t n = 0, cursor = 0, nu;
	struct hb_placed_page *e;

	(void)state;
	hb_emulated_host_attach(&host, d);
	assert_int_equal(hb_daemon_simulate(d, 5), 0);
	placed = hb_daemon_placed(d);
	assert_non_null(placed);
	nu = hb_source_emul_truth(hb_daemon_emul_chmu_of(d, "mem0"), &truth, &unit);
	assert_int_equal(unit, 4096);
	hpa = calloc(hb_placed_len(placed), sizeof(*hpa));
	was = calloc(hb_placed_len(placed), sizeof(*was));
	assert_non_null(hpa);
	assert_non_null(was);
	/* mem0's placed pages (2-way x 4 KiB: the even pages of region0) */
	while ((e = hb_placed_next((struct hb_placed *)placed, &cursor))) {
		uint64_t h = hb_placed_hpa(placed, e), off = h - HB_EMU_REGION_BASE;

		if (off / 4096 % 2)
			continue;
		assert_true(off / 8192 < nu);
		hpa[n] = h;
		was[n++] = truth[off / 8192];
	}
	assert_true(n > 100);
	assert_int_equal(hb_daemon_simulate(d, 5), 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t off = hpa[i] - HB_EMU_REGION_BASE;

		if (!hb_placed_find(placed, hpa[i]))
			continue; /* not placed any more (none is, with this room) */
		grew += truth[off / 8192] > was[i];
		assert_true(heat_of(d, hpa[i]) == 0.0);
	}
	assert_true(grew > n / 2);
	free(hpa);
	free(was);
	done(d, &host, &cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simulate_times_the_rate_limit_by_cycles),
		cmocka_unit_test(test_status_names_the_limit_that_holds_promotion),
		cmocka_unit_test(test_idle_cycles_have_a_line_every_ten_minutes),
		cmocka_unit_test(test_simulate_same_seeds_same_run),
		cmocka_unit_test(test_placed_pages_are_away_from_the_chmus),
		cmocka_unit_test(test_rules_read_the_simulated_clock_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
