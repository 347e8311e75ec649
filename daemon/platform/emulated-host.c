// SPDX-License-Identifier: MIT
/*
 * The emulated CXL host (`hotbridge demo`, `[topology] emulated = true`):
 * two memdevs (mem0, mem1, 512 MiB each; PCI functions 0000:0d:00.0 and
 * 0000:0e:00.0) interleaved 2-way at 4 KiB in
 * region0 (1 GiB at 0x390000000) on CPU-less node 2; DRAM nodes 0 and 1
 * have CPUs (node 0 nearer). Node 0's free memory shrinks by what the
 * daemon promoted and grows by what it demoted (node 2's the other way), so
 * its watermark bites and demotion makes room. Coldness: the emulated
 * CHMUs' ground truth counts every access to a page wherever it is, so a
 * page marked idle is still idle while its count has not moved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "devices.h"
#include "platform/emulated-host.h"
#include "platform/platform.h"
#include "util/macro.h"

#define REGION_BASE 0x390000000ULL
#define MEMDEV_SIZE (512ULL << 20)
#define CXL_NODE 2

static int emu_topology(bool with_region, struct hb_topology **ret, struct hb_err *err)
{
	struct hb_topology *t = NULL;
	struct hb_root_decoder root = { .name = "decoder0.0",
					.hpa_base = REGION_BASE,
					.hpa_size = 4ULL << 30,
					.ways = 1,
					.gran = 4096 };
	struct hb_region rg = { .name = "region0",
				.root_name = "decoder0.0",
				.hpa_base = REGION_BASE,
				.hpa_size = 2 * MEMDEV_SIZE,
				.ways = 2,
				.gran = 4096,
				.committed = true,
				.mode = HB_MODE_RAM };
	int r;

	if (hb_topology_new(&t) < 0)
		return hb_err_set(err, -ENOMEM, "out of memory");
	r = hb_topology_add_root(t, &root, err);
	for (int i = 0; r == 0 && i < 2; i++) {
		struct hb_memdev m = { .numa_node = -1,
				       .serial = 0x1000 + (uint64_t)i,
				       .ram_size = MEMDEV_SIZE };
		struct hb_endpoint_decoder e = { .dpa_size = MEMDEV_SIZE, .mode = HB_MODE_RAM };

		snprintf(m.name, sizeof(m.name), "mem%d", i);
		snprintf(m.host, sizeof(m.host), "0000:%02x:00.0", 0x0d + i); /* its PCI function */
		snprintf(e.name, sizeof(e.name), "decoder%d.0", i + 2);
		snprintf(e.memdev_name, sizeof(e.memdev_name), "mem%d", i);
		snprintf(rg.target_names[i], HB_NAME_MAX, "%s", e.name);
		r = hb_topology_add_memdev(t, &m, err);
		if (r == 0)
			r = hb_topology_add_endpoint(t, &e, err);
	}
	if (r == 0 && with_region)
		r = hb_topology_add_region(t, &rg, err);
	if (r == 0)
		r = hb_topology_finalize(t, err);
	if (r < 0) {
		hb_topology_free(t);
		return r;
	}
	*ret = t;
	return 0;
}

int hb_emulated_topology(struct hb_topology **ret, struct hb_err *err)
{
	return emu_topology(true, ret, err);
}

static int emu_reload(void *ud, struct hb_topology **ret_topology, struct hb_node_map **ret_map,
		      struct hb_err *err)
{
	struct hb_emulated_host *h = ud;

	h->reloads++;
	*ret_map = NULL;
	return emu_topology(!h->region_offline && !h->region_undecoded, ret_topology, err);
}

static int emu_node_of(void *ud, uint64_t hpa)
{
	const struct hb_emulated_host *h = ud;

	if (h->region_offline)
		return -1;
	return hpa >= REGION_BASE && hpa < REGION_BASE + 2 * MEMDEV_SIZE ? CXL_NODE : -1;
}

static int emu_nodes(void *ud, struct hb_numa_node *nodes,
		     uint8_t distance[HB_MAX_NODES][HB_MAX_NODES])
{
	struct hb_emulated_host *h = ud;
	const struct hb_daemon_stats *st = h->d ? hb_daemon_stats(h->d) : NULL;
	uint64_t used = st && st->promoted_bytes > st->demoted_bytes ?
				st->promoted_bytes - st->demoted_bytes :
				0;

	memset(nodes, 0, sizeof(*nodes) * HB_MAX_NODES);
	memset(distance, 255, HB_MAX_NODES * HB_MAX_NODES);
	for (int n = 0; n < 3; n++) {
		nodes[n].present = true;
		nodes[n].has_cpus = n < 2;
		distance[n][n] = 10;
	}
	nodes[0].free_bytes = h->dram_free > used ? h->dram_free - used : 0;
	nodes[1].free_bytes = 8ULL << 30;
	nodes[2].free_bytes = (256ULL << 20) > used ? (256ULL << 20) - used : 0;
	distance[0][1] = distance[1][0] = 21;
	distance[0][2] = distance[2][0] = 20;
	distance[1][2] = distance[2][1] = 30;
	return 0;
}

