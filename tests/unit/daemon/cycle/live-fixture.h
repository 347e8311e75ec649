/* SPDX-License-Identifier: MIT */
/*
 * The fake tree and configuration the live demotion tests share
 * (test-demote-live.c: idle page tracking; test-demote-damon.c: DAMON):
 * files below a tmpdir root (fake-tree.h), node 0's memory as blocks 2 and
 * 3 (32 KiB blocks: PFN 16-31), and a daemon configured for demotion alone
 * (node 0 short of its goal, node 2 the CXL node; emul-config.h). Included
 * by each test once.
 */
#ifndef HB_TEST_LIVE_FIXTURE_H
#define HB_TEST_LIVE_FIXTURE_H

#include <stdio.h>

#include "emul-config.h"
#include "fake-tree.h"

static char root[64];

static inline void put(const char *rel, const char *text)
{
	hb_fake_put(root, rel, text);
}

static inline void put_bin(const char *rel, const void *buf, size_t len)
{
	hb_fake_put_bin(root, rel, buf, len);
}

/*
 * root /tmp/hb-<name>-XXXXXX; node 0's blocks 2 and 3 online, /proc there;
 * block_size_bytes as the kernel writes it (hex, no 0x)
 */
static inline void node0_tree_blocks(const char *name, const char *block_hex)
{
	char size[32];

	snprintf(size, sizeof(size), "%s\n", block_hex);
	hb_fake_tree_new(root, sizeof(root), name);
	put("/proc", NULL);
	put("/sys/devices/system/memory/block_size_bytes", size);
	put("/sys/devices/system/node/node0/memory2", NULL);
	put("/sys/devices/system/node/node0/memory3", NULL);
	put("/sys/devices/system/memory/memory2/online", "1\n");
	put("/sys/devices/system/memory/memory3/online", "1\n");
}

/* the same with 32 KiB blocks: PFN 16-31 */
static inline void node0_tree(const char *name)
{
	node0_tree_blocks(name, "8000");
}

static inline int teardown(void **state)
{
	(void)state;
	hb_fake_tree_remove(root);
	return 0;
}

static inline void live_config(struct hb_config *cfg)
{
	static const char *const params[] = { "capacity=536870912", "accesses=2000", NULL };

	hb_test_emul_config(cfg, params);
	cfg->interval_ms = 1000;
	cfg->threshold = 1000000; /* the emulated CHMU's pages never promote: demotion alone */
	cfg->rate_mbps = 0;
	cfg->hysteresis_ms = 0;
	cfg->watermark_mb = 1024;
	cfg->target_node = 0;
	cfg->demote_enabled = true;
	cfg->demote_room_mb = 8; /* node 0 has 1028 MiB free: short of 1032 */
	cfg->demote_cold_cycles = 2;
	cfg->demote_rate_pages = 0;
	cfg->demote_cxl_floor_mb = 64;
	cfg->demote_cxl_node = 2;
}

#endif
