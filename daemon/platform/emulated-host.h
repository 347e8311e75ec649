/* SPDX-License-Identifier: MIT */
/* The built-in emulated CXL host (emulated-host.c). */
#ifndef HB_EMULATED_HOST_H
#define HB_EMULATED_HOST_H

#include "daemon.h"
#include "platform/platform.h"

#define HB_EMU_REGION_BASE 0x390000000ULL
#define HB_EMU_CXL_NODE 2

struct hb_emulated_memdev {
	struct hb_emulated_host *h;
	int index; /* mem0, mem1 */
};

struct hb_emulated_host {
	uint64_t dram_free;                  /* node 0's free bytes at the start */
	struct hb_daemon *d;                 /* set once created: promoted bytes debit node 0 */
	struct hb_emulated_memdev memdev[2]; /* hb_emulated_host_attach()'s */
	bool region_offline;                 /* region0 destroyed: its memory on no node */
	/* region0 gone from the topology (its memdev disabled, cxl_pci unbound)
	 * while its memory stays online: the kernel leaves it so */
	bool region_undecoded;
	unsigned int reloads; /* topology rebuilds asked for */
	uint64_t *mark[2];    /* coldness: each unit's access count when marked idle */
};

/* region0 = mem0 + mem1 (2-way x 4 KiB) */
int hb_emulated_topology(struct hb_topology **ret, struct hb_err *err);
/*
 * The emulated host as a platform (platform.h): its topology, node layout,
 * HPA -> node and rebuild (region0 unless region_offline or region_undecoded); h is borrowed
 * and must outlive it. No events of its own: a test sets them.
 */
int hb_emulated_platform_new(struct hb_emulated_host *h, struct hb_platform **ret,
			     struct hb_err *err);

/*
 * Its coldness source (coldness.h) for hb_daemon_env.coldness: over the
 * emul-chmu sources of mem0 and mem1 (their ground truth). Pages of other
 * memory are never idle. hb_emulated_host_done() frees what it keeps.
 */
struct hb_coldness hb_emulated_coldness(struct hb_emulated_host *h);
/*
 * Once the daemon over it is created: its promotions debit node 0, and the
 * pages it placed on DRAM (hb_daemon_placed(), with demotion on) are away
 * from mem0's and mem1's emulated CHMUs: the workload's accesses to them
 * go to DRAM, which the devices do not see (hb_source_emul_set_away()).
 */
void hb_emulated_host_attach(struct hb_emulated_host *h, struct hb_daemon *d);
void hb_emulated_host_done(struct hb_emulated_host *h);

#endif
