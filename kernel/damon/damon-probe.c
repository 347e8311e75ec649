// SPDX-License-Identifier: MIT
/*
 * damon: what is there before we write anything. DAMON sysfs, other DAMON
 * users, and our own state file (the kdamond a previous run set up and,
 * after a crash, left running). Whether the kernel has migrate_hot is not
 * read from its release: the set-up finds the scheme's target_nid file
 * (6.11) and the action accepted, or undoes its writes (damon-sysfs.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "damon.h"
#include "util/macro.h"

static const char *nz(const char *s)
{
	return s ? s : "";
}

/*
 * damon_reclaim, damon_lru_sort or damon_stat when enabled, else NULL: their
 * kdamonds are exclusive, so no sysfs kdamond can start beside them (writing
 * "on" fails with EBUSY). damon_stat (6.17) is on from boot where
 * CONFIG_DAMON_STAT_ENABLED_DEFAULT=y, as in Debian 13's 7.3.
 */
static const char *module_enabled(const char *root)
{
	static const char *const mods[] = { "damon_reclaim", "damon_lru_sort", "damon_stat" };

	for (size_t i = 0; i < HB_ARRAY_SIZE(mods); i++) {
		char path[128], v[8];

		snprintf(path, sizeof(path), "/sys/module/%s/parameters/enabled", mods[i]);
		if (hb_read_text(root, path, v, sizeof(v)) > 0 && (v[0] == 'Y' || v[0] == '1'))
			return mods[i];
	}
	return NULL;
}

/*
 * kdamonds/N/pid takes DAMON sysfs's lock with mutex_trylock, as commands
 * do: -EBUSY while any command is in flight (7.3 holds it while the
 * kdamond serves one; the coldness monitor's or another tool's too). As
 * hb_damon_write(): retried for about a second.
 */
