// SPDX-License-Identifier: MIT
/* The migrator interface: one entry point, a backend per kind. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-private.h"

static const struct hb_migrator_backend *const backends[_HB_MIGRATOR_MAX] = {
	[HB_MIGRATOR_PHYS] = &hb_migrator_phys,
	[HB_MIGRATOR_PAGEMAP] = &hb_migrator_pagemap,
	[HB_MIGRATOR_DRYRUN] = &hb_migrator_dryrun,
	[HB_MIGRATOR_DAMON] = &hb_migrator_damon,
};

const char *hb_migrator_kind_to_string(enum hb_migrator_kind k)
{
	return (unsigned int)k < _HB_MIGRATOR_MAX ? backends[k]->name : NULL;
}

enum hb_migrator_kind hb_migrator_kind_from_string(const char *s)
{
	for (int k = 0; s && k < _HB_MIGRATOR_MAX; k++)
		if (!strcmp(s, backends[k]->name))
			return k;
	return _HB_MIGRATOR_INVALID;
}

int hb_migrator_new(enum hb_migrator_kind kind, const struct hb_migrator_config *cfg,
		    struct hb_migrator **ret, struct hb_err *err)
{
	static const struct hb_migrator_config defaults = { .rescan_ms = 1000, .dryrun_keep = 4096 };
	struct hb_migrator *m;
	int r;

	if ((unsigned int)kind >= _HB_MIGRATOR_MAX)
		return hb_err_set(err, -EINVAL, "unknown migrator kind %d", kind);
	if (!cfg)
		cfg = &defaults;
	if (cfg->root && strlen(cfg->root) >= sizeof(m->root))
		return hb_err_set(err, -ENAMETOOLONG, "root '%s' too long", cfg->root);
	m = calloc(1, sizeof(*m));
	if (!m)
		return hb_err_set(err, -ENOMEM, "out of memory");
	m->kind = kind;
	m->be = backends[kind];
	if (cfg->root)
		strcpy(m->root, cfg->root);
	snprintf(m->describe, sizeof(m->describe), "%s", m->be->name);
	r = m->be->open(m, cfg, err);
	if (r < 0) {
		free(m);
		return r;
	}
	*ret = m;
	return 0;
}

struct hb_migrator *hb_migrator_free(struct hb_migrator *m)
{
	if (m) {
		m->be->close(m);
		free(m);
	}
	return NULL;
}

enum hb_migrator_kind hb_migrator_kind(const struct hb_migrator *m)
{
	return m->kind;
}

const char *hb_migrator_describe(const struct hb_migrator *m)
{
	return m->describe;
}

int hb_migrator_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		     int *status, unsigned int flags, struct hb_err *err)
{
	if (flags & ~HB_MIGRATE_MOVE_ALL)
		return hb_err_set(err, -EINVAL, "unknown migrate flags 0x%x", flags);
	if (n == 0)
		return 0;
	return m->be->move(m, n, hpa, nodes, status, flags, err);
}

int hb_migrator_new_auto(const struct hb_migrator_config *cfg, struct hb_migrator **ret,
			 struct hb_migrator_choice *ret_why, struct hb_err *err)
{
	static const enum hb_migrator_kind order[] = { HB_MIGRATOR_PHYS, HB_MIGRATOR_DAMON,
						       HB_MIGRATOR_PAGEMAP };
	struct hb_migrator_choice c = { .kind = _HB_MIGRATOR_INVALID };
	struct hb_migrator *m = NULL;
	int r = -ENODEV;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct hb_err why = { 0 };

		r = hb_migrator_new(order[i], cfg, &m, &why);
		if (r == 0) {
			c.kind = order[i];
			break;
		}
		snprintf(c.why[order[i]], sizeof(c.why[order[i]]), "%s", why.msg);
		if (err)
			*err = why;
	}
	if (r < 0) {
		if (ret_why)
			*ret_why = c;
		return r;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t len = strlen(m->describe);

		if (c.why[order[i]][0])
			snprintf(m->describe + len, sizeof(m->describe) - len,
				 "; %s unavailable: %s", backends[order[i]]->name, c.why[order[i]]);
	}
	hb_err_clear(err);
	if (ret_why)
		*ret_why = c;
	*ret = m;
	return 0;
}

void hb_migrator_probe_auto(const struct hb_migrator_config *cfg, struct hb_migrator_choice *ret)
{
	static const struct hb_migrator_config defaults = { 0 };
	struct hb_migrator_choice c = { .kind = HB_MIGRATOR_PAGEMAP };
	struct hb_mpp mpp;
	struct hb_err err = { 0 };

	if (!cfg)
		cfg = &defaults;
	if (hb_mpp_probe(cfg->root, cfg->syscall_nr, &mpp, &err) == 0) {
		c.kind = HB_MIGRATOR_PHYS;
	} else {
		snprintf(c.why[HB_MIGRATOR_PHYS], sizeof(c.why[0]), "%s", err.msg);
		hb_err_clear(&err);
		if (hb_damon_probe(cfg, &err) == 0)
			c.kind = HB_MIGRATOR_DAMON;
		else
			snprintf(c.why[HB_MIGRATOR_DAMON], sizeof(c.why[0]), "%s", err.msg);
	}
	*ret = c;
}
