// SPDX-License-Identifier: MIT
/*
 * hotbridge demo: the real daemon loop on a built-in emulated CXL host.
 *
 * The host: two memdevs (mem0, mem1, 512 MiB each) interleaved 2-way at
 * 4 KiB in region0 (1 GiB at 0x390000000) on CPU-less node 2; DRAM nodes 0
 * and 1 have CPUs (node 0 nearer). Each memdev has an emulated CHMU fed by
 * a Zipf workload whose hot set moves. The daemon translates the CHMUs'
 * DPA reports through the region's decoders, decides, and "migrates" with
 * the dry-run migrator; node 0's free memory shrinks by what it promoted,
 * so the watermark bites, and grows by what it demoted: pages found idle
 * (the emulated host's coldness source) go back to node 2 when node 0 runs
 * short of its watermark plus room. Each promotion is scored against the
 * hot set of its cycle (the emulators' own ground truth), and the pages on
 * DRAM against the current hot set, at the end and over the last ten
 * cycles (demo-score.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "daemon.h"
#include "demo-heatmap.h"
#include "out-file.h"
#include "demo-score.h"
#include "devices.h"
#include "platform/emulated-host.h"
#include "opt.h"

#define REGION_BASE HB_EMU_REGION_BASE
#define CXL_NODE HB_EMU_CXL_NODE

/* env.ud points at it, for progress() */
struct demo {
	struct hb_emulated_host host;
	struct hb_daemon *d;
	uint64_t cycles;
	const struct hb_topology *topology;
	struct hb_demo_score score;
	int score_rc;
	const char *heatmap;       /* --heatmap FILE, or NULL */
	struct hb_out_file hm_out; /* opened before the run */
	struct hb_demo_heatmap hm;
};

static void progress(void *ud, struct hb_daemon *d)
{
	const struct hb_daemon_stats *s = hb_daemon_stats(d);
	struct demo *dm = ud;
	bool tty = isatty(2);

	if (!dm->score_rc)
		dm->score_rc = hb_demo_score_cycle(&dm->score, d, dm->topology,
						   dm->cycles > HB_DEMO_SCORE_LAST ?
							   dm->cycles - HB_DEMO_SCORE_LAST + 1 :
							   1);
	if (dm->heatmap)
		hb_demo_heatmap_cycle(&dm->hm, d, dm->topology, s->cycles, CXL_NODE);
	if (!tty && s->cycles % 10 && s->cycles != dm->cycles)
		return;
	/* one format for both: a terminal gets it redrawn in place */
	fprintf(stderr, "%shotbridge demo: cycle %llu/%llu, %llu records, %llu pages promoted%s",
		tty ? "\r" : "", (unsigned long long)s->cycles, (unsigned long long)dm->cycles,
		(unsigned long long)s->in.records,
		(unsigned long long)s->migrated.by_class[HB_MIGRATE_MOVED], tty ? "   " : "\n");
}

struct page_count {
	uint64_t hpa, count;
};

