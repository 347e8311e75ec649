// SPDX-License-Identifier: MIT
/*
 * The census of a node's page frames (kernel/coldness/frames.c) over a fake tree:
 * 32 KiB memory blocks (8 pages of 4 KiB; block_size_bytes "8000"), node 0
 * with blocks 2, 3 (online) and 4 (offline), node 1 with block 6, and a
 * /proc/kpageflags of 64 entries whose flags are the kernel's bits
 * (include/uapi/linux/kernel-page-flags.h).
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
#include <unistd.h>
#include <cmocka.h>

#include "fake-tree.h"
#include "coldness/frames.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define BIT(b) (1ULL << (b))
#define LRU BIT(HB_KPF_LRU)

static char root[64];
static uint64_t kpf[64];

static void put(const char *rel, const char *text)
{
	hb_fake_put(root, rel, text);
}

static void write_kpageflags(size_t n)
{
	hb_fake_put_bin(root, "/proc/kpageflags", kpf, n * 8);
}

static void block(int node, int index, bool online)
{
	char p[128], o[8];

	snprintf(p, sizeof(p), "/sys/devices/system/node/node%d/memory%d", node, index);
	put(p, NULL);
	snprintf(p, sizeof(p), "/sys/devices/system/memory/memory%d/online", index);
	snprintf(o, sizeof(o), "%d\n", online);
	put(p, o);
}

static int setup(void **state)
{
	(void)state;
	hb_fake_tree_new(root, sizeof(root), "test-frames");
	put("/proc", NULL);
	put("/sys/devices/system/memory/block_size_bytes", "8000\n");
	block(0, 2, true);
	block(0, 3, true);
	block(0, 4, false);
	block(1, 6, true);
	put("/sys/devices/system/node/node0/cpulist", "0-1\n"); /* not a block */
	put("/sys/devices/system/node/node5", NULL);            /* no memory */
	memset(kpf, 0, sizeof(kpf));
	for (int p = 16; p < 64; p++)
		kpf[p] = LRU | BIT(HB_KPF_MMAP) | BIT(12);
	write_kpageflags(64);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hb_fake_tree_remove(root);
	return 0;
}

static void test_frames_movable_is_a_base_page_on_an_lru(void **state)
{
	static const int refused[] = {
		HB_KPF_SLAB,          HB_KPF_WRITEBACK, HB_KPF_BUDDY,       HB_KPF_COMPOUND_HEAD,
		HB_KPF_COMPOUND_TAIL, HB_KPF_HUGE,      HB_KPF_UNEVICTABLE, HB_KPF_HWPOISON,
		HB_KPF_NOPAGE,        HB_KPF_THP,       HB_KPF_OFFLINE,     HB_KPF_ZERO_PAGE,
		HB_KPF_PGTABLE,       HB_KPF_MLOCKED,
	};

	(void)state;
	assert_true(hb_frames_movable(LRU));
	/* anon, file, dirty, active, referenced, swap-backed, idle: all movable */
	assert_true(hb_frames_movable(LRU | BIT(12) | BIT(4) | BIT(6) | BIT(2) | BIT(14) | BIT(25)));
	/*
	 * an ordinary anonymous page as Debian's 6.12.118 reports it: LRU,
	 * MMAP, ANON, SWAPBACKED, anon-exclusive, and KSM (6.12 sets KPF_KSM
	 * for every anon page)
	 */
	assert_true(hb_frames_movable(0x400205828ULL));
	assert_true(hb_frames_movable(LRU | BIT(12) | BIT(HB_KPF_KSM)));
	assert_false(hb_frames_movable(0));
	assert_false(hb_frames_movable(BIT(HB_KPF_MMAP) | BIT(12))); /* mapped, off the LRU */
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_false(hb_frames_movable(LRU | BIT(refused[i])));
}

