// SPDX-License-Identifier: MIT
/*
 * The damon migrator over a fake DAMON sysfs tree built in a tmpdir. Reads
 * go to the files; writes go through the seam (hb_sys_damon_write, --wrap)
 * to a small model of 6.12's DAMON sysfs: nr_* files create and remove
 * directories, writes to files that do not exist fail as in sysfs, "state"
 * takes on/off/commit/update_schemes_stats, and a commit "moves" the pages
 * of its regions (sz_applied rises, their kpageflags lose LRU).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "damon/damon-monitor.h"
#include "damon/damon.h"
#include "kernel.h"

/* fixture paths are short; GCC cannot see that through the helpers */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define PS 4096ULL
#define KD "/sys/kernel/mm/damon/admin/kdamonds"
#define NODE1_PFN (0x10000000ULL / PS) /* blocks 2-3 (128 MiB each) are node 1 */
#define LRU (1ULL << 5)
#define KD0_REGIONS KD "/0/contexts/0/targets/0/regions"
#define INERT (1ULL << 56)               /* kernel/damon/damon.h: no memory there */
#define MEM_PFNS (4 * 0x8000000ULL / PS) /* the four memory blocks */

static char root[64];

/* a commit's real ranges (inert ones, beyond any memory, only counted) */
struct commit {
	size_t n, dirs;
	uint64_t start[64], end[64];
	uint64_t ns;
};

static struct {
	char avail[64];
	bool no_migrate_hot, start_fails, never_applied;
	bool no_target_nid; /* a DAMOS before 6.11: no migrate actions */
	bool newer;         /* a 6.18-like tree: addr_unit, dests, quota goals */
	/*
	 * 6.12's command writer: the kdamond takes the command at once (here),
	 * the writer returns only cmd_sleep_ms later, without the lock
	 */
	unsigned int cmd_sleep_ms;
	unsigned int commits_out; /* commit writers not returned yet */
	bool region_write_while_commit_out;
	unsigned int poll_ms, hold_polls;
	const char *refuse; /* path suffix whose write fails */
	int refuse_err;
	const char *refuse_value; /* a value whose write fails, with refuse_err */
	long move_max;            /* pages a commit moves at most; -1 all */
	char log[2048][96];       /* "path=value", path without KD */
	size_t nlog;
	struct commit commits[64];
	size_t ncommits, zero_commits, bad_commits;
	unsigned long nr_regions_writes, region_writes;
	/* kdamond 0's region directories, in memory (thousands of them) */
	size_t nreg;
	uint64_t reg_start[8192], reg_end[8192];
	uint64_t pending; /* bytes to add at the next stats update */
	/* reads of kdamonds/0/pid that fail -EBUSY first (DAMON sysfs's trylock) */
	unsigned int busy_pid_reads;
	uint64_t on_ns;
	/* the write at which the process dies (a SIGKILL's stand-in), 0 never */
	unsigned int crash_at, writes;
} fk;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void put(const char *rel, const char *content)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void get(const char *rel, char *buf, size_t size)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "r");
	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static uint64_t get_u64(const char *rel)
{
	char b[64];

	get(rel, b, sizeof(b));
	return strtoull(b, NULL, 10);
}

static bool exists(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return access(p, F_OK) == 0;
}

