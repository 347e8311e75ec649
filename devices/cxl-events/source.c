// SPDX-License-Identifier: MIT
/*
 * The "cxl-events" source: the kernel's CXL trace events (media errors,
 * poison, lost records) in a tracefs instance of its own, so the global
 * trace buffer and other tracers are never touched. The formats come from
 * the instance's event files, each CPU's trace_pipe_raw is watched by the
 * daemon's loop (buffer_percent 0: readable as soon as one event is in;
 * no polling), and every event goes to the host through submit_event().
 * The instance is removed at close and on every failed open; instances of
 * daemons that died are removed at open (stale.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mntent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "cxl-events.h"
#include "devices.h"

#define MAX_CPUS 1024
#define PAGES_PER_WAKE 64 /* what one callback reads at most per CPU */

struct cpu {
	int fd;
	struct cxl_events *owner;
};

struct cxl_events {
	const struct hb_host_ops *ops;
	struct hb_host *host;
	char name[128], instance[64];
	struct tracefs_instance *inst;
	struct hb_cxl_decoder *dec;
	struct hb_cxl_ring *ring;
	size_t page_size;
	uint8_t *page;
	unsigned ncpu;
	struct cpu cpus[MAX_CPUS];
	uint64_t bad, reported; /* undecodable events; the last burst reported */
};

const char *const hb_source_cxl_events_params[] = { "instance", NULL };

/* Where tracefs is mounted (from /proc/self/mounts), or NULL. */
static const char *tracefs_mount(char *buf, size_t size)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	const char *found = NULL;
	struct mntent *m;

	if (!f)
		return NULL;
	while (!found && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "tracefs") && strlen(m->mnt_dir) < size)
			found = strcpy(buf, m->mnt_dir);
	endmntent(f);
	return found;
}

int hb_cxl_events_available(char *why, size_t size)
{
	const char *dir;
	char path[4096], mnt[4096];
	struct stat st;

	if (geteuid() != 0) {
		snprintf(why, size, "not root (a tracefs instance needs root)");
		return 0;
	}
	/* libtracefs would mount tracefs to find it: only look */
	dir = tracefs_mount(mnt, sizeof(mnt));
	if (!dir) {
		snprintf(why, size, "no tracefs mounted");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/events/cxl", dir);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, size, "no cxl trace events in %s (cxl_core not loaded?)", dir);
		return 0;
	}
	snprintf(why, size, "tracefs at %s has the cxl events", dir);
	return 1;
}

/* the start-up check (registry.c): instance= names a directory of its own */
int hb_source_cxl_events_check(const struct hb_dev_info *info, struct hb_err *err)
{
	const char *inst = hb_dev_param(info, "instance");
	int r = hb_dev_params_check(info, hb_source_cxl_events_params, err);

	if (r < 0)
		return r;
	if (inst && (!*inst || strchr(inst, '/') || !strcmp(inst, ".") || !strcmp(inst, "..")))
		return hb_err_set(err, -EINVAL,
				  "cxl-events: instance=%s is not a directory name "
				  "(no '/', not . or ..)",
				  inst);
	if (inst && strlen(inst) >= sizeof(((struct cxl_events *)0)->instance))
		return hb_err_set(err, -ENAMETOOLONG,
				  "cxl-events: instance=%s: longer than %zu "
				  "characters",
				  inst, sizeof(((struct cxl_events *)0)->instance) - 1);
	return 0;
}

static int cxl_events_probe(const struct hb_dev_info *info)
{
	char why[256];

	return hb_cxl_events_available(why, sizeof(why));
}

static void on_record(void *ud, const struct hb_cxl_record *rec, const struct hb_err *bad)
{
	struct cxl_events *s = ud;
	struct hb_device_event ev;

	if (bad) {
		/* the first of each read burst is named, the rest counted */
		if (s->bad++ == s->reported)
			s->ops->log(s->host, HB_LOG_WARNING, "%s, skipped", bad->msg);
		s->ops->count_bad(s->host, 1);
		return;
	}
	hb_cxl_record_to_event(rec, &ev);
	if (s->ops->submit_event(s->host, &ev) < 0)
		s->ops->count_bad(s->host, 1);
}

