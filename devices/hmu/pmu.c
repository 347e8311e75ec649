// SPDX-License-Identifier: MIT
/*
 * A perf PMU as sysfs describes it (Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-format): `type` is the number for
 * perf_event_attr.type, and each file of format/ names a field of the
 * event's config words, "config:0-7" or "config1:32-63" (several ranges,
 * "config:0-3,8-11", fill the value's bits lowest first). The event is
 * encoded through these files rather than through the RFC's bit numbers,
 * so a driver that moves a field is followed, and one that drops or
 * narrows a field we need is refused by name.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hmu.h"

#define GRANULE_256M_SHIFT 28 /* range_base / range_size count 256 MiB */

static int parse_range(const char *name, const char *s, const char **end, unsigned int *lo,
		       unsigned int *hi, struct hb_err *err)
{
	unsigned int v[2] = { 0, 0 };
	int k = 0;

	for (;;) {
		if (*s < '0' || *s > '9')
			return hb_err_set(err, -EINVAL, "format %s: expected a bit number at '%s'",
					  name, s);
		for (; *s >= '0' && *s <= '9'; s++) {
			v[k] = v[k] * 10 + (unsigned int)(*s - '0');
			if (v[k] > 63)
				return hb_err_set(err, -EINVAL, "format %s: bit number above 63",
						  name);
		}
		if (k == 1 || *s != '-')
			break;
		k = 1;
		s++;
	}
	*lo = v[0];
	*hi = k ? v[1] : v[0];
	if (*hi < *lo)
		return hb_err_set(err, -EINVAL, "format %s: bit range %u-%u runs backwards", name,
				  *lo, *hi);
	*end = s;
	return 0;
}

int hb_hmu_format_parse(const char *name, const char *spec, struct hb_hmu_field *ret,
			struct hb_err *err)
{
	static const char *const words[HB_HMU_CONFIG_WORDS] = { "config", "config1", "config2",
								"config3" };
	struct hb_hmu_field f = { 0 };
	const char *colon = strchr(spec, ':'), *s;
	int w = -1;

	if (strlen(name) >= sizeof(f.name))
		return hb_err_set(err, -EINVAL, "format %.40s...: name too long", name);
	for (int i = 0; colon && i < HB_HMU_CONFIG_WORDS; i++)
		if (strlen(words[i]) == (size_t)(colon - spec) &&
		    !strncmp(spec, words[i], (size_t)(colon - spec)))
			w = i;
	if (w < 0)
		return hb_err_set(err, -EINVAL, "format %s: '%s' is not config[123]:<bits>", name,
				  spec);
	for (s = colon + 1;;) {
		unsigned int lo = 0, hi = 0;
		uint64_t m;
		int r = parse_range(name, s, &s, &lo, &hi, err);

		if (r < 0)
			return r;
		m = (hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1) & ~((1ULL << lo) - 1);
		if (f.mask & m)
			return hb_err_set(err, -EINVAL, "format %s: bits %u-%u given twice", name,
					  lo, hi);
		f.mask |= m;
		if (*s != ',')
			break;
		s++;
	}
	if (*s && *s != '\n')
		return hb_err_set(err, -EINVAL, "format %s: unexpected '%s' after the bits", name, s);
	memcpy(f.name, name, strlen(name) + 1);
	f.word = (unsigned int)w;
	f.width = (unsigned int)__builtin_popcountll(f.mask);
	*ret = f;
	return 0;
}

int hb_hmu_pmu_load(const char *root, const char *name, struct hb_hmu_pmu *ret, struct hb_err *err)
{
	char path[PATH_MAX], spec[128];
	struct hb_hmu_pmu p = { 0 };
	struct dirent *de;
	uint64_t type;
	DIR *d;
	int r = 0;

	if (strlen(name) >= sizeof(p.name) || strchr(name, '/'))
		return hb_err_set(err, -EINVAL, "cxl-hmu: PMU name '%.64s' is not a directory name",
				  name);
	memcpy(p.name, name, strlen(name) + 1);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	r = hb_read_u64(root, path, 10, &type);
	if (r < 0)
		return hb_err_set(err, r, "cxl-hmu: %s%s: %s", root ? root : "", path,
				  r == -ENOENT ? "no such PMU" : "not a number");
	if (type > UINT32_MAX)
		return hb_err_set(err, -EINVAL, "cxl-hmu: %s%s: type %llu is not 32-bit",
				  root ? root : "", path, (unsigned long long)type);
	p.type = (uint32_t)type;
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/format", root ? root : "",
		 name);
	d = opendir(path);
	if (!d)
		return hb_err_set(err, -ENOENT, "cxl-hmu: %s: cannot open it", path);
	while (r == 0 && (de = readdir(d))) {
		char file[PATH_MAX];
		int n;

		if (de->d_name[0] == '.')
			continue;
		if (p.nfields == HB_HMU_FIELDS_MAX) {
			r = hb_err_set(err, -E2BIG, "cxl-hmu: %s: more than %d fields", path,
				       HB_HMU_FIELDS_MAX);
			break;
		}
		snprintf(file, sizeof(file), "/sys/bus/event_source/devices/%s/format/%s", name,
			 de->d_name);
		n = hb_read_text(root, file, spec, sizeof(spec));
		if (n < 0)
			r = hb_err_set(err, n, "cxl-hmu: %s%s: cannot read it", root ? root : "",
				       file);
		else
			r = hb_hmu_format_parse(de->d_name, spec, &p.fields[p.nfields++], err);
	}
	closedir(d);
	if (r < 0)
		return r;
	*ret = p;
	return 0;
}