static void mkd(const char *rel)
{
	char p[600];

	snprintf(p, sizeof(p), "%s%s", root, rel);
	for (char *q = p + strlen(root) + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = 0;
		assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
		*q = '/';
	}
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void rmd(const char *rel)
{
	char cmd[600];

	if (!exists(rel))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s%s'", root, rel);
	assert_int_equal(system(cmd), 0);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void set_kpf(uint64_t pfn, uint64_t flags)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/proc/kpageflags", root);
	fd = open(p, O_WRONLY);
	if (fd < 0)
		return; /* the test removed it */
	assert_int_equal(pwrite(fd, &flags, 8, (off_t)(pfn * 8)), 8);
	close(fd);
}

static void make_scheme(const char *dir)
{
	static const char *const files[] = {
		"action",
		"target_nid",
		"apply_interval_us",
		"access_pattern/sz/min",
		"access_pattern/sz/max",
		"access_pattern/nr_accesses/min",
		"access_pattern/nr_accesses/max",
		"access_pattern/age/min",
		"access_pattern/age/max",
		"quotas/ms",
		"quotas/bytes",
		"quotas/reset_interval_ms",
		"watermarks/metric",
		"watermarks/interval_us",
		"watermarks/high",
		"watermarks/mid",
		"watermarks/low",
		"stats/sz_applied",
		"stats/nr_applied",
		"stats/nr_tried",
		"filters/nr_filters",
	};
	char p[600];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (fk.no_target_nid && !strcmp(files[i], "target_nid"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		*strrchr(p, '/') = 0;
		mkd(p);
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		put(p, "0\n");
	}
}

/*
 * The committed regions, checked as 6.12's damon_set_regions() does (each
 * start < end, sorted, apart: else -EINVAL and the old ones stay): every
 * real region's pages move, up to move_max pages. Inert regions (no memory
 * there) are only counted.
 */
static int do_commit(const char *kd)
{
	char p[600];
	struct commit c = { 0 };
	const uint64_t *start, *end;
	long moved = 0;

	(void)p;
	(void)kd;
	c.dirs = fk.nreg;
	c.ns = mono_ns();
	if (c.dirs == 0)
		fk.zero_commits++;
	start = fk.reg_start;
	end = fk.reg_end;
	for (size_t i = 0; i < c.dirs; i++) {
		if (start[i] >= end[i] || (i && end[i - 1] > start[i])) {
			fk.bad_commits++;
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < c.dirs; i++) {
		if (start[i] >= INERT)
			continue;
		assert_true(end[i] / PS <= MEM_PFNS);
		if (c.n < 64) {
			c.start[c.n] = start[i];
			c.end[c.n] = end[i];
		}
		c.n++;
		for (uint64_t a = start[i]; a < end[i]; a += PS) {
			if (fk.move_max >= 0 && moved >= fk.move_max)
				break;
			set_kpf(a / PS, 0);
			fk.pending += PS;
			moved++;
		}
	}
	fk.commits[fk.ncommits < 64 ? fk.ncommits++ : 63] = c;
	return 0;
}

static int model_write(const char *r, const char *path, const char *value);

/* kdamonds/N/pid as the kernel serves it: -EBUSY while a command holds the lock */
int __real_hb_read_text(const char *r, const char *path, char *buf, size_t size);
int __wrap_hb_read_text(const char *r, const char *path, char *buf, size_t size);
int __wrap_hb_read_text(const char *r, const char *path, char *buf, size_t size)
{
	if (fk.busy_pid_reads && !strcmp(path, KD "/0/pid")) {
		fk.busy_pid_reads--;
		return -EBUSY;
	}
	return __real_hb_read_text(r, path, buf, size);
}

/*
 * One write at a time, as 6.12's damon_sysfs_lock: commands come from the
 * migrator's threads too (a stats update while the commit's writer sleeps).
 */
int __wrap_hb_sys_damon_write(const char *r, const char *path, const char *value);
int __wrap_hb_sys_damon_write(const char *r, const char *path, const char *value)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int ret;

	bool cmd = !strcmp(value, "commit") || !strcmp(value, "update_schemes_stats");

	pthread_mutex_lock(&lock);
	if (fk.crash_at && ++fk.writes == fk.crash_at)
		_exit(0);
	if (strstr(path, "/regions/") && fk.commits_out)
		fk.region_write_while_commit_out = true;
	ret = model_write(r, path, value);
	if (cmd && !strcmp(value, "commit"))
		fk.commits_out++;
	pthread_mutex_unlock(&lock);
	if (cmd && fk.cmd_sleep_ms)
		usleep(fk.cmd_sleep_ms * 1000);
	pthread_mutex_lock(&lock);
	if (cmd && !strcmp(value, "commit"))
		fk.commits_out--;
	pthread_mutex_unlock(&lock);
	return ret;
}

static int model_write(const char *r, const char *path, const char *value)
{
	char dir[300], p[700];
	uint64_t n;

	assert_string_equal(r, root);
	assert_true(strncmp(path, KD, strlen(KD)) == 0);
	if (fk.nlog < 2048)
		snprintf(fk.log[fk.nlog++], sizeof(fk.log[0]), "%s=%s", path + strlen(KD), value);
	if (fk.refuse && ends_with(path, fk.refuse))
		return fk.refuse_err;
	if (fk.refuse_value && !strcmp(value, fk.refuse_value))
		return fk.refuse_err;
	n = strtoull(value, NULL, 10);
	if (!strncmp(path, KD0_REGIONS "/", strlen(KD0_REGIONS) + 1) &&
	    strcmp(path, KD0_REGIONS "/nr_regions")) {
		/* ".../regions/N/start" or "/end", in memory: only directories that exist */
		const char *q = path + strlen(KD0_REGIONS) + 1;
		char *e;
		unsigned long i = strtoul(q, &e, 10);

		if (e == q || i >= fk.nreg || (strcmp(e, "/start") && strcmp(e, "/end")))
			return -ENOENT;
		(!strcmp(e, "/start") ? fk.reg_start : fk.reg_end)[i] = n;
		fk.region_writes++;
		return 0;
	}
	if (!exists(path))
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	n = strtoull(value, NULL, 10);
	if (ends_with(path, "/nr_kdamonds")) {
		/* while any kdamond is on, as 6.12's damon_sysfs_kdamonds_busy() */
		for (int i = 0; i < 8; i++) {
			char st[16];

			snprintf(p, sizeof(p), "%s/%d/state", dir, i);
			get(p, st, sizeof(st));
			if (!strcmp(st, "on"))
				return -EBUSY;
		}
		for (int i = 0; i < 8; i++) {
			snprintf(p, sizeof(p), "%s/%d", dir, i);
			rmd(p);
		}
		for (uint64_t i = 0; i < n; i++) {
			snprintf(p, sizeof(p), "%s/%llu/contexts", dir, (unsigned long long)i);
			mkd(p);
			snprintf(p, sizeof(p), "%s/%llu/state", dir, (unsigned long long)i);
			put(p, "off\n");
			snprintf(p, sizeof(p), "%s/%llu/pid", dir, (unsigned long long)i);
			put(p, "-1\n");
			snprintf(p, sizeof(p), "%s/%llu/contexts/nr_contexts", dir,
				 (unsigned long long)i);
			put(p, "0\n");
		}
	} else if (ends_with(path, "/contexts/nr_contexts")) {
		snprintf(p, sizeof(p), "%s/0", dir);
		rmd(p);
		if (n) {
			static const char *const files[] = {
				"avail_operations",
				"operations",
				"monitoring_attrs/intervals/sample_us",
				"monitoring_attrs/intervals/aggr_us",
				"monitoring_attrs/intervals/update_us",
				"monitoring_attrs/nr_regions/min",
				"monitoring_attrs/nr_regions/max",
				"targets/nr_targets",
				"schemes/nr_schemes",
			};
			for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
				snprintf(p, sizeof(p), "%s/0/%s", dir, files[i]);
				*strrchr(p, '/') = 0;
				mkd(p);
				snprintf(p, sizeof(p), "%s/0/%s", dir, files[i]);
				put(p, i == 0 ? fk.avail : "0\n");
			}
			if (fk.newer) {
				snprintf(p, sizeof(p), "%s/0/addr_unit", dir);
				put(p, "1\n");
			}
		}
	} else if (ends_with(path, "/targets/nr_targets")) {
		snprintf(p, sizeof(p), "%s/0/regions", dir);
		mkd(p);
		snprintf(p, sizeof(p), "%s/0/regions/nr_regions", dir);
		put(p, "0\n");
	} else if (!strcmp(path, KD0_REGIONS "/nr_regions")) {
		/* every directory removed and made again, as the kernel does */
		fk.nr_regions_writes++;
		assert_true(n <= 8192);
		fk.nreg = n;
		memset(fk.reg_start, 0, sizeof(fk.reg_start));
		memset(fk.reg_end, 0, sizeof(fk.reg_end));

	} else if (ends_with(path, "/regions/nr_regions")) {
		/* the monitor's kdamond 1: as files */
		for (uint64_t i = 0; i < 64; i++) {
			snprintf(p, sizeof(p), "%s/%llu", dir, (unsigned long long)i);
			rmd(p);
		}
		for (uint64_t i = 0; i < n; i++) {
			snprintf(p, sizeof(p), "%s/%llu", dir, (unsigned long long)i);
			mkd(p);
			snprintf(p, sizeof(p), "%s/%llu/start", dir, (unsigned long long)i);
			put(p, "0\n");
			snprintf(p, sizeof(p), "%s/%llu/end", dir, (unsigned long long)i);
			put(p, "0\n");
		}
	} else if (ends_with(path, "filters/nr_filters")) {
		/* filter directories as 6.12 makes them; allow with 6.14 (newer) */
		for (uint64_t i = 0; i < 64; i++) {
			snprintf(p, sizeof(p), "%s/%llu", dir, (unsigned long long)i);
			rmd(p);
		}
		for (uint64_t i = 0; i < n; i++) {
			static const char *const ff[] = { "type", "memcg_path", "matching", "allow" };

			snprintf(p, sizeof(p), "%s/%llu", dir, (unsigned long long)i);
			mkd(p);
			for (size_t f = 0; f < (fk.newer ? 4 : 3); f++) {
				snprintf(p, sizeof(p), "%s/%llu/%s", dir, (unsigned long long)i,
					 ff[f]);
				put(p, "\n");
			}
		}
	} else if (ends_with(path, "/schemes/nr_schemes")) {
		snprintf(p, sizeof(p), "%s/0", dir);
		make_scheme(p);
		if (fk.newer) {
			/* 6.15's operations-layer filters */
			snprintf(p, sizeof(p), "%s/0/ops_filters", dir);
			mkd(p);
			snprintf(p, sizeof(p), "%s/0/ops_filters/nr_filters", dir);
			put(p, "0\n");
			snprintf(p, sizeof(p), "%s/0/dests/nr_dests", dir);
			*strrchr(p, '/') = 0;
			mkd(p);
			snprintf(p, sizeof(p), "%s/0/quotas/goals", dir);
			mkd(p);
		}
	} else if (ends_with(path, "/action")) {
		if (fk.no_migrate_hot && !strcmp(value, "migrate_hot"))
			return -EINVAL;
	} else if (ends_with(path, "/state")) {
		char st[16], sz[700];

		get(path, st, sizeof(st));
		snprintf(p, sizeof(p), "%s/pid", dir);
		if (!strcmp(value, "on")) {
			if (fk.start_fails)
				return -EINVAL;
			/* a new kdamond thread: a new pid at each start */
			char pid[32];
			uint64_t started = get_u64("/started");

			snprintf(pid, sizeof(pid), "%llu\n", (unsigned long long)(4242 + started));
			put(p, pid);
			snprintf(pid, sizeof(pid), "%llu\n", (unsigned long long)(started + 1));
			put("/started", pid);
			fk.on_ns = mono_ns();
			if (do_commit(dir) < 0)
				return -EINVAL;
		} else if (!strcmp(value, "off")) {
			put(p, "-1\n");
		} else if (strcmp(st, "on")) {
			return -EINVAL; /* commands need a running kdamond */
		} else if (!strcmp(value, "commit")) {
			return do_commit(dir);
		} else if (!strcmp(value, "update_schemes_stats")) {
			/* a slow kdamond: each update one long aggregation, the
			 * apply only after hold_polls of them */
			if (fk.poll_ms)
				usleep(fk.poll_ms * 1000);
			snprintf(sz, sizeof(sz), "%s/contexts/0/schemes/0/stats/sz_applied", dir);
			snprintf(p, sizeof(p), "%llu\n",
				 (unsigned long long)(get_u64(sz) + (fk.hold_polls ? 0 : fk.pending)));
			if (fk.hold_polls)
				fk.hold_polls--;
			else
				fk.pending = 0;
			put(sz, p);
			/* the scheme was applied (to whatever regions) since the last update */
			if (!fk.never_applied) {
				snprintf(sz, sizeof(sz), "%s/contexts/0/schemes/0/stats/nr_tried",
					 dir);
				snprintf(p, sizeof(p), "%llu\n",
					 (unsigned long long)(get_u64(sz) + 1));
				put(sz, p);
			}
			return 0;
		} else {
			return -EINVAL;
		}
	}
	snprintf(p, sizeof(p), "%s\n", value);
	put(path, p);
	return 0;
}

/* kernel 6.12, nodes 0 (blocks 0-1) and 1 (blocks 2-3), DAMON sysfs, no kdamond */
static int setup(void **state)
{
	char p[128];

	(void)state;
	memset(&fk, 0, sizeof(fk));
	snprintf(fk.avail, sizeof(fk.avail), "vaddr\nfvaddr\npaddr\n");
	fk.move_max = -1;
	snprintf(root, sizeof(root), "/tmp/hb-test-damon-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkd(KD);
	mkd("/run");
	put(KD "/nr_kdamonds", "0\n");
	mkd("/proc/sys/kernel");
	put("/proc/sys/kernel/osrelease", "6.12.118+deb12-amd64\n");
	put("/proc/zoneinfo",
	    "Node 0, zone   Normal\n  per-node stats\n      nr_inactive_anon 1\n"
	    "  pages free     1100\n        boost    0\n        min      50\n"
	    "        low      60\n        high     100\n        spanned  32768\n"
	    "  pagesets\n    cpu: 0\n              count: 10\n              high:  378\n"
	    "Node 1, zone  Movable\n  pages free     20000\n        min      10\n"
	    "        low      20\n        high     30\n");
	mkd("/sys/devices/system/memory");
	put("/sys/devices/system/memory/block_size_bytes", "8000000\n");
	for (int b = 0; b < 4; b++) {
		snprintf(p, sizeof(p), "/sys/devices/system/memory/memory%d/node%d", b, b / 2);
		mkd(p);
		snprintf(p, sizeof(p), "/sys/devices/system/memory/memory%d/online", b);
		put(p, "1\n");
	}
	put("/proc/kpageflags", "");
	for (uint64_t pfn = NODE1_PFN; pfn < NODE1_PFN + 64; pfn++)
		set_kpf(pfn, LRU);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct hb_migrator_config config(void)
{
	static char statefile[128];

	snprintf(statefile, sizeof(statefile), "%s/run/hotbridge/damon-state", root);
	return (struct hb_migrator_config){ .root = root,
					    .damon_state = statefile,
					    .damon_reset_ms = 40,
					    .damon_aggr_ms = 2,
					    .rate_bytes = 1 << 20 };
}

static struct hb_migrator *open_ok(const struct hb_migrator_config *cfg)
{
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };
	int r = hb_migrator_new(HB_MIGRATOR_DAMON, cfg, &m, &err);

	if (r < 0)
		fail_msg("open: %s", err.msg);
	return m;
}

static int open_fails(const struct hb_migrator_config *cfg, struct hb_err *err)
{
	struct hb_migrator *m = NULL;
	int r = hb_migrator_new(HB_MIGRATOR_DAMON, cfg, &m, err);

	assert_null(m);
	assert_true(r < 0);
	return r;
}

static bool logged(const char *entry)
{
	for (size_t i = 0; i < fk.nlog; i++)
		if (!strcmp(fk.log[i], entry))
			return true;
	return false;
}

/* ---- refusals ---- */

static void test_damon_absent_is_unavailable_and_writes_nothing(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_err err = { 0 };

	(void)state;
	rmd("/sys/kernel/mm/damon");
	assert_int_equal(open_fails(&cfg, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "CONFIG_DAMON_SYSFS"));
	assert_int_equal(fk.nlog, 0);
	rmd("/sys/kernel");
	assert_int_equal(open_fails(&cfg, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "sysfs is not mounted"));
	assert_int_equal(fk.nlog, 0);
}

/*
 * Whether DAMOS has migrate_hot is read from the scheme's files (target_nid
 * came with it in 6.11), never from the release: a DAMOS without it is
 * refused and every write undone, whatever the release says; an old
 * release string with the file is served.
 */
static void test_damon_without_target_nid_is_unavailable_whatever_the_release(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;
	struct hb_err err = { 0 };

	(void)state;
	fk.no_target_nid = true;
	assert_int_equal(open_fails(&cfg, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "migrate_hot"));
	assert_non_null(strstr(err.msg, "target_nid"));
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 0);
	assert_string_equal(fk.log[fk.nlog - 1], "/nr_kdamonds=0");
	assert_false(logged("/0/contexts/0/schemes/0/action=migrate_hot"));
	fk.no_target_nid = false;
	put("/proc/sys/kernel/osrelease", "6.1.0-28-amd64\n");
	m = open_ok(&cfg);
	hb_migrator_free(m);
}

static void test_damon_without_paddr_undoes_its_writes(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_err err = { 0 };

	(void)state;
	snprintf(fk.avail, sizeof(fk.avail), "vaddr\nfvaddr\n");
	assert_int_equal(open_fails(&cfg, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "paddr"));
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 0);
	assert_string_equal(fk.log[fk.nlog - 1], "/nr_kdamonds=0");
}

