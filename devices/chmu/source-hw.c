// SPDX-License-Identifier: MIT
/*
 * The "chmu" source: a CXL memory device's own Hotness Monitoring Unit,
 * found through its Register Locator DVSEC and mapped from the BAR's sysfs
 * resource file (root only) or, when the kernel refuses that, from the
 * block's own pages of /dev/mem (map.c), programmed from the parameters
 * and polled.
 *
 * Parameters: pci=<bdf> (or the instance's pci_bdf), dpa_ranges=<start>+<len>[,...]
 * (the memdev's decoded DPA; the daemon fills it from the topology),
 * unit (bytes; the smallest the CHMU allows), epoch_ms (100), threshold (16),
 * ds (the smallest allowed factor), mode (epoch | always-on), instance (0),
 * access (the M2S request type: nontee-r, nontee-w, nontee-rw, r, w, rw or
 * the code 1..6; the first the device tracks of r, nontee-r, rw, nontee-rw,
 * w, nontee-w: reads first, rules.c), capacity (the memdev's bytes; the daemon fills it from the
 * topology: entries past it are dropped and counted as bad input).
 *
 * Test hooks (a PCI config dump instead of the bus, a root instead of /) are
 * no parameters of this source: a root daemon's configuration must not point
 * it at other files. pci_dump= and sysfs_root= are refused here; only test
 * binaries take them, through hb_source_chmu_test (source-hw-test.c, built
 * with the tests and never linked into hotbridge).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chmu.h"
#include "cxlpci.h"
#include "devices.h"

#define MAX_RANGES 16

struct hw_src {
	const struct hb_host_ops *ops;
	struct hb_host *host;
	struct hb_regwin win;
	struct hb_chmu *drv;
	struct hb_chmu_map_req req;
	struct hb_chmu_mapping how;
	/* claimed by a driver since, or the mapping faulted: never touched again */
	int lost;           /* 0, or what every poll returns from then on */
	bool claimed;       /* /proc/iomem showed a claim after a drain */
	bool warned_beyond; /* entries past the memdev's capacity were reported */
	uint64_t capacity;
	char bdf[sizeof(((struct hb_cxl_pcidev *)0)->bdf)];
	struct hb_hot_record rec[1024];
};

