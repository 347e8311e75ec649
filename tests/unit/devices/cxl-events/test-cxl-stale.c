// SPDX-License-Identifier: MIT
/*
 * Stale tracefs instances (devices/cxl-events/stale.c) over a fake
 * instances directory: hotbridge-<pid> of a dead process is removed and
 * reported, ours, a live process's, other names and names that only look
 * like a pid are kept; an instance that cannot be removed is reported with
 * its errno and kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cxl-events/cxl-events.h"

static char seen[1024];

static void on_stale(void *ud, const char *name, int err)
{
	size_t n = strlen(seen);

	snprintf(seen + n, sizeof(seen) - n, "%s:%d;", name, err);
	(*(int *)ud)++;
}

/* a pid no process has: a child's, reaped */
static int dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return (int)pid;
}

static void mk(const char *dir, const char *fmt, int pid)
{
	char path[4096], name[64];

	snprintf(name, sizeof(name), fmt, pid);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
}

static bool has(const char *dir, const char *fmt, int pid)
{
	char path[4096], name[64];
	struct stat st;

	snprintf(name, sizeof(name), fmt, pid);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

static void test_instance_pid(void **state)
{
	assert_int_equal(hb_cxl_instance_pid("hotbridge-1234"), 1234);
	assert_int_equal(hb_cxl_instance_pid("hotbridge-1"), 1);
	assert_int_equal(hb_cxl_instance_pid("hotbridge-"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("hotbridge-0"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("hotbridge-012"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("hotbridge-12x"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("hotbridge--12"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("hotbridge-0x12"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("hotbridge-99999999999"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("oracle-12"), -EINVAL);
	assert_int_equal(hb_cxl_instance_pid("xhotbridge-12"), -EINVAL);
}

static void test_remove_stale(void **state)
{
	char dir[] = "/tmp/hb-test-stale-XXXXXX", path[4096];
	int dead = dead_pid(), dead2 = dead_pid(), calls = 0;

	assert_non_null(mkdtemp(dir));
	mk(dir, "hotbridge-%d", dead);
	mk(dir, "hotbridge-%d", getpid());  /* ours: alive */
	mk(dir, "hotbridge-%d", getppid()); /* a live process */
	mk(dir, "oracle-%d", dead);         /* not ours by name */
	mk(dir, "hotbridge-0%d", dead);     /* not a pid we would have written */
	/* a dead one that cannot be removed (not empty here; busy in tracefs) */
	mk(dir, "hotbridge-%d", dead2);
	snprintf(path, sizeof(path), "%s/hotbridge-%d/busy", dir, dead2);
	assert_int_equal(mkdir(path, 0700), 0);
	seen[0] = 0;

	assert_int_equal(hb_cxl_remove_stale(dir, on_stale, &calls), 1);
	assert_int_equal(calls, 2);
	assert_false(has(dir, "hotbridge-%d", dead));
	assert_true(has(dir, "hotbridge-%d", getpid()));
	assert_true(has(dir, "hotbridge-%d", getppid()));
	assert_true(has(dir, "oracle-%d", dead));
	assert_true(has(dir, "hotbridge-0%d", dead));
	assert_true(has(dir, "hotbridge-%d", dead2));
	snprintf(path, sizeof(path), "hotbridge-%d:0;", dead);
	assert_non_null(strstr(seen, path));
	snprintf(path, sizeof(path), "hotbridge-%d:%d;", dead2, -ENOTEMPTY);
	assert_non_null(strstr(seen, path));

	/* nothing left to do the second time but the busy one */
	calls = 0;
	assert_int_equal(hb_cxl_remove_stale(dir, on_stale, &calls), 0);
	assert_int_equal(calls, 1);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	assert_int_equal(hb_cxl_remove_stale(dir, on_stale, &calls), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instance_pid),
		cmocka_unit_test(test_remove_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
