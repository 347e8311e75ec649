// SPDX-License-Identifier: MIT
/*
 * Kernel uevents: the parser on the kernel's message format, and the
 * daemon rebuilding its topology once after a burst of CXL uevents
 * (debounced), ignoring other subsystems, keeping its hotness table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon.h"
#include "platform/emulated-host.h"
#include "platform/uevent.h"

#define MSG(s) s, sizeof(s) - 1

static void test_uevent_parses_kernel_messages(void **state)
{
	struct hb_uevent ev;

	assert_int_equal(
		hb_uevent_parse(MSG("add@/devices/platform/ACPI0017:00/root0/decoder0.0/region0\0"
				    "ACTION=add\0DEVPATH=/devices/platform/ACPI0017:00/root0/decoder0.0/region0\0"
				    "SUBSYSTEM=cxl\0DEVTYPE=cxl_region\0SEQNUM=4242\0"),
				&ev),
		1);
	assert_string_equal(ev.action, "add");
	assert_string_equal(ev.subsystem, "cxl");
	assert_string_equal(ev.devpath, "/devices/platform/ACPI0017:00/root0/decoder0.0/region0");
	assert_int_equal(hb_uevent_parse(MSG("online@/devices/system/memory/memory117\0"
					     "ACTION=online\0SUBSYSTEM=memory\0SEQNUM=7\0"),
					 &ev),
			 1);
	assert_int_equal(hb_uevent_parse(MSG("add@/devices/platform/dax0.0\0SUBSYSTEM=dax\0"), &ev),
			 1);
	assert_int_equal(hb_uevent_parse(MSG("add@/devices/virtual/net/lo\0SUBSYSTEM=net\0"), &ev),
			 0);
	assert_int_equal(hb_uevent_parse(MSG("libudev\0\xfe\xed\xca\xfe"), &ev), 0);
	assert_int_equal(hb_uevent_parse(MSG("no at sign\0SUBSYSTEM=cxl\0"), &ev), -EINVAL);
	assert_int_equal(hb_uevent_parse("add@/x", 6, &ev), -EINVAL); /* no NUL at all */
}

static void test_uevent_burst_rebuilds_the_topology_once(void **state)
{
	struct hb_emulated_host host = { .dram_free = 8ULL << 30 };
	struct hb_daemon_env env = {
		.quiet = true, .keep_capabilities = true, .stop_cycles = 4, .debounce_ms = 30
	};
	static const char *const params[] = { "capacity=536870912", "accesses=20000", NULL };
	struct hb_config cfg;
	struct hb_daemon *d = NULL;
	struct hb_err err = { 0 };
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	hb_config_defaults(&cfg);
	cfg.interval_ms = 100;
	cfg.dry_run = true;
	cfg.control_socket[0] = '\0';
	cfg.plugin_dir[0] = '\0';
	snprintf(cfg.log_level, sizeof(cfg.log_level), "err");
	cfg.nsources = 1;
	memset(&cfg.sources[0], 0, sizeof(cfg.sources[0]));
	strcpy(cfg.sources[0].name, "emu");
	strcpy(cfg.sources[0].type, "emul-chmu");
	strcpy(cfg.sources[0].memdev, "mem0");
	cfg.sources[0].params[0] = (char *)params[0];
	cfg.sources[0].params[1] = (char *)params[1];
	assert_int_equal(hb_emulated_platform_new(&host, &env.platform, &err), 0);
	hb_platform_set_events_fd(env.platform, sv[0]); /* the uevents, taken */
	assert_int_equal(hb_daemon_new(&cfg, &env, &d, &err), 0);
	host.d = d;
	for (int i = 0; i < 3; i++)
		assert_int_equal(send(sv[1],
				      MSG("add@/devices/platform/ACPI0017:00/root0/decoder0.0/region1\0"
					  "ACTION=add\0SUBSYSTEM=cxl\0"),
				      0),
				 84);
	assert_true(send(sv[1], MSG("add@/devices/virtual/net/veth0\0SUBSYSTEM=net\0"), 0) > 0);
	host.reloads = 0;
	assert_int_equal(hb_daemon_run(d, NULL), 0);
	assert_int_equal(hb_daemon_stats(d)->uevents, 3);
	assert_int_equal(hb_daemon_stats(d)->topology_reloads, 1);
	assert_int_equal(host.reloads, 1); /* counted by the emulated host */
	/* it went on translating against the new topology */
	assert_true(hb_daemon_stats(d)->in.translated > 0);
	assert_int_equal(hb_daemon_stats(d)->in.dropped[HB_DROP_UNMAPPED], 0);
	hb_daemon_free(d);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uevent_parses_kernel_messages),
		cmocka_unit_test(test_uevent_burst_rebuilds_the_topology_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
