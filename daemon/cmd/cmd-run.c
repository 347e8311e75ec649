// SPDX-License-Identifier: MIT
/* hotbridge run: the service, in the foreground. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "builtin.h"
#include "opt.h"
#include "cycle/coldness.h"
#include "kernel.h"
#include "conf/conf-check.h"
#include "config.h"
#include "daemon.h"
#include "devices.h"
#include "platform/emulated-host.h"
#include "lock.h"
#include "log.h"
#include "platform/platform.h"
#include "platform/snapshot-nodes.h"
#include "signals.h"
#include "test-hooks.h"
#include "util/util.h"

/*
 * One daemon per control socket: <control_socket>.lock, taken before any
 * socket (control or source) is made, held until they are all removed.
 */
static int take_lock(const char *control_socket, int *ret_fd)
{
	struct hb_err err = { 0 };
	char path[PATH_MAX];
	pid_t holder = 0;
	int r;

	if (snprintf(path, sizeof(path), "%s.lock", control_socket) >= (int)sizeof(path))
		return hb_cmd_fail(-ENAMETOOLONG, "hotbridge run", "%s: path too long",
				   control_socket);
	r = hb_pid_lock_take(path, ret_fd, &holder, &err);
	if (r == -EWOULDBLOCK && holder > 0)
		fprintf(stderr, "hotbridge run: another hotbridge (pid %d) holds %s\n", (int)holder,
			path);
	else if (r == -EWOULDBLOCK)
		fprintf(stderr, "hotbridge run: another hotbridge holds %s\n", path);
	else if (r < 0)
		fprintf(stderr, "hotbridge run: %s\n", err.msg);
	return r;
}

/*
 * One daemon per state (D4): each file a daemon rewrites (pause_state, the
 * metrics textfile, damon_state on a live host, each replay source's
 * from = saved offset) is locked through FILE.lock as the control socket
 * is, so a second daemon with another control socket but the same state
 * is refused, naming the holder and the file.
 */
struct state_locks {
	int fd[HB_MAX_SOURCES + 3];
	size_t n;
};

/*
 * FILE.lock for one state file. -EWOULDBLOCK when another daemon holds it;
 * with @set_aside (pause_state, whose default is one path per host) a held
 * lock is said and 1 returned instead: the caller leaves that file alone.
 */
static int lock_state_file(const char *file, const char *what, bool set_aside, struct state_locks *l)
{
	struct hb_err err = { 0 };
	char path[PATH_MAX];
	pid_t holder = 0;
	int r, fd = -1;

	if (!file || !file[0] || l->n == HB_ARRAY_SIZE(l->fd))
		return 0;
	if (snprintf(path, sizeof(path), "%s.lock", file) >= (int)sizeof(path))
		return hb_cmd_fail(-ENAMETOOLONG, "hotbridge run", "%s: path too long", file);
	r = hb_pid_lock_take(path, &fd, &holder, &err);
	/*
	 * A state file whose lock cannot be made here (its directory missing
	 * and not creatable, read-only, not ours) is not one this daemon can
	 * write now either: no daemon shares it, and its own write reports
	 * the error when it comes. A start is not refused for it.
	 */
	if (r == -ENOENT || r == -EACCES || r == -EPERM || r == -EROFS)
		return 0;
	if (r == -EWOULDBLOCK && set_aside) {
		fprintf(stderr,
			"hotbridge run: warning: another hotbridge (pid %d) holds %s: this daemon "
			"keeps its pause only until it stops (%s set aside)\n",
			(int)holder, path, what);
		return 1;
	}
	if (r == -EWOULDBLOCK && holder > 0)
		fprintf(stderr,
			"hotbridge run: another hotbridge (pid %d) holds %s: it uses the same %s "
			"%s (one daemon per state file)\n",
			(int)holder, path, what, file);
	else if (r == -EWOULDBLOCK)
		fprintf(stderr,
			"hotbridge run: another hotbridge holds %s: it uses the same %s %s (one "
			"daemon per state file)\n",
			path, what, file);
	else if (r < 0)
		fprintf(stderr, "hotbridge run: %s: %s\n", what, err.msg);
	else
		l->fd[l->n++] = fd;
	return r;
}

static bool damon_will_move(const struct hb_config *cfg);

