// SPDX-License-Identifier: MIT
/* phys: the move_phys_pages() system call, once hb_mpp_probe() proved it. */
#include <errno.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-private.h"

/* The kernel walks its own queue; keep single calls short for signals. */
#define PHYS_CHUNK 4096

static int phys_open(struct hb_migrator *m, const struct hb_migrator_config *cfg, struct hb_err *err)
{
	struct hb_mpp *mpp;
	int r;

	mpp = calloc(1, sizeof(*mpp));
	if (!mpp)
		return hb_err_set(err, -ENOMEM, "out of memory");
	r = hb_mpp_probe(m->root, cfg->syscall_nr, mpp, err);
	if (r < 0) {
		free(mpp);
		return r;
	}
	snprintf(m->describe, sizeof(m->describe), "phys: move_phys_pages %s", mpp->why);
	m->priv = mpp;
	return 0;
}

/*
 * What no status the kernel writes can be (a node number >= 0 or -errno):
 * an entry still holding it after a failed call was not handled.
 */
#define STATUS_UNSET INT_MIN

static int phys_move(struct hb_migrator *m, size_t n, const uint64_t *hpa, const int *nodes,
		     int *status, unsigned int flags, struct hb_err *err)
{
	const struct hb_mpp *mpp = m->priv;
	int kflags = MPOL_MF_MOVE | ((flags & HB_MIGRATE_MOVE_ALL) ? MPOL_MF_MOVE_ALL : 0);

	for (size_t i = 0; i < n; i += PHYS_CHUNK) {
		size_t len = n - i < PHYS_CHUNK ? n - i : PHYS_CHUNK;
		long r;

		for (size_t j = i; j < i + len; j++)
			status[j] = STATUS_UNSET;
		r = hb_mpp_move(mpp, len, hpa + i, nodes + i, status + i, kflags);
		/* r > 0: pages not migrated, each with its own status already */
		if (r < 0) {
			/*
			 * The call failed as a whole, but the kernel moved (and
			 * reported) every batch it had queued before the error:
			 * those statuses stay the kernel's (move_phys_pages(2),
			 * RETURN VALUE). Only the rest get the error.
			 */
			for (size_t j = i; j < n; j++)
				if (j >= i + len || status[j] == STATUS_UNSET)
					status[j] = (int)r;
			return hb_err_set(err, (int)r, "move_phys_pages(%zu pages): %s", len,
					  strerror((int)-r));
		}
	}
	return 0;
}

static void phys_close(struct hb_migrator *m)
{
	free(m->priv);
}

const struct hb_migrator_backend hb_migrator_phys = {
	.name = "phys",
	.open = phys_open,
	.move = phys_move,
	.close = phys_close,
};