static void on_cpu(void *priv, int fd, uint32_t revents)
{
	struct cpu *c = priv;
	struct cxl_events *s = c->owner;

	s->reported = s->bad;
	for (int i = 0; i < PAGES_PER_WAKE; i++) {
		ssize_t n = read(fd, s->page, s->page_size);

		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				s->ops->log(s->host, HB_LOG_WARNING, "reading trace_pipe_raw: %s",
					    strerror(errno));
			break;
		}
		if (hb_cxl_ring_walk(s->ring, s->dec, s->page, (size_t)n, on_record, s) < 0) {
			s->ops->log(s->host, HB_LOG_WARNING,
				    "a trace_pipe_raw page of %zd bytes "
				    "is not a ring-buffer page, skipped",
				    n);
			s->ops->count_bad(s->host, 1);
		}
	}
	if (s->bad - s->reported > 1)
		s->ops->log(s->host, HB_LOG_WARNING, "%llu more undecodable events skipped",
			    (unsigned long long)(s->bad - s->reported - 1));
}

static void cxl_events_close(void *priv)
{
	struct cxl_events *s = priv;

	if (!s)
		return;
	for (unsigned i = 0; i < s->ncpu; i++) {
		if (s->cpus[i].fd < 0)
			continue;
		s->ops->unwatch_fd(s->host, s->cpus[i].fd);
		close(s->cpus[i].fd);
	}
	if (s->inst) {
		/* removing the instance disables its events and frees its buffers */
		if (tracefs_instance_destroy(s->inst) < 0)
			s->ops->log(s->host, HB_LOG_WARNING,
				    "could not remove tracefs instance "
				    "%s: %s",
				    s->instance, strerror(errno));
		tracefs_instance_free(s->inst);
	}
	hb_cxl_ring_free(s->ring);
	hb_cxl_decoder_free(s->dec);
	free(s->page);
	free(s);
}

/* The formats of the events this kernel has, into s->dec; -ENOENT for none. */
static int load_formats(struct cxl_events *s, struct hb_err *err)
{
	int have = 0;

	for (int k = 0; k < HB_CXL_KIND_MAX; k++) {
		const char *ev = hb_cxl_kind_event(k);
		int size = 0;
		char *fmt = tracefs_event_file_read(s->inst, "cxl", ev, "format", &size);
		int r;

		if (!fmt) {
			s->ops->log(s->host, HB_LOG_NOTICE,
				    "this kernel has no cxl:%s event, "
				    "ignoring",
				    ev);
			continue;
		}
		r = hb_cxl_decoder_add_format(s->dec, fmt, (size_t)size, err);
		free(fmt);
		if (r < 0)
			return r;
		if (tracefs_event_enable(s->inst, "cxl", ev) < 0)
			return hb_err_set(err, errno ? -errno : -EIO,
					  "cannot enable cxl:%s in "
					  "tracefs instance %s",
					  ev, s->instance);
		have++;
	}
	return have ? 0 : hb_err_set(err, -ENOENT, "none of the cxl events is in tracefs");
}

static int open_cpus(struct cxl_events *s, struct hb_err *err)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n <= 0 || n > MAX_CPUS)
		n = MAX_CPUS;
	for (long cpu = 0; cpu < n; cpu++) {
		char rel[64], *path;
		int fd, r;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%ld/trace_pipe_raw", cpu);
		path = tracefs_instance_get_file(s->inst, rel);
		if (!path)
			return hb_err_set(err, -ENOMEM, "no memory");
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		r = -errno;
		tracefs_put_tracing_file(path);
		if (fd < 0) {
			if (r == -ENOENT)
				continue; /* not a possible CPU */
			return hb_err_set(err, r, "cannot open %s of tracefs instance %s: %s", rel,
					  s->instance, strerror(-r));
		}
		s->cpus[s->ncpu] = (struct cpu){ .fd = fd, .owner = s };
		s->ncpu++;
		r = s->ops->watch_fd(s->host, fd, HB_FD_READ, on_cpu, &s->cpus[s->ncpu - 1]);
		if (r < 0)
			return hb_err_set(err, r, "cannot watch %s: %s", rel, strerror(-r));
	}
	return s->ncpu ? 0 :
			 hb_err_set(err, -ENOENT,
				    "tracefs instance %s has no per-CPU "
				    "buffers",
				    s->instance);
}

