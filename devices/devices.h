/* SPDX-License-Identifier: MIT */
/*
 * devices/: hotness sources. What the daemon uses (vendor plugins see only
 * hb-device.h): checking an ops table, loading plugins from a directory,
 * the table of built-in sources.
 */
#ifndef HB_DEVICES_H
#define HB_DEVICES_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "hb-device.h"
#include "util/util.h"

/*
 * Refuses an ops table the host must not touch: NULL, another ABI major, a
 * size below v1, no name, missing open/close, poll missing although
 * HB_DEV_CAP_POLL, neither DPA nor HPA, unknown capability bits.
 * origin (a file or "built-in") starts the message in err.
 */
int hb_device_ops_check(const struct hb_device_ops *ops, const char *origin, struct hb_err *err);

/* A plugin file's source NAME: [NN-]NAME.so, NAME of [a-z0-9][a-z0-9_-]*. */
#define HB_PLUGIN_NAME_MAX 64

struct hb_plugin {
	char path[PATH_MAX];
	char name[HB_PLUGIN_NAME_MAX];   /* from the file name, before any dlopen */
	void *handle;                    /* dlopen handle; NULL until opened */
	const struct hb_device_ops *ops; /* NULL until opened */
	struct hb_device_ops proxy;      /* hb_plugin_proxy_ops()'s storage */
};

struct hb_plugin_set {
	struct hb_plugin *v;
	size_t n;
};

/*
 * A directory (or plugin file) is safe when owned by `owner` (root in
 * production) and not group- or world-writable, nor reached through a
 * symlink. Returns 0 or -EPERM/-errno with err naming the path and why.
 */
int hb_plugin_path_check(const char *path, bool want_dir, uid_t owner, struct hb_err *err);

/*
 * The source NAME a plugin file claims, from its name alone:
 * "[NN-]NAME.so" (NN: an ordering prefix of digits), NAME of a-z, 0-9, '-'
 * and '_', starting with a letter or digit, shorter than
 * HB_PLUGIN_NAME_MAX. -EINVAL for anything else.
 */
int hb_plugin_file_name(const char *file, char *ret_name, size_t size);

/*
 * Lists the "*.so" files of dir (lexical order) WITHOUT loading any: a
 * file that is unsafe (hb_plugin_path_check), badly named, named like a
 * built-in source, or whose NAME another file also claims (both are
 * refused, each message naming the other file) is reported through
 * refused(ud, path, why); the others land in set, unopened (path and
 * name only). Fails as a whole (-errno, err) only when dir itself is
 * unsafe or unreadable.
 */
int hb_plugins_scan(const char *dir, uid_t owner, struct hb_plugin_set *set,
		    void (*refused)(void *ud, const char *path, const char *why), void *ud,
		    struct hb_err *err);

/*
 * dlopens one scanned plugin in this process (its constructors run here),
 * takes its HB_DEVICE_ENTRY_SYMBOL ops table and refuses (-errno, err)
 * one that hb_device_ops_check() refuses or whose ops name differs from
 * the NAME of its file.
 */
int hb_plugin_open(struct hb_plugin *p, struct hb_err *err);

/*
 * Whether the plugin file path may still be loaded as source type name:
 * hb_plugins_scan() of its directory again (every check of start-up: the
 * directory, the file's owner, mode and type, its name, built-ins and
 * duplicates) must keep it. 0, or -EPERM/-errno with err saying why (the
 * scan's refusal of the file). A plugin host is started only after it
 * passed, each time (plugin-proxy.c).
 */
int hb_plugin_trust(const char *path, const char *name, uid_t owner, struct hb_err *err);

/*
 * hb_plugins_scan(), then hb_plugin_open() for each plugin whose NAME is in
 * want (NULL-terminated; NULL means every plugin, for tests): the daemon
 * loads only the plugins its sources name, so an unused plugin's code
 * never runs. With inspect_ms > 0 each of them is first inspected in a
 * child (hb_plugin_inspect()), so one that crashes or hangs while loading
 * is refused instead of taking the caller down. A plugin that fails either
 * is refused(); set keeps only the opened ones.
 */
int hb_plugins_load(const char *dir, uid_t owner, const char *const *want, int inspect_ms,
		    struct hb_plugin_set *set,
		    void (*refused)(void *ud, const char *path, const char *why), void *ud,
		    struct hb_err *err);
void hb_plugin_set_done(struct hb_plugin_set *set);

/* What a plugin inspected in a child process said about itself. */
struct hb_plugin_desc {
	char name[HB_PLUGIN_NAME_MAX];
	uint32_t abi_major, abi_minor;
	uint64_t caps;
};

/*
 * Inspects a scanned plugin without loading it here (inspect.c): a forked
 * child dlopens it, runs hb_plugin_open()'s checks and writes the ops
 * table's description back over a pipe. A refusal is -errno with err
 * naming the file and why: the child's own refusal, "crashed (SIGSEGV)"
 * (or whichever signal killed it), an exit without an answer, or no answer
 * within timeout_ms (the child is then killed).
 */