static int parse_ranges(const char *s, struct hb_chmu_range *r, size_t *n, struct hb_err *err)
{
	char buf[1024], *save = NULL, *tok;

	*n = 0;
	if (!s)
		return hb_err_set(err, -EINVAL,
				  "chmu: dpa_ranges= is required (the memdev's decoded "
				  "DPA, e.g. dpa_ranges=0x0+0x20000000)");
	if (!s[0] || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return hb_err_set(err, -EINVAL,
				  "chmu: dpa_ranges=%s: an empty element (<start>+<len>[,...])", s);
	if (strlen(s) >= sizeof(buf))
		return hb_err_set(err, -EINVAL, "chmu: dpa_ranges: longer than %zu bytes",
				  sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *plus = strchr(tok, '+');

		if (!plus || *n == MAX_RANGES)
			return hb_err_set(err, -EINVAL,
					  "chmu: dpa_ranges: '%s' is not <start>+<len> "
					  "(at most %d ranges)",
					  tok, MAX_RANGES);
		*plus = '\0';
		if (hb_parse_u64(tok, &r[*n].start) < 0 || hb_parse_u64(plus + 1, &r[*n].len) < 0 ||
		    !r[*n].len)
			return hb_err_set(err, -EINVAL, "chmu: dpa_ranges: bad number in '%s+%s'",
					  tok, plus + 1);
		(*n)++;
	}
	return 0;
}

void hb_chmu_source_close(void *priv)
{
	struct hw_src *s = priv;

	if (s->drv && !s->lost)
		hb_chmu_disable(s->drv, NULL);
	hb_chmu_free(s->drv);
	if (s->win.priv)
		hb_regwin_mmio_close(&s->win);
	if (s->req.iomem_fd >= 0)
		close(s->req.iomem_fd);
	free(s);
}

/* the parameters it takes (hb_builtin_params(), check-config) */
const char *const hb_source_chmu_params[] = { "pci",       "dpa_ranges", "unit", "epoch_ms",
					      "threshold", "ds",         "mode", "instance",
					      "access",    "capacity",   NULL };
/* what only test binaries pass (hb_builtin_test_params()) */
const char *const hb_source_chmu_test_params[] = { "pci_dump", "sysfs_root", NULL };

/*
 * The parameters (the start-up check, registry.c, and open): nothing is
 * read from the bus here. ranges may be NULL (the check only).
 */
static int chmu_params(const struct hb_dev_info *info, struct hb_chmu_range *ranges, size_t *nr,
		       unsigned int *ret_m2s, uint64_t *ret_capacity, struct hb_err *err)
{
	unsigned int m2s;
	uint64_t capacity;
	const char *bdf = hb_dev_param(info, "pci"), *mode = hb_dev_param(info, "mode");
	struct hb_chmu_range scratch[MAX_RANGES];
	struct hb_chmu_params p = { 0 };
	uint64_t v;
	size_t n = 0;
	int r;

	for (const char *const *t = hb_source_chmu_test_params; *t; t++)
		if (hb_dev_param(info, *t))
			return hb_err_set(err, -EINVAL,
					  "chmu: %s= is a test-only parameter; the "
					  "daemon does not take it",
					  *t);
	if ((r = hb_dev_params_check(info, hb_source_chmu_params, err)) < 0 ||
	    (r = parse_ranges(hb_dev_param(info, "dpa_ranges"), ranges ? ranges : scratch,
			      nr ? nr : &n, err)) < 0)
		return r;
	/* the defaults open uses; unit and ds given as 0 are refused too */
	if ((r = hb_dev_param_u64(info, "unit", 0, &p.unit, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "epoch_ms", 100, &p.epoch_ms, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "threshold", 16, &p.threshold, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "ds", 0, &p.ds, err)) < 0 ||
	    (r = hb_dev_param_u64(info, "instance", 0, &v, err)) < 0 ||
	    (r = hb_chmu_parse_access("chmu", hb_dev_param(info, "access"),
				      ret_m2s ? ret_m2s : &m2s, err)) < 0 ||
	    (r = hb_chmu_param_capacity("chmu", info, ret_capacity ? ret_capacity : &capacity, err)) <
		    0)
		return r;
	if (!bdf && !info->pci_bdf)
		return hb_err_set(err, -EINVAL, "chmu: no PCI function (pci=<bdf>)");
	if (mode && strcmp(mode, "epoch") && strcmp(mode, "always-on"))
		return hb_err_set(err, -EINVAL, "chmu: mode=%s: use epoch or always-on", mode);
	if (v > 255)
		return hb_err_set(err, -EINVAL, "chmu: instance=%llu: 0..255", (unsigned long long)v);
	/* 0 stands for "not given" (the device's smallest) in hb_chmu_params */
	if ((hb_dev_param(info, "unit") && !p.unit) || (hb_dev_param(info, "ds") && !p.ds))
		return hb_err_set(err, -EINVAL,
				  "chmu: %s=0: a power of two (leave it out for the "
				  "device's smallest)",
				  !p.unit && hb_dev_param(info, "unit") ? "unit" : "ds");
	p.epoch = !mode || !strcmp(mode, "epoch");
	p.ranges = ranges ? ranges : scratch;
	p.nranges = nr ? *nr : n;
	p.capacity = ret_capacity ? *ret_capacity : capacity;
	return hb_chmu_check_params("chmu", &p, err);
}

int hb_source_chmu_check(const struct hb_dev_info *info, struct hb_err *err)
{
	return chmu_params(info, NULL, NULL, NULL, NULL, err);
}

int hb_chmu_source_open(const struct hb_host_ops *ops, struct hb_host *h,
			const struct hb_dev_info *info, const struct hb_chmu_test_hooks *hooks,
			void **ret_priv)
{
	const char *bdf = hb_dev_param(info, "pci"), *mode = hb_dev_param(info, "mode");
	const char *sysroot = hooks ? hooks->sysfs_root : NULL;
	struct hb_chmu_range ranges[MAX_RANGES];
	struct hb_chmu_config cfg = { 0 };
	struct hb_cxl_pcidev *devs = NULL, *d = NULL;
	struct hb_err err = { 0 };
	uint64_t unit, epoch_ms, thr, ds, inst, size;
	struct hw_src *s;
	size_t ndev = 0, nr;
	bool present = false;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->host = h;
	s->req.iomem_fd = -1;
	if (!bdf)
		bdf = info->pci_bdf;
	if ((r = chmu_params(info, ranges, &nr, &cfg.m2s, &s->capacity, &err)) < 0 ||
	    (r = hb_dev_param_u64(info, "unit", 0, &unit, &err)) < 0 ||
	    (r = hb_dev_param_u64(info, "epoch_ms", 100, &epoch_ms, &err)) < 0 ||
	    (r = hb_dev_param_u64(info, "threshold", 16, &thr, &err)) < 0 ||
	    (r = hb_dev_param_u64(info, "ds", 0, &ds, &err)) < 0 ||
	    (r = hb_dev_param_u64(info, "instance", 0, &inst, &err)) < 0)
		goto fail;
	r = hb_cxl_pci_scan_for(hooks ? hooks->pci_dump : NULL, bdf, &devs, &ndev, &present, &err);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < ndev && !d; i++)
		if (!strcmp(devs[i].bdf, bdf))
			d = &devs[i];
	if (!present) {
		r = hb_err_set(&err, -ENODEV, "chmu: no PCI device %s", bdf);
		goto fail;
	}
	if (!d || !d->has_chmu) {
		r = hb_err_set(&err, -ENODEV, "chmu: %s is %s", bdf,
			       !d ? "not a CXL memory device" :
				    "a CXL memory device without a CHMU register block");
		goto fail;
	}
	size = d->bar_size[d->chmu.bir];
	if (!size && sysroot)
		size = d->chmu.offset + (1u << 20); /* a test image: no BAR sizes in dumps */
	if (size <= d->chmu.offset) {
		r = hb_err_set(&err, -EPROTO,
			       "chmu: %s: CHMU block at BAR %u + 0x%llx lies beyond the "
			       "BAR (%llu bytes)",
			       bdf, d->chmu.bir, (unsigned long long)d->chmu.offset,
			       (unsigned long long)size);
		goto fail;
	}
	memcpy(s->bdf, d->bdf, sizeof(s->bdf)); /* the request outlives devs */
	hb_chmu_map_req_init(&s->req, sysroot ? sysroot : "", s->bdf, d->chmu.bir,
			     d->bar_base[d->chmu.bir], size, d->chmu.offset);
	/* kept open: after start-up the daemon may lack CAP_SYS_ADMIN to see addresses */
	s->req.iomem_fd = open(s->req.iomem, O_RDONLY | O_CLOEXEC);
	if ((r = hb_chmu_map_block(&s->req, &s->win, &s->how, &err)) < 0)
		goto fail;
	if (s->how.via == HB_CHMU_MAP_DEVMEM)
		ops->log(h, HB_LOG_INFO, "%s%sCHMU block mapped from %s (%s)",
			 info->name ? info->name : "", info->name ? ": " : "", s->req.devmem,
			 s->how.why);
	if ((r = hb_chmu_open(&s->win, (unsigned int)inst, info->memdev ? info->memdev : "",
			      &s->drv, &err)) < 0)
		goto fail;
	cfg.unit_size = unit ? unit : 1ULL << (8 + __builtin_ctz(hb_chmu_caps(s->drv)->unit_sizes));
	cfg.ds_factor = ds ? (uint32_t)ds : 1u << __builtin_ctz(hb_chmu_caps(s->drv)->ds_factors);
	cfg.epoch_ns = epoch_ms * 1000000;
	cfg.threshold = (uint32_t)thr;
	cfg.mode = mode && !strcmp(mode, "always-on") ? HB_CHMU_MODE_ALWAYS_ON : HB_CHMU_MODE_EPOCH;
	cfg.ranges = ranges;
	cfg.nranges = nr;
	cfg.capacity = s->capacity;
	if ((r = hb_chmu_configure(s->drv, &cfg, &err)) < 0)
		goto fail;
	{
		char tracks[128];
		unsigned int m2s =
			cfg.m2s ? cfg.m2s :
				  (unsigned int)hb_chmu_pick_access(hb_chmu_caps(s->drv)->m2s);

		hb_chmu_format_access(hb_chmu_caps(s->drv)->m2s, tracks, sizeof(tracks));
		ops->log(h, HB_LOG_INFO,
			 "chmu: %s instance %llu: access %s (%u), unit %llu, ds %u (the device "
			 "tracks %s)",
			 s->bdf, (unsigned long long)inst, hb_chmu_access_name(m2s), m2s,
			 (unsigned long long)cfg.unit_size, cfg.ds_factor, tracks);
	}
	free(devs);
	*ret_priv = s;
	return 0;
fail:
	free(devs);
	/* the host names the source (source NAME: ...) */
	ops->log(h, HB_LOG_ERR, "%s", err.msg);
	hb_chmu_source_close(s);
	return r;
}