static void test_damon_refused_migrate_hot_undoes_its_writes(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_err err = { 0 };

	(void)state;
	fk.no_migrate_hot = true;
	assert_int_equal(open_fails(&cfg, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "migrate_hot"));
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 0);
}

static void test_damon_refuses_another_damon_user(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_err err = { 0 };

	(void)state;
	put(KD "/nr_kdamonds", "1\n");
	mkd(KD "/0");
	put(KD "/0/state", "on\n");
	put(KD "/0/pid", "77\n");
	assert_int_equal(open_fails(&cfg, &err), -EBUSY);
	assert_non_null(strstr(err.msg, "another DAMON user"));
	assert_non_null(strstr(err.msg, "damon_takeover"));
	assert_int_equal(fk.nlog, 0);
	/* DAMON_RECLAIM: refused even with takeover */
	put(KD "/nr_kdamonds", "0\n");
	mkd("/sys/module/damon_reclaim/parameters");
	put("/sys/module/damon_reclaim/parameters/enabled", "Y\n");
	cfg.damon_takeover = true;
	assert_int_equal(open_fails(&cfg, &err), -EBUSY);
	assert_non_null(strstr(err.msg, "damon_reclaim"));
	assert_int_equal(fk.nlog, 0);
	/* DAMON_STAT, on from boot in Debian 13's 7.3: the same, with the way out */
	put("/sys/module/damon_reclaim/parameters/enabled", "N\n");
	mkd("/sys/module/damon_stat/parameters");
	put("/sys/module/damon_stat/parameters/enabled", "Y\n");
	assert_int_equal(open_fails(&cfg, &err), -EBUSY);
	assert_non_null(strstr(err.msg, "damon_stat is enabled"));
	assert_non_null(strstr(err.msg, "write N there"));
	assert_int_equal(fk.nlog, 0);
}

static void test_damon_takeover_stops_the_other_kdamond(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;

	(void)state;
	put(KD "/nr_kdamonds", "1\n");
	mkd(KD "/0");
	put(KD "/0/state", "on\n");
	put(KD "/0/pid", "77\n");
	cfg.damon_takeover = true;
	m = open_ok(&cfg);
	assert_string_equal(fk.log[0], "/0/state=off");
	assert_string_equal(fk.log[1], "/nr_kdamonds=1");
	assert_non_null(strstr(hb_migrator_describe(m), "took DAMON over"));
	hb_migrator_free(m);
}

static void test_damon_write_refused_is_named_and_undone(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_err err = { 0 };

	(void)state;
	fk.refuse = "/quotas/bytes";
	fk.refuse_err = -EACCES;
	assert_int_equal(open_fails(&cfg, &err), -EACCES);
	assert_non_null(strstr(err.msg, "quotas/bytes"));
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 0);
}

static void test_damon_kdamond_that_will_not_start(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_err err = { 0 };

	(void)state;
	fk.start_fails = true;
	assert_int_equal(open_fails(&cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "would not start"));
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 0);
	assert_false(exists("/run/hotbridge/damon-state"));
}

/* ---- the state machine and the traps ---- */

