// SPDX-License-Identifier: MIT
/*
 * hotbridge-plugin-host: runs ONE vendor plugin out of the daemon's
 * process. Started by the daemon (devices/plugin-proxy.c) with its end of
 * the channel (host/channel.h) on fd 3:
 *
 *   hotbridge-plugin-host --plugin PATH --type NAME --name INSTANCE
 *       [--memdev MEMDEV] [--pci BDF] [--mem-limit BYTES] [--] [KEY=VALUE...]
 *
 * It confines itself (host/sandbox.h), loads the plugin (the same checks
 * as in the daemon: hb_plugin_open()), opens the instance, and then is the
 * plugin's host: its own small loop (poll(2) over the plugin's fds, its
 * timers and the channel) implements struct hb_host_ops and forwards
 * records, events, logs and counters in batches. Back-pressure: what the
 * channel does not take (the daemon stops reading while its backlog is
 * full) waits in the host; at QUEUE_FULL records backlog_full() says 1 and
 * the plugin's fds and poll wait until the channel drains; past
 * HB_HOST_BACKLOG_HEADROOM more, records are dropped and counted.
 * EOF on the channel ends it: the plugin is closed and the host exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "devices.h"
#include "host/channel.h"
#include "host/sandbox.h"

#define MAX_WATCHES 64
#define MAX_TIMERS 64
#define MAX_PARAMS 64
#define MEM_CHECK_NS (100ULL * 1000 * 1000)
/*
 * Records waiting in the host at which backlog_full() says 1: the host's
 * own backlog (8 MiB), so a poll that submits a burst is not cut to what
 * one socket buffer holds; HB_HOST_BACKLOG_HEADROOM more are still taken.
 */
#define QUEUE_FULL 131072u

struct pending {
	struct pending *next;
	uint32_t len, nrec;
	unsigned char msg[];
};

struct hb_host {
	int chan;
	struct hb_plugin plugin;
	void *priv;
	uint64_t mem_limit, mem_checked_ns;
	struct {
		int fd;
		uint32_t events;
		void (*cb)(void *priv, int fd, uint32_t revents);
		void *priv;
	} w[MAX_WATCHES];
	struct {
		uint64_t at;
		void (*cb)(void *priv);
		void *priv;
	} t[MAX_TIMERS];
	struct hb_hot_record batch[HB_CHAN_BATCH];
	size_t nbatch;
	struct pending *head, *tail; /* what the channel did not take yet */
	uint64_t pending_records, dropped;
	bool eof;
	bool said_stopped;
};

/* the host is single-threaded: the crash handler's view of it */
static int crash_chan = -1;
static uint64_t crash_limit;

static uint64_t vm_bytes(void)
{
	char buf[64];
	uint64_t pages = 0;
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		pages = pages * 10 + (uint64_t)(buf[i] - '0');
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * The host is at its address-space limit: at 90 % of it (malloc() is about
 * to fail), or at 75 % when the plugin failed with -ENOMEM or crashed (a
 * large allocation failed, or the NULL it returned was used).
 */
static bool near_limit(uint64_t vm, uint64_t lim, bool failed)
{
	return lim && vm >= (failed ? lim / 4 * 3 : lim / 10 * 9);
}

/* si_code of a SIGSYS the seccomp filter raised (linux/signal.h; glibc lacks it) */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

/*
 * async-signal-safe: says which call, when the seccomp filter trapped one
 * (SIGSYS), or "memory limit" before the crash, when that is why
 */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	uint64_t vm;

	(void)uc;
	if (sig == SIGSYS && si && si->si_code == SYS_SECCOMP) {
		const char *name = hb_host_syscall_name(si->si_syscall);

		if (crash_chan >= 0)
			(void)hb_chan_send(crash_chan, HB_CHAN_SECCOMP, si->si_syscall, name,
					   (uint32_t)strlen(name), 1);
		(void)raise(sig);
		return;
	}
	vm = vm_bytes();
	if (crash_chan >= 0 && near_limit(vm, crash_limit, true)) {
		static const char msg[] = "crashed at its memory limit";

		(void)hb_chan_send(crash_chan, HB_CHAN_MEMORY, sig, msg, sizeof(msg) - 1, 1);
	}
	/* SA_RESETHAND: the default action now, once the handler returns */
	(void)raise(sig);
}