static int hw_open(const struct hb_host_ops *ops, struct hb_host *h, const struct hb_dev_info *info,
		   void **ret_priv)
{
	return hb_chmu_source_open(ops, h, info, NULL, ret_priv);
}

/*
 * After each batch is drained and before the host has it: a driver that
 * claimed the block during the drain may have reset or reprogrammed the
 * instance (the unit size decodes the entries) before the kernel revoked
 * our mapping, so a batch drained across a claim is dropped.
 */
static int claimed_meanwhile(void *priv, size_t n, struct hb_err *err)
{
	struct hw_src *s = priv;
	struct hb_err e = { 0 };

	if (hb_chmu_map_recheck(&s->req, s->win.size, &e) == 0)
		return 0;
	s->claimed = true;
	return hb_err_set(err, -EBUSY, "%s (the %zu entries drained meanwhile are dropped)", e.msg,
			  n);
}

/*
 * Entries past the memdev's capacity name no DPA the device has: bad input
 * of their own kind (the host counts it), and the likely cause said once.
 */
static void report_beyond(struct hw_src *s, uint64_t before)
{
	uint64_t now = hb_chmu_stats(s->drv)->beyond_capacity;

	if (now == before)
		return;
	if (HB_OPS_HAS(s->ops, count_bad) && s->ops->count_bad)
		s->ops->count_bad(s->host, now - before);
	if (s->warned_beyond)
		return;
	s->warned_beyond = true;
	s->ops->log(s->host, HB_LOG_WARNING,
		    "chmu: %s: %llu hotlist entries name a DPA past %s (0x%llx bytes): "
		    "dropped and counted as bad input (said once). No device reports such a "
		    "DPA: the entries are garbled, read at a width other than 8 bytes or "
		    "decoded with another unit size or counter width than the device uses",
		    s->bdf, (unsigned long long)(now - before),
		    s->capacity ? "the memdev's capacity" : "2^64", (unsigned long long)s->capacity);
}