static int by_count(const void *a, const void *b)
{
	const struct page_count *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int by_hpa(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int add_source(struct hb_config *c, const char *memdev, uint64_t seed)
{
	struct hb_source_config *s = &c->sources[c->nsources++];
	char buf[64];
	/*
	 * A CHMU sized for its 131072 units of 4 KiB: the hot set's edge gets
	 * about 2.5 accesses an epoch, so the hotness threshold is 2, and an
	 * epoch has about 5300 units at 2 or more (fewer once the hot ones are
	 * on DRAM): 6144 entries hold them all (QEMU's 1024 would keep 1023).
	 */
	const char *params[] = { "capacity=536870912",
				 "workload=moving:1.1",
				 "accesses=100000",
				 "move_every=10",
				 "threshold=2",
				 "hotlist=6144",
				 buf };

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "chmu-%s", memdev);
	snprintf(s->type, sizeof(s->type), "emul-chmu");
	snprintf(s->memdev, sizeof(s->memdev), "%s", memdev);
	snprintf(s->where, sizeof(s->where), "built-in demo");
	snprintf(buf, sizeof(buf), "seed=%llu", (unsigned long long)seed);
	for (size_t i = 0; i < HB_ARRAY_SIZE(params); i++) {
		s->params[i] = strdup(params[i]);
		if (!s->params[i])
			return -ENOMEM;
		s->nparams++;
	}
	return 0;
}

/* the pages that drew 80 % of all accesses, from the emulators' ground truth */
static size_t true_hot_set(struct hb_daemon *d, const struct hb_topology *t, uint64_t **ret)
{
	struct page_count *pc = NULL;
	uint64_t total = 0, acc = 0, *hot;
	size_t n = 0, k;

	for (int m = 0; m < 2; m++) {
		char name[32];
		const uint64_t *truth;
		uint64_t unit;
		size_t nu;
		void *priv;

		snprintf(name, sizeof(name), "chmu-mem%d", m);
		priv = hb_daemon_source_priv(d, name);
		if (!priv)
			continue;
		nu = hb_source_emul_truth(priv, &truth, &unit);
		pc = realloc(pc, (n + nu) * sizeof(*pc));
		for (size_t u = 0; pc && u < nu; u++) {
			struct hb_xlat x;

			if (!truth[u] || hb_topology_dpa_to_hpa(t, m, u * unit, &x, NULL) < 0)
				continue;
			pc[n++] = (struct page_count){ x.hpa & ~4095ULL, truth[u] };
			total += truth[u];
		}
	}
	if (!pc)
		return 0;
	qsort(pc, n, sizeof(*pc), by_count);
	for (k = 0; k < n && acc * 10 < total * 8; k++)
		acc += pc[k].count;
	hot = calloc(k ? k : 1, sizeof(*hot));
	for (size_t i = 0; hot && i < k; i++)
		hot[i] = pc[i].hpa;
	if (k > 1)
		qsort(hot, k, sizeof(*hot), by_hpa);
	free(pc);
	*ret = hot;
	return hot ? k : 0;
}

/* the distinct pages ever promoted (a page demoted and promoted again counts once) */
static size_t promoted_pages(const struct hb_dryrun_record *rec, size_t n, uint64_t **ret)
{
	uint64_t *p = calloc(n ? n : 1, sizeof(*p));
	size_t k = 0, u = 0;

	for (size_t i = 0; p && i < n; i++)
		if (rec[i].node != CXL_NODE)
			p[k++] = rec[i].hpa;
	if (k > 1)
		qsort(p, k, sizeof(*p), by_hpa);
	for (size_t i = 0; i < k; i++)
		if (!u || p[u - 1] != p[i])
			p[u++] = p[i];
	*ret = p;
	return u;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hotbridge demo [--cycles N] [--seed S] [--heatmap FILE]\n"
		   "The daemon on a built-in emulated CXL host (no hardware, no root), then a "
		   "summary.\n"
		   "  -c, --cycles N  cycles of 100 ms of simulated time, run back to back "
		   "(1..100000, default 30)\n"
		   "  -s, --seed S    the workloads of mem0 and mem1 are seeded S and S + 1 "
		   "(default 1)\n"
		   "  --heatmap FILE  hotness over the run by memdev DPA, with the promotions and "
		   "demotions, as SVG\n");
}

/* a section's title: no padding after it */
static void section(const char *title)
{
	printf("\n%s\n", title);
}