static void crash_handlers(int chan, uint64_t limit)
{
	static char altstack[64 * 1024];
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGSYS };
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_sigaction = on_crash,
				.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_SIGINFO };

	crash_chan = chan;
	crash_limit = limit;
	(void)sigaltstack(&ss, NULL);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		(void)sigaction(sigs[i], &sa, NULL);
}

/* ---- sending: in order; what the channel does not take waits ---- */

static int queue(struct hb_host *h, uint16_t type, int32_t arg, const void *payload, uint32_t len,
		 uint32_t nrec)
{
	struct hb_chan_hdr hdr = {
		.magic = HB_CHAN_MAGIC | HB_CHAN_VERSION, .type = type, .arg = arg, .len = len
	};
	struct pending *p;

	if (!h->head) {
		int r = hb_chan_send(h->chan, type, arg, payload, len, 1);

		if (r != -EAGAIN)
			return r;
	}
	p = malloc(sizeof(*p) + sizeof(hdr) + len);
	if (!p)
		return -ENOMEM;
	p->next = NULL;
	p->len = (uint32_t)sizeof(hdr) + len;
	p->nrec = nrec;
	memcpy(p->msg, &hdr, sizeof(hdr));
	if (len)
		memcpy(p->msg + sizeof(hdr), payload, len);
	if (h->tail)
		h->tail->next = p;
	else
		h->head = p;
	h->tail = p;
	h->pending_records += nrec;
	return 0;
}

static void send_count(struct hb_host *h, uint16_t type, uint64_t n)
{
	(void)queue(h, type, 0, &n, sizeof(n), 0);
}

/* the waiting messages, as far as the channel takes them */
static void drain(struct hb_host *h)
{
	while (h->head) {
		struct pending *p = h->head;
		ssize_t w = send(h->chan, p->msg, p->len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w < 0) {
			h->eof = true; /* the daemon is gone */
			return;
		}
		h->head = p->next;
		if (!h->head)
			h->tail = NULL;
		h->pending_records -= p->nrec;
		free(p);
	}
	if (h->dropped) {
		uint64_t n = h->dropped;

		h->dropped = 0;
		send_count(h, HB_CHAN_DROPPED, n);
	}
}

static void flush_batch(struct hb_host *h)
{
	if (!h->nbatch)
		return;
	if (queue(h, HB_CHAN_RECORDS, (int32_t)h->nbatch, h->batch,
		  (uint32_t)(h->nbatch * sizeof(h->batch[0])), (uint32_t)h->nbatch) < 0)
		h->dropped += h->nbatch;
	h->nbatch = 0;
}

/* ---- struct hb_host_ops, for the plugin ---- */

HB_PRINTF(3, 4)
static void host_log(struct hb_host *h, int prio, const char *fmt, ...)
{
	char msg[HB_CHAN_TEXT_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = (int)sizeof(msg) - 1;
	flush_batch(h); /* a log line stays where the plugin said it */
	(void)queue(h, HB_CHAN_LOG, prio, msg, (uint32_t)n, 0);
}

static int host_watch(struct hb_host *h, int fd, uint32_t events,
		      void (*cb)(void *priv, int fd, uint32_t revents), void *priv)
{
	if (fd < 0 || !cb)
		return -EINVAL;
	for (int i = 0; i < MAX_WATCHES; i++) {
		if (h->w[i].cb)
			continue;
		h->w[i].fd = fd;
		h->w[i].events = events;
		h->w[i].cb = cb;
		h->w[i].priv = priv;
		return 0;
	}
	return -EMFILE;
}

static int host_unwatch(struct hb_host *h, int fd)
{
	for (int i = 0; i < MAX_WATCHES; i++)
		if (h->w[i].cb && h->w[i].fd == fd) {
			h->w[i].cb = NULL;
			return 0;
		}
	return -ENOENT;
}

static int host_timer(struct hb_host *h, uint64_t after_ns, void (*cb)(void *priv), void *priv)
{
	if (!cb)
		return -EINVAL;
	for (int i = 0; i < MAX_TIMERS; i++) {
		if (h->t[i].cb)
			continue;
		h->t[i].at = hb_now_ns() + after_ns;
		h->t[i].cb = cb;
		h->t[i].priv = priv;
		return 0;
	}
	return -ENOMEM;
}

static int host_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	size_t lost = 0;

	for (size_t i = 0; i < n; i++) {
		if (h->pending_records + h->nbatch >= QUEUE_FULL + HB_HOST_BACKLOG_HEADROOM) {
			lost++;
			continue;
		}
		h->batch[h->nbatch++] = r[i];
		if (h->nbatch == HB_CHAN_BATCH)
			flush_batch(h);
	}
	h->dropped += lost;
	return lost ? -ENOBUFS : 0;
}

