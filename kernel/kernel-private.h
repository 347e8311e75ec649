/* SPDX-License-Identifier: MIT */
/* kernel/ internals: the backend table behind struct hb_migrator. */
#ifndef HB_KERNEL_PRIVATE_H
#define HB_KERNEL_PRIVATE_H

#include "kernel.h"

struct hb_migrator_backend {
	const char *name;
	int (*open)(struct hb_migrator *m, const struct hb_migrator_config *cfg, struct hb_err *err);
	int (*move)(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		    int *status, unsigned int flags, struct hb_err *err);
	void (*close)(struct hb_migrator *m);
};

struct hb_migrator {
	enum hb_migrator_kind kind;
	const struct hb_migrator_backend *be;
	char describe[1024];
	char root[256];
	void *priv;
};

extern const struct hb_migrator_backend hb_migrator_phys;
extern const struct hb_migrator_backend hb_migrator_pagemap;
extern const struct hb_migrator_backend hb_migrator_dryrun;
extern const struct hb_migrator_backend hb_migrator_damon;

#endif
