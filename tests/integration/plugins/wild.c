// SPDX-License-Identifier: MIT
/*
 * Plugins that misbehave the ways a vendor's might, for plugin-host.sh and
 * the plugin-host bench; one build per WILD_* macro, named WILD_NAME:
 *   WILD_CRASHLOAD  a constructor that dies of SIGSEGV (at load)
 *   WILD_CRASHOPEN  open() dies of SIGSEGV
 *   WILD_CRASHPOLL  poll() submits a good record, then dies of SIGSEGV at its 3rd call
 *   WILD_LOOP       poll() never returns
 *   WILD_LEAK       poll() allocates 64 MiB more each call, never freed
 *   WILD_GARBAGE    poll() submits 64 records the host cannot use
 *   WILD_FLOOD      poll() submits per_poll= good records (default 10000),
 *                   fewer once backlog_full() says 1 (the bench)
 *   WILD_INET       poll() submits a good record, then opens an AF_INET
 *                   socket at its 2nd call (outside the host's allow-list)
 *   WILD_PTRACE     open() calls ptrace(PTRACE_TRACEME) (outside it too)
 *   WILD_SIGSYS     open() installs a SIGSYS handler of its own (which
 *                   would take the filter's trap from the host: refused)
 *   WILD_FLOOD with strict=1: returns what submit() says (-ENOBUFS past a
 *                   full backlog), as the sample does
 *   WILD_FAILPOLL   poll() submits a good record and fails (-EIO): the
 *                   daemon disables the source after 10
 *   WILD_CLOSEFDS   poll() closes every fd at its 2nd call (the channel
 *                   too), then sleeps
 *   WILD_CHATTY     poll() calls log() 500 times and prints 500 lines
 *                   to stdout (the daemon keeps 20 lines a second)
 *   WILD_WRITE      open() tries to create the file write= names (a .so
 *                   in plugin_dir: the host must not be able to), logs
 *                   whether it could, and opens either way
 * Each good record is 4 KiB of its memdev= at DPA 0..64 MiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <hb-device.h>

struct wild {
	const struct hb_host_ops *ops;
	struct hb_host *h;
	char memdev[HB_MEMDEV_NAME_MAX];
	uint64_t polls, per_poll, next, strict;
};

__attribute__((unused)) static void die(void)
{
	(void)raise(SIGSEGV);
}

#ifdef WILD_CRASHLOAD
__attribute__((constructor)) static void crash_at_load(void)
{
	die();
}
#endif

__attribute__((unused)) static void good(struct wild *w, struct hb_hot_record *r)
{
	memset(r, 0, sizeof(*r));
	r->space = HB_SPACE_DPA;
	memcpy(r->memdev, w->memdev, sizeof(r->memdev));
	r->addr = (w->next++ % 16384) * 4096;
	r->len = 4096;
	r->count = 100;
}

static int wild_open(const struct hb_host_ops *ops, struct hb_host *h,
		     const struct hb_dev_info *info, void **ret_priv)
{
	struct wild *w = calloc(1, sizeof(*w));

#ifdef WILD_CRASHOPEN
	die();
#endif
#ifdef WILD_PTRACE
	(void)ptrace(PTRACE_TRACEME, 0, NULL, NULL);
#endif
#ifdef WILD_SIGSYS
	{
		struct sigaction sa = { .sa_handler = SIG_IGN };

		(void)sigaction(SIGSYS, &sa, NULL);
	}
#endif
#ifdef WILD_WRITE
	{
		const char *path = hb_dev_param(info, "write");
		int fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755) : -1;

		ops->log(h, HB_LOG_NOTICE, "creating %s: %s", path ? path : "(no write=)",
			 fd >= 0 ? "done" : strerror(errno));
		if (fd >= 0)
			close(fd);
	}
#endif
	if (!w)
		return -ENOMEM;
	w->ops = ops;
	w->h = h;
	strncpy(w->memdev, info->memdev ? info->memdev : "mem0", sizeof(w->memdev) - 1);
	if (hb_dev_param_get_u64(info, "per_poll", 10000, &w->per_poll) < 0 ||
	    hb_dev_param_get_u64(info, "strict", 0, &w->strict) < 0) {
		free(w);
		return -EINVAL;
	}
	*ret_priv = w;
	return 0;
}

static int wild_poll(void *priv)
{
	struct wild *w = priv;
	struct hb_hot_record r;

	w->polls++;
	memset(&r, 0, sizeof(r));
#if defined(WILD_CRASHPOLL)
	good(w, &r);
	(void)w->ops->submit(w->h, &r, 1);
	if (w->polls == 3)
		die();
	return 0;
#elif defined(WILD_INET)
	good(w, &r);
	(void)w->ops->submit(w->h, &r, 1);
	if (w->polls == 2) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd >= 0)
			close(fd);
	}
	return 0;
#elif defined(WILD_LOOP)
	for (volatile int spin = 1; spin;)
		;
	return 0;
#elif defined(WILD_LEAK)
	{
		size_t sz = 64u << 20;
		char *p = malloc(sz);

		if (!p)
			return -ENOMEM;
		memset(p, 1, sz);
		good(w, &r);
		return w->ops->submit(w->h, &r, 1);
	}
#elif defined(WILD_CLOSEFDS)
	good(w, &r);
	(void)w->ops->submit(w->h, &r, 1);
	if (w->polls == 2) {
		for (int fd = 3; fd < 256; fd++)
			(void)close(fd);
		for (;;) {
			struct timespec ts = { 1, 0 };

			(void)nanosleep(&ts, NULL);
		}
	}
	return 0;
#elif defined(WILD_FAILPOLL)
	good(w, &r);
	(void)w->ops->submit(w->h, &r, 1);
	return -EIO;
#elif defined(WILD_CHATTY)
	for (int i = 0; i < 500; i++) {
		w->ops->log(w->h, HB_LOG_INFO, "chatty log %d", i);
		printf("chatty printf %d\n", i);
	}
	fflush(stdout);
	good(w, &r);
	return w->ops->submit(w->h, &r, 1);
#elif defined(WILD_WRITE)
	good(w, &r);
	return w->ops->submit(w->h, &r, 1);
#elif defined(WILD_GARBAGE)
	for (int i = 0; i < 64; i++) {
		memset(&r, 0xa5, sizeof(r));
		r.len = 0;
		(void)w->ops->submit(w->h, &r, 1);
	}
	return 0;
#else
	{
		struct hb_hot_record batch[256];
		uint64_t left = w->per_poll;
		int rc = 0;

		while (left && (w->strict || !w->ops->backlog_full(w->h))) {
			size_t n = left < 256 ? (size_t)left : 256;

			for (size_t i = 0; i < n; i++)
				good(w, &batch[i]);
			if (w->ops->submit(w->h, batch, n) < 0 && w->strict)
				rc = -ENOBUFS;
			left -= n;
		}
		return rc;
	}
#endif
}

static void wild_close(void *priv)
{
	free(priv);
}

static const struct hb_device_ops wild_ops = {
	HB_DEVICE_ABI_MAJOR,
	HB_DEVICE_ABI_MINOR,
	sizeof(struct hb_device_ops),
	0,
	WILD_NAME,
	HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
	NULL,
	wild_open,
	wild_poll,
	wild_close,
};

__attribute__((visibility("default"))) const struct hb_device_ops *hb_device_entry_v1(void)
{
	return &wild_ops;
}