int hb_hmu_pmu_find(const char *root, char *first, size_t size)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (size)
		first[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", root ? root : "");
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, HB_HMU_PMU_PREFIX, strlen(HB_HMU_PMU_PREFIX)) &&
		    n++ == 0 && size)
			snprintf(first, size, "%s", de->d_name);
	if (d)
		closedir(d);
	return n;
}

const struct hb_hmu_field *hb_hmu_pmu_field(const struct hb_hmu_pmu *p, const char *name)
{
	for (size_t i = 0; i < p->nfields; i++)
		if (!strcmp(p->fields[i].name, name))
			return &p->fields[i];
	return NULL;
}

int hb_hmu_config_set(const struct hb_hmu_pmu *p, const char *name, uint64_t value,
		      uint64_t config[HB_HMU_CONFIG_WORDS], struct hb_err *err)
{
	const struct hb_hmu_field *f = hb_hmu_pmu_field(p, name);
	uint64_t v = value;

	if (!f)
		return hb_err_set(err, -ENOENT, "cxl-hmu: PMU %s has no format field '%s'", p->name,
				  name);
	if (f->width < 64 && value >> f->width)
		return hb_err_set(err, -ERANGE,
				  "cxl-hmu: %s=%llu does not fit the %u bits of "
				  "%s's field",
				  name, (unsigned long long)value, f->width, p->name);
	config[f->word] &= ~f->mask;
	for (unsigned int b = 0; b < 64 && v; b++)
		if (f->mask & (1ULL << b)) {
			config[f->word] |= (v & 1) << b;
			v >>= 1;
		}
	return 0;
}

/* the CHMU's epoch: scale code s (1: 100 us ... 5: 1 s) times a multiplier */
static int epoch_encode(const struct hb_hmu_pmu *p, uint64_t ns, uint64_t *ret_scale,
			uint64_t *ret_mult, struct hb_err *err)
{
	const struct hb_hmu_field *m = hb_hmu_pmu_field(p, "epoch_multiplier");
	uint64_t max = m && m->width < 64 ? (1ULL << m->width) - 1 : UINT64_MAX;
	uint64_t unit = 1000000000ULL;

	for (uint64_t s = 5; s >= 1; s--, unit /= 10)
		if (ns && ns % unit == 0 && ns / unit <= max) {
			*ret_scale = s;
			*ret_mult = ns / unit;
			return 0;
		}
	return hb_err_set(err, -EINVAL,
			  "cxl-hmu: an epoch of %llu ns is not a multiple of "
			  "100 us, 1 ms, 10 ms, 100 ms or 1 s within the multiplier's %llu",
			  (unsigned long long)ns, (unsigned long long)max);
}

int hb_hmu_request_encode(const struct hb_hmu_pmu *p, const struct hb_hmu_request *q,
			  uint64_t config[HB_HMU_CONFIG_WORDS], struct hb_err *err)
{
	const uint64_t gran = 1ULL << GRANULE_256M_SHIFT;
	uint64_t scale = 0, mult = 0, c[HB_HMU_CONFIG_WORDS] = { 0 };
	int r;

	if (q->dpa_start % gran || q->dpa_len % gran)
		return hb_err_set(err, -EINVAL,
				  "cxl-hmu: DPA range 0x%llx+0x%llx is not on 256 MiB "
				  "boundaries (the PMU's range_base/range_size count 256 MiB)",
				  (unsigned long long)q->dpa_start, (unsigned long long)q->dpa_len);
	if (q->mode == 0 && (r = epoch_encode(p, q->epoch_ns, &scale, &mult, err)) < 0)
		return r;
	if ((r = hb_hmu_config_set(p, "epoch_type", q->mode, c, err)) < 0 ||
	    (r = hb_hmu_config_set(p, "access_type", q->access_type, c, err)) < 0 ||
	    (r = hb_hmu_config_set(p, "hotness_threshold", q->threshold, c, err)) < 0 ||
	    (r = hb_hmu_config_set(p, "hotness_granual", q->granule_shift, c, err)) < 0 ||
	    (r = hb_hmu_config_set(p, "downsampling_factor", q->ds_shift, c, err)) < 0 ||
	    (r = hb_hmu_config_set(p, "range_base", q->dpa_start >> GRANULE_256M_SHIFT, c, err)) < 0 ||
	    (r = hb_hmu_config_set(p, "range_size", q->dpa_len >> GRANULE_256M_SHIFT, c, err)) < 0)
		return r;
	if (q->mode == 0 && ((r = hb_hmu_config_set(p, "epoch_scale", scale, c, err)) < 0 ||
			     (r = hb_hmu_config_set(p, "epoch_multiplier", mult, c, err)) < 0))
		return r;
	memcpy(config, c, sizeof(c));
	return 0;
}

int hb_hmu_available(const char *root, char *why, size_t size)
{
	char first[64];
	int n = hb_hmu_pmu_find(root, first, sizeof(first));

	if (n > 0)
		snprintf(why, size, "%d CHMU perf PMU%s (%s%s)", n, n > 1 ? "s" : "", first,
			 n > 1 ? ", ..." : "");
	else
		snprintf(why, size,
			 "no %s* PMU in /sys/bus/event_source/devices (modprobe cxl_hmu: "
			 "no device alias loads it; or this kernel has no CHMU perf driver: the "
			 "only one, CONFIG_CXL_HMU, is an unmerged RFC)",
			 HB_HMU_PMU_PREFIX);
	return n > 0;
}