static int lock_state(const struct hb_config *cfg, struct state_locks *l, bool *pause_aside)
{
	int r;

	/*
	 * Two daemons on one host (their own control sockets) both default to
	 * /var/lib/hotbridge/paused: the second neither reads nor writes the
	 * first one's pause, as if pause_state were empty, and starts.
	 */
	r = lock_state_file(cfg->pause_state, "daemon.pause_state", true, l);
	if (r < 0)
		return r;
	*pause_aside = r == 1;
	if ((r = lock_state_file(cfg->metrics_textfile, "daemon.metrics_textfile", false, l)) < 0 ||
	    /* damon_state is written only by a daemon that runs DAMON */
	    (!cfg->emulated && !cfg->dry_run && damon_will_move(cfg) &&
	     (r = lock_state_file(cfg->damon_state, "migrate.damon_state", false, l)) < 0))
		return r;
	for (size_t i = 0; i < cfg->nsources; i++) {
		const struct hb_source_config *s = &cfg->sources[i];
		struct hb_dev_info info;
		char state[PATH_MAX], what[96];

		hb_source_info(s, &info);
		if (strcmp(s->type, "replay") ||
		    hb_source_replay_state(&info, state, sizeof(state)) <= 0)
			continue;
		snprintf(what, sizeof(what), "[source %s] state", s->name);
		if ((r = lock_state_file(state, what, false, l)) < 0)
			return r;
	}
	return 0;
}

static void unlock_state(struct state_locks *l)
{
	while (l->n)
		(void)hb_pid_lock_release(l->fd[--l->n]);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotbridge run [--config FILE] [--once] [--dry-run] [--set SECTION.KEY=VALUE]...\n"
		"  -c, --config FILE  default %s (and FILE.d/*.conf)\n"
		"  -1, --once         one cycle, print the counters, exit\n"
		"  -n, --dry-run      decide and report, never migrate\n"
		"  -s, --set A=V      override a key of the configuration\n" HB_TEST_HOOK_USAGE(
			"  -I, --iomem FILE   read this host's CXL windows from FILE, not /proc/iomem\n"
			"                     (test hook)\n") "Runs in the foreground (systemd does the rest). SIGTERM/SIGINT finish the current\n"
							      "cycle and exit 0; SIGHUP reloads the configuration (what cannot change live is\n"
							      "logged as needing a restart); SIGUSR1 logs the counters; SIGPIPE, SIGUSR2\n"
							      "and the other unused ones are ignored (hotbridge(8) SIGNALS).\n",
		HB_CONFIG_DEFAULT);
}

/*
 * The live host's coldness source: idle page tracking when the kernel has
 * it (exact, per page, cheap to read); else DAMON's monitoring results when
 * the damon migrator is in use (it makes the monitor's kdamond: nr_kdamonds
 * is global and fixed while one is on, kernel/kernel.h), named or the one
 * backend = auto picks; else idle page tracking's refusal, which names the
 * missing CONFIG_IDLE_PAGE_TRACKING.
 */
static void said_temporaries(const char *path, int n)
{
	hb_log_early(LOG_NOTICE, "hotbridge run",
		     "%s: removed %d temporary file%s a killed run left", path, n, n == 1 ? "" : "s");
}

static bool damon_will_move(const struct hb_config *cfg)
{
	struct hb_migrator_choice c;

	if (!strcmp(cfg->backend, "damon"))
		return true;
	if (strcmp(cfg->backend, "auto"))
		return false;
	hb_migrator_probe_auto(NULL, &c);
	return c.kind == HB_MIGRATOR_DAMON;
}

static int open_live_coldness(const struct hb_config *cfg, struct hb_live_coldness **cold,
			      struct hb_damon_coldness **dcold, struct hb_daemon_env *env)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page_size = ps > 0 ? (uint64_t)ps : 4096;
	struct hb_err err = { 0 };

	if (access(HB_IDLE_BITMAP, F_OK) < 0 && !cfg->dry_run && damon_will_move(cfg)) {
		if (hb_damon_coldness_new(NULL, page_size, -1, dcold, &err) < 0) {
			hb_log_early(LOG_ERR, "hotbridge run", "demote.enabled = true: %s", err.msg);
			return -1;
		}
		env->coldness = hb_damon_coldness(*dcold);
		return 0;
	}
	if (hb_live_coldness_new(NULL, page_size, cold, &err) < 0) {
		hb_log_early(LOG_ERR, "hotbridge run", "demote.enabled = true: %s", err.msg);
		return -1;
	}
	env->coldness = hb_live_coldness(*cold);
	return 0;
}

