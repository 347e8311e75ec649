// SPDX-License-Identifier: MIT
/*
 * hb_mpp_probe() enables move_phys_pages only with proof that the running
 * kernel has it, and takes its number from the kernel when not configured.
 * The syscall seam is wrapped: no test here may reach the kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel.h"

static int seam_calls;

long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags);
long __wrap_hb_sys_move_phys_pages(long nr, unsigned long count, const uint64_t *pages,
				   const int *nodes, int *status, int flags)
{
	seam_calls++;
	assert_int_equal(nr, 451);
	return 0;
}

static const char *root(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("HB_TEST_DATA");

	snprintf(buf, sizeof(buf), "%s/mpp-probe/%s", dir ? dir : "tests/data", name);
	return buf;
}

static void test_probe_takes_the_number_from_the_ported_kernel(void **state)
{
	struct hb_mpp m;
	struct hb_err err = { 0 };

	assert_int_equal(hb_mpp_probe(root("ported"), 0, &m, &err), 0);
	assert_true(m.available);
	assert_int_equal(m.nr, 451);
	assert_non_null(strstr(m.why, "from sysfs"));
	assert_non_null(strstr(m.why, "kallsyms"));

	assert_int_equal(hb_mpp_probe(root("ported"), 451, &m, &err), 0);
	assert_non_null(strstr(m.why, "matches sysfs"));

	seam_calls = 0;
	assert_int_equal(hb_mpp_move(&m, 0, NULL, NULL, NULL, 0), 0);
	assert_int_equal(seam_calls, 1);
}

static void test_probe_refuses_a_number_the_kernel_contradicts(void **state)
{
	struct hb_mpp m;
	struct hb_err err = { 0 };

	/* the RFC's 454 is futex_wake upstream; the port's own sysfs says 451 */
	assert_int_equal(hb_mpp_probe(root("ported"), 454, &m, &err), -EINVAL);
	assert_false(m.available);
	assert_non_null(strstr(err.msg, "configured syscall number 454"));
	assert_non_null(strstr(err.msg, "declares 451"));
	seam_calls = 0;
	assert_int_equal(hb_mpp_move(&m, 0, NULL, NULL, NULL, 0), -ENOSYS);
	assert_int_equal(seam_calls, 0);
}

static void test_probe_without_proof_never_calls(void **state)
{
	struct hb_mpp m;
	struct hb_err err = { 0 };

	seam_calls = 0;
	assert_int_equal(hb_mpp_probe(root("stub"), 451, &m, &err), -ENOSYS);
	assert_non_null(strstr(err.msg, "weak stub"));
	assert_int_equal(hb_mpp_move(&m, 0, NULL, NULL, NULL, 0), -ENOSYS);

	assert_int_equal(hb_mpp_probe(root("stock"), 451, &m, &err), -ENOSYS);
	assert_non_null(strstr(err.msg, "does not carry kernel/patches"));
	assert_int_equal(hb_mpp_move(&m, 0, NULL, NULL, NULL, 0), -ENOSYS);

	assert_int_equal(hb_mpp_probe(root("absent"), 451, &m, &err), -ENOSYS);
	assert_non_null(strstr(err.msg, "cannot read /proc/kallsyms"));
	assert_int_equal(hb_mpp_move(NULL, 0, NULL, NULL, NULL, 0), -ENOSYS);
	assert_int_equal(seam_calls, 0);
}

static void test_probe_refuses_another_abi_version(void **state)
{
	struct hb_mpp m;
	struct hb_err err = { 0 };

	assert_int_equal(hb_mpp_probe(root("abi2"), 0, &m, &err), -EPROTO);
	assert_false(m.available);
	assert_non_null(strstr(err.msg, "ABI 2"));
}

static void test_probe_needs_a_number_from_somewhere(void **state)
{
	struct hb_mpp m;
	struct hb_err err = { 0 };

	/* symbol present, no sysfs file: only a configured number will do */
	assert_int_equal(hb_mpp_probe(root("no-sysfs"), 0, &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no syscall number configured"));
	assert_int_equal(hb_mpp_probe(root("no-sysfs"), 451, &m, &err), 0);
	assert_int_equal(m.nr, 451);

	/* kallsyms unreadable, but the syscall tracepoint proves the entry */
	assert_int_equal(hb_mpp_probe(root("tracepoint-only"), 451, &m, &err), 0);
	assert_non_null(strstr(m.why, "tracepoint"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_takes_the_number_from_the_ported_kernel),
		cmocka_unit_test(test_probe_refuses_a_number_the_kernel_contradicts),
		cmocka_unit_test(test_probe_without_proof_never_calls),
		cmocka_unit_test(test_probe_refuses_another_abi_version),
		cmocka_unit_test(test_probe_needs_a_number_from_somewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