static void test_frames_scan_walks_the_online_blocks_in_windows(void **state)
{
	struct hb_frames *f = NULL;
	struct hb_err err = { 0 };
	uint64_t pfn[64], win[2];

	(void)state;
	kpf[17] = BIT(HB_KPF_BUDDY); /* free */
	kpf[20] = LRU | BIT(HB_KPF_UNEVICTABLE);
	kpf[25] = LRU | BIT(HB_KPF_THP);
	kpf[26] = BIT(HB_KPF_SLAB);
	write_kpageflags(64);
	assert_int_equal(hb_frames_open(root, 4096, &f, &err), 0);
	/* window 1: five frames of block 2 (PFN 16-23) */
	assert_int_equal(hb_frames_scan(f, 0, 5, pfn, win, &err), 3);
	assert_int_equal(win[0], 16);
	assert_int_equal(win[1], 21);
	assert_int_equal(pfn[0], 16);
	assert_int_equal(pfn[1], 18);
	assert_int_equal(pfn[2], 19);
	/* window 2 goes on across into block 3 and ends at the node's last online block */
	assert_int_equal(hb_frames_scan(f, 0, 16, pfn, win, &err), 9);
	assert_int_equal(win[0], 21);
	assert_int_equal(win[1], 32); /* block 4 (PFN 32-39) is offline */
	assert_int_equal(pfn[0], 21);
	assert_int_equal(pfn[3], 24);
	assert_int_equal(pfn[4], 27);
	assert_int_equal(pfn[8], 31);
	/* a new pass reads the blocks again: block 4 came online */
	block(0, 4, true);
	assert_int_equal(hb_frames_scan(f, 0, 64, pfn, win, &err), 20);
	assert_int_equal(win[0], 16);
	assert_int_equal(win[1], 40);
	assert_int_equal(pfn[19], 39);
	/* node 1: its own cursor */
	assert_int_equal(hb_frames_scan(f, 1, 64, pfn, win, &err), 8);
	assert_int_equal(win[0], 48);
	assert_int_equal(win[1], 56);
	hb_frames_free(f);
}

/*
 * A node larger than the sample is read every k-th block, windows never
 * spanning the blocks between, and after 8 passes the next sample (issue
 * 30: a pass must cost the sample, not the node).
 */
static void test_frames_sample_reads_every_kth_block_and_moves_on(void **state)
{
	struct hb_frames *f = NULL;
	struct hb_err err = { 0 };
	uint64_t pfn[64], win[2];

	(void)state;
	block(0, 4, true);
	block(0, 5, true);
	assert_int_equal(hb_frames_open(root, 4096, &f, &err), 0);
	hb_frames_sample(f, 16); /* 2 of node 0's 4 blocks (2-5): k = 2 */
	for (int pass = 0; pass < 8; pass++) {
		assert_int_equal(hb_frames_scan(f, 0, 64, pfn, win, &err), 8);
		assert_int_equal(win[0], 16); /* block 2 */
		assert_int_equal(win[1], 24);
		assert_false(hb_frames_pass_done(f, 0));
		assert_int_equal(hb_frames_scan(f, 0, 64, pfn, win, &err), 8);
		assert_int_equal(win[0], 32); /* block 4, not 3 */
		assert_int_equal(win[1], 40);
		assert_true(hb_frames_pass_done(f, 0));
		assert_int_equal(hb_frames_sample_epoch(f, 0), 0);
	}
	/* the ninth pass reads the other sample: blocks 3 and 5 */
	assert_int_equal(hb_frames_scan(f, 0, 64, pfn, win, &err), 8);
	assert_int_equal(win[0], 24);
	assert_int_equal(win[1], 32);
	assert_int_equal(hb_frames_sample_epoch(f, 0), 1);
	assert_int_equal(hb_frames_scan(f, 0, 64, pfn, win, &err), 8);
	assert_int_equal(win[0], 40);
	assert_true(hb_frames_pass_done(f, 0));
	/* a node within the sample is read whole: node 1's one block */
	assert_int_equal(hb_frames_scan(f, 1, 64, pfn, win, &err), 8);
	assert_true(hb_frames_pass_done(f, 1));
	/* no sample: all four blocks in one window again, from the next pass */
	hb_frames_sample(f, 0);
	assert_int_equal(hb_frames_scan(f, 0, 64, pfn, win, &err), 32);
	assert_int_equal(win[0], 16);
	assert_int_equal(win[1], 48);
	hb_frames_free(f);
}

