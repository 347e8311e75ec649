// SPDX-License-Identifier: MIT
/* Folding move_pages(2)-style per-page status into what the daemon acts on. */
#include <errno.h>

#include "kernel.h"
#include "util/macro.h"
#include "util/strtab.h"

static const char *const class_names[_HB_MIGRATE_CLASS_MAX] = {
	[HB_MIGRATE_MOVED] = "moved",   [HB_MIGRATE_ALREADY] = "already",
	[HB_MIGRATE_RETRY] = "retry",   [HB_MIGRATE_BACKOFF] = "backoff",
	[HB_MIGRATE_DROP] = "drop",     [HB_MIGRATE_WRONG_NODE] = "wrong_node",
	[HB_MIGRATE_POLICY] = "policy",
};

HB_STRTAB_TO_STRING(hb_migrate_class_to_string, enum hb_migrate_class, class_names, NULL)

enum hb_migrate_class hb_migrate_classify(int status, int target, int src_node)
{
	if (status >= 0) {
		if (status != target)
			return HB_MIGRATE_WRONG_NODE;
		return src_node == target ? HB_MIGRATE_ALREADY : HB_MIGRATE_MOVED;
	}
	switch (-status) {
	case EBUSY:
	case EAGAIN: return HB_MIGRATE_RETRY;
	case ENOMEM: return HB_MIGRATE_BACKOFF;
	case EXDEV: return HB_MIGRATE_POLICY;
	default:
		/* EACCES, EPERM, EFAULT, ENOENT, EINVAL, EIO and anything unknown */
		return HB_MIGRATE_DROP;
	}
}

void hb_migrate_fold(struct hb_migrate_counts *c, size_t n, const int *status, const int *nodes,
		     const int *src_nodes)
{
	for (size_t i = 0; i < n; i++) {
		int src = src_nodes ? src_nodes[i] : -1;

		c->by_class[hb_migrate_classify(status[i], nodes[i], src)]++;
		if (status[i] < 0 && -status[i] < (int)HB_ARRAY_SIZE(c->by_errno))
			c->by_errno[-status[i]]++;
	}
}
