// SPDX-License-Identifier: MIT
/*
 * Devices' media events in the daemon (daemon/ingest/media-events.c) on the
 * emulated host (region0 = mem0 + mem1, 2-way x 4 KiB): the device's HPA
 * is checked against ours (agreements, mismatches, the kernel's "none"),
 * poison and uncorrectable errors quarantine the pages (out of the table,
 * never promoted by the dry-run migrator although they stay hot, named by
 * explain, refused as "quarantined" in the history), correctable errors
 * do not; cleared poison lets a page kept out for poison alone back once,
 * never one poisoned again after a clear nor one with an uncorrectable
 * error; a page quarantined while its promotion was being decided is
 * refused and gives its tokens back; overflow is counted, and events the
 * host cannot use are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemon-private.h"
#include "platform/emulated-host.h"

static struct hb_daemon *new_daemon(struct hb_emulated_host *host, struct hb_config *cfg)
{
	struct hb_daemon_env env = { .quiet = true, .keep_capabilities = true };
	/* 16 pages of mem0, all hot, through a replay file */
	static char path[] = "/tmp/hb-test-media-XXXXXX", param[64];
	static const char line[] = "mem0 dpa=0x0 len=65536 count=1000\n";
	struct hb_migrator_config mc = { 0 };
	int fd = mkstemp(path);
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };

	hb_config_defaults(cfg);
	cfg->threshold = 4;
	cfg->rate_mbps = 0;
	cfg->control_socket[0] = cfg->plugin_dir[0] = '\0';
	snprintf(cfg->log_level, sizeof(cfg->log_level), "err");
	cfg->nsources = 1;
	memset(&cfg->sources[0], 0, sizeof(cfg->sources[0]));
	strcpy(cfg->sources[0].name, "emu");
	strcpy(cfg->sources[0].type, "replay");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
	snprintf(param, sizeof(param), "path=%s", path);
	cfg->sources[0].params[0] = param;
	cfg->sources[0].params[1] = (char *)"from=start"; /* written before the start */
	assert_int_equal(hb_emulated_platform_new(host, &env.platform, &err), 0);
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_DRYRUN, &mc, &env.migrator, &err), 0);
	if (hb_daemon_new(cfg, &env, &d, &err) < 0)
		fail_msg("%s", err.msg);
	unlink(path); /* the source has it open */
	strcpy(path, "/tmp/hb-test-media-XXXXXX");
	host->d = d;
	return d;
}

/* mem0's DPA -> HPA on the emulated host: 4 KiB granules, mem0 at even ones */
static uint64_t mem0_hpa(uint64_t dpa)
{
	return HB_EMU_REGION_BASE + (dpa / 4096) * 8192 + dpa % 4096;
}

static struct hb_device_event event(uint32_t kind, uint64_t dpa, uint64_t len, uint64_t hpa)
{
	struct hb_device_event ev = {
		.size = sizeof(ev), .kind = kind, .dpa = dpa, .len = len, .hpa = hpa
	};

	strcpy(ev.memdev, "mem0");
	return ev;
}

