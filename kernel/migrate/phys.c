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

struct phys {
	struct hb_mpp mpp;
	bool override; /* override_mempolicy: pass HB_MPP_OVERRIDE_MEMPOLICY */
	char release[64];
};

/*
 * Whether the kernel's call checks memory policies: a call for no page
 * with the override flag. A series without the check refuses the flag
 * before anything else (-EINVAL); with it, 0. Anything else (-EPERM
 * without CAP_SYS_ADMIN) leaves it unknown, for the first move to find.
 */
static void probe_mempolicy(struct phys *p)
{
	long r = hb_mpp_move(&p->mpp, 0, NULL, NULL, NULL, MPOL_MF_MOVE | HB_MPP_OVERRIDE_MEMPOLICY);

	p->mpp.mempolicy = r == 0 ? 1 : r == -EINVAL ? 0 : -1;
}

static void describe(struct hb_migrator *m)
{
	const struct phys *p = m->priv;
	const char *pol;

	if (p->mpp.mempolicy == 0)
		pol = p->override ?
			      "; kernel %s has no memory-policy check (flag 0x100 refused): "
			      "pages move whatever their owners' policy, as override_mempolicy "
			      "asks" :
			      "; kernel %s has no memory-policy check (flag 0x100 refused): "
			      "pages move whatever their owners' mbind/set_mempolicy (a newer "
			      "series refuses them -EXDEV; backend pagemap checks numa_maps)";
	else if (p->mpp.mempolicy == 1)
		pol = p->override ? "; kernel %s checks memory policies, overridden "
				    "(override_mempolicy)" :
				    "; kernel %s checks memory policies: pages they keep off the "
				    "target are refused (-EXDEV)";
	else
		pol = "; kernel %s: whether it checks memory policies is not known (the probe "
		      "failed: no CAP_SYS_ADMIN?)";
	snprintf(m->describe, sizeof(m->describe), "phys: move_phys_pages %s", p->mpp.why);
	snprintf(m->describe + strlen(m->describe), sizeof(m->describe) - strlen(m->describe), pol,
		 p->release);
}

static int phys_open(struct hb_migrator *m, const struct hb_migrator_config *cfg, struct hb_err *err)
{
	struct phys *p;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return hb_err_set(err, -ENOMEM, "out of memory");
	r = hb_mpp_probe(m->root, cfg->syscall_nr, &p->mpp, err);
	if (r < 0) {
		free(p);
		return r;
	}
	p->override = cfg->override_mempolicy;
	if (hb_read_text(m->root, "/proc/sys/kernel/osrelease", p->release, sizeof(p->release)) < 0)
		snprintf(p->release, sizeof(p->release), "(release unknown)");
	p->release[strcspn(p->release, "\n")] = '\0';
	m->priv = p;
	probe_mempolicy(p);
	describe(m);
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
	struct phys *p = m->priv;
	int kflags = MPOL_MF_MOVE | ((flags & HB_MIGRATE_MOVE_ALL) ? MPOL_MF_MOVE_ALL : 0);

	for (size_t i = 0; i < n; i += PHYS_CHUNK) {
		size_t len = n - i < PHYS_CHUNK ? n - i : PHYS_CHUNK;
		bool override = p->override && p->mpp.mempolicy != 0;
		long r;

		for (size_t j = i; j < i + len; j++)
			status[j] = STATUS_UNSET;
		r = hb_mpp_move(&p->mpp, len, hpa + i, nodes + i, status + i,
				kflags | (override ? HB_MPP_OVERRIDE_MEMPOLICY : 0));
		/*
		 * The flag refused before any page (a series without the
		 * check, which moves every page anyway; open's probe could not
		 * tell): again without it. The describe text stays open's
		 * (the loop reads it while a batch runs here).
		 */
		if (override && r == -EINVAL && status[i] == STATUS_UNSET) {
			p->mpp.mempolicy = 0;
			r = hb_mpp_move(&p->mpp, len, hpa + i, nodes + i, status + i, kflags);
		}
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