int hb_chmu_source_poll(void *priv)
{
	struct hw_src *s = priv;
	struct hb_err err = { 0 }, claim = { 0 };
	uint64_t beyond;
	int r;

	if (s->lost)
		return s->lost;
	if (hb_chmu_map_recheck(&s->req, s->win.size, &err) < 0) {
		s->lost = -EBUSY;
		s->ops->log(s->host, HB_LOG_ERR, "%s", err.msg);
		return s->lost;
	}
	beyond = hb_chmu_stats(s->drv)->beyond_capacity;
	r = hb_chmu_drain_submit(s->drv, s->rec, HB_ARRAY_SIZE(s->rec), s->ops, s->host,
				 claimed_meanwhile, s, &err);
	report_beyond(s, beyond);
	if (hb_regwin_mmio_revoked(&s->win)) {
		/* the kernel revoked the mapping under the drain: who claimed it, if it shows */
		(void)hb_chmu_map_recheck(&s->req, s->win.size, &claim);
		s->lost = -ENXIO;
		s->ops->log(s->host, HB_LOG_ERR,
			    "chmu: CHMU block of %s at 0x%llx: an access faulted (SIGBUS): the "
			    "kernel revoked hotbridge's mapping of it%s%s; not touching it again",
			    s->bdf, (unsigned long long)(s->req.bar_start + s->req.offset),
			    claim.msg[0] ? ": " : " (a kernel driver claimed it?)", claim.msg);
		return s->lost;
	}
	if (s->claimed)
		s->lost = -EBUSY;
	if (r == -EPROTO) {
		/* the counter width changed under us (review S2): no entry decodes safely */
		s->lost = r;
		s->ops->log(s->host, HB_LOG_ERR, "%s; the source stops", err.msg);
		return r;
	}
	if (r < 0 && err.msg[0])
		s->ops->log(s->host, HB_LOG_ERR, "%s", err.msg);
	return r;
}

const struct hb_device_ops hb_source_chmu = {
	.abi_major = HB_DEVICE_ABI_MAJOR,
	.abi_minor = HB_DEVICE_ABI_MINOR,
	.size = sizeof(struct hb_device_ops),
	.name = "chmu",
	.caps = HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
	.open = hw_open,
	.poll = hb_chmu_source_poll,
	.close = hb_chmu_source_close,
};
