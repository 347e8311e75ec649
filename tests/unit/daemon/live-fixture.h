/* SPDX-License-Identifier: MIT */
/*
 * The fake tree and configuration the live demotion tests share
 * (test-demote-live.c: idle page tracking; test-demote-damon.c: DAMON):
 * files below a tmpdir root, node 0's memory as blocks 2 and 3 (32 KiB
 * blocks: PFN 16-31), and a daemon configured for demotion alone (node 0
 * short of its goal, node 2 the CXL node). Included by each test once.
 */
#ifndef HB_TEST_LIVE_FIXTURE_H
#define HB_TEST_LIVE_FIXTURE_H

static char root[64];

static inline void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		(void)mkdir(p, 0755);
		*s = '/';
	}
	if (!text) {
		(void)mkdir(p, 0755);
		return;
	}
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

static inline void put_bin(const char *rel, const void *buf, size_t len)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* root made from tmpl; node 0's blocks 2 and 3 online, /proc there */
static inline void node0_tree(const char *tmpl)
{
	snprintf(root, sizeof(root), "%s", tmpl);
	assert_non_null(mkdtemp(root));
	put("/proc", NULL);
	put("/sys/devices/system/memory/block_size_bytes", "8000\n");
	put("/sys/devices/system/node/node0/memory2", NULL);
	put("/sys/devices/system/node/node0/memory3", NULL);
	put("/sys/devices/system/memory/memory2/online", "1\n");
	put("/sys/devices/system/memory/memory3/online", "1\n");
}

static inline int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static inline void live_config(struct hb_config *cfg)
{
	static const char *const params[] = { "capacity=536870912", "accesses=2000", NULL };

	hb_config_defaults(cfg);
	cfg->interval_ms = 1000;
	cfg->threshold = 1000000;   /* the emulated CHMU's pages never promote: demotion alone */
	cfg->rate_mbps = 0;
	cfg->hysteresis_ms = 0;
	cfg->watermark_mb = 1024;
	cfg->target_node = 0;
	cfg->demote_enabled = true;
	cfg->demote_room_mb = 8;    /* node 0 has 1028 MiB free: short of 1032 */
	cfg->demote_cold_cycles = 2;
	cfg->demote_rate_pages = 0;
	cfg->demote_cxl_floor_mb = 64;
	cfg->demote_cxl_node = 2;
	cfg->control_socket[0] = cfg->plugin_dir[0] = '\0';
	snprintf(cfg->log_level, sizeof(cfg->log_level), "err");
	cfg->nsources = 1;
	memset(&cfg->sources[0], 0, sizeof(cfg->sources[0]));
	strcpy(cfg->sources[0].name, "emu");
	strcpy(cfg->sources[0].type, "emul-chmu");
	strcpy(cfg->sources[0].memdev, "mem0");
	cfg->sources[0].params[0] = (char *)params[0];
	cfg->sources[0].params[1] = (char *)params[1];
}

#endif