static void test_damon_moves_contiguous_pages_as_one_range_placeholder_first(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m = open_ok(&cfg);
	/* a run of three contiguous pages, one alone, one twice */
	uint64_t hpa[] = { (NODE1_PFN + 5) * PS, (NODE1_PFN + 1) * PS, (NODE1_PFN + 2) * PS,
			   (NODE1_PFN + 3) * PS, (NODE1_PFN + 5) * PS };
	int nodes[] = { 0, 0, 0, 0, 0 }, status[5];
	struct hb_damon_stats st;
	struct hb_err err = { 0 };
	size_t first_tried = 0, first_commit = 0;

	(void)state;
	assert_true(exists("/run/hotbridge/damon-state"));
	assert_string_equal(fk.log[0], "/nr_kdamonds=1");
	/*
	 * the kernel paces: one budget (rate x period) per apply, one apply
	 * per period (42 ms: 40 configured + one aggregation of 2 ms), each
	 * apply in a window of its own (window 21 ms < period); the budget in whole
	 * pages (44040 bytes: 10.75 pages -> 11)
	 */
	assert_int_equal(get_u64(KD "/0/contexts/0/schemes/0/quotas/bytes"), 11 * PS);
	assert_int_equal(get_u64(KD "/0/contexts/0/schemes/0/apply_interval_us"), 42000);
	assert_int_equal(get_u64(KD "/0/contexts/0/schemes/0/quotas/reset_interval_ms"), 21);
	/* two samples (= aggregations) per period */
	assert_int_equal(get_u64(KD "/0/contexts/0/monitoring_attrs/intervals/sample_us"), 21000);
	assert_int_equal(get_u64(KD "/0/contexts/0/monitoring_attrs/intervals/aggr_us"), 21000);
	/* min_nr_regions above the most regions of a commit */
	assert_int_equal(get_u64(KD "/0/contexts/0/monitoring_attrs/nr_regions/min"), 4112);
	assert_int_equal(get_u64(KD "/0/contexts/0/monitoring_attrs/nr_regions/max"), 4112);
	assert_int_equal(hb_migrator_move(m, 5, hpa, nodes, status, 0, &err), 0);
	assert_int_equal(status[0], 0);
	assert_int_equal(status[1], 0);
	assert_int_equal(status[2], 0);
	assert_int_equal(status[3], 0);
	assert_int_equal(status[4], -EBUSY); /* given twice */
	/* the kdamond started with the placeholder only: one inert region */
	assert_int_equal(fk.commits[0].n, 0);
	assert_int_equal(fk.commits[0].dirs, 1);
	assert_true(logged("/0/contexts/0/targets/0/regions/0/start=72057594037927936"));
	/*
	 * real ranges only once the scheme was applied (the unlimited first
	 * window spent on the placeholder): nr_tried read before the commit
	 */
	for (size_t i = 0; i < fk.nlog; i++) {
		if (!first_tried && strstr(fk.log[i], "update_schemes_stats"))
			first_tried = i + 1;
		if (!first_commit && strstr(fk.log[i], "=commit"))
			first_commit = i + 1;
	}
	assert_true(first_tried && first_commit && first_tried < first_commit);
	assert_true(fk.commits[1].ns - fk.on_ns >= 42ULL * 1000000);
	/* all four pages in one commit: the run of three as one range, then the placeholder */
	assert_int_equal(fk.ncommits, 3);
	assert_int_equal(fk.commits[1].n, 2);
	assert_int_equal(fk.commits[1].start[0], (NODE1_PFN + 1) * PS);
	assert_int_equal(fk.commits[1].end[0], (NODE1_PFN + 4) * PS);
	assert_int_equal(fk.commits[1].start[1], (NODE1_PFN + 5) * PS);
	assert_int_equal(fk.commits[1].end[1], (NODE1_PFN + 6) * PS);
	assert_int_equal(fk.commits[2].n, 0);
	assert_int_equal(fk.zero_commits, 0);
	assert_int_equal(fk.bad_commits, 0);
	assert_true(logged("/0/contexts/0/schemes/0/action=migrate_hot"));
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.batches, 1); /* one target node, one move call */
	assert_int_equal(st.commits, 1);
	assert_int_equal(st.regions, 2); /* the run of three is one */
	assert_int_equal(st.bytes_applied, 4 * PS);
	assert_int_equal(st.pages_moved, 4);
	hb_migrator_free(m);
	/* closed: off, nr_kdamonds 0, no state file */
	assert_string_equal(fk.log[fk.nlog - 2], "/0/state=off");
	assert_string_equal(fk.log[fk.nlog - 1], "/nr_kdamonds=0");
	assert_false(exists("/run/hotbridge/damon-state"));
}

/* a kdamond that never applies its scheme: no real range is ever committed */
static void test_damon_commits_nothing_before_the_first_apply(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m = open_ok(&cfg);
	uint64_t hpa[] = { (NODE1_PFN + 1) * PS };
	int nodes[] = { 0 }, status[1];
	struct hb_err err = { 0 };

	(void)state;
	fk.never_applied = true;
	assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, status, 0, &err), -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "has not applied its scheme"));
	assert_int_equal(status[0], -ETIMEDOUT);
	assert_int_equal(fk.ncommits, 1); /* `on` with the placeholder only */
	hb_migrator_free(m);
}

static void test_damon_without_a_rate_applies_every_aggregation(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;
	uint64_t hpa[] = { (NODE1_PFN + 1) * PS, (NODE1_PFN + 2) * PS };
	int nodes[] = { 0, 0 }, status[2];
	struct hb_err err = { 0 };

	(void)state;
	cfg.rate_bytes = 0;
	cfg.damon_aggr_ms = 0;
	m = open_ok(&cfg);
	/* short aggregations without a rate: a commit is taken and applied sooner */
	assert_int_equal(get_u64(KD "/0/contexts/0/monitoring_attrs/intervals/aggr_us"), 20000);
	assert_int_equal(get_u64(KD "/0/contexts/0/schemes/0/quotas/bytes"), 0);
	assert_int_equal(get_u64(KD "/0/contexts/0/schemes/0/apply_interval_us"), 0);
	fk.never_applied = true; /* no quota: no first-window wait */
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, status, 0, &err), 0);
	assert_int_equal(status[0], 0);
	assert_int_equal(status[1], 0);
	/* on: placeholder; both pages; placeholder; next batch; placeholder */
	hpa[0] = (NODE1_PFN + 7) * PS;
	assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, status, 0, &err), 0);
	assert_int_equal(hb_migrator_damon_flush(m, &err), 0);
	assert_int_equal(fk.ncommits, 5);
	assert_int_equal(fk.commits[1].n, 1);
	assert_int_equal(fk.commits[1].start[0], (NODE1_PFN + 1) * PS);
	assert_int_equal(fk.commits[1].end[0], (NODE1_PFN + 3) * PS);
	assert_int_equal(fk.commits[2].n, 0);
	assert_int_equal(fk.commits[3].n, 1);
	assert_int_equal(fk.commits[3].start[0], (NODE1_PFN + 7) * PS);
	assert_int_equal(fk.commits[4].n, 0);
	assert_int_equal(fk.zero_commits, 0);
	assert_int_equal(fk.bad_commits, 0);
	hb_migrator_free(m);
}

/*
 * Under TCG one aggregation of many live regions outlasted the quiet time:
 * the first stats update, served before the first apply, came late and
 * showed nothing, and the batch was taken as settled (0 of 4096 moved).
 * Quiet also needs three updates served (= aggregations) without a rise.
 */
static void test_damon_waits_aggregations_not_only_time(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;
	uint64_t hpa[] = { (NODE1_PFN + 1) * PS, (NODE1_PFN + 2) * PS };
	int nodes[] = { 0, 0 }, status[2];
	struct hb_damon_stats st;
	struct hb_err err = { 0 };

	(void)state;
	cfg.rate_bytes = 0; /* quiet: 3 aggregations of 2 ms */
	m = open_ok(&cfg);
	fk.poll_ms = 10;   /* each update served 10 ms later */
	fk.hold_polls = 2; /* the apply after the second */
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, status, 0, &err), 0);
	assert_int_equal(status[0], 0);
	assert_int_equal(status[1], 0);
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.bytes_applied, 2 * PS);
	hb_migrator_free(m);
}

/*
 * Stats updates asked since the log's start (or the last placeholder
 * commit: without a rate the previous batch's lands later, by its thread)
 * until the next commit of real ranges.
 */
