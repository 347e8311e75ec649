// SPDX-License-Identifier: MIT
/*
 * Idle page tracking (kernel/coldness/idle.c) over a fake bitmap: a regular file at
 * <tmp>/sys/kernel/mm/page_idle/bitmap, 64 words (PFNs 0-4095) unless a
 * test grows it. What differs from the kernel's file:
 *  - a write stores whole words as given: its 0 bits clear what was there
 *    (the kernel ignores 0 bits and only sets idle for 1 bits);
 *  - a read returns what was stored (the kernel returns its own view: a
 *    page touched since it was marked reads 0). Tests play "the host
 *    touched page p" by clearing p's bit in the file themselves;
 *  - a write past the end extends the file (the kernel fails with ENXIO
 *    past its last PFN); a read there returns nothing, as the kernel's does.
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
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static char root[64];
static char bitmap[128];

static void bitmap_words(size_t words)
{
	uint64_t *zero = calloc(words, 8);
	int fd = open(bitmap, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, zero, words * 8), (ssize_t)(words * 8));
	close(fd);
	free(zero);
}

static uint64_t word_at(size_t k)
{
	uint64_t w = 0;
	int fd = open(bitmap, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &w, 8, (off_t)(k * 8)), 8);
	close(fd);
	return w;
}

/* the host touched pfn: the kernel's view of it is no longer idle */
static void touch(uint64_t pfn)
{
	uint64_t w = word_at(pfn / 64) & ~(1ULL << (pfn % 64));
	int fd = open(bitmap, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &w, 8, (off_t)(pfn / 64 * 8)), 8);
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	hb_fake_tree_new(root, sizeof(root), "test-idle");
	hb_fake_put(root, "/sys/kernel/mm/page_idle", NULL);
	snprintf(bitmap, sizeof(bitmap), "%s%s", root, HB_IDLE_BITMAP);
	bitmap_words(64);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hb_fake_tree_remove(root);
	return 0;
}

static void test_idle_absent_names_the_kernel_option(void **state)
{
	struct hb_idle *t = NULL;
	struct hb_err err = { 0 };
	char p[128];

	(void)state;
	assert_int_equal(unlink(bitmap), 0);
	assert_int_equal(hb_idle_open(root, &t, &err), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(err.msg, "CONFIG_IDLE_PAGE_TRACKING"));
	assert_non_null(strstr(err.msg, bitmap));
	snprintf(p, sizeof(p), "%s/nothing", root);
	assert_int_equal(hb_idle_open(p, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "sysfs is not mounted"));
}

static void test_idle_open_error_is_named(void **state)
{
	struct hb_idle *t = NULL;
	struct hb_err err = { 0 };

	(void)state;
	assert_int_equal(unlink(bitmap), 0);
	assert_int_equal(mkdir(bitmap, 0700), 0);
	assert_int_equal(hb_idle_open(root, &t, &err), -EISDIR);
	assert_non_null(strstr(err.msg, bitmap));
	assert_non_null(strstr(err.msg, strerror(EISDIR)));
}

static void test_idle_mark_sets_exactly_the_bits_of_the_set(void **state)
{
	const uint64_t pfn[] = { 3, 64, 65, 200, 904 }; /* 904: word 14, bit 8 */
	_hb_cleanup_(hb_idle_freep) struct hb_idle *t = NULL;
	struct hb_err err = { 0 };

	(void)state;
	assert_int_equal(hb_idle_open(root, &t, &err), 0);
	assert_int_equal(hb_idle_mark(t, 5, pfn, &err), 0);
	assert_int_equal(word_at(0), 1ULL << 3);
	assert_int_equal(word_at(1), 3);
	assert_int_equal(word_at(2), 0);
	assert_int_equal(word_at(3), 1ULL << 8);
	assert_int_equal(word_at(14), 1ULL << 8);
	for (size_t k = 4; k < 64; k++)
		if (k != 14)
			assert_int_equal(word_at(k), 0);
}

static void test_idle_read_reports_the_untouched_pages(void **state)
{
	uint64_t pfn[300];
	bool idle[300];
	_hb_cleanup_(hb_idle_freep) struct hb_idle *t = NULL;
	struct hb_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < 300; i++)
		pfn[i] = 7 + i * 13; /* 7 .. 3894, across many words */
	assert_int_equal(hb_idle_open(root, &t, &err), 0);
	assert_int_equal(hb_idle_mark(t, 300, pfn, &err), 0);
	for (size_t i = 0; i < 300; i += 2)
		touch(pfn[i]);
	assert_int_equal(hb_idle_read(t, 300, pfn, idle, &err), 150);
	for (size_t i = 0; i < 300; i++)
		assert_int_equal(idle[i], i % 2 == 1);
}