static void host_count_bad(struct hb_host *h, uint64_t n)
{
	flush_batch(h);
	send_count(h, HB_CHAN_BAD, n);
}

static int host_submit_event(struct hb_host *h, const struct hb_device_event *ev)
{
	struct hb_device_event copy = { 0 };

	if (!ev || ev->size < offsetof(struct hb_device_event, timestamp_ns))
		return -EINVAL;
	memcpy(&copy, ev, ev->size < sizeof(copy) ? ev->size : sizeof(copy));
	copy.size = sizeof(copy);
	flush_batch(h);
	return queue(h, HB_CHAN_EVENT, 0, &copy, sizeof(copy), 0);
}

static void host_count_overflow(struct hb_host *h, uint64_t n)
{
	flush_batch(h);
	send_count(h, HB_CHAN_OVERFLOW, n);
}

/* the daemon is not reading (its backlog is full), and the host's own is full too */
static int host_backlog_full(struct hb_host *h)
{
	return h->pending_records + h->nbatch >= QUEUE_FULL;
}

static const struct hb_host_ops host_ops = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_host_ops),
	.log = host_log,
	.watch_fd = host_watch,
	.unwatch_fd = host_unwatch,
	.arm_timer = host_timer,
	.submit = host_submit,
	.count_bad = host_count_bad,
	.submit_event = host_submit_event,
	.count_overflow = host_count_overflow,
	.backlog_full = host_backlog_full,
};

/* ---- the loop ---- */

/* after each call into the plugin (rc: what it returned, 0 for void ops) */
static void after_plugin(struct hb_host *h, int rc)
{
	uint64_t now = hb_now_ns(), vm;

	flush_batch(h);
	if (!h->mem_limit || (rc != -ENOMEM && now - h->mem_checked_ns < MEM_CHECK_NS))
		return;
	h->mem_checked_ns = now;
	vm = vm_bytes();
	if (near_limit(vm, h->mem_limit, rc == -ENOMEM)) {
		char msg[128];
		int n = snprintf(msg, sizeof(msg), "%llu of %llu MiB of address space in use",
				 (unsigned long long)(vm >> 20),
				 (unsigned long long)(h->mem_limit >> 20));

		(void)hb_chan_send(h->chan, HB_CHAN_MEMORY, 0, msg, (uint32_t)n, 0);
		_exit(HB_HOST_EXIT_MEMORY);
	}
}

/*
 * A plugin without a poll that watches no fd and has no timer armed can
 * never report again: as the daemon does for a source in process, it is
 * stopped, said once, and each poll the daemon asks for fails, so the
 * daemon counts the source disabled after its failed polls in a row.
 */
static bool stopped(struct hb_host *h)
{
	if (h->plugin.ops->caps & HB_DEV_CAP_POLL)
		return false;
	for (int i = 0; i < MAX_WATCHES; i++)
		if (h->w[i].cb)
			return false;
	for (int i = 0; i < MAX_TIMERS; i++)
		if (h->t[i].cb)
			return false;
	if (!h->said_stopped)
		host_log(h, HB_LOG_WARNING,
			 "it watches no fd and has no poll or timer left: stopped");
	h->said_stopped = true;
	return true;
}