static size_t updates_before_next_commit(void)
{
	const char *start = "/0/contexts/0/targets/0/regions/0/start=";
	bool real = false;
	size_t n = 0;

	for (size_t i = 0; i < fk.nlog; i++) {
		if (!strncmp(fk.log[i], start, strlen(start)))
			real = strtoull(fk.log[i] + strlen(start), NULL, 10) < INERT;
		else if (strstr(fk.log[i], "=update_schemes_stats"))
			n++;
		else if (strstr(fk.log[i], "=commit") && real)
			return n;
		else if (strstr(fk.log[i], "=commit"))
			n = 0;
	}
	fail_msg("no commit of real ranges logged");
	return 0;
}

/* one page to node 0 (statuses: moved or not, both fine here) */
static int move_one(struct hb_migrator *m, uint64_t pfn, struct hb_err *err)
{
	uint64_t hpa = pfn * PS;
	int node = 0, status;

	return hb_migrator_move(m, 1, &hpa, &node, &status, 0, err);
}

/*
 * How a commit's settling ends, with a rate or without (settle_done()):
 * after a commit the kernel applied in full, sz_applied is known and the
 * next commit goes without a stats update first; after a partial one it
 * is read again; a settling whose commands fail commits the placeholder
 * at once, counts no bytes and re-reads before the next commit.
 */
static void settle_ends(uint64_t rate)
{
	struct hb_migrator_config cfg = config();
	struct hb_damon_stats st;
	struct hb_err err = { 0 };
	struct hb_migrator *m;

	cfg.rate_bytes = rate;
	m = open_ok(&cfg);
	assert_int_equal(move_one(m, NODE1_PFN + 1, &err), 0);
	fk.nlog = 0; /* the log keeps 2048 entries: from here */
	assert_int_equal(move_one(m, NODE1_PFN + 3, &err), 0);
	assert_int_equal(updates_before_next_commit(), 0);
	/* the kernel moves nothing of the next: the one after reads sz_applied again */
	fk.move_max = 0;
	assert_int_equal(move_one(m, NODE1_PFN + 5, &err), 0);
	fk.move_max = -1;
	fk.nlog = 0;
	assert_int_equal(move_one(m, NODE1_PFN + 7, &err), 0);
	assert_true(updates_before_next_commit() >= 1);
	assert_int_equal(hb_migrator_damon_flush(m, &err), 0);
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.bytes_applied, 3 * PS);
	/* the settling fails after the commit: the placeholder at once, nothing counted */
	fk.refuse_value = "update_schemes_stats";
	fk.refuse_err = -EIO;
	assert_true(move_one(m, NODE1_PFN + 9, &err) < 0);
	fk.refuse_value = NULL;
	assert_int_equal(fk.commits[fk.ncommits - 2].n, 1);
	assert_int_equal(fk.commits[fk.ncommits - 2].start[0], (NODE1_PFN + 9) * PS);
	assert_int_equal(fk.commits[fk.ncommits - 1].n, 0);
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.bytes_applied, 3 * PS);
	fk.nlog = 0;
	assert_int_equal(move_one(m, NODE1_PFN + 11, &err), 0);
	assert_true(updates_before_next_commit() >= 1);
	assert_int_equal(fk.bad_commits, 0);
	hb_migrator_free(m);
}

static void test_damon_settle_ends_alike_with_a_rate_and_without(void **state)
{
	(void)state;
	settle_ends(1 << 20);
	settle_ends(0);
}

static void test_damon_reports_per_page_only_what_is_sound(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m = open_ok(&cfg);
	uint64_t hpa[] = { (NODE1_PFN + 10) * PS, (NODE1_PFN + 12) * PS, (NODE1_PFN + 14) * PS,
			   0x1000 * PS + 1,       0x1000 * PS,           0x80000000ULL };
	int nodes[] = { 0, 0, 0, 0, 0, 0 }, status[6];
	struct hb_damon_stats st;
	struct hb_err err = { 0 };

	(void)state;
	fk.move_max = 1; /* the kernel moves one of three */
	assert_int_equal(hb_migrator_move(m, 6, hpa, nodes, status, 0, &err), 0);
	assert_int_equal(status[0], 0);      /* its frame left the LRU */
	assert_int_equal(status[1], -EBUSY); /* still on the LRU: not moved */
	assert_int_equal(status[2], -EBUSY);
	assert_int_equal(status[3], -EINVAL); /* not page-aligned */
	assert_int_equal(status[4], 0);       /* node 0's block: already there */
	assert_int_equal(status[5], -EFAULT); /* no memory block */
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.bytes_applied, PS);
	assert_int_equal(st.pages_moved, 1);
	assert_int_equal(st.pages_not_moved, 2);
	assert_int_equal(st.pages_already, 1);
	/* kpageflags unreadable: a partial batch cannot be attributed */
	rmd("/proc/kpageflags");
	hpa[0] = (NODE1_PFN + 20) * PS;
	hpa[1] = (NODE1_PFN + 22) * PS;
	assert_int_equal(hb_migrator_move(m, 2, hpa, nodes, status, 0, &err), 0);
	assert_int_equal(status[0], -ENODATA);
	assert_int_equal(status[1], -ENODATA);
	hb_migrator_free(m);
}

static void test_damon_programs_nothing_beyond_the_watermark(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m = open_ok(&cfg);
	uint64_t hpa[4];
	int nodes[] = { 0, 0, 0, 0 }, status[4];
	struct hb_damon_stats st;
	struct hb_err err = { 0 };

	(void)state;
	/*
	 * node 0: DMA's free pages are all lowmem reserve for a movable page;
	 * Normal has 102 free over a high watermark of 100: room for two
	 */
	put("/proc/zoneinfo", "Node 0, zone      DMA\n  pages free     3968\n        min      10\n"
			      "        low      20\n        high     30\n        spanned  4095\n"
			      "        protection: (0, 2000, 3966, 3966, 3966)\n"
			      "  pagesets\n    cpu: 0\n              count: 0\n              high:  0\n"
			      "Node 0, zone   Normal\n  pages free     102\n        min      50\n"
			      "        low      60\n        high     100\n"
			      "        protection: (0, 0, 0, 0, 0)\n");
	for (int i = 0; i < 4; i++)
		hpa[i] = (NODE1_PFN + 30 + (uint64_t)i) * PS; /* one run */
	assert_int_equal(hb_migrator_move(m, 4, hpa, nodes, status, 0, &err), 0);
	assert_int_equal(status[0], 0);
	assert_int_equal(status[1], 0);
	assert_int_equal(status[2], -ENOMEM);
	assert_int_equal(status[3], -ENOMEM);
	/* the range ends where the headroom does */
	assert_int_equal(fk.commits[1].n, 1);
	assert_int_equal(fk.commits[1].start[0], (NODE1_PFN + 30) * PS);
	assert_int_equal(fk.commits[1].end[0], (NODE1_PFN + 32) * PS);
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.pages_over_watermark, 2);
	hb_migrator_free(m);
}

static void test_damon_recognises_its_own_kdamond_after_a_crash(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *crashed = open_ok(&cfg), *m;
	struct hb_err err = { 0 };
	char pid[32];

	(void)state;
	/* "crash": leave the migrator unclosed; the kdamond runs on */
	fk.nlog = 0;
	m = open_ok(&cfg);
	assert_string_equal(fk.log[0], "/0/state=off");
	assert_string_equal(fk.log[1], "/nr_kdamonds=1");
	hb_migrator_free(m);
	/* someone else's kdamond with a stale state file of ours: refused */
	m = open_ok(&cfg);
	get(KD "/0/pid", pid, sizeof(pid));
	put(KD "/0/pid", "99\n");
	assert_int_equal(open_fails(&cfg, &err), -EBUSY);
	snprintf(pid + strlen(pid), sizeof(pid) - strlen(pid), "\n");
	put(KD "/0/pid", pid);
	hb_migrator_free(m);
	/* the crashed one's memory only now, after every check (a leak otherwise) */
	hb_migrator_free(crashed);
}

/*
 * A SIGKILL can land at any write of a start that takes over the kdamond a
 * crashed run left on: between turning it off and writing the new pid into
 * the state file, kdamond 0 is off, half set up, or on under a new pid
 * while the file still names the old one. Each of those must be taken over
 * by the next start, not refused as another DAMON user's (which leaves the
 * half-made kdamond, or one running the dead run's last ranges, acting).
 * The start dies (a child process) at each of its writes in turn.
 */