static void test_frames_errors_name_what_failed(void **state)
{
	struct hb_frames *f = NULL;
	struct hb_err err = { 0 };
	uint64_t pfn[64], win[2];
	char p[128];

	(void)state;
	assert_int_equal(hb_frames_open(root, 4096, &f, &err), 0);
	/* a node without memory, and one that does not exist */
	assert_int_equal(hb_frames_scan(f, 5, 16, pfn, win, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "node 5 has no online memory block"));
	assert_int_equal(win[0], win[1]);
	assert_int_equal(hb_frames_scan(f, 7, 16, pfn, win, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/node7"));
	assert_int_equal(hb_frames_scan(f, 64, 16, pfn, win, &err), -EINVAL);
	/* kpageflags ends before node 1's block */
	write_kpageflags(50);
	assert_int_equal(hb_frames_scan(f, 1, 16, pfn, win, &err), -EIO);
	assert_non_null(strstr(err.msg, "/proc/kpageflags at PFN 0x30: short read"));
	hb_frames_free(f);
	/* no kpageflags, a block size that is not whole pages */
	snprintf(p, sizeof(p), "%s/proc/kpageflags", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hb_frames_open(root, 4096, &f, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cannot open"));
	assert_non_null(strstr(err.msg, "/proc/kpageflags"));
	put("/sys/devices/system/memory/block_size_bytes", "1800\n");
	assert_int_equal(hb_frames_open(root, 4096, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "block_size_bytes: not a multiple of the page size"));
	assert_int_equal(hb_frames_open(root, 3000, &f, &err), -EINVAL);
}

/*
 * Pages mapped more than once (/proc/kpagecount > 1) are skipped and
 * counted: move_phys_pages refused them with EACCES (about 430 a run of
 * vm-capacity-6.12). A page cache page mapped by none (0) is still movable.
 */
static void test_frames_scan_skips_pages_mapped_more_than_once(void **state)
{
	struct hb_frames *f = NULL;
	struct hb_err err = { 0 };
	uint64_t pfn[64], win[2], count[64] = { 0 };

	(void)state;
	for (int p = 16; p < 64; p++)
		count[p] = 1;
	count[18] = 2;
	count[19] = 7;
	count[21] = 0;
	hb_fake_put_bin(root, "/proc/kpagecount", count, sizeof(count));
	assert_int_equal(hb_frames_open(root, 4096, &f, &err), 0);
	/* block 2 (PFN 16-23): all eight movable by their flags, two shared */
	assert_int_equal(hb_frames_scan(f, 0, 8, pfn, win, &err), 6);
	assert_int_equal(pfn[0], 16);
	assert_int_equal(pfn[1], 17);
	assert_int_equal(pfn[2], 20);
	assert_int_equal(pfn[3], 21);
	assert_int_equal(hb_frames_shared(f), 2);
	/* a kpagecount shorter than the node: named, like kpageflags */
	hb_fake_put_bin(root, "/proc/kpagecount", count, 20 * 8);
	assert_int_equal(hb_frames_scan(f, 0, 8, pfn, win, &err), -EIO);
	assert_non_null(strstr(err.msg, "/proc/kpagecount at PFN 0x18: short read"));
	hb_frames_free(f);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_frames_movable_is_a_base_page_on_an_lru),
		T(test_frames_scan_walks_the_online_blocks_in_windows),
		T(test_frames_sample_reads_every_kth_block_and_moves_on),
		T(test_frames_errors_name_what_failed),
		T(test_frames_scan_skips_pages_mapped_more_than_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
