/* SPDX-License-Identifier: MIT */
/*
 * A source that reports what watch_fd() callbacks see (tests/integration/
 * fd-hup.sh). Parameter kind= says what it watches:
 *   pipe:   a pipe whose writer wrote "x" and closed;
 *   socket: a socketpair whose other end wrote "x" and closed;
 *   open:   a pipe whose writer wrote "x" and stays open.
 * Each callback logs "hup-probe NAME: revents READ|HUP ..." at notice, and
 * at end-of-file "hup-probe NAME: end-of-file, HUP seen" (or "not seen").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hb-device.h"

struct probe {
	const struct hb_host_ops *ops;
	struct hb_host *h;
	const char *name;
	int fd, peer;
	int hup_seen;
};

static void on_fd(void *priv, int fd, uint32_t revents)
{
	struct probe *p = priv;
	char buf[16];
	ssize_t n = read(fd, buf, sizeof(buf));

	p->hup_seen |= !!(revents & HB_FD_HUP);
	p->ops->log(p->h, HB_LOG_NOTICE, "hup-probe %s: revents%s%s%s read %zd", p->name,
		    (revents & HB_FD_READ) ? " READ" : "", (revents & HB_FD_WRITE) ? " WRITE" : "",
		    (revents & HB_FD_HUP) ? " HUP" : "", n);
	if (n == 0) {
		p->ops->log(p->h, HB_LOG_NOTICE, "hup-probe %s: end-of-file, HUP %s", p->name,
			    p->hup_seen ? "seen" : "not seen");
		p->ops->unwatch_fd(p->h, fd);
		close(fd);
		p->fd = -1;
	}
}

static int probe_open(const struct hb_host_ops *ops, struct hb_host *h,
		      const struct hb_dev_info *info, void **ret_priv)
{
	const char *kind = hb_dev_param(info, "kind");
	struct probe *p;
	int fds[2], r;

	if (!kind || (strcmp(kind, "pipe") && strcmp(kind, "socket") && strcmp(kind, "open")))
		return -EINVAL;
	if (!strcmp(kind, "socket") ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) :
				      pipe(fds))
		return -errno;
	p = calloc(1, sizeof(*p));
	if (!p) {
		close(fds[0]);
		close(fds[1]);
		return -ENOMEM;
	}
	*p = (struct probe){ .ops = ops, .h = h, .name = info->name, .fd = fds[0], .peer = -1 };
	if (write(fds[1], "x", 1) != 1)
		r = -EIO;
	else
		r = ops->watch_fd(h, fds[0], HB_FD_READ, on_fd, p);
	if (r < 0) {
		close(fds[0]);
		close(fds[1]);
		free(p);
		return r;
	}
	if (!strcmp(kind, "open"))
		p->peer = fds[1];
	else
		close(fds[1]);
	*ret_priv = p;
	return 0;
}

static void probe_close(void *priv)
{
	struct probe *p = priv;

	if (p->fd >= 0) {
		p->ops->unwatch_fd(p->h, p->fd);
		close(p->fd);
	}
	if (p->peer >= 0)
		close(p->peer);
	free(p);
}

static const struct hb_device_ops probe_ops = {
	HB_DEVICE_ABI_MAJOR,
	HB_DEVICE_ABI_MINOR,
	sizeof(struct hb_device_ops),
	0,
	"hup-probe",
	HB_DEV_CAP_FD | HB_DEV_CAP_DPA,
	NULL,
	probe_open,
	NULL,
	probe_close,
};

__attribute__((visibility("default"))) const struct hb_device_ops *hb_device_entry_v1(void)
{
	return &probe_ops;
}
