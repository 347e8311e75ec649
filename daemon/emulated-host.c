// SPDX-License-Identifier: MIT
/*
 * The emulated CXL host (`hotbridge demo`, `[topology] emulated = true`):
 * two memdevs (mem0, mem1, 512 MiB each) interleaved 2-way at 4 KiB in
 * region0 (1 GiB at 0x390000000) on CPU-less node 2; DRAM nodes 0 and 1
 * have CPUs (node 0 nearer). Node 0's free memory shrinks by what the
 * daemon promoted, so its watermark bites.
 */
#include <stdio.h>
#include <string.h>

#include "daemon.h"
#include "emulated-host.h"
#include "platform.h"

#define REGION_BASE 0x390000000ULL
#define MEMDEV_SIZE (512ULL << 20)
#define CXL_NODE 2

static int emu_topology(bool with_region, struct hb_topology **ret, struct hb_err *err)
{
	struct hb_topology *t = NULL;
	struct hb_root_decoder root = { .name = "decoder0.0", .hpa_base = REGION_BASE,
					.hpa_size = 4ULL << 30, .ways = 1, .gran = 4096 };
	struct hb_region rg = { .name = "region0", .root_name = "decoder0.0",
				.hpa_base = REGION_BASE, .hpa_size = 2 * MEMDEV_SIZE, .ways = 2,
				.gran = 4096, .committed = true, .mode = HB_MODE_RAM };
	int r;

	if (hb_topology_new(&t) < 0)
		return hb_err_set(err, -ENOMEM, "out of memory");
	r = hb_topology_add_root(t, &root, err);
	for (int i = 0; r == 0 && i < 2; i++) {
		struct hb_memdev m = { .numa_node = -1, .serial = 0x1000 + (uint64_t)i,
				       .ram_size = MEMDEV_SIZE };
		struct hb_endpoint_decoder e = { .dpa_size = MEMDEV_SIZE, .mode = HB_MODE_RAM };

		snprintf(m.name, sizeof(m.name), "mem%d", i);
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
	return emu_topology(!h->region_offline, ret_topology, err);
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
	uint64_t used = h->d ? hb_daemon_stats(h->d)->promoted_bytes : 0;

	memset(nodes, 0, sizeof(*nodes) * HB_MAX_NODES);
	memset(distance, 255, HB_MAX_NODES * HB_MAX_NODES);
	for (int n = 0; n < 3; n++) {
		nodes[n].present = true;
		nodes[n].has_cpus = n < 2;
		distance[n][n] = 10;
	}
	nodes[0].free_bytes = h->dram_free > used ? h->dram_free - used : 0;
	nodes[1].free_bytes = 8ULL << 30;
	nodes[2].free_bytes = 256ULL << 20;
	distance[0][1] = distance[1][0] = 21;
	distance[0][2] = distance[2][0] = 20;
	distance[1][2] = distance[2][1] = 30;
	return 0;
}

/* no host uevent concerns it: it changes when a test says (hb_platform_set_events_fd()) */
static const struct hb_platform_ops emu_ops = {
	.name = "emulated", .node_of = emu_node_of, .nodes = emu_nodes, .reload = emu_reload,
};

int hb_emulated_platform_new(struct hb_emulated_host *h, struct hb_platform **ret,
			     struct hb_err *err)
{
	struct hb_topology *t = NULL;
	int r = emu_topology(true, &t, err);

	if (r < 0)
		return r;
	return hb_platform_new(&emu_ops, h, true, t, NULL, ret, err);
}
