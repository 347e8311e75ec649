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
	assert_non_null(strstr(m.why, "proved by /sys/kernel/mm/move_phys_pages/syscall_nr"));

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

	/* symbol present, no sysfs file: nothing names the number */
	assert_int_equal(hb_mpp_probe(root("no-sysfs"), 0, &m, &err), -ENOSYS);
	assert_non_null(strstr(err.msg, "no /sys/kernel/mm/move_phys_pages/syscall_nr"));
	assert_non_null(
		strstr(err.msg, "__x64_sys_move_phys_pages is in /proc/kallsyms: a port without"));
}

/*
 * review W2: a configured number is never called on the word of a symbol
 * or a tracepoint (they prove the function, not the number: 451 is
 * cachestat on 6.5+); only the kernel's syscall_nr proves it.
 */
static void test_probe_refuses_a_configured_number_without_the_sysfs_proof(void **state)
{
	static const char *const fixtures[] = { "no-sysfs", "tracepoint-only", "arm64" };
	struct hb_migrator_config cfg = { .syscall_nr = 451 };
	struct hb_migrator *mig = NULL;
	struct hb_mpp m;
	struct hb_err err = { 0 };

	seam_calls = 0;
	for (size_t i = 0; i < HB_ARRAY_SIZE(fixtures); i++) {
		hb_err_clear(&err);
		assert_int_equal(hb_mpp_probe(root(fixtures[i]), 451, &m, &err), -ENOSYS);
		assert_false(m.available);
		if (!strstr(err.msg, "syscall number 451 is not called without "
				     "/sys/kernel/mm/move_phys_pages/syscall_nr, the only proof of "
				     "which call it reaches"))
			fail_msg("%s: %s", fixtures[i], err.msg);
		assert_int_equal(hb_mpp_move(&m, 0, NULL, NULL, NULL, 0), -ENOSYS);
		/* the phys backend does not open on it either */
		cfg.root = root(fixtures[i]);
		assert_int_equal(hb_migrator_new(HB_MIGRATOR_PHYS, &cfg, &mig, &err), -ENOSYS);
		assert_null(mig);
	}
	assert_int_equal(seam_calls, 0);
	/* what the kernel shows is named, on any architecture */
	assert_int_equal(hb_mpp_probe(root("tracepoint-only"), 451, &m, &err), -ENOSYS);
	assert_non_null(strstr(err.msg, "tracepoint exists, with no number"));
	assert_int_equal(hb_mpp_probe(root("arm64"), 451, &m, &err), -ENOSYS);
	assert_non_null(strstr(err.msg, "this architecture does not number the call "
					"(abi_version, __arm64_sys_move_phys_pages)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_takes_the_number_from_the_ported_kernel),
		cmocka_unit_test(test_probe_refuses_a_number_the_kernel_contradicts),
		cmocka_unit_test(test_probe_without_proof_never_calls),
		cmocka_unit_test(test_probe_refuses_another_abi_version),
		cmocka_unit_test(test_probe_needs_a_number_from_somewhere),
		cmocka_unit_test(test_probe_refuses_a_configured_number_without_the_sysfs_proof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
