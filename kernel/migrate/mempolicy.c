// SPDX-License-Identifier: MIT
/*
 * Memory policies as /proc/<pid>/numa_maps shows them, and whether one
 * forbids a node: the pagemap backend's check before it moves a page
 * (kernel.h). Pure text; no I/O.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "util/macro.h"
#include "util/strtab.h"

static const char *const mode_names[_HB_MPOL_MAX] = {
	[HB_MPOL_DEFAULT] = "default",       [HB_MPOL_LOCAL] = "local",
	[HB_MPOL_PREFERRED] = "prefer",      [HB_MPOL_BIND] = "bind",
	[HB_MPOL_INTERLEAVE] = "interleave",
};

HB_STRTAB_TO_STRING(hb_mempolicy_mode_to_string, enum hb_mempolicy_mode, mode_names, NULL)

/* the kernel's spellings (mpol_to_str's policy_modes[]), longest first where one prefixes another */
static const struct {
	const char *text;
	enum hb_mempolicy_mode mode;
} spellings[] = {
	{ "weighted interleave", HB_MPOL_INTERLEAVE },
	{ "prefer (many)", HB_MPOL_PREFERRED },
	{ "interleave", HB_MPOL_INTERLEAVE },
	{ "prefer", HB_MPOL_PREFERRED },
	{ "bind", HB_MPOL_BIND },
	{ "default", HB_MPOL_DEFAULT },
	{ "local", HB_MPOL_LOCAL },
};

/* a node list as the kernel prints one ("%*pbl": "0-3,5"), up to a space or the end */
static int parse_nodes(const char *p, const char **ret_end, struct hb_mempolicy *ret)
{
	for (;;) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL; /* strtoul() would skip spaces and take signs */
		a = b = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			b = strtoul(p + 1, &end, 10);
			if (b < a)
				return -EINVAL;
			p = end;
		}
		for (unsigned long n = a; n <= b; n++) {
			if (n >= 64) {
				ret->beyond = true;
				break;
			}
			ret->nodes |= 1ULL << n;
		}
		if (*p != ',')
			break;
		p++;
	}
	*ret_end = p;
	return 0;
}

int hb_mempolicy_parse_line(const char *line, uint64_t *ret_start, struct hb_mempolicy *ret)
{
	struct hb_mempolicy pol = { 0 };
	unsigned long long start;
	const char *p;
	char *end;
	size_t k;
	int r;

	start = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return -EINVAL;
	p = end + 1;
	for (k = 0; k < HB_ARRAY_SIZE(spellings); k++) {
		size_t len = strlen(spellings[k].text);

		if (!strncmp(p, spellings[k].text, len) && strchr("=: \n", p[len] ? p[len] : ' '))
			break;
	}
	if (k == HB_ARRAY_SIZE(spellings))
		return -EINVAL;
	pol.mode = spellings[k].mode;
	p += strlen(spellings[k].text);
	if (*p == '=') {
		size_t len = strcspn(p + 1, ": \n");

		pol.relative = memmem(p + 1, len, "relative", 8) != NULL;
		p += 1 + len;
	}
	if (*p == ':') {
		r = parse_nodes(p + 1, &p, &pol);
		if (r < 0)
			return r;
	}
	if (*p && *p != ' ' && *p != '\n')
		return -EINVAL;
	*ret_start = start;
	*ret = pol;
	return 0;
}

int hb_mempolicy_find(const char *numa_maps, uint64_t vaddr, struct hb_mempolicy *ret)
{
	const char *best = NULL;
	uint64_t best_start = 0;
	uint64_t start;

	for (const char *line = numa_maps; line && *line;) {
		const char *nl = strchr(line, '\n');
		char *end;

		start = strtoull(line, &end, 16);
		if (end != line && *end == ' ' && start <= vaddr && (!best || start >= best_start)) {
			best = line;
			best_start = start;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!best)
		return -ENOENT;
	return hb_mempolicy_parse_line(best, &start, ret);
}

bool hb_mempolicy_excludes(const struct hb_mempolicy *p, int node)
{
	if (p->mode == HB_MPOL_DEFAULT || p->mode == HB_MPOL_LOCAL)
		return false;
	if (p->relative || node < 0 || node >= 64)
		return false;
	return !((p->nodes >> node) & 1);
}
