/* SPDX-License-Identifier: MIT */
/*
 * A sample hotbridge source plugin, built out of tree against the installed
 * hb-device.h (README.md says how). It stands in for vendor telemetry: each
 * poll it reports one window of a memdev's DPA range as hot, walking
 * through the range so the daemon sees a moving hot set.
 *
 * Parameters (from the source's config section; numbers as the config
 * writes them, decimal or 0x hex):
 *   base=0x0  size=0x10000000  window=0x200000  count=100
 * and the section's memdev= (required).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hb-device.h>

struct sample {
	const struct hb_host_ops *ops;
	struct hb_host *host;
	char memdev[HB_MEMDEV_NAME_MAX];
	uint64_t base, size, window, count, next;
};

static const char *const sample_params[] = { "base", "size", "window", "count", NULL };

/* Parameter key as a number, or an error naming it. */
static int param(struct sample *s, const struct hb_dev_info *info, const char *key, uint64_t def,
		 uint64_t *ret)
{
	int r = hb_dev_param_get_u64(info, key, def, ret);

	if (r < 0)
		s->ops->log(s->host, HB_LOG_ERR, "%s=%s: want a number (decimal or 0x hex)%s", key,
			    hb_dev_param(info, key), r == -ERANGE ? " below 2^64" : "");
	return r;
}

static int sample_open(const struct hb_host_ops *ops, struct hb_host *h,
		       const struct hb_dev_info *info, void **ret_priv)
{
	const char *unknown = hb_dev_param_unknown(info, sample_params);
	struct sample *s;

	if (unknown) {
		ops->log(h, HB_LOG_ERR,
			 "unknown parameter '%s' (sample takes base, size, "
			 "window, count)",
			 unknown);
		return -EINVAL;
	}
	if (!info->memdev || strlen(info->memdev) >= HB_MEMDEV_NAME_MAX) {
		ops->log(h, HB_LOG_ERR, "needs memdev = memN");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->host = h;
	strcpy(s->memdev, info->memdev);
	if (param(s, info, "base", 0, &s->base) < 0 ||
	    param(s, info, "size", 0x10000000, &s->size) < 0 ||
	    param(s, info, "window", 0x200000, &s->window) < 0 ||
	    param(s, info, "count", 100, &s->count) < 0) {
		free(s);
		return -EINVAL;
	}
	if (!s->window || s->window > s->size) {
		ops->log(h, HB_LOG_ERR, "window=%llu: want 1..size (%llu)",
			 (unsigned long long)s->window, (unsigned long long)s->size);
		free(s);
		return -EINVAL;
	}
	*ret_priv = s;
	return 0;
}

static int sample_poll(void *priv)
{
	struct sample *s = priv;
	struct hb_hot_record r;

	memset(&r, 0, sizeof(r));
	r.space = HB_SPACE_DPA;
	strcpy(r.memdev, s->memdev);
	r.addr = s->base + s->next;
	r.len = s->window;
	r.count = s->count;
	s->next = (s->next + s->window) % (s->size - s->size % s->window);
	return s->ops->submit(s->host, &r, 1);
}

static void sample_close(void *priv)
{
	free(priv);
}

static const struct hb_device_ops sample_ops = {
	HB_DEVICE_ABI_MAJOR,
	HB_DEVICE_ABI_MINOR,
	sizeof(struct hb_device_ops),
	0,
	"sample",
	HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
	NULL,
	sample_open,
	sample_poll,
	sample_close,
};

__attribute__((visibility("default"))) const struct hb_device_ops *hb_device_entry_v1(void)
{
	return &sample_ops;
}
