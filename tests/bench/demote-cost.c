// SPDX-License-Identifier: MIT
/*
 * hb-vmdemotecost: what demotion's coldness costs a live host per frame of
 * DRAM, measured on the machine it runs on (a tests/vm guest, or the host
 * itself), and what that makes of a full pass at 64 GiB, 512 GiB and 2 TiB.
 *
 *   hb-vmdemotecost NODE [REPS [MAP_MB]]
 *
 * MAP_MB (default 256) of anonymous memory is mapped and touched first, so
 * that the idle checks walk mapped pages' reverse maps as on a busy node.
 * Measured over NODE's online memory, REPS times (the fastest kept):
 *   census  one full pass of the frame census (kernel.h: /proc/kpageflags
 *           and /proc/kpagecount in windows of 16384 frames), per frame read;
 *   idle    page idle tracking over the movable frames the census found:
 *           marking them idle, then reading their bits back, per frame
 *           (skipped, and said, on a kernel without it).
 *
 * The model (tests/README.md, "Demotion's cost, by node size"): one full pass over a
 * node of F frames, Fm of them movable (the measured share), costs
 *     C = F x census + Fm x idle
 * of CPU time. At 1 % of one CPU it takes C / 0.01; done in 10 minutes it
 * takes C / 600 s of one CPU. Demotion runs when DRAM is nearly full, so
 * the projection takes every frame as movable (Fm = F). The table prints
 * C, both, and the goal (issue 30: under 1 % of a core at 512 GiB with a
 * pass under 10 minutes).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "vm-lib.h"

#define CHUNK 16384

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* one full census pass of node: frames read and the movable ones in mov[] */
static long census_pass(struct hb_frames *f, int node, uint64_t **mov, size_t *nmov, uint64_t *frames)
{
	uint64_t win[2], *buf = malloc(CHUNK * sizeof(*buf));
	size_t cap = 0;
	struct hb_err err = { 0 };
	long n;

	*nmov = 0;
	*frames = 0;
	if (!buf)
		return -ENOMEM;
	do {
		n = hb_frames_scan(f, node, CHUNK, buf, win, &err);
		if (n < 0) {
			fprintf(stderr, "hb-vmdemotecost: %s\n", err.msg);
			break;
		}

		if (*nmov + (size_t)n > cap) {
			uint64_t *p = realloc(*mov, (cap = (*nmov + (size_t)n) * 2) * sizeof(*p));

			if (!p) {
				n = -ENOMEM;
				break;
			}
			*mov = p;
		}
		memcpy(*mov + *nmov, buf, (size_t)n * sizeof(*buf));
		*nmov += (size_t)n;
		*frames += win[1] - win[0];
	} while (!hb_frames_pass_done(f, node));
	free(buf);
	return n < 0 ? n : 0;
}

