// SPDX-License-Identifier: MIT
/*
 * The plugin ABI (devices/hb-device.h) is pinned: sizes and offsets of
 * every v1 struct on LP64, and the checks that refuse an ops table the
 * host must not touch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "devices.h"

static void test_abi_v1_layout_is_pinned(void **state)
{
	assert_int_equal(HB_DEVICE_ABI_MAJOR, 1);
	assert_int_equal(sizeof(struct hb_hot_record), 56);
	assert_int_equal(offsetof(struct hb_hot_record, space), 0);
	assert_int_equal(offsetof(struct hb_hot_record, flags), 4);
	assert_int_equal(offsetof(struct hb_hot_record, memdev), 8);
	assert_int_equal(offsetof(struct hb_hot_record, addr), 24);
	assert_int_equal(offsetof(struct hb_hot_record, len), 32);
	assert_int_equal(offsetof(struct hb_hot_record, count), 40);
	assert_int_equal(offsetof(struct hb_hot_record, timestamp_ns), 48);

	assert_int_equal(sizeof(struct hb_host_ops), 88);
	assert_int_equal(offsetof(struct hb_host_ops, size), 8);
	assert_int_equal(offsetof(struct hb_host_ops, log), 16);
	assert_int_equal(offsetof(struct hb_host_ops, watch_fd), 24);
	assert_int_equal(offsetof(struct hb_host_ops, unwatch_fd), 32);
	assert_int_equal(offsetof(struct hb_host_ops, arm_timer), 40);
	assert_int_equal(offsetof(struct hb_host_ops, submit), 48);
	assert_int_equal(offsetof(struct hb_host_ops, count_bad), 56);      /* 1.1 */
	assert_int_equal(offsetof(struct hb_host_ops, submit_event), 64);   /* 1.2 */
	assert_int_equal(offsetof(struct hb_host_ops, count_overflow), 72); /* 1.3 */
	assert_int_equal(offsetof(struct hb_host_ops, backlog_full), 80);   /* 1.4 */

	assert_int_equal(sizeof(struct hb_device_event), 64); /* 1.2 */
	assert_int_equal(offsetof(struct hb_device_event, kind), 4);
	assert_int_equal(offsetof(struct hb_device_event, flags), 8);
	assert_int_equal(offsetof(struct hb_device_event, count), 12);
	assert_int_equal(offsetof(struct hb_device_event, memdev), 16);
	assert_int_equal(offsetof(struct hb_device_event, dpa), 32);
	assert_int_equal(offsetof(struct hb_device_event, len), 40);
	assert_int_equal(offsetof(struct hb_device_event, hpa), 48);
	assert_int_equal(offsetof(struct hb_device_event, timestamp_ns), 56);

	assert_int_equal(sizeof(struct hb_dev_info), 40);
	assert_int_equal(offsetof(struct hb_dev_info, name), 8);
	assert_int_equal(offsetof(struct hb_dev_info, memdev), 16);
	assert_int_equal(offsetof(struct hb_dev_info, pci_bdf), 24);
	assert_int_equal(offsetof(struct hb_dev_info, params), 32);

	assert_int_equal(sizeof(struct hb_device_ops), 64);
	assert_int_equal(offsetof(struct hb_device_ops, size), 8);
	assert_int_equal(offsetof(struct hb_device_ops, name), 16);
	assert_int_equal(offsetof(struct hb_device_ops, caps), 24);
	assert_int_equal(offsetof(struct hb_device_ops, probe), 32);
	assert_int_equal(offsetof(struct hb_device_ops, open), 40);
	assert_int_equal(offsetof(struct hb_device_ops, poll), 48);
	assert_int_equal(offsetof(struct hb_device_ops, close), 56);
	assert_int_equal(HB_DEV_CAP_ALL_V1, 0xf);
}

static int fake_open(const struct hb_host_ops *ops, struct hb_host *h,
		     const struct hb_dev_info *info, void **ret_priv)
{
	return 0;
}

static int fake_poll(void *priv)
{
	return 0;
}

static void fake_close(void *priv)
{
}

static struct hb_device_ops good(void)
{
	return (struct hb_device_ops){
		.abi_major = 1,
		.abi_minor = 0,
		.size = sizeof(struct hb_device_ops),
		.name = "fake",
		.caps = HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
		.open = fake_open,
		.poll = fake_poll,
		.close = fake_close,
	};
}

static void expect_refused(const struct hb_device_ops *ops, int code, const char *needle)
{
	struct hb_err err = { 0 };

	assert_int_equal(hb_device_ops_check(ops, "/x/acme.so", &err), code);
	assert_non_null(strstr(err.msg, "/x/acme.so"));
	assert_non_null(strstr(err.msg, needle));
}

static void test_abi_check_refuses_what_the_host_cannot_use(void **state)
{
	struct hb_device_ops o = good();
	struct hb_err err = { 0 };

	assert_int_equal(hb_device_ops_check(&o, "built-in", &err), 0);
	/* a newer minor with a bigger table is fine: the host ignores the tail */
	o.abi_minor = 7;
	o.size = 200;
	assert_int_equal(hb_device_ops_check(&o, "built-in", &err), 0);

	expect_refused(NULL, -EINVAL, "no ops table");
	o = good(), o.abi_major = 2;
	expect_refused(&o, -EPROTO, "plugin ABI 2.0, host speaks 1.4");
	o = good(), o.size = offsetof(struct hb_device_ops, close);
	expect_refused(&o, -EPROTO, "ABI 1.0 needs 64");
	o = good(), o.name = "";
	expect_refused(&o, -EINVAL, "no name");
	o = good(), o.caps |= 1ull << 9;
	expect_refused(&o, -EINVAL, "unknown capability bits 0x200");
	o = good(), o.caps = HB_DEV_CAP_POLL;
	expect_refused(&o, -EINVAL, "neither DPA nor HPA");
	o = good(), o.caps = HB_DEV_CAP_HPA;
	expect_refused(&o, -EINVAL, "neither polled nor fd-driven");
	o = good(), o.open = NULL;
	expect_refused(&o, -EINVAL, "missing open op");
	o = good(), o.close = NULL;
	expect_refused(&o, -EINVAL, "missing close op");
	o = good(), o.poll = NULL;
	expect_refused(&o, -EINVAL, "HB_DEV_CAP_POLL without a poll op");
	/* fd-driven sources need no poll */
	o = good(), o.poll = NULL, o.caps = HB_DEV_CAP_FD | HB_DEV_CAP_HPA;
	assert_int_equal(hb_device_ops_check(&o, "built-in", &err), 0);
}