/* the memdev (0, 1) and DPA of a page of region0: 2 ways of 4 KiB */
static int page_dpa(uint64_t pfn, uint64_t *ret_dpa)
{
	uint64_t off = pfn * 4096 - REGION_BASE;

	if (pfn * 4096 < REGION_BASE || off >= 2 * MEMDEV_SIZE)
		return -1;
	*ret_dpa = off / 8192 * 4096;
	return (int)(off / 4096 % 2);
}

/* the access count of pfn's unit now, and where its mark lives; -ENOENT: not ours */
static int truth_of(struct hb_emulated_host *h, uint64_t pfn, uint64_t **ret_mark, uint64_t *ret_count)
{
	const uint64_t *truth;
	uint64_t dpa, unit;
	int m = page_dpa(pfn, &dpa);
	size_t n, u;
	void *priv;
	char name[16];

	if (m < 0 || m > 1 || !h->d)
		return -ENOENT;
	snprintf(name, sizeof(name), "mem%d", m);
	priv = hb_daemon_emul_chmu_of(h->d, name);
	if (!priv || !(n = hb_source_emul_truth(priv, &truth, &unit)) || !unit)
		return -ENOENT;
	u = (size_t)(dpa / unit);
	if (u >= n)
		return -ENOENT;
	if (!h->mark[m]) {
		h->mark[m] = calloc(n, sizeof(*h->mark[m]));
		if (!h->mark[m])
			return -ENOMEM;
	}
	*ret_mark = &h->mark[m][u];
	*ret_count = truth[u];
	return 0;
}

static int emu_mark_idle(void *priv, size_t n, const uint64_t *pfn)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t *mark, count;
		int r = truth_of(priv, pfn[i], &mark, &count);

		if (r == -ENOMEM)
			return r;
		if (r == 0)
			*mark = count;
	}
	return 0;
}

static int emu_check_idle(void *priv, size_t n, const uint64_t *pfn, uint8_t *idle)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t *mark, count;
		int r = truth_of(priv, pfn[i], &mark, &count);

		if (r == -ENOMEM)
			return r;
		idle[i] = r == 0 && count == *mark; /* not ours: never idle, never demoted */
	}
	return 0;
}

/* is memdev m's page at dpa on DRAM by the daemon's doing? (hb_source_emul_set_away) */
static bool emu_away(void *ud, uint64_t dpa)
{
	const struct hb_emulated_memdev *md = ud;
	const struct hb_placed *placed = hb_daemon_placed(md->h->d);
	uint64_t hpa = REGION_BASE + dpa / 4096 * 8192 + (uint64_t)md->index * 4096;

	return placed && hb_placed_find(placed, hpa);
}

void hb_emulated_host_attach(struct hb_emulated_host *h, struct hb_daemon *d)
{
	h->d = d;
	for (int m = 0; m < 2; m++) {
		char name[8] = "mem0";
		void *priv;

		name[3] = (char)('0' + m);
		h->memdev[m] = (struct hb_emulated_memdev){ .h = h, .index = m };
		priv = hb_daemon_emul_chmu_of(d, name);
		if (priv)
			hb_source_emul_set_away(priv, emu_away, &h->memdev[m]);
	}
}

static const struct hb_coldness_ops emu_coldness_ops = {
	.name = "emulated",
	.mark_idle = emu_mark_idle,
	.check_idle = emu_check_idle,
};

struct hb_coldness hb_emulated_coldness(struct hb_emulated_host *h)
{
	return (struct hb_coldness){ .ops = &emu_coldness_ops, .priv = h };
}

void hb_emulated_host_done(struct hb_emulated_host *h)
{
	for (size_t m = 0; m < HB_ARRAY_SIZE(h->mark); m++) {
		free(h->mark[m]);
		h->mark[m] = NULL;
	}
}

/* its one CXL window (decoder0.0) holds all of node 2's memory, region0 */
static int emu_window_nodes(void *ud, const struct hb_node_map *m, uint64_t *ret, struct hb_err *err)
{
	*ret = 1ULL << CXL_NODE;
	return 0;
}

/* no host uevent concerns it: it changes when a test says (hb_platform_set_events_fd()) */
static const struct hb_platform_ops emu_ops = {
	.name = "emulated",
	.node_of = emu_node_of,
	.nodes = emu_nodes,
	.reload = emu_reload,
	.window_nodes = emu_window_nodes,
};

int hb_emulated_platform_new(struct hb_emulated_host *h, struct hb_platform **ret, struct hb_err *err)
{
	struct hb_topology *t = NULL;
	int r = emu_topology(true, &t, err);

	if (r < 0)
		return r;
	return hb_platform_new(&emu_ops, h, true, t, NULL, ret, err);
}