static void on_request(struct hb_host *h)
{
	unsigned char buf[sizeof(struct hb_chan_hdr) + 64];
	struct hb_chan_hdr hdr;
	const char *why;
	ssize_t n = recv(h->chan, buf, sizeof(buf), MSG_DONTWAIT);
	int r;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		h->eof = true;
		return;
	}
	if (hb_chan_check(buf, (size_t)n, &why) < 0) {
		h->eof = true; /* not our daemon: stop */
		return;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	switch (hdr.type) {
	case HB_CHAN_POLL:
		r = stopped(h) ? -ENODEV : 0;
		/* as in the daemon: no polling round while a backlog waits */
		if (!host_backlog_full(h) && (h->plugin.ops->caps & HB_DEV_CAP_POLL)) {
			r = h->plugin.ops->poll(h->priv);
			after_plugin(h, r);
		}
		(void)queue(h, HB_CHAN_POLLED, r, NULL, 0, 0);
		break;
	case HB_CHAN_PING: (void)queue(h, HB_CHAN_PONG, 0, NULL, 0, 0); break;
	default: break;
	}
}

static int next_timeout(const struct hb_host *h)
{
	uint64_t now = hb_now_ns(), first = UINT64_MAX;

	for (int i = 0; i < MAX_TIMERS; i++)
		if (h->t[i].cb && h->t[i].at < first)
			first = h->t[i].at;
	if (first == UINT64_MAX)
		return -1;
	if (first <= now)
		return 0;
	return (int)((first - now + 999999) / 1000000);
}

static void run_timers(struct hb_host *h)
{
	uint64_t now = hb_now_ns();

	for (int i = 0; i < MAX_TIMERS; i++) {
		void (*cb)(void *priv) = h->t[i].cb;

		if (!cb || h->t[i].at > now)
			continue;
		h->t[i].cb = NULL; /* one-shot: cb may arm it again */
		cb(h->t[i].priv);
		after_plugin(h, 0);
	}
}

static void loop(struct hb_host *h)
{
	struct pollfd pfd[1 + MAX_WATCHES];
	int slot[1 + MAX_WATCHES];

	while (!h->eof) {
		nfds_t n = 1;
		int pr;

		pfd[0] = (struct pollfd){ .fd = h->chan,
					  .events = (short)(POLLIN | (h->head ? POLLOUT : 0)) };
		for (int i = 0; i < MAX_WATCHES && !host_backlog_full(h); i++) {
			if (!h->w[i].cb)
				continue;
			pfd[n] = (struct pollfd){
				.fd = h->w[i].fd,
				.events = (short)(((h->w[i].events & HB_FD_READ) ? POLLIN | POLLRDHUP :
										   0) |
						  ((h->w[i].events & HB_FD_WRITE) ? POLLOUT : 0)),
			};
			slot[n++] = i;
		}
		pr = poll(pfd, n, next_timeout(h));
		if (pr < 0 && errno != EINTR)
			break;
		if (pr < 0)
			continue;
		if (pfd[0].revents & POLLOUT)
			drain(h);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
			on_request(h);
		for (nfds_t k = 1; k < n && !h->eof; k++) {
			int i = slot[k];
			uint32_t ev = 0;

			if (!pfd[k].revents || !h->w[i].cb || h->w[i].fd != pfd[k].fd)
				continue; /* unwatched by an earlier callback */
			if (pfd[k].revents & (POLLIN | POLLHUP | POLLRDHUP | POLLERR))
				ev |= HB_FD_READ;
			if (pfd[k].revents & POLLOUT)
				ev |= HB_FD_WRITE;
			if (pfd[k].revents & (POLLHUP | POLLRDHUP))
				ev |= HB_FD_HUP;
			h->w[i].cb(h->w[i].priv, pfd[k].fd, ev);
			after_plugin(h, 0);
		}
		run_timers(h);
		if (h->head)
			drain(h);
	}
}

/* ---- start-up ---- */

struct args {
	const char *plugin, *type, *name, *memdev, *pci;
	uint64_t mem_limit;
	const char *params[MAX_PARAMS + 1];
};