int hb_plugin_inspect(const struct hb_plugin *p, int timeout_ms, struct hb_plugin_desc *ret,
		      struct hb_err *err);

/*
 * Parameters ("key=value") of a source instance (params.c): hb-device.h's
 * public helpers (hb_dev_param() and the like) with messages in err.
 */
int hb_dev_params_check(const struct hb_dev_info *info, const char *const *allowed,
			struct hb_err *err);
int hb_dev_param_u64(const struct hb_dev_info *info, const char *key, uint64_t def, uint64_t *ret,
		     struct hb_err *err);

/*
 * probe (when the source has one: 0 = not here) and open one instance.
 * A failure is -errno with err naming origin (the plugin file or
 * "built-in"), the source and the instance; nothing is left open.
 */
int hb_source_open(const struct hb_device_ops *ops, const char *origin,
		   const struct hb_host_ops *host, struct hb_host *h,
		   const struct hb_dev_info *info, void **ret_priv, struct hb_err *err);

/*
 * The emulated CHMU's ground truth (every access per unit since enable),
 * for tests and `hotbridge demo` to score what the daemon did. priv is an
 * open emul-chmu instance.
 */
size_t hb_source_emul_truth(void *priv, const uint64_t **ret, uint64_t *ret_unit);
/*
 * Where the emulated host keeps the device's pages: away(ud, dpa) true
 * means the host moved that DPA's page off the device (to DRAM), so the
 * workload's accesses to it go there and the CHMU does not see them (the
 * ground truth still counts them). NULL: every page is on the device.
 */
void hb_source_emul_set_away(void *priv, bool (*away)(void *ud, uint64_t dpa), void *ud);

/* Built-in sources, in a fixed table (registry.c). */
size_t hb_builtin_sources(const struct hb_device_ops *const **ret);
const struct hb_device_ops *hb_builtin_find(const char *name);
/* the parameters built-in source `name` takes (NULL-terminated), or NULL */
const char *const *hb_builtin_params(const char *name);
/*
 * the parameters of built-in source `name` that only test binaries take
 * (chmu: pci_dump, sysfs_root), for a clear refusal; NULL when none
 */
const char *const *hb_builtin_test_params(const char *name);
/*
 * The configuration-level check of an instance of built-in source `name`:
 * its parameters and the files they name, without opening any device,
 * socket or tracefs instance. Each built-in's open runs the same check
 * first, so `check-config` and `run` (conf-check.c) refuse the same
 * instances. 0 (also for a name that is not built-in: a plugin's
 * parameters are its own, checked at open), or -errno with err saying
 * what is wrong (the caller names the instance).
 */
int hb_builtin_check(const char *name, const struct hb_dev_info *info, struct hb_err *err);
/*
 * What a replay source reads, as a key two sources reading the same input
 * share: "file DEV INO" for path= (a file or FIFO, whatever path names it),
 * "socket PATH" for socket= (its directory's real path); 0, or -errno when
 * path= cannot be looked at (the check says why).
 */
int hb_source_replay_input(const struct hb_dev_info *info, char *ret, size_t size);
/*
 * D6: whether a replay path='s directory may be written by others than
 * root and the daemon's user (owned by another uid, or group- or
 * world-writable, the sticky bit included: after a rotation anyone could
 * make the name anew). 1 with why in buf (check-config and run warn), 0
 * when not (or no path=, or the directory cannot be looked at).
 */
int hb_source_replay_dir_unsafe(const struct hb_dev_info *info, char *buf, size_t size);
/*
 * The state file a replay source keeps its offset in (from = saved: state=
 * or the default under /var/lib/hotbridge): 1 with its path in buf, 0 when
 * it keeps none
 */
int hb_source_replay_state(const struct hb_dev_info *info, char *buf, size_t size);
/*
 * whether built-in source `name` can run on this host: 1, or 0 with why
 * (for `hotbridge list`); -ENOSYS for a source that cannot tell before open
 */
int hb_builtin_available(const char *name, char *why, size_t size);

/* ---- vendor plugins out of process (plugin-proxy.c, host/) ---- */

/* parameters a plugin instance may have when run out of process */
#define HB_PROXY_MAX_PARAMS 64
/* what loading and opening may take beyond hang_ms before it counts as a hang */
#define HB_PROXY_LOAD_GRACE_MS 2000u
/* defaults of [daemon] plugin_memory_limit and plugin_hang_ms */
#define HB_PROXY_MEM_LIMIT_DEFAULT (512ull << 20)
#define HB_PROXY_HANG_MS_DEFAULT 3000u

struct hb_proxy_limits {
	uint64_t mem_limit; /* the host's RLIMIT_AS, bytes; 0: none */
	uint32_t hang_ms;   /* an unanswered request this old: the host hangs */
	uid_t owner;        /* who must own the plugin file and its directory (root) */
};