static void test_damon_takes_over_after_a_crash_at_any_write_of_its_start(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *before = open_ok(&cfg), *m;
	unsigned int nwrites;
	char st[16], pid[32], file[128];
	pid_t recorded;
	uint64_t found;

	(void)state;
	/* how many writes a start over a crashed run's kdamond takes */
	fk.nlog = 0;
	m = open_ok(&cfg);
	nwrites = (unsigned int)fk.nlog;
	hb_migrator_free(m);
	hb_migrator_free(before);
	assert_true(nwrites > 10);
	for (unsigned int n = 1; n <= nwrites; n++) {
		struct hb_err err = { 0 };
		pid_t child;
		int status;

		before = open_ok(&cfg); /* the crashed run's kdamond, on */
		child = fork();
		assert_true(child >= 0);
		if (child == 0) {
			fk.crash_at = n;
			fk.writes = 0;
			(void)hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err);
			_exit(3); /* the start got through every write: not a crash */
		}
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		/* the start after the crash: takes it over, whatever it left */
		m = NULL;
		if (hb_migrator_new(HB_MIGRATOR_DAMON, &cfg, &m, &err) < 0)
			fail_msg("a start after a crash before write %u of %u (%s): %s", n, nwrites,
				 fk.log[n - 1], err.msg);
		get(KD "/0/state", st, sizeof(st));
		assert_string_equal(st, "on");
		assert_int_equal(get_u64(KD "/nr_kdamonds"), 1);
		get(KD "/0/pid", pid, sizeof(pid));
		snprintf(file, sizeof(file), "%s/run/hotbridge/damon-state", root);
		assert_int_equal(hb_damon_state_read(file, &recorded, &found), 0);
		assert_int_equal(recorded, atoi(pid));
		hb_migrator_free(m);
		get(KD "/0/state", st, sizeof(st));
		assert_true(!exists(KD "/0") || strcmp(st, "on"));
		hb_migrator_free(before); /* finds nothing of its own: writes nothing */
	}
}

/*
 * A crash that also lost /run (the unit removed it, or an operator did):
 * no state file, and the kdamond the crashed run started still on. The
 * mark in its scheme says it is ours: turned off and set up anew, not
 * refused as another DAMON user's (review D1, newuser r4 D4).
 */
static void test_damon_without_state_file_stops_its_own_marked_kdamond(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *crashed = open_ok(&cfg), *m;
	char st[16];

	(void)state;
	rmd("/run/hotbridge");
	fk.nlog = 0;
	m = open_ok(&cfg);
	assert_string_equal(fk.log[0], "/0/state=off");
	assert_string_equal(fk.log[1], "/nr_kdamonds=1");
	get(KD "/0/state", st, sizeof(st));
	assert_string_equal(st, "on");
	assert_true(exists("/run/hotbridge/damon-state"));
	hb_migrator_free(m);
	hb_migrator_free(crashed);
}

/*
 * Without a state file only the mark and migrate_hot make a kdamond ours:
 * one another tool set up (no mark), or ours reconfigured (action
 * pageout), is refused and nothing is written to it.
 */
static void test_damon_without_state_file_refuses_kdamonds_not_marked_ours(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *crashed = open_ok(&cfg);
	struct hb_err err = { 0 };
	char st[16];

	(void)state;
	rmd("/run/hotbridge");
	put(KD "/0/contexts/0/schemes/0/action", "pageout\n");
	fk.nlog = 0;
	assert_int_equal(open_fails(&cfg, &err), -EBUSY);
	assert_non_null(strstr(err.msg, "another DAMON user"));
	put(KD "/0/contexts/0/schemes/0/action", "migrate_hot\n");
	put(KD "/0/contexts/0/schemes/0/watermarks/interval_us", "5000000\n");
	assert_int_equal(open_fails(&cfg, &err), -EBUSY);
	assert_int_equal(fk.nlog, 0);
	get(KD "/0/state", st, sizeof(st));
	assert_string_equal(st, "on");
	/* the crashed run's memory; its close finds the kdamond not ours: nothing written */
	hb_migrator_free(crashed);
	assert_int_equal(fk.nlog, 0);
}

/*
 * Another tool reconfigures our kdamond 0 while we run (damo, a script:
 * action pageout; or turns it off and on: another pid). The next batch
 * writes nothing into it (no region, no commit, no target_nid) and fails
 * naming what changed; close stops nothing (review D4).
 */
static void test_damon_never_commits_into_or_stops_a_kdamond_changed_by_another(void **state)
{
	static const char *const change[][2] = {
		{ KD "/0/contexts/0/schemes/0/action", "pageout\n" },
		{ KD "/0/contexts/0/schemes/0/watermarks/interval_us", "0\n" },
		{ KD "/0/pid", "5151\n" },
	};
	uint64_t hpa[] = { (NODE1_PFN + 1) * PS };
	int nodes[] = { 0 }, status[1];

	(void)state;
	for (size_t c = 0; c < sizeof(change) / sizeof(change[0]); c++) {
		struct hb_migrator_config cfg = config();
		struct hb_migrator *m;
		struct hb_err err = { 0 };
		char st[16];

		if (c == 1)
			cfg.rate_bytes = 0; /* the posted path (no rate) too */
		m = open_ok(&cfg);
		put(change[c][0], change[c][1]);
		fk.nlog = 0;
		assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, status, 0, &err), -EBUSY);
		assert_non_null(strstr(err.msg, "no longer the one hotbridge started"));
		assert_int_equal(status[0], -EBUSY);
		for (size_t i = 0; i < fk.nlog; i++)
			assert_null(strstr(fk.log[i], "/0/contexts/"));
		assert_false(logged("/0/state=commit"));
		hb_migrator_free(m);
		assert_false(logged("/0/state=off"));
		assert_false(logged("/nr_kdamonds=0"));
		get(KD "/0/state", st, sizeof(st));
		assert_string_equal(st, "on");
		assert_false(exists("/run/hotbridge/damon-state"));
		/* the next case starts from nothing */
		put(KD "/0/state", "off\n");
		assert_int_equal(__wrap_hb_sys_damon_write(root, KD "/nr_kdamonds", "0"), 0);
	}
}

/*
 * kdamonds/0/pid fails -EBUSY while any DAMON sysfs command is in flight
 * (the coldness monitor's, another tool's; 7.3 holds the lock while the
 * kdamond serves it). A busy moment is waited out, not taken for "not
 * ours"; a pid busy for longer fails the batch -EAGAIN without giving the
 * kdamond up, and close still stops it (its action and mark say ours).
 */
static void test_damon_ownership_check_waits_out_a_busy_pid_file(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m = open_ok(&cfg);
	uint64_t hpa[] = { (NODE1_PFN + 1) * PS };
	int nodes[] = { 0 }, status[1];
	struct hb_err err = { 0 };

	(void)state;
	fk.busy_pid_reads = 20;
	if (hb_migrator_move(m, 1, hpa, nodes, status, 0, &err) < 0)
		fail_msg("move with the pid file busy for a moment: %s", err.msg);
	assert_int_equal(status[0], 0);
	fk.busy_pid_reads = 100000;
	assert_int_equal(hb_migrator_move(m, 1, hpa, nodes, status, 0, &err), -EAGAIN);
	assert_non_null(strstr(err.msg, "busy"));
	fk.busy_pid_reads = 0;
	set_kpf(NODE1_PFN + 2, LRU);
	hpa[0] = (NODE1_PFN + 2) * PS;
	if (hb_migrator_move(m, 1, hpa, nodes, status, 0, &err) < 0)
		fail_msg("move once the pid file reads again: %s", err.msg);
	assert_int_equal(status[0], 0);
	fk.busy_pid_reads = 100000;
	fk.nlog = 0;
	hb_migrator_free(m);
	assert_true(logged("/0/state=off"));
	assert_true(logged("/nr_kdamonds=0"));
	fk.busy_pid_reads = 0;
}