int hb_cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = { { "cycles", required_argument, NULL, 'c' },
					      { "seed", required_argument, NULL, 's' },
					      { "heatmap", required_argument, NULL, 'M' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	struct demo dm = { .host.dram_free = (1024ULL + 32) << 20, .cycles = 30 };
	/* the score reads every promotion back from the dry-run migrator */
	struct hb_daemon_env env = { .quiet = true,
				     .after_cycle = progress,
				     .keep_capabilities = true,
				     .dryrun_keep = 1u << 20 };
	const struct hb_daemon_stats *s;
	const struct hb_dryrun_record *rec;
	struct hb_topology *copy = NULL;
	struct hb_err err = { 0 };
	struct hb_config cfg;
	uint64_t *hot = NULL;
	uint64_t *promoted = NULL;
	size_t nrec, nhot, hit = 0;
	struct hb_getopt g = { 0 };
	uint64_t seed = 1;
	char want[32];
	int o, rc = 1;

	while ((o = hb_getopt(argc, argv, "c:s:h", opts, &g)) != -1) {
		switch (o) {
		case 'c':
			if (hb_opt_u64(argv[0], "--cycles", optarg, 1, 100000, "1..100000",
				       &dm.cycles) < 0)
				return 2;
			break;
		case 's':
			/* seed 0 would pick the workload's fixed default; S + 1 must not wrap */
			snprintf(want, sizeof(want), "1..%llu", (unsigned long long)UINT64_MAX - 1);
			if (hb_opt_u64(argv[0], "--seed", optarg, 1, UINT64_MAX - 1, want, &seed) < 0)
				return 2;
			break;
		case 'M':
			if (!*optarg)
				return hb_cmd_fail(2, argv[0], "--heatmap: an empty path");
			dm.heatmap = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	dm.hm.cycles = dm.cycles;
	if (optind != argc)
		return hb_cmd_fail(2, "hotbridge demo", "unexpected argument '%s'", argv[optind]);
	/* a path that cannot be written is said now, not after the run */
	if (dm.heatmap && (o = hb_out_file_open(&dm.hm_out, dm.heatmap)) < 0) {
		errno = -o;
		return hb_cmd_fail(1, "hotbridge demo", "--heatmap %s: %m", dm.heatmap);
	}
	hb_config_defaults(&cfg);
	cfg.interval_ms = 100;
	cfg.dry_run = true;
	/*
	 * Heat is the reports' sum decaying by 0.8 a cycle, about 5 cycles'
	 * worth: the 80 % hot set's edge (about 2.3 accesses an epoch reported)
	 * holds about 12.
	 */
	cfg.threshold = 12;
	cfg.top_k = 4096;
	cfg.rate_mbps = 40; /* 4 MB, 1024 pages, per 100 ms cycle */
	cfg.burst_mb = 4;
	/*
	 * node 0 starts 32 MiB (8192 pages) above it: room for one hot set
	 * (about 4900 pages), not for two (the old one must go to make room for
	 * the next) nor for the 13700 pages hot at some time in a run
	 */
	cfg.watermark_mb = 1024;
	cfg.hysteresis_ms = 500; /* 5 cycles: a moved hot set is followed within the run */
	cfg.demote_enabled = true;
	cfg.demote_room_mb = 16;       /* demote once less than 16 MiB of the 32 are left */
	cfg.demote_rate_pages = 10240; /* 1024 pages per cycle, promotion's pace */
	cfg.demote_cxl_floor_mb = 64;  /* node 2 has 256 MiB free */
	cfg.demote_cold_cycles = 2;
	cfg.plugin_dir[0] = '\0';
	snprintf(cfg.log_level, sizeof(cfg.log_level), "warning");
	env.coldness = hb_emulated_coldness(&dm.host);
	dm.score.window = HB_DEMO_SCORE_LAST;
	dm.score.cxl_node = CXL_NODE;
	env.ud = &dm;
	/*
	 * The oracle under the same limits: the room above node 0's watermark,
	 * the promotion bucket (rate_mbps and burst_mb are 10^6 bytes, as
	 * policy.c takes them) and demote_rate_pages, each per cycle.
	 */
	if (hb_demo_oracle_init(&dm.score.oracle,
				(double)(dm.host.dram_free - (cfg.watermark_mb << 20)) / 4096,
				cfg.rate_mbps * 1e6 * cfg.interval_ms / 1000 / 4096,
				(cfg.burst_mb > 0 ? cfg.burst_mb : cfg.rate_mbps) * 1e6 / 4096,
				(double)cfg.demote_rate_pages * cfg.interval_ms / 1000) < 0) {
		fprintf(stderr, "hotbridge demo: out of memory\n");
		goto out;
	}
	if (add_source(&cfg, "mem0", seed) < 0 || add_source(&cfg, "mem1", seed + 1) < 0 ||
	    hb_emulated_platform_new(&dm.host, &env.platform, &err) < 0 ||
	    hb_emulated_topology(&copy, &err) < 0 || hb_daemon_new(&cfg, &env, &dm.d, &err) < 0) {
		fprintf(stderr, "hotbridge demo: %s\n", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	hb_emulated_host_attach(&dm.host, dm.d);
	dm.topology = copy;
	printf("hotbridge demo: emulated host: region0 = mem0 + mem1, 2-way x 4 KiB, 1 GiB at "
	       "0x%llx on CPU-less node %d;\n  an emulated CHMU per memdev (moving Zipf 1.1, "
	       "100000 accesses per 100 ms epoch,\n  hotness threshold 2, hotlist 6144 entries); "
	       "DRAM node 0 (nearest), dry-run migrator; 100 ms cycles, simulated;\n"
	       "  threshold %g, rate limit %g MB/s per node, watermark %llu MiB with %llu MiB of "
	       "room above it;\n  demotion: pages idle %llu cycles in a row go back to node %d while "
	       "node 0 has less than %llu MiB free (%llu pages/s)\n",
	       REGION_BASE, CXL_NODE, cfg.threshold, cfg.rate_mbps,
	       (unsigned long long)cfg.watermark_mb,
	       (unsigned long long)((dm.host.dram_free >> 20) - cfg.watermark_mb),
	       (unsigned long long)cfg.demote_cold_cycles, CXL_NODE,
	       (unsigned long long)(cfg.watermark_mb + cfg.demote_room_mb),
	       (unsigned long long)cfg.demote_rate_pages);
	fflush(stdout);
	if (hb_daemon_simulate(dm.d, dm.cycles) < 0)
		goto out;
	if (!dm.score_rc)
		dm.score_rc = hb_demo_score_finish(&dm.score);
	if (isatty(2))
		fprintf(stderr, "\n");
	if (dm.heatmap) {
		FILE *hf = hb_out_file_begin(&dm.hm_out);

		o = hf ? hb_demo_heatmap_write(&dm.hm, hf, seed) : -errno;
		if (!o)
			o = hb_out_file_close(&dm.hm_out, true);
		if (o < 0) {
			errno = -o;
			hb_cmd_fail(1, "hotbridge demo", "--heatmap %s: %m", dm.heatmap);
			goto out;
		}
	}
	s = hb_daemon_stats(dm.d);
	nrec = hb_migrator_dryrun_records(hb_daemon_migrator(dm.d), &rec);
	nhot = true_hot_set(dm.d, copy, &hot);
	nrec = promoted_pages(rec, nrec, &promoted);
	for (size_t i = 0; i < nrec; i++)
		hit += bsearch(&promoted[i], hot, nhot, sizeof(*hot), by_hpa) != NULL;
	section("records and pages");
	printf("%-52s %12llu\n", "cycles", (unsigned long long)s->cycles);
	printf("%-52s %12llu\n", "hotness records from the CHMUs", (unsigned long long)s->in.records);
	printf("%-52s %12llu\n", "  translated DPA -> HPA", (unsigned long long)s->in.translated);
	printf("%-52s %12llu\n", "pages promoted (dry run)",
	       (unsigned long long)s->migrated.by_class[HB_MIGRATE_MOVED]);
	printf("%-52s %12llu\n", "pages demoted (dry run)",
	       (unsigned long long)s->demoted.by_class[HB_MIGRATE_MOVED]);
	printf("%-52s %12.3f\n", "precision (promoted pages hot when promoted)",
	       dm.score.promoted ? (double)dm.score.promoted_hot / (double)dm.score.promoted : 0.0);
	printf("%-52s %12zu\n", "the run's hot set (pages with 80 % of all accesses)", nhot);
	printf("%-52s %12zu\n", "distinct pages ever promoted", nrec);
	printf("%-52s %12.3f\n", "recall (pages of the run's hot set promoted)",
	       nhot ? (double)hit / (double)nhot : 0.0);
	printf("  Precision scores each promotion against the hot set of its cycle: the pages "
	       "that drew\n  80 %% of the accesses of the last %d cycles (the emulators' ground "
	       "truth), which moves\n  every 10 cycles. Against the run's hot set it would fall "
	       "as the run grows: a page hot\n  only early in the run is not in it. Recall asks "
	       "how much of the run's hot set was\n  promoted at some time.\n",
	       HB_DEMO_SCORE_LAST);
	if (dm.score_rc < 0 || !dm.score.scored) {
		fprintf(stderr, "hotbridge demo: no score of the pages on DRAM: %s\n",
			dm.score_rc < 0 ? strerror(-dm.score_rc) :
					  "too few cycles (want more than 10)");
	} else {
		const struct hb_demo_figures *f = &dm.score.last;
		double oracle;

		section("pages on DRAM against the current hot set");
		printf("%-52s %12zu\n", "current hot set (80 % of the last 10 cycles' accesses)",
		       f->hot);
		printf("%-52s %12zu\n", "pages on DRAM (promoted, not demoted since)", f->on_dram);
		printf("%-52s %12.3f\n", "precision at the end (pages on DRAM that are hot)",
		       f->precision);
		printf("%-52s %12.3f\n", "recall at the end (hot pages that are on DRAM)", f->recall);
		printf("%-52s %12.3f\n", "precision, mean of the last 10 cycles",
		       dm.score.sum_precision / (double)dm.score.scored);
		printf("%-52s %12.3f\n", "recall, mean of the last 10 cycles",
		       dm.score.sum_recall / (double)dm.score.scored);
		printf("  The means take each of the last 10 cycles alike. After each move of the "
		       "hot set, recall\n  drops and climbs back over the cycles promotion takes "
		       "to follow it (rate limit,\n  hysteresis), so its mean stays below its value "
		       "at the end.\n");
		oracle = hb_demo_oracle_recall(&dm.score.oracle);
		section("against a clairvoyant policy under the same limits");
		printf("%-52s %12.3f\n", "oracle's recall, mean of the last 10 cycles", oracle);
		printf("%-52s %12.3f\n", "hotbridge's mean recall as a fraction of it",
		       oracle > 0 ? dm.score.sum_recall / (double)dm.score.scored / oracle : 0.0);
		printf("%-52s %12llu\n", "pages the oracle promoted",
		       (unsigned long long)dm.score.oracle.promoted);
		printf("%-52s %12llu\n", "pages the oracle demoted",
		       (unsigned long long)dm.score.oracle.demoted);
		printf("  The oracle knows each cycle's hot set and the next one's before they "
		       "happen; it is\n  held to the same promotion rate and burst, DRAM room "
		       "and demotion rate, with no\n  threshold, hysteresis or coldness to wait "
		       "for. What hotbridge misses beyond it is\n  the cost of learning the hot set "
		       "from the devices' reports.\n");
	}
	/* a page above the threshold is decided every cycle: these count decisions */
	section("decisions (one per hot page per cycle)");
	printf("%-52s %12llu\n", "  promote", (unsigned long long)s->decisions[HB_REASON_PROMOTE]);
	printf("%-52s %12llu\n", "  rate limit: the target's bucket was empty",
	       (unsigned long long)s->decisions[HB_REASON_RATE_LIMIT]);
	printf("%-52s %12llu\n", "  watermark: the target had too little free",
	       (unsigned long long)s->decisions[HB_REASON_WATERMARK]);
	printf("%-52s %12llu\n", "  top-K: beyond the cycle's promotions",
	       (unsigned long long)s->decisions[HB_REASON_NOT_TOP_K]);
	printf("%-52s %12llu\n", "  hysteresis: promoted < hysteresis_ms ago, hot again",
	       (unsigned long long)s->decisions[HB_REASON_HYSTERESIS]);
	printf("%-52s %12llu\n", "  already on the target, or refused by the kernel",
	       (unsigned long long)(s->decisions[HB_REASON_ON_TARGET] +
				    s->decisions[HB_REASON_REFUSED]));
	printf("%-52s %12llu\n", "  resident: on DRAM already, by our doing",
	       (unsigned long long)s->decisions[HB_REASON_RESIDENT]);
	printf("%-52s %12llu\n", "  demoted < hysteresis_ms ago, hot again",
	       (unsigned long long)s->decisions[HB_REASON_DEMOTED_RECENTLY]);
	printf("%-52s %12llu\n", "  demote: idle on DRAM, node 0 short of room",
	       (unsigned long long)s->decisions[HB_REASON_DEMOTE]);
	printf("%-52s %12llu\n", "  demotion rate limit, CXL floor, promoted recently",
	       (unsigned long long)(s->decisions[HB_REASON_DEMOTE_RATE_LIMIT] +
				    s->decisions[HB_REASON_CXL_FLOOR] +
				    s->decisions[HB_REASON_PROMOTED_RECENTLY]));
	rc = 0;
out:
	hb_out_file_close(&dm.hm_out, rc == 0);
	hb_demo_heatmap_done(&dm.hm);
	free(hot);
	free(promoted);
	hb_topology_free(copy);
	hb_daemon_free(dm.d);
	hb_platform_free(env.platform); /* when the daemon did not take it */
	hb_demo_score_done(&dm.score);
	hb_emulated_host_done(&dm.host);
	hb_config_done(&cfg);
	return rc;
}