static void test_media_events_cross_check(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = new_daemon(&host, &cfg);
	const struct hb_media_stats *st = &hb_daemon_stats(d)->media;
	struct hb_device_event ev;

	/* a correctable error: checked, not quarantined */
	ev = event(HB_EVENT_MEDIA, 0x2040, 64, mem0_hpa(0x2040));
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->hpa_agree, 1);
	assert_int_equal(st->hpa_mismatch, 0);
	assert_int_equal(st->media_events, 1);
	assert_int_equal(st->quarantined_pages, 0);
	/* the device disagrees: counted, and ours is what counts */
	ev = event(HB_EVENT_MEDIA, 0x2040, 64, mem0_hpa(0x2040) + 4096);
	ev.flags = HB_EVENT_F_UNCORRECTABLE;
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->hpa_mismatch, 1);
	assert_non_null(hb_daemon_quarantined(d, mem0_hpa(0x2000)));
	assert_null(hb_daemon_quarantined(d, mem0_hpa(0x2000) + 4096));
	/* the kernel found no region, we do: a mismatch too */
	ev = event(HB_EVENT_MEDIA, 0x3000, 64, HB_ADDR_NONE);
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->hpa_mismatch, 2);
	/* neither of us maps it (past the region): agreement, nothing to keep out */
	ev = event(HB_EVENT_POISON, 1ULL << 40, 64, HB_ADDR_NONE);
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->hpa_agree, 2);
	assert_int_equal(st->quarantine_untranslated, 1);
	/* overflow */
	ev = event(HB_EVENT_OVERFLOW, 0, 0, HB_ADDR_NONE);
	ev.count = 300;
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->overflow_events, 1);
	assert_int_equal(st->overflow_records_lost, 300);
	/* what the host cannot use */
	ev = event(HB_EVENT_POISON, 0, 0, HB_ADDR_NONE);
	assert_int_equal(hb_daemon_media_event(d, &ev), -EINVAL);
	ev = event(7, 0, 64, HB_ADDR_NONE);
	assert_int_equal(hb_daemon_media_event(d, &ev), -EINVAL);
	ev = event(HB_EVENT_POISON, 0, 64, HB_ADDR_NONE);
	ev.size = 8;
	assert_int_equal(hb_daemon_media_event(d, &ev), -EINVAL);
	ev = event(HB_EVENT_POISON, 0, 64, HB_ADDR_NONE);
	memset(ev.memdev, 'm', sizeof(ev.memdev));
	assert_int_equal(hb_daemon_media_event(d, &ev), -EINVAL);
	assert_int_equal(st->poison_events, 1);
	hb_daemon_free(d);
}

static void test_media_events_poison_is_never_promoted(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = new_daemon(&host, &cfg);
	const struct hb_media_stats *st = &hb_daemon_stats(d)->media;
	const struct hb_dryrun_record *rec;
	struct hb_device_event ev;
	struct hb_err err = { 0 };
	json_object *o, *v;
	size_t n;

	/* poison on mem0's first 8 pages (the kernel agrees on the first) */
	ev = event(HB_EVENT_POISON, 0, 8 * 4096, mem0_hpa(0));
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->quarantined_pages, 8);
	assert_int_equal(st->hpa_agree, 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hb_daemon_cycle(d), 0);
	/* the other 8 pages were hot and promoted; these 8 never */
	n = hb_migrator_dryrun_records(hb_daemon_migrator(d), &rec);
	assert_true(n >= 8);
	for (size_t i = 0; i < n; i++)
		if (hb_daemon_quarantined(d, rec[i].hpa))
			fail_msg("quarantined page %#llx promoted", (unsigned long long)rec[i].hpa);
	assert_true(st->quarantine_dropped > 0);
	/* the history names them, with a reason of their own */
	{
		const struct hb_history_entry *h;

		assert_int_equal(hb_history_find(d->history, true, mem0_hpa(0x3000), 4096, &h, 1), 1);
		assert_string_equal(hb_reason_to_string(h->reason), "quarantined");
		assert_true(hb_daemon_stats(d)->decisions[HB_REASON_QUARANTINED] > 0);
	}
	/* explain names it */
	assert_int_equal(hb_daemon_explain(d, mem0_hpa(0x3000) + 12, &o, &err), 0);
	assert_true(json_object_object_get_ex(o, "decision", &v));
	assert_string_equal(json_object_get_string(v), "quarantined");
	assert_true(json_object_object_get_ex(o, "reason", &v));
	assert_non_null(strstr(json_object_get_string(v), "poisoned"));
	json_object_put(o);
	assert_int_equal(hb_daemon_explain(d, mem0_hpa(0x9000), &o, &err), 0);
	assert_true(json_object_object_get_ex(o, "quarantined", &v));
	assert_false(json_object_get_boolean(v));
	json_object_put(o);
	hb_daemon_free(d);
}

/* 16 hot pages of mem0; the first 8 poisoned, page 2 uncorrectable too */
static struct hb_daemon *poisoned(struct hb_emulated_host *host, struct hb_config *cfg)
{
	struct hb_daemon *d = new_daemon(host, cfg);
	struct hb_device_event ev = event(HB_EVENT_POISON, 0, 8 * 4096, mem0_hpa(0));

	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	ev = event(HB_EVENT_MEDIA, 0x2000, 64, mem0_hpa(0x2000));
	ev.flags = HB_EVENT_F_UNCORRECTABLE;
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(hb_daemon_stats(d)->media.quarantined_pages, 8);
	return d;
}