static void test_damon_makes_the_monitors_kdamond_and_removes_it(void **state)
{
	static const uint64_t range[1][2] = { { 0x100000, 0x140000 } };
	struct hb_migrator_config cfg = config();
	struct hb_damon_monitor *mon = NULL, *mon2 = NULL;
	struct hb_migrator *m, *again;
	struct hb_err err = { 0 };
	char st[16];

	(void)state;
	hb_damon_monitor_reserve(&cfg);
	m = open_ok(&cfg);
	/* both made at once, before ours was on; the monitor's left off */
	assert_string_equal(fk.log[0], "/nr_kdamonds=2");
	get(KD "/1/state", st, sizeof(st));
	assert_string_equal(st, "off");
	assert_non_null(strstr(hb_migrator_describe(m), "kdamond 1 made for the coldness monitor"));
	if (hb_damon_monitor_open(root, 1, 1, range, &mon, &err) < 0)
		fail_msg("monitor: %s", err.msg);
	get(KD "/1/state", st, sizeof(st));
	assert_string_equal(st, "on");
	get(KD "/0/state", st, sizeof(st));
	assert_string_equal(st, "on");
	/* a "crash" (m left unclosed): both are ours, turned off, made again */
	fk.nlog = 0;
	again = open_ok(&cfg);
	assert_true(logged("/0/state=off"));
	assert_true(logged("/1/state=off"));
	assert_true(logged("/nr_kdamonds=2"));
	if (hb_damon_monitor_open(root, 1, 1, range, &mon2, &err) < 0)
		fail_msg("monitor after the crash: %s", err.msg);
	/* close: the monitor's is turned off too, or nr_kdamonds could not change */
	hb_migrator_free(again);
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 0);
	assert_false(exists(KD "/1"));
	/* monitors closed last find nothing to turn off */
	hb_damon_monitor_free(mon2);
	hb_damon_monitor_free(mon);
	hb_migrator_free(m);
}

/*
 * The hand-over in kernel.h: the monitor's kdamond is the one the damon
 * migrator made when asked (hb_damon_monitor_reserve()), and
 * hb_damon_monitor_kdamond() says so only then; a mover that makes none
 * is named, dryrun stands in for damon.
 */
static void test_damon_monitor_kdamond_is_the_one_reserved_at_open(void **state)
{
	static const uint64_t range[1][2] = { { 0x100000, 0x140000 } };
	struct hb_migrator_config cfg = config();
	struct hb_damon_monitor *mon = NULL;
	struct hb_migrator *m;
	struct hb_err err = { 0 };
	char st[16], p[128];
	int kd;

	(void)state;
	/* not asked: the migrator makes its own kdamond only, and says there is none */
	m = open_ok(&cfg);
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 1);
	assert_int_equal(hb_damon_monitor_kdamond(m, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "without the coldness monitor's kdamond"));
	assert_null(strstr(hb_migrator_describe(m), "coldness monitor"));
	hb_migrator_free(m);
	/* asked: the number it gives is a kdamond it made, left off, that the monitor turns on */
	hb_damon_monitor_reserve(&cfg);
	m = open_ok(&cfg);
	kd = hb_damon_monitor_kdamond(m, &err);
	assert_true(kd > 0);
	assert_int_equal(get_u64(KD "/nr_kdamonds"), (uint64_t)kd + 1);
	snprintf(p, sizeof(p), KD "/%d/state", kd);
	get(p, st, sizeof(st));
	assert_string_equal(st, "off");
	if (hb_damon_monitor_open(root, 1, 1, range, &mon, &err) < 0)
		fail_msg("monitor: %s", err.msg);
	get(p, st, sizeof(st));
	assert_string_equal(st, "on");
	hb_damon_monitor_free(mon);
	hb_migrator_free(m);
	/* movers that make no kdamond: named; dryrun stands in for damon */
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_PAGEMAP, &cfg, &m, &err), 0);
	assert_int_equal(hb_damon_monitor_kdamond(m, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "needs migrate.backend = damon, not pagemap"));
	hb_migrator_free(m);
	assert_int_equal(hb_migrator_new(HB_MIGRATOR_DRYRUN, &cfg, &m, &err), 0);
	assert_int_equal(hb_damon_monitor_kdamond(m, &err), kd);
	hb_migrator_free(m);
}

static void test_damon_auto_picks_damon_then_pagemap_and_says_why(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator_choice why;
	struct hb_migrator *m = NULL;
	struct hb_err err = { 0 };

	(void)state;
	mkd("/proc/self");
	assert_int_equal(hb_migrator_new_auto(&cfg, &m, &why, &err), 0);
	assert_int_equal(why.kind, HB_MIGRATOR_DAMON);
	assert_int_equal(hb_migrator_kind(m), HB_MIGRATOR_DAMON);
	assert_true(why.why[HB_MIGRATOR_PHYS][0]);
	assert_false(why.why[HB_MIGRATOR_DAMON][0]);
	assert_non_null(strstr(hb_migrator_describe(m), "phys unavailable: "));
	m = hb_migrator_free(m);
	/* a DAMOS without migrate_hot: damon's set-up tried and undone, pagemap */
	fk.no_target_nid = true;
	assert_int_equal(hb_migrator_new_auto(&cfg, &m, &why, &err), 0);
	assert_int_equal(why.kind, HB_MIGRATOR_PAGEMAP);
	assert_non_null(strstr(why.why[HB_MIGRATOR_DAMON], "migrate_hot"));
	assert_non_null(strstr(hb_migrator_describe(m), "damon unavailable: "));
	assert_int_equal(get_u64(KD "/nr_kdamonds"), 0);
	hb_migrator_free(m);
}

/* n pages of node 1 from first, every step-th, on the LRU, to node 0 */
static void move_pages_ok(struct hb_migrator *m, size_t n, uint64_t first, uint64_t step)
{
	uint64_t *hpa = calloc(n, sizeof(*hpa));
	int *nodes = calloc(n, sizeof(int)), *status = calloc(n, sizeof(int));
	struct hb_err err = { 0 };

	assert_true(hpa && nodes && status);
	for (size_t i = 0; i < n; i++) {
		hpa[i] = (NODE1_PFN + first + i * step) * PS;
		set_kpf(hpa[i] / PS, LRU);
	}
	if (hb_migrator_move(m, n, hpa, nodes, status, 0, &err) < 0)
		fail_msg("move: %s", err.msg);
	assert_int_equal(hb_migrator_damon_flush(m, &err), 0); /* the placeholder's writer */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(status[i], 0);
	free(hpa);
	free(nodes);
	free(status);
}

/*
 * Writing nr_regions removes every region directory and makes them again
 * (under TCG seconds per 4096): it is written only to grow (to a power of
 * two), or to shrink after 16 commits in a row that used under an eighth;
 * in between only the start/end files that change are written, and the
 * placeholder turns the used directories inert again.
 */
static void test_damon_reuses_region_directories_between_commits(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;
	unsigned long resizes, writes;

	(void)state;
	cfg.rate_bytes = 0;
	m = open_ok(&cfg);
	assert_int_equal(fk.nr_regions_writes, 1); /* the placeholder's one */
	move_pages_ok(m, 3, 100, 2);               /* three ranges: grow to 4 */
	assert_int_equal(fk.nr_regions_writes, 2);
	assert_int_equal(get_u64(KD "/0/contexts/0/targets/0/regions/nr_regions"), 4);
	assert_int_equal(fk.commits[1].n, 3);
	assert_int_equal(fk.commits[1].dirs, 4);
	assert_int_equal(fk.commits[2].n, 0); /* placeholder, same dirs */
	assert_int_equal(fk.commits[2].dirs, 4);
	resizes = fk.nr_regions_writes;
	writes = fk.region_writes;
	move_pages_ok(m, 2, 200, 2); /* fits: no directory made */
	assert_int_equal(fk.nr_regions_writes, resizes);
	/* two directories' start and end, then the same two back to inert */
	assert_int_equal(fk.region_writes - writes, 8);
	assert_int_equal(fk.commits[3].n, 2);
	assert_int_equal(fk.commits[3].dirs, 4);
	move_pages_ok(m, 9, 300, 2); /* grow to 16 */
	assert_int_equal(fk.nr_regions_writes, resizes + 1);
	assert_int_equal(get_u64(KD "/0/contexts/0/targets/0/regions/nr_regions"), 16);
	/* 16 single-range commits: the 16th shrinks to one directory */
	for (unsigned int i = 0; i < 15; i++)
		move_pages_ok(m, 1, 400 + 2 * i, 1);
	assert_int_equal(fk.nr_regions_writes, resizes + 1);
	move_pages_ok(m, 1, 500, 1);
	assert_int_equal(fk.nr_regions_writes, resizes + 2);
	assert_int_equal(get_u64(KD "/0/contexts/0/targets/0/regions/nr_regions"), 1);
	assert_int_equal(fk.bad_commits, 0);
	assert_int_equal(fk.zero_commits, 0);
	hb_migrator_free(m);
}