/*
 * The ops of plugin p run out of process (stored in p->proxy): named like
 * p, polled each cycle; open them with hb_plugin_proxy_open() only (their
 * open op says -ENOTSUP). p must outlive the sources using them.
 */
const struct hb_device_ops *hb_plugin_proxy_ops(struct hb_plugin *p);
/* whether ops are hb_plugin_proxy_ops()'s (the source's priv is a proxy) */
bool hb_plugin_proxy_is(const struct hb_device_ops *ops);
/*
 * Starts hotbridge-plugin-host for instance info of plugin p (only p's
 * path and name are used: p need not be loaded here) and waits until it
 * opened the instance. -errno with err when the plugin refused (its load
 * checks or its open failed: a retry would fail the same) or the host
 * cannot be started; 0 when it runs, and 0 as well when it crashed or hung
 * on the way: the proxy then starts it again with a back-off, and
 * hb_plugin_proxy_state() names what happened. Uses host's watch_fd,
 * unwatch_fd, log, submit, and the 1.1+ ops it has.
 */
int hb_plugin_proxy_open(const struct hb_plugin *p, const struct hb_proxy_limits *lim,
			 const struct hb_host_ops *host, struct hb_host *h,
			 const struct hb_dev_info *info, void **ret_priv, struct hb_err *err);

struct hb_proxy_state {
	const char *state; /* "running", "starting", "waiting to restart", "disabled" (static) */
	int pid;           /* the host's, 0 when none */
	uint64_t restarts; /* hosts that came up after a failure */
	uint64_t failures; /* hosts that ended: crashed, hung, killed, refused */
	uint64_t records, bad_records; /* received; of those unusable (bad space, length, count) */
	uint64_t dropped;              /* submitted past a full channel, dropped in the host */
	uint64_t backoff_s;            /* waiting: the back-off being waited */
	uint64_t retry_in_s;           /* waiting: seconds left until the next start (rounded up) */
	char last_failure[HB_ERR_MSG_MAX]; /* "killed by SIGSEGV", "failed at open: ...", "" */
	/*
	 * what is wrong now, in words: the last failure while the host is
	 * not running; running: "bad records: N of M", "records dropped past
	 * a full backlog: N", "restarted after: <last failure>"; "" when
	 * nothing is
	 */
	char problem[HB_ERR_MSG_MAX + 32];
};

void hb_plugin_proxy_state(const void *priv, struct hb_proxy_state *ret);

/*
 * Where hotbridge-plugin-host is: $HB_PLUGIN_HOST, else next to the running
 * binary (a build tree), else where it is installed relative to it, else
 * the configured libexec directory. 0, or -ENOENT (ret says the last tried).
 */
int hb_plugin_host_path(char *ret, size_t size);

/* ---- what `hotbridge list` shows of this host's CXL devices (inventory.c) ---- */

#define HB_CXL_INVENTORY_BLOCKS 8

struct hb_cxl_regblock_info {
	unsigned int id, bar; /* Register Locator block identifier, BAR index */
	uint64_t offset;      /* within the BAR */
	const char *type;     /* "component", "chmu", ... (static) */
};

/* a CHMU's capabilities, as its registers report them */
struct hb_chmu_summary {
	unsigned int version, instances, hotlist_size, counter_width;
	char unit_sizes[128]; /* "4K,8K" */
	char ds_factors[128]; /* "1,2,4" */
	bool epoch_based, always_on;
	uint64_t min_epoch_ns, max_epoch_ns;
};

struct hb_cxl_device_info {
	char bdf[16];    /* "0000:0d:00.0" */
	char memdev[64]; /* its memdev under /sys/bus/cxl, or "" */
	uint16_t vendor, device;
	unsigned int nblocks;
	struct hb_cxl_regblock_info blocks[HB_CXL_INVENTORY_BLOCKS];
	bool has_chmu;
	bool chmu_probed;                /* a mapping of its CHMU was tried */
	char chmu_mapping[384];          /* "sysfs resource", "/dev/mem (why)", or "" */
	char chmu_error[HB_ERR_MSG_MAX]; /* why it could not be mapped or read, or "" */
	bool chmu_read;                  /* chmu is valid */
	struct hb_chmu_summary chmu;
};

/*
 * Every CXL memory device (PCI class 0x0502) with its Register Locator
 * blocks and, where it has a CHMU, that CHMU's capabilities (mapping its
 * block needs root; see chmu/map.c). dump: an `lspci -xxxx` file instead of
 * the bus (its CHMUs are read only with a sysroot); sysroot: a prefix
 * before /sys, /proc/iomem and /dev/mem ("" for this host). An error only
 * when the PCI scan itself fails.
 */
int hb_cxl_inventory(const char *dump, const char *sysroot, struct hb_cxl_device_info **ret,
		     size_t *ret_n, struct hb_err *err);

/*
 * Whether the cxl-hmu source can run here (the kernel offers a CHMU perf
 * PMU below root): 1 and the PMU(s) found, or 0 and why not, in why (hmu/pmu.c).
 */
int hb_hmu_available(const char *root, char *why, size_t size);

#endif