static void on_stale(void *ud, const char *name, int err)
{
	struct cxl_events *s = ud;

	if (err)
		s->ops->log(s->host, HB_LOG_WARNING,
			    "cannot remove stale tracefs instance %s "
			    "(its daemon is gone): %s",
			    name, strerror(-err));
	else
		s->ops->log(s->host, HB_LOG_NOTICE,
			    "removed stale tracefs instance %s: its "
			    "daemon is gone",
			    name);
}

/* the instances of daemons that died without closing, below mnt */
static void remove_stale(struct cxl_events *s, const char *mnt)
{
	char dir[4096 + 16];
	int r;

	snprintf(dir, sizeof(dir), "%s/instances", mnt);
	r = hb_cxl_remove_stale(dir, on_stale, s);
	if (r < 0)
		s->ops->log(s->host, HB_LOG_WARNING, "cannot look for stale instances in %s: %s",
			    dir, strerror(-r));
}

static int cxl_events_open(const struct hb_host_ops *ops, struct hb_host *h,
			   const struct hb_dev_info *info, void **ret_priv)
{
	struct hb_err err = { 0 };
	struct cxl_events *s;
	char mnt[4096];
	const char *inst;
	int r;

	if (ops->abi_minor < 2 || !HB_OPS_HAS(ops, submit_event) || !ops->submit_event ||
	    !HB_OPS_HAS(ops, count_bad) || !ops->count_bad) {
		ops->log(h, HB_LOG_ERR, "the host takes no events (plugin ABI 1.2)");
		return -EPROTO;
	}
	r = hb_source_cxl_events_check(info, &err);
	if (r < 0) {
		ops->log(h, HB_LOG_ERR, "%s", err.msg);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->host = h;
	snprintf(s->name, sizeof(s->name), "%s", info->name ? info->name : "cxl-events");
	inst = hb_dev_param(info, "instance");
	if (inst)
		snprintf(s->instance, sizeof(s->instance), "%s", inst);
	else
		snprintf(s->instance, sizeof(s->instance), "hotbridge-%ld", (long)getpid());
	s->page_size = (size_t)getpagesize();
	s->page = malloc(s->page_size);
	if (!s->page || hb_cxl_decoder_new(&s->dec) < 0 || hb_cxl_ring_new(&s->ring) < 0) {
		cxl_events_close(s);
		return -ENOMEM;
	}
	/* never let libtracefs mount tracefs itself: use the mount there is */
	if (!tracefs_mount(mnt, sizeof(mnt)) || tracefs_set_tracing_dir(mnt) < 0) {
		ops->log(h, HB_LOG_ERR, "no tracefs mounted");
		cxl_events_close(s);
		return -ENOENT;
	}
	remove_stale(s, mnt);
	/* a live one of that name is someone else's (or a daemon that still runs) */
	if (tracefs_instance_exists(s->instance)) {
		ops->log(h, HB_LOG_ERR,
			 "tracefs instance %s exists already: not ours, not "
			 "touched",
			 s->instance);
		cxl_events_close(s);
		return -EEXIST;
	}
	s->inst = tracefs_instance_create(s->instance);
	if (!s->inst) {
		r = errno ? -errno : -EIO;
		ops->log(h, HB_LOG_ERR, "cannot create tracefs instance %s: %s", s->instance,
			 strerror(-r));
		cxl_events_close(s);
		return r;
	}
	/* wake the reader for every event, not when half the buffer is full */
	if (tracefs_instance_file_write(s->inst, "buffer_percent", "0") < 0)
		ops->log(h, HB_LOG_WARNING,
			 "cannot set buffer_percent of %s: events may arrive "
			 "late",
			 s->instance);
	r = load_formats(s, &err);
	if (r >= 0)
		r = open_cpus(s, &err);
	if (r < 0) {
		ops->log(h, HB_LOG_ERR, "%s", err.msg);
		cxl_events_close(s);
		return r;
	}
	ops->log(h, HB_LOG_INFO, "tracefs instance %s: %u CPU buffers watched", s->instance, s->ncpu);
	*ret_priv = s;
	return 0;
}

const struct hb_device_ops hb_source_cxl_events = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_device_ops),
	.name = "cxl-events",
	.caps = HB_DEV_CAP_FD | HB_DEV_CAP_DPA,
	.probe = cxl_events_probe,
	.open = cxl_events_open,
	.close = cxl_events_close,
};