int hb_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = { { "config", required_argument, NULL, 'c' },
					      { "once", no_argument, NULL, '1' },
					      { "dry-run", no_argument, NULL, 'n' },
					      { "set", required_argument, NULL, 's' },
					      { "iomem", required_argument, NULL, 'I' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	const char *path = HB_CONFIG_DEFAULT, *sets[HB_MAX_SETS], *iomem = NULL;
	struct hb_topology_source ts = { 0 };
	struct hb_daemon_env env = { 0 };
	struct hb_daemon *d = NULL;
	struct hb_emulated_host emu = { .dram_free = 8ULL << 30 };
	_hb_cleanup_(hb_live_coldness_freep) struct hb_live_coldness *cold = NULL;
	_hb_cleanup_(hb_damon_coldness_freep) struct hb_damon_coldness *dcold = NULL;
	struct hb_config cfg;
	struct state_locks locks = { .n = 0 };
	struct hb_err err = { 0 };
	bool once = false, dry = false;
	size_t nsets = 0;
	struct hb_getopt g = { .repeatable = "s" };
	int o, r, rc = 1, lock = -1;

	while ((o = hb_getopt(argc, argv, "c:1ns:I:h", opts, &g)) != -1) {
		switch (o) {
		case 'c': path = optarg; break;
		case '1': once = true; break;
		case 'n': dry = true; break;
		case 's':
			if (nsets == HB_MAX_SETS)
				return hb_cmd_fail(2, "hotbridge run", "more than %d --set options",
						   HB_MAX_SETS);
			sets[nsets++] = optarg;
			break;
		case 'I':
			if (!hb_test_hook_allowed(argv[0], "--iomem"))
				return 2;
			iomem = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		hb_log_early(LOG_ERR, "hotbridge run", "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	/* the loop's signals wait for it; PIPE and the unused ones are ignored */
	if (!once && (r = hb_signals_prepare()) < 0) {
		hb_log_early(LOG_ERR, "hotbridge run", "signals: %s", strerror(-r));
		return 1;
	}
	if (hb_config_read(&cfg, path, true, sets, nsets, &err) < 0) {
		hb_log_early(LOG_ERR, "hotbridge run", "%s", err.msg);
		return 1;
	}
	if (dry)
		cfg.dry_run = true;
	env.sets = sets;
	env.nsets = nsets;
	env.dry_run_forced = dry;
	if (!cfg.nsources) {
		hb_log_early(LOG_ERR, "hotbridge run",
			     "%s configures no [source NAME] section: "
			     "nothing to listen to",
			     path);
		goto out;
	}
	if (!once && hb_config_check_control_socket(&cfg, true, &err) < 0) {
		hb_log_early(LOG_ERR, "hotbridge run", "%s", err.msg);
		goto out;
	}
	/* what check-config says of the paths it writes (newuser r5 E19, E20) */
	if (hb_config_check_paths(&cfg, path, &err) < 0) {
		hb_log_early(LOG_ERR, "hotbridge run", "%s", err.msg);
		goto out;
	}
	if (!once && (take_lock(cfg.control_socket, &lock) < 0 ||
		      lock_state(&cfg, &locks, &env.pause_state_aside) < 0))
		goto out;
	if (!once)
		hb_config_remove_temporaries(&cfg, said_temporaries);
	ts.topology = cfg.topology[0] ? cfg.topology : NULL;
	ts.cedt = cfg.cedt[0] ? cfg.cedt : NULL;
	if (cfg.emulated) {
		if (hb_emulated_platform_new(&emu, &env.platform, &err) < 0) {
			hb_log_early(LOG_ERR, "hotbridge run", "%s", err.msg);
			goto out;
		}
		env.coldness = hb_emulated_coldness(&emu);
	} else {
		if (hb_platform_live_new(&ts, iomem, &env.platform, &err) < 0) {
			hb_log_early(LOG_ERR, "hotbridge run", "%s", err.msg);
			goto out;
		}
		hb_topology_source_check_nodes(&ts, hb_platform_topology(env.platform), NULL,
					       "hotbridge run");
		hb_cmd_warn_cedt_unmatched(hb_platform_topology(env.platform), &ts, "hotbridge run");
		/* opened before capabilities go: kpageflags and the bitmap are root's */
		if (cfg.demote_enabled && open_live_coldness(&cfg, &cold, &dcold, &env) < 0)
			goto out;
	}
	if (hb_daemon_new(&cfg, &env, &d, &err) < 0) {
		hb_log_early(LOG_ERR, "hotbridge run", "%s", err.msg);
		goto out;
	}
	if (cfg.emulated)
		hb_emulated_host_attach(&emu, d);
	if (once) {
		hb_daemon_drop_capabilities(d);
		rc = hb_daemon_cycle(d) < 0;
		hb_daemon_print_stats(d, stdout);
	} else {
		rc = hb_daemon_run(d, path) < 0;
		/*
		 * before hb_daemon_free() gives the loop's signals back their
		 * default action: another SIGTERM during the exit waits, and goes
		 * with the process (until now the loop's handlers took it)
		 */
		(void)hb_signals_block();
	}
out:
	/* its sockets are removed while the lock is still ours */
	hb_daemon_free(d);
	hb_emulated_host_done(&emu);
	unlock_state(&locks);
	lock = hb_pid_lock_release(lock);
	hb_config_done(&cfg);
	return rc;
}
