/* SPDX-License-Identifier: MIT */
/*
 * A sample hotbridge source plugin, built out of tree against the installed
 * hb-device.h (see Makefile). It stands in for vendor telemetry: each poll
 * it reports one window of a memdev's DPA range as hot, walking through the
 * range so the daemon sees a moving hot set.
 *
 * Parameters (from the source's config section):
 *   memdev=mem0  base=0x0  size=0x10000000  window=0x200000  count=100
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

static int param_u64(const struct hb_dev_info *info, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *const *p;

	for (p = info->params; p && *p; p++) {
		char *end;

		if (strncmp(*p, key, klen) || (*p)[klen] != '=')
			continue;
		*ret = strtoull(*p + klen + 1, &end, 0);
		return *end ? -EINVAL : 0;
	}
	return 0;
}

static int sample_open(const struct hb_host_ops *ops, struct hb_host *h,
		       const struct hb_dev_info *info, void **ret_priv)
{
	struct sample *s;

	if (!info->memdev || strlen(info->memdev) >= HB_MEMDEV_NAME_MAX)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->host = h;
	strcpy(s->memdev, info->memdev);
	s->size = 0x10000000;
	s->window = 0x200000;
	s->count = 100;
	if (param_u64(info, "base", &s->base) || param_u64(info, "size", &s->size) ||
	    param_u64(info, "window", &s->window) || param_u64(info, "count", &s->count) ||
	    !s->window || s->window > s->size) {
		ops->log(h, HB_LOG_ERR, "sample: bad base/size/window/count parameter");
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
	HB_DEVICE_ABI_MAJOR, HB_DEVICE_ABI_MINOR, sizeof(struct hb_device_ops), 0,
	"sample",
	HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
	NULL,
	sample_open,
	sample_poll,
	sample_close,
};

__attribute__((visibility("default")))
const struct hb_device_ops *hb_device_entry_v1(void)
{
	return &sample_ops;
}
