/* SPDX-License-Identifier: MIT */
/*
 * Test hooks of the commands: options that point a command at fixtures
 * instead of this host (list --pci-dump/--sysfs-root, translate
 * --sysfs-root). They exist only in hotbridge-test: the same commands
 * compiled with HB_TEST_HOOKS, built with the tests and never installed
 * (daemon/meson.build). hotbridge itself does not list them and refuses
 * them by name.
 */
#ifndef HB_CMD_TEST_HOOKS_H
#define HB_CMD_TEST_HOOKS_H

#include <stdbool.h>
#include <stdio.h>

#ifdef HB_TEST_HOOKS
#define HB_TEST_HOOK_USAGE(text) text
#else
#define HB_TEST_HOOK_USAGE(text) ""
#endif

/* May this binary take the test hook opt? If not, says so ("cmd: ..."). */
static inline bool hb_test_hook_allowed(const char *cmd, const char *opt)
{
#ifdef HB_TEST_HOOKS
	return true;
#else
	fprintf(stderr,
		"%s: %s is a test hook: only hotbridge-test, built with the tests, "
		"takes it\n",
		cmd, opt);
	return false;
#endif
}

#endif