static int parse_args(int argc, char **argv, struct args *a)
{
	size_t np = 0;
	int i;

	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--")) {
			i++;
			break;
		}
		if (strncmp(o, "--", 2))
			break;
		if (!v)
			return -EINVAL;
		if (!strcmp(o, "--plugin"))
			a->plugin = v;
		else if (!strcmp(o, "--type"))
			a->type = v;
		else if (!strcmp(o, "--name"))
			a->name = v;
		else if (!strcmp(o, "--memdev"))
			a->memdev = v;
		else if (!strcmp(o, "--pci"))
			a->pci = v;
		else if (!strcmp(o, "--mem-limit")) {
			if (hb_dev_param_parse_u64(v, &a->mem_limit) < 0)
				return -EINVAL;
		} else
			return -EINVAL;
		i++;
	}
	for (; i < argc; i++) {
		if (np == MAX_PARAMS || !strchr(argv[i], '='))
			return -EINVAL;
		a->params[np++] = argv[i];
	}
	a->params[np] = NULL;
	return a->plugin && a->type && a->name ? 0 : -EINVAL;
}

/* the answer to a start-up step: rc, and the message when it failed */
static void answer(struct hb_host *h, uint16_t type, int rc, const char *msg)
{
	(void)hb_chan_send(h->chan, type, rc, msg,
			   msg ? (uint32_t)strnlen(msg, HB_CHAN_TEXT_MAX) : 0, 0);
}

static int host_main(int argc, char **argv)
{
	static struct hb_host h; /* large: not on the stack */
	struct hb_dev_info info = { .size = sizeof(info) };
	struct hb_err err = { 0 }, warn = { 0 };
	struct args a = { 0 };
	int r;

	h.chan = HB_CHAN_HOST_FD;
	if (fcntl(h.chan, F_GETFD) < 0 || parse_args(argc, argv, &a) < 0) {
		fprintf(stderr,
			"usage: hotbridge-plugin-host --plugin PATH --type NAME --name INSTANCE "
			"[--memdev M] [--pci BDF] [--mem-limit BYTES] [--] [KEY=VALUE...]\n"
			"(started by hotbridge, with its channel on fd %d)\n",
			HB_CHAN_HOST_FD);
		return 64;
	}
	(void)fcntl(h.chan, F_SETFD, FD_CLOEXEC);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the daemon */
	(void)signal(SIGPIPE, SIG_IGN);
#if defined(__SANITIZE_ADDRESS__)
	/*
	 * AddressSanitizer maps terabytes of shadow: no address-space limit
	 * can hold it (test builds only; the package is built without it)
	 */
	if (a.mem_limit)
		fprintf(stderr, "hotbridge-plugin-host: built with AddressSanitizer, which needs "
				"the whole address space: plugin_memory_limit not applied\n");
	a.mem_limit = 0;
#endif
	h.mem_limit = a.mem_limit;
	crash_handlers(h.chan, h.mem_limit);
	if (hb_host_sandbox(a.mem_limit, &warn, &err) < 0) {
		answer(&h, HB_CHAN_LOADED, err.code, err.msg);
		return HB_HOST_EXIT_REFUSED;
	}
	if (warn.msg[0])
		host_log(&h, HB_LOG_WARNING, "%s: the plugin can write wherever uid 0 can", warn.msg);
	snprintf(h.plugin.path, sizeof(h.plugin.path), "%s", a.plugin);
	snprintf(h.plugin.name, sizeof(h.plugin.name), "%s", a.type);
	r = hb_plugin_open(&h.plugin, &err);
	answer(&h, HB_CHAN_LOADED, r, r < 0 ? err.msg : NULL);
	if (r < 0)
		return HB_HOST_EXIT_REFUSED;
	info.name = a.name;
	info.memdev = a.memdev;
	info.pci_bdf = a.pci;
	info.params = a.params;
	r = hb_source_open(h.plugin.ops, h.plugin.path, &host_ops, &h, &info, &h.priv, &err);
	flush_batch(&h);
	drain(&h);
	answer(&h, HB_CHAN_OPENED, r, r < 0 ? err.msg : NULL);
	if (r < 0)
		return HB_HOST_EXIT_REFUSED;
	loop(&h);
	h.plugin.ops->close(h.priv);
	return 0;
}

int main(int argc, char **argv)
{
	int r = host_main(argc, argv);

#if defined(__SANITIZE_ADDRESS__)
	/*
	 * LeakSanitizer's check at exit attaches with ptrace, which the host's
	 * seccomp filter refuses: a fatal error at every exit. Test builds end
	 * with _exit(), past it (and past the plugin's destructors).
	 */
	fflush(NULL);
	_exit(r);
#endif
	return r;
}