static int read_pid(const char *root, char *buf, size_t size)
{
	int r;

	for (int tries = 0;
	     (r = hb_read_text(root, HB_DAMON_KD "/0/pid", buf, size)) == -EBUSY && tries < 100;
	     tries++) {
		/* not hb_damon_sleep_ns(): damon-sysfs.c calls into this file */
		struct timespec ts = { .tv_nsec = 10000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return r;
}

int hb_damon_kd0_marked(const char *root, pid_t pid, char *why, size_t size)
{
	char action[32] = "", v[32] = "";
	uint64_t mark = 0;
	int64_t p = -1;
	int r;

	if (hb_read_text(root, HB_DAMON_KD "/0/contexts/0/schemes/0/action", action,
			 sizeof(action)) < 0)
		snprintf(action, sizeof(action), "(none)");
	if (strcmp(action, "migrate_hot")) {
		snprintf(why, size, "its action is %s, not migrate_hot", action);
		return 0;
	}
	if (hb_read_u64(root, HB_DAMON_KD "/0/contexts/0/schemes/0/watermarks/interval_us", 10,
			&mark) < 0 ||
	    mark != HB_DAMON_MARK) {
		snprintf(why, size, "its scheme has no hotbridge mark (watermarks/interval_us %llu)",
			 (unsigned long long)mark);
		return 0;
	}
	if (pid <= 0)
		return 1;
	r = read_pid(root, v, sizeof(v));
	if (r == -EBUSY) {
		snprintf(why, size, "its pid stayed unreadable for a second (DAMON sysfs busy)");
		return -EBUSY;
	}
	if (r < 0 || hb_parse_i64(v, &p) < 0 || p != pid) {
		snprintf(why, size, "its pid is %s, not %d", r >= 0 ? v : strerror(-r), (int)pid);
		return 0;
	}
	return 1;
}

/*
 * f->nr_kdamonds read: whether kdamond 0 (alone, or with the coldness
 * monitor's: damon-monitor.h) is ours, running migrate_hot. With a state
 * file, the kdamond pid it names (a file from a release before the mark
 * names ours too); pid 0 there: a start or stop of ours was cut short (a
 * crash between its first write and its last), so the kdamonds are ours in
 * whatever state it left them (off, half set up, on under a pid the file
 * never got); without one (a crash that also lost /run), the mark.
 */
static void find_ours(const char *root, const char *state, struct hb_damon_found *f)
{
	uint64_t found_before;
	char why[128];

	if (hb_damon_state_read(state, &f->recorded_pid, &found_before) < 0)
		f->recorded_pid = -1;
	if (f->nr_kdamonds != 1 && f->nr_kdamonds != 2)
		return;
	if (f->recorded_pid == 0) {
		f->ours = true;
	} else if (f->recorded_pid > 0) {
		int64_t pid;
		char v[32], action[32];

		f->ours = read_pid(root, v, sizeof(v)) > 0 && hb_parse_i64(v, &pid) == 0 &&
			  pid == f->recorded_pid &&
			  hb_read_text(root, HB_DAMON_KD "/0/contexts/0/schemes/0/action", action,
				       sizeof(action)) > 0 &&
			  !strcmp(action, "migrate_hot");
	} else {
		f->ours = hb_damon_kd0_marked(root, 0, why, sizeof(why)) == 1;
	}
}

int hb_damon_state_read(const char *path, pid_t *ret_pid, uint64_t *ret_found)
{
	_hb_cleanup_free_ char *buf = NULL;
	long long pid;
	unsigned long long found;
	size_t len;
	int r;

	if (!path || !*path)
		return -ENOENT;
	r = hb_read_file(path, 256, &buf, &len);
	if (r < 0)
		return r;
	if (sscanf(buf, "kdamond_pid=%lld\nfound_kdamonds=%llu", &pid, &found) != 2 || pid < 0 ||
	    pid > INT_MAX)
		return -EINVAL;
	*ret_pid = (pid_t)pid;
	*ret_found = found;
	return 0;
}

int hb_damon_state_write(const char *path, pid_t kdamond_pid, uint64_t found)
{
	char buf[96];
	int len, r;

	if (!path || !*path)
		return 0;
	len = snprintf(buf, sizeof(buf), "kdamond_pid=%lld\nfound_kdamonds=%llu\n",
		       (long long)kdamond_pid, (unsigned long long)found);
	r = hb_mkdir_parent(path, 0700);
	if (r < 0)
		return r;
	return hb_write_file_atomic(path, buf, (size_t)len, 0600);
}

void hb_damon_state_remove(const char *path)
{
	if (path && *path)
		(void)unlink(path);
}

int hb_damon_probe_found(const struct hb_migrator_config *cfg, struct hb_damon_found *ret,
			 struct hb_err *err)
{
	const char *root = cfg->root;
	struct hb_damon_found f = { .recorded_pid = -1 };
	char path[PATH_MAX];
	const char *mod;
	int r;

	snprintf(path, sizeof(path), "%s/sys/kernel", nz(root));
	if (access(path, F_OK) < 0)
		return hb_err_set(err, -ENOENT, "damon: sysfs is not mounted (no %s)", path);
	r = hb_read_u64(root, HB_DAMON_KD "/nr_kdamonds", 10, &f.nr_kdamonds);
	if (r < 0)
		return hb_err_set(err, r == -EACCES ? r : -ENOENT,
				  "damon: cannot read %s/nr_kdamonds: %s (CONFIG_DAMON_SYSFS%s)",
				  HB_DAMON_KD, strerror(-r), r == -EACCES ? ", needs root" : "");
	mod = module_enabled(root);
	if (mod)
		return hb_err_set(err, -EBUSY,
				  "damon: %s is enabled (/sys/module/%s/parameters/enabled): its "
				  "kdamond is exclusive, no other can start; not disturbing it (write N "
				  "there to let hotbridge use DAMON)",
				  mod, mod);
	find_ours(root, cfg->damon_state, &f);
	if (f.nr_kdamonds > 0 && !f.ours && !cfg->damon_takeover) {
		char state[16] = "?";

		(void)hb_read_text(root, HB_DAMON_KD "/0/state", state, sizeof(state));
		return hb_err_set(err, -EBUSY,
				  "damon: in use by another DAMON user (nr_kdamonds %llu, kdamond 0 %s); "
				  "set migrate.damon_takeover = true to stop and replace it",
				  (unsigned long long)f.nr_kdamonds, state);
	}
	*ret = f;
	return 0;
}

int hb_damon_other_user(const char *root, const char *state, char *why, size_t size)
{
	struct hb_damon_found f = { .recorded_pid = -1 };
	const char *mod = module_enabled(root);
	uint64_t on = 0;

	if (mod) {
		snprintf(why, size, "%s is enabled (/sys/module/%s/parameters/enabled)", mod, mod);
		return 1;
	}
	if (hb_read_u64(root, HB_DAMON_KD "/nr_kdamonds", 10, &f.nr_kdamonds) < 0)
		return 0;
	find_ours(root, state, &f);
	if (f.ours)
		return 0;
	for (uint64_t k = 0; k < f.nr_kdamonds && k < 1024; k++) {
		char path[96], v[16];

		snprintf(path, sizeof(path), HB_DAMON_KD "/%llu/state", (unsigned long long)k);
		on += hb_read_text(root, path, v, sizeof(v)) > 0 && !strcmp(v, "on");
	}
	if (!on)
		return 0;
	snprintf(why, size, "%llu of %llu kdamond(s) in %s are on, not ours",
		 (unsigned long long)on, (unsigned long long)f.nr_kdamonds, HB_DAMON_KD);
	return 1;
}

int hb_damon_probe(const struct hb_migrator_config *cfg, struct hb_err *err)
{
	struct hb_damon_found f;

	return hb_damon_probe_found(cfg, &f, err);
}
