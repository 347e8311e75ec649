// SPDX-License-Identifier: MIT
/*
 * The cxl-events source against the running kernel's tracefs, mounted in a
 * private mount namespace (the host's mounts stay as they are; instances
 * are the kernel's, so whatever the source creates must be gone after
 * close). Root only (skips otherwise). Where the kernel has the cxl events
 * the source opens, enables them in its own instance and watches one fd a
 * CPU; where it has none (most hosts) the failed open must remove the
 * instance it created. An instance that exists already is refused and left
 * alone, and a bad instance name is refused.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devices.h"

static char tracefs[64] = "/tmp/hb-test-tracefs-XXXXXX";
static char logged[4096];
static int watched;

HB_PRINTF(3, 4)
static void t_log(struct hb_host *h, int prio, const char *fmt, ...)
{
	size_t n = strlen(logged);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logged + n, sizeof(logged) - n, fmt, ap);
	va_end(ap);
	n = strlen(logged);
	if (n + 1 < sizeof(logged))
		strcat(logged, "\n");
}

static int t_watch(struct hb_host *h, int fd, uint32_t ev,
		   void (*cb)(void *priv, int fd, uint32_t revents), void *priv)
{
	watched++;
	return 0;
}

static int t_unwatch(struct hb_host *h, int fd)
{
	watched--;
	return 0;
}

static int t_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	return 0;
}

static void t_count_bad(struct hb_host *h, uint64_t n)
{
}

static int t_submit_event(struct hb_host *h, const struct hb_device_event *ev)
{
	return 0;
}

static const struct hb_host_ops host = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_host_ops),
	.log = t_log,
	.watch_fd = t_watch,
	.unwatch_fd = t_unwatch,
	.submit = t_submit,
	.count_bad = t_count_bad,
	.submit_event = t_submit_event,
};

static bool exists(const char *rel)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tracefs, rel);
	return stat(path, &st) == 0;
}

static bool usable;

static int setup(void **state)
{
	/* a private tracefs mount: nothing of the host's mount table changes */
	usable = geteuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
		 mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0 && mkdtemp(tracefs) &&
		 mount("nodev", tracefs, "tracefs", 0, NULL) == 0;
	if (!usable)
		print_message("# not root, or tracefs cannot be mounted here: skipped\n");
	return 0;
}

static int teardown(void **state)
{
	if (usable)
		umount(tracefs);
	rmdir(tracefs);
	return 0;
}

static int open_source(const char *instance, void **priv)
{
	const struct hb_device_ops *ops = hb_builtin_find("cxl-events");
	char param[128];
	const char *params[] = { param, NULL };
	struct hb_dev_info info = { .size = sizeof(info), .name = "cxl", .params = params };

	snprintf(param, sizeof(param), "instance=%s", instance);
	assert_non_null(ops);
	logged[0] = 0;
	watched = 0;
	*priv = NULL;
	return ops->open(&host, NULL, &info, priv);
}

static void test_cxl_source_instance_lifecycle(void **state)
{
	const struct hb_device_ops *ops = hb_builtin_find("cxl-events");
	char name[64], rel[128], why[256];
	void *priv;
	int r;

	if (!usable)
		skip();
	snprintf(name, sizeof(name), "hb-test-%ld", (long)getpid());
	snprintf(rel, sizeof(rel), "instances/%s", name);
	r = open_source(name, &priv);
	if (exists("events/cxl")) {
		if (r < 0)
			fail_msg("open: %d: %s", r, logged);
		assert_true(exists(rel));
		assert_true(watched > 0);
		snprintf(rel, sizeof(rel), "instances/%s/events/cxl/cxl_poison/enable", name);
		assert_true(exists(rel));
		ops->close(priv);
		assert_int_equal(watched, 0);
		print_message("# this kernel has the cxl events: opened and closed\n");
	} else {
		/* the instance was made, then none of the events was there */
		assert_int_equal(r, -ENOENT);
		assert_non_null(strstr(logged, "none of the cxl events is in tracefs"));
		assert_int_equal(hb_builtin_available("cxl-events", why, sizeof(why)), 0);
		print_message("# no cxl events here: %s\n", why);
	}
	snprintf(rel, sizeof(rel), "instances/%s", name);
	assert_false(exists(rel));
}

static void test_cxl_source_refuses_what_is_not_its_own(void **state)
{
	char name[64], path[4096];
	void *priv;

	if (!usable)
		skip();
	snprintf(name, sizeof(name), "hb-test-other-%ld", (long)getpid());
	snprintf(path, sizeof(path), "%s/instances/%s", tracefs, name);
	assert_int_equal(mkdir(path, 0750), 0); /* another tracer's */
	assert_int_equal(open_source(name, &priv), -EEXIST);
	assert_non_null(strstr(logged, "exists already: not ours, not touched"));
	assert_true(exists(path + strlen(tracefs) + 1));
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(open_source("a/b", &priv), -EINVAL);
	assert_non_null(strstr(logged, "instance=a/b is not a directory name"));
	assert_int_equal(open_source("..", &priv), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxl_source_instance_lifecycle),
		cmocka_unit_test(test_cxl_source_refuses_what_is_not_its_own),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