int main(int argc, char **argv)
{
	static const unsigned int gib[] = { 64, 512, 2048 };
	struct hb_frames *f = NULL;
	struct hb_idle *idle = NULL;
	struct hb_err err = { 0 };
	uint64_t *mov = NULL, frames = 0, ps = vm_page_size();
	double census = 1e9, mark = 1e9, check = 1e9, share;
	size_t nmov = 0, map;
	bool *bits = NULL;
	void *mem = NULL;
	int node, reps;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: hb-vmdemotecost NODE [REPS [MAP_MB]]\n");
		return 2;
	}
	node = atoi(argv[1]);
	reps = argc >= 3 ? atoi(argv[2]) : 3;
	map = (size_t)(argc == 4 ? atol(argv[3]) : 256) << 20;
	if (map && !(mem = vm_map_on_node(map, node, -1, false))) {
		fprintf(stderr, "hb-vmdemotecost: %zu MiB on node %d: %s\n", map >> 20, node,
			strerror(errno));
		return 1;
	}
	if (map) {
		vm_fill(mem, map / ps, 1);
		(void)vm_allow_all(mem, map); /* free to be demoted (issue 42) */
	}
	if (hb_frames_open(NULL, ps, &f, &err) < 0) {
		fprintf(stderr, "hb-vmdemotecost: %s\n", err.msg);
		return 1;
	}
	for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
		double t0 = vm_now();

		if (census_pass(f, node, &mov, &nmov, &frames) < 0 || !frames)
			return 1;
		if ((vm_now() - t0) / (double)frames < census)
			census = (vm_now() - t0) / (double)frames;
	}
	share = (double)nmov / (double)frames;
	printf("# node %d: %" PRIu64 " frames (%.0f MiB), %zu movable (%.1f %%)\n", node, frames,
	       (double)frames * (double)ps / 1048576.0, nmov, 100.0 * share);
	printf("census: %.0f ns a frame read\n", census * 1e9);
	qsort(mov, nmov, sizeof(*mov), cmp_u64);
	if (hb_idle_open(NULL, &idle, &err) < 0) {
		printf("idle: not measured (%s)\n", err.msg);
		mark = check = 0;
	} else if (!(bits = calloc(nmov ? nmov : 1, sizeof(*bits)))) {
		return 1;
	} else {
		for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
			double t0 = vm_now(), t1, t2;

			if (hb_idle_mark(idle, nmov, mov, &err) < 0)
				break;
			t1 = vm_now();
			if (hb_idle_read(idle, nmov, mov, bits, &err) < 0)
				break;
			t2 = vm_now();
			if (nmov && (t1 - t0) / (double)nmov < mark)
				mark = (t1 - t0) / (double)nmov;
			if (nmov && (t2 - t1) / (double)nmov < check)
				check = (t2 - t1) / (double)nmov;
		}
		if (err.msg[0]) {
			fprintf(stderr, "hb-vmdemotecost: %s\n", err.msg);
			return 1;
		}
		printf("idle: %.0f ns a frame marked, %.0f ns a frame checked\n", mark * 1e9,
		       check * 1e9);
	}
	printf("# full pass of a node: census of every frame, idle mark + check of every frame "
	       "(a full node: all movable)%s\n",
	       mark + check > 0 ? "" : "; census only: idle tracking not measured here");
	printf("%-8s %12s %14s %18s %14s\n", "node", "CPU a pass", "pass at 1 %", "CPU for 10 min",
	       "goal met");
	for (size_t i = 0; i < sizeof(gib) / sizeof(gib[0]); i++) {
		double F = (double)gib[i] * 1073741824.0 / (double)ps;
		double c = F * (census + mark + check);

		printf("%-8s %10.1f s %12.1f h %16.2f %% %14s\n",
		       gib[i] >= 1024 ? "2 TiB" :
		       gib[i] == 512  ? "512 GiB" :
					"64 GiB",
		       c, c / 0.01 / 3600.0, 100.0 * c / 600.0,
		       gib[i] != 512     ? "-" :
		       c / 0.01 <= 600.0 ? "yes" :
					   "no");
	}
	/*
	 * demote.track_mb: a node larger than the sample is tracked a sample
	 * at a time, so a pass costs the sample at any node size
	 */
	printf("# a pass over a sample of the node (demote.track_mb), any node size%s\n",
	       mark + check > 0 ? "" : "; census only: idle tracking not measured here");
	printf("%-8s %12s %14s %18s %14s\n", "sample", "CPU a pass", "pass at 1 %",
	       "CPU for 10 min", "goal met");
	for (unsigned int mb = 2048; mb <= 32768; mb *= 4) {
		double c = (double)mb * 1048576.0 / (double)ps * (census + mark + check);

		printf("%-8s %10.1f s %12.1f m %16.2f %% %14s\n",
		       mb == 2048 ? "2 GiB" :
		       mb == 8192 ? "8 GiB" :
				    "32 GiB",
		       c, c / 0.01 / 60.0, 100.0 * c / 600.0, c / 0.01 <= 600.0 ? "yes" : "no");
	}
	free(bits);
	free(mov);
	hb_idle_free(idle);
	hb_frames_free(f);
	return 0;
}