static void test_idle_repeats_are_allowed(void **state)
{
	const uint64_t pfn[] = { 7, 7, 8 };
	bool idle[3];
	_hb_cleanup_(hb_idle_freep) struct hb_idle *t = NULL;
	struct hb_err err = { 0 };

	(void)state;
	assert_int_equal(hb_idle_open(root, &t, &err), 0);
	assert_int_equal(hb_idle_mark(t, 3, pfn, &err), 0);
	assert_int_equal(word_at(0), 3ULL << 7);
	touch(8);
	assert_int_equal(hb_idle_read(t, 3, pfn, idle, &err), 2);
	assert_true(idle[0] && idle[1] && !idle[2]);
}

static void test_idle_unsorted_set_is_refused_before_any_write(void **state)
{
	const uint64_t pfn[] = { 64, 700, 65 };
	bool idle[3];
	_hb_cleanup_(hb_idle_freep) struct hb_idle *t = NULL;
	struct hb_err err = { 0 };
	struct hb_idle_stats st;

	(void)state;
	assert_int_equal(hb_idle_open(root, &t, &err), 0);
	assert_int_equal(hb_idle_mark(t, 3, pfn, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "0x41 (entry 2)"));
	assert_non_null(strstr(err.msg, "sorted"));
	assert_int_equal(hb_idle_read(t, 3, pfn, idle, &err), -EINVAL);
	hb_idle_get_stats(t, &st);
	assert_int_equal(st.pwrites + st.preads, 0);
	assert_int_equal(word_at(1), 0);
}

static void test_idle_runs_bridge_one_word_and_stop_at_a_page(void **state)
{
	_hb_cleanup_(hb_idle_freep) struct hb_idle *t = NULL;
	struct hb_err err = { 0 };
	struct hb_idle_stats st;
	uint64_t pfn[600];
	bool idle[600];

	(void)state;
	bitmap_words(1024);
	assert_int_equal(hb_idle_open(root, &t, &err), 0);
	/* words 0 and 2: one run of 3 words; words 0 and 3: two runs of 1 */
	pfn[0] = 1, pfn[1] = 2 * 64 + 5;
	assert_int_equal(hb_idle_mark(t, 2, pfn, &err), 0);
	hb_idle_get_stats(t, &st);
	assert_int_equal(st.pwrites, 1);
	assert_int_equal(st.words_written, 3);
	pfn[1] = 3 * 64 + 5;
	assert_int_equal(hb_idle_read(t, 2, pfn, idle, &err), 1);
	assert_true(idle[0] && !idle[1]);
	hb_idle_get_stats(t, &st);
	assert_int_equal(st.preads, 2);
	assert_int_equal(st.words_read, 2);
	/* 600 consecutive words: 512 in one call, then 88 */
	for (size_t i = 0; i < 600; i++)
		pfn[i] = i * 64 + 63;
	assert_int_equal(hb_idle_mark(t, 600, pfn, &err), 0);
	assert_int_equal(hb_idle_read(t, 600, pfn, idle, &err), 600);
	hb_idle_get_stats(t, &st);
	assert_int_equal(st.pwrites, 1 + 2);
	assert_int_equal(st.words_written, 3 + 600);
	assert_int_equal(st.preads, 2 + 2);
	assert_int_equal(st.words_read, 2 + 600);
	assert_int_equal(word_at(599), 1ULL << 63);
}

static void test_idle_past_the_last_pfn_names_the_pfn(void **state)
{
	const uint64_t pfn[] = { 10, 4095, 4096 + 5, 4096 + 6 };
	bool idle[4];
	_hb_cleanup_(hb_idle_freep) struct hb_idle *t = NULL;
	struct hb_err err = { 0 };

	(void)state;
	assert_int_equal(hb_idle_open(root, &t, &err), 0);
	/* words 63 and 64 are one run: the read stops short at the end */
	assert_int_equal(hb_idle_read(t, 4, pfn, idle, &err), -ENXIO);
	assert_non_null(strstr(err.msg, "PFN 0x1005 is beyond the end"));
	assert_non_null(strstr(err.msg, "before PFN 0x1000"));
	/* a run wholly past the end */
	assert_int_equal(hb_idle_read(t, 1, pfn + 3, idle, &err), -ENXIO);
	assert_non_null(strstr(err.msg, "PFN 0x1006 is beyond the end"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_idle_absent_names_the_kernel_option),
		T(test_idle_open_error_is_named),
		T(test_idle_mark_sets_exactly_the_bits_of_the_set),
		T(test_idle_read_reports_the_untouched_pages),
		T(test_idle_repeats_are_allowed),
		T(test_idle_unsorted_set_is_refused_before_any_write),
		T(test_idle_runs_bridge_one_word_and_stop_at_a_page),
		T(test_idle_past_the_last_pfn_names_the_pfn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
