/* SPDX-License-Identifier: MIT */
/* kernel/ internals: the backend table behind struct hb_migrator. */
#ifndef HB_KERNEL_PRIVATE_H
#define HB_KERNEL_PRIVATE_H

#include "kernel.h"

/**
 * struct hb_migrator_backend - one way of moving pages, behind struct hb_migrator
 * @name: the backend's name in the configuration (`migrate.backend`), in
 *	`list` and in the log ("phys", "pagemap", "dryrun", "damon");
 *	hb_migrator_kind_to_string() and _from_string() read it. Static text.
 * @open: sets the backend up on @m, which hb_migrator_new() has zeroed and
 *	given its kind, root (copied from @cfg->root, "" for the live host)
 *	and a describe text of @name alone. Stores its state in @m->priv and
 *	may rewrite @m->describe. @cfg is never NULL (hb_migrator_new()
 *	substitutes its defaults). Returns 0, or -errno with @err set, having
 *	freed whatever it allocated: close is not called after a failed open.
 * @move: moves @n pages, @n > 0 (hb_migrator_move() returns early for 0
 *	and has refused flags other than HB_MIGRATE_MOVE_ALL). @hpa[i] goes to
 *	@nodes[i]; @status[i] gets the node the page is on afterwards or
 *	-errno, as hb_migrator_move() documents in kernel.h. Returns 0, or
 *	-errno with @err set when the batch as a whole failed.
 * @close: frees @m->priv and whatever open set up; called once, by
 *	hb_migrator_free(), only after a successful open. Never fails.
 *
 * One static instance per backend (below), listed in migrator.c's
 * backends[] by enum hb_migrator_kind.
 */
struct hb_migrator_backend {
	const char *name;
	int (*open)(struct hb_migrator *m, const struct hb_migrator_config *cfg, struct hb_err *err);
	int (*move)(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		    int *status, unsigned int flags, struct hb_err *err);
	void (*close)(struct hb_migrator *m);
};

/**
 * struct hb_migrator - an open migrator: a backend and its state
 * @kind: which backend, as given to hb_migrator_new(); hb_migrator_kind()
 * @be: the backend's table, backends[@kind]
 * @describe: one line for the log and `status` (hb_migrator_describe()):
 *	the backend's name, or what its open wrote; hb_migrator_new_auto()
 *	appends why the backends tried before it were unavailable
 * @root: the prefix before /proc and /sys the backend reads and writes
 *	(tests, a replayed host); "" for the live host
 * @priv: the backend's own state, owned by it from open to close
 */
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