static bool promoted(struct hb_daemon *d, uint64_t hpa)
{
	const struct hb_dryrun_record *rec;
	size_t n = hb_migrator_dryrun_records(hb_daemon_migrator(d), &rec);

	for (size_t i = 0; i < n; i++)
		if (rec[i].hpa == hpa)
			return true;
	return false;
}

static void test_media_events_cleared_poison_releases_once(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = poisoned(&host, &cfg);
	const struct hb_media_stats *st = &hb_daemon_stats(d)->media;
	struct hb_device_event ev;

	/* pages 0-3 cleared: 0, 1 and 3 come back, 2 (uncorrectable) stays out */
	ev = event(HB_EVENT_POISON, 0, 4 * 4096, mem0_hpa(0));
	ev.flags = HB_EVENT_F_CLEARED;
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->poison_cleared, 1);
	assert_int_equal(st->poison_released, 3);
	assert_int_equal(st->poison_clear_kept, 1);
	assert_int_equal(st->quarantined_pages, 5);
	assert_null(hb_daemon_quarantined(d, mem0_hpa(0x1000)));
	assert_non_null(hb_daemon_quarantined(d, mem0_hpa(0x2000)));
	/* page 1 poisoned again: out again, and a second clear keeps it out */
	ev = event(HB_EVENT_POISON, 0x1000, 64, mem0_hpa(0x1000));
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->quarantined_pages, 6);
	ev.flags = HB_EVENT_F_CLEARED;
	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(st->poison_clear_kept, 2);
	assert_int_equal(st->quarantined_pages, 6);
	assert_non_null(hb_daemon_quarantined(d, mem0_hpa(0x1000)));
	/* the replay file's records, all hot: the released ones are promoted, no other */
	for (int i = 0; i < 3; i++)
		assert_int_equal(hb_daemon_cycle(d), 0);
	assert_true(promoted(d, mem0_hpa(0)));
	assert_true(promoted(d, mem0_hpa(0x3000)));
	assert_false(promoted(d, mem0_hpa(0x1000)));
	assert_false(promoted(d, mem0_hpa(0x2000)));
	for (uint64_t dpa = 0x4000; dpa < 0x8000; dpa += 0x1000)
		assert_false(promoted(d, mem0_hpa(dpa)));
	hb_daemon_free(d);
}

/* poisoned after the policy chose it (the decision runs off the loop): refused, tokens back */
static void test_media_events_late_poison_is_refused(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_config cfg;
	struct hb_daemon *d = new_daemon(&host, &cfg);
	const struct hb_media_stats *st = &hb_daemon_stats(d)->media;
	struct hb_decision dec[3] = {
		{ .hpa = mem0_hpa(0), .target = 0, .reason = HB_REASON_PROMOTE },
		{ .hpa = mem0_hpa(0x1000), .target = 0, .reason = HB_REASON_PROMOTE },
	};
	struct hb_candidate aside = { .hpa = mem0_hpa(0x5000), .heat = 9, .node = 1, .source = 0 };
	struct hb_policy_spent spent = { .promoted = 2, .bytes = { 8192 } };
	struct hb_device_event ev = event(HB_EVENT_POISON, 0x1000, 64, mem0_hpa(0x1000));

	assert_int_equal(hb_daemon_media_event(d, &ev), 0);
	assert_int_equal(hb_daemon_refuse_quarantined(d, dec, 2, &aside, 1, &spent), 3);
	assert_int_equal(dec[0].reason, HB_REASON_PROMOTE);
	assert_int_equal(dec[1].reason, HB_REASON_QUARANTINED);
	assert_int_equal(spent.promoted, 1);
	assert_int_equal(spent.bytes[0], 4096);
	assert_int_equal(st->quarantine_refused_late, 1);
	/* the page set aside at the gathering: a decision of its own, after them */
	assert_int_equal(dec[2].reason, HB_REASON_QUARANTINED);
	assert_int_equal(dec[2].hpa, mem0_hpa(0x5000));
	assert_int_equal(dec[2].target, -1);
	hb_daemon_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_media_events_cleared_poison_releases_once),
		cmocka_unit_test(test_media_events_late_poison_is_refused),
		cmocka_unit_test(test_media_events_cross_check),
		cmocka_unit_test(test_media_events_poison_is_never_promoted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