static void test_abi_builtins_pass_their_own_check(void **state)
{
	const struct hb_device_ops *const *v;
	struct hb_err err = { 0 };
	size_t n = hb_builtin_sources(&v);

	for (size_t i = 0; i < n; i++) {
		assert_int_equal(hb_device_ops_check(v[i], "built-in", &err), 0);
		assert_ptr_equal(hb_builtin_find(v[i]->name), v[i]);
	}
	assert_null(hb_builtin_find("no-such-source"));
}

static void test_abi_ops_has_checks_the_size(void **state)
{
	struct hb_host_ops h = { .size = offsetof(struct hb_host_ops, count_bad) };
	struct hb_device_ops o = good();

	/* a 1.0 host's table ends before count_bad */
	assert_true(HB_OPS_HAS(&h, submit));
	assert_false(HB_OPS_HAS(&h, count_bad));
	h.size = offsetof(struct hb_host_ops, count_bad) + sizeof(h.count_bad) - 1;
	assert_false(HB_OPS_HAS(&h, count_bad));
	h.size = sizeof(h);
	assert_true(HB_OPS_HAS(&h, count_bad));

	assert_true(HB_OPS_HAS(&o, close));
	o.size = offsetof(struct hb_device_ops, close);
	assert_false(HB_OPS_HAS(&o, close));
	assert_true(HB_OPS_HAS(&o, poll));
}

static void test_abi_param_helpers(void **state)
{
	const char *params[] = {
		"size=0x1000", "sizes=7", "name=", "bad=010", "huge=0x10000000000000000", NULL
	};
	const char *few[] = { "size", "sizes", "name", "bad", NULL };
	const char *all[] = { "size", "sizes", "name", "bad", "huge", NULL };
	struct hb_dev_info info = { .size = sizeof(info), .name = "s0", .params = params };
	struct hb_dev_info none = { .size = sizeof(none), .name = "s1" };
	uint64_t v = 5;

	assert_string_equal(hb_dev_param(&info, "size"), "0x1000");
	assert_string_equal(hb_dev_param(&info, "sizes"), "7");
	assert_string_equal(hb_dev_param(&info, "name"), "");
	assert_null(hb_dev_param(&info, "siz"));
	assert_null(hb_dev_param(&none, "size"));

	assert_string_equal(hb_dev_param_unknown(&info, few), "huge=0x10000000000000000");
	assert_null(hb_dev_param_unknown(&info, all));
	assert_null(hb_dev_param_unknown(&none, few));

	assert_int_equal(hb_dev_param_get_u64(&info, "size", 9, &v), 0);
	assert_int_equal(v, 0x1000);
	assert_int_equal(hb_dev_param_get_u64(&info, "absent", 9, &v), 0);
	assert_int_equal(v, 9);
	assert_int_equal(hb_dev_param_get_u64(&info, "bad", 9, &v), -EINVAL);
	assert_int_equal(hb_dev_param_get_u64(&info, "huge", 9, &v), -ERANGE);
	assert_int_equal(hb_dev_param_get_u64(&info, "name", 9, &v), -EINVAL);
	assert_int_equal(v, 9); /* untouched on failure */
}

/* Plugins take numbers exactly as the daemon's config does (hb_parse_u64). */
static void test_abi_param_numbers_match_the_config(void **state)
{
	static const char *const in[] = {
		"0",
		"1",
		"42",
		"010",
		"00",
		"0x",
		"0X",
		"0x0",
		"0x10",
		"0X1f",
		"0xFFff",
		"0x-1",
		"0x 1",
		" 1",
		"1 ",
		"+1",
		"-1",
		"",
		"1e3",
		"12a",
		"0xg",
		"0b1",
		"18446744073709551615",
		"18446744073709551616",
		"99999999999999999999",
		"0xffffffffffffffff",
		"0x10000000000000000",
		"0x00000000000000000001",
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		uint64_t a = 7, b = 7;
		int ra = hb_dev_param_parse_u64(in[i], &a), rb = hb_parse_u64(in[i], &b);

		if (ra != rb || a != b)
			fail_msg("'%s': plugin helper %d (%llu), config %d (%llu)", in[i], ra,
				 (unsigned long long)a, rb, (unsigned long long)b);
	}
	assert_int_equal(hb_dev_param_parse_u64(NULL, &(uint64_t){ 0 }), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abi_v1_layout_is_pinned),
		cmocka_unit_test(test_abi_check_refuses_what_the_host_cannot_use),
		cmocka_unit_test(test_abi_builtins_pass_their_own_check),
		cmocka_unit_test(test_abi_ops_has_checks_the_size),
		cmocka_unit_test(test_abi_param_helpers),
		cmocka_unit_test(test_abi_param_numbers_match_the_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