/*
 * 6.12's writer of a command returns only at a 100 ms poll after the
 * kdamond took it. Without a rate the batch watches the effects instead
 * (frames vacated, the stats files changed) and returns before those
 * writers do; the placeholder's regions are written only once the
 * commit's writer returned (so the kernel took the commit first).
 */
static void test_damon_batch_returns_before_the_commands_writers(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;
	uint64_t hpa[] = { (NODE1_PFN + 1) * PS, (NODE1_PFN + 2) * PS, (NODE1_PFN + 9) * PS };
	int nodes[] = { 0, 0, 0 }, status[3];
	struct hb_damon_stats st;
	struct hb_err err = { 0 };
	uint64_t t;

	(void)state;
	cfg.rate_bytes = 0;
	m = open_ok(&cfg);
	fk.cmd_sleep_ms = 2000;
	t = mono_ns();
	assert_int_equal(hb_migrator_move(m, 3, hpa, nodes, status, 0, &err), 0);
	t = mono_ns() - t;
	assert_true(t < 2000ULL * 1000000); /* no writer had returned */
	for (int i = 0; i < 3; i++)
		assert_int_equal(status[i], 0);
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.bytes_applied, 3 * PS); /* measured: the stats files */
	assert_int_equal(hb_migrator_damon_flush(m, &err), 0);
	assert_int_equal(fk.ncommits, 3); /* on, the ranges, the placeholder */
	assert_int_equal(fk.commits[1].n, 2);
	assert_int_equal(fk.commits[2].n, 0);
	assert_false(fk.region_write_while_commit_out);
	fk.cmd_sleep_ms = 0;
	hb_migrator_free(m);
}

/* more ranges than one commit holds: several commits, every page moved */
static void test_damon_commits_over_commit_max_ranges_in_several(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;
	struct hb_damon_stats st;

	(void)state;
	put("/proc/zoneinfo", "Node 0, zone   Normal\n  pages free     20000\n        min      50\n"
			      "        low      60\n        high     100\n");
	cfg.rate_bytes = 0;
	m = open_ok(&cfg);
	move_pages_ok(m, 4100, 0, 2); /* 4100 pages, none adjacent */
	assert_int_equal(hb_migrator_damon_stats(m, &st), 0);
	assert_int_equal(st.commits, 2);
	assert_int_equal(st.pages_moved, 4100);
	assert_int_equal(fk.commits[1].dirs, 4096);
	assert_int_equal(fk.commits[2].n, 4); /* the rest, in the same directories */
	assert_int_equal(fk.commits[2].dirs, 4096);
	assert_int_equal(fk.nr_regions_writes, 2);
	assert_int_equal(fk.bad_commits, 0);
	hb_migrator_free(m);
}

/*
 * Features come from the files a kernel has (as damo's sysinfo), not from
 * its version: the same 6.12 release string, with and without them.
 */
static void test_damon_probes_features_from_files_not_the_version(void **state)
{
	struct hb_migrator_config cfg = config();
	struct hb_migrator *m;

	(void)state;
	m = open_ok(&cfg);
	assert_non_null(strstr(hb_migrator_describe(m), "features: none"));
	hb_migrator_free(m);
	fk.newer = true;
	m = open_ok(&cfg);
	assert_non_null(strstr(hb_migrator_describe(m), "features: quota_goals dests addr_unit"));
	hb_migrator_free(m);
}

/*
 * tenant.deny as DAMOS memcg filters (issue 39): one filter a cgroup,
 * matching Y (pages of it are filtered out), and the allowed leaf with
 * matching N; in schemes/0/filters on 6.12, in ops_filters with allow N
 * where the kernel has them (newer); none for another backend
 */
#define SCH KD "/0/contexts/0/schemes/0"
static void test_damon_memcg_filters_reach_the_scheme(void **state)
{
	static const char *const reject[] = { "/ten-b", "/batch/job" };
	struct hb_migrator_config cfg = config();
	struct hb_err err = { 0 };
	struct hb_migrator *m;
	char b[64];

	(void)state;
	m = open_ok(&cfg);
	assert_int_equal(hb_migrator_damon_memcg_filters(m, reject, 2, "/ten-a", &err), 0);
	assert_int_equal(get_u64(SCH "/filters/nr_filters"), 3);
	get(SCH "/filters/0/type", b, sizeof(b));
	assert_string_equal(b, "memcg");
	get(SCH "/filters/0/memcg_path", b, sizeof(b));
	assert_string_equal(b, "/ten-b");
	get(SCH "/filters/0/matching", b, sizeof(b));
	assert_string_equal(b, "Y");
	get(SCH "/filters/1/memcg_path", b, sizeof(b));
	assert_string_equal(b, "/batch/job");
	get(SCH "/filters/2/memcg_path", b, sizeof(b));
	assert_string_equal(b, "/ten-a");
	get(SCH "/filters/2/matching", b, sizeof(b));
	assert_string_equal(b, "N");
	/* none: no filters left */
	assert_int_equal(hb_migrator_damon_memcg_filters(m, reject, 0, NULL, &err), 0);
	assert_int_equal(get_u64(SCH "/filters/nr_filters"), 0);
	hb_migrator_free(m);

	fk.newer = true;
	m = open_ok(&cfg);
	if (hb_migrator_damon_memcg_filters(m, reject, 1, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(get_u64(SCH "/filters/nr_filters"), 0);
	assert_int_equal(get_u64(SCH "/ops_filters/nr_filters"), 1);
	get(SCH "/ops_filters/0/memcg_path", b, sizeof(b));
	assert_string_equal(b, "/ten-b");
	get(SCH "/ops_filters/0/allow", b, sizeof(b));
	assert_string_equal(b, "N");
	hb_migrator_free(m);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_damon_absent_is_unavailable_and_writes_nothing),
		T(test_damon_without_target_nid_is_unavailable_whatever_the_release),
		T(test_damon_without_paddr_undoes_its_writes),
		T(test_damon_refused_migrate_hot_undoes_its_writes),
		T(test_damon_refuses_another_damon_user),
		T(test_damon_takeover_stops_the_other_kdamond),
		T(test_damon_write_refused_is_named_and_undone),
		T(test_damon_kdamond_that_will_not_start),
		T(test_damon_moves_contiguous_pages_as_one_range_placeholder_first),
		T(test_damon_commits_nothing_before_the_first_apply),
		T(test_damon_without_a_rate_applies_every_aggregation),
		T(test_damon_waits_aggregations_not_only_time),
		T(test_damon_settle_ends_alike_with_a_rate_and_without),
		T(test_damon_reports_per_page_only_what_is_sound),
		T(test_damon_programs_nothing_beyond_the_watermark),
		T(test_damon_recognises_its_own_kdamond_after_a_crash),
		T(test_damon_without_state_file_stops_its_own_marked_kdamond),
		T(test_damon_takes_over_after_a_crash_at_any_write_of_its_start),
		T(test_damon_without_state_file_refuses_kdamonds_not_marked_ours),
		T(test_damon_never_commits_into_or_stops_a_kdamond_changed_by_another),
		T(test_damon_ownership_check_waits_out_a_busy_pid_file),
		T(test_damon_makes_the_monitors_kdamond_and_removes_it),
		T(test_damon_monitor_kdamond_is_the_one_reserved_at_open),
		T(test_damon_auto_picks_damon_then_pagemap_and_says_why),
		T(test_damon_reuses_region_directories_between_commits),
		T(test_damon_commits_over_commit_max_ranges_in_several),
		T(test_damon_probes_features_from_files_not_the_version),
		T(test_damon_memcg_filters_reach_the_scheme),
		T(test_damon_batch_returns_before_the_commands_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
