// SPDX-License-Identifier: MIT
/*
 * /proc/iomem as a list of its entries (util/iomem.h): start, end, depth
 * (two-space indentation, which the kernel caps at 5) and name.
 * Without CAP_SYS_ADMIN the kernel prints every address as 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iomem.h"
#include "util.h"

#define IOMEM_MAX_ENTRIES 65536

static int parse_line(const char *line, struct hb_iomem_entry *e)
{
	const char *p = line, *dash, *sep, *name;
	unsigned int spaces = 0;
	char num[24];
	size_t len;

	while (*p == ' ') {
		p++;
		spaces++;
	}
	dash = strchr(p, '-');
	sep = strstr(p, " : ");
	if (!dash || !sep || dash > sep || (size_t)(dash - p) >= sizeof(num) ||
	    (size_t)(sep - dash - 1) >= sizeof(num))
		return -EINVAL;
	memcpy(num, p, (size_t)(dash - p));
	num[dash - p] = '\0';
	if (hb_parse_u64_base(num, 16, &e->start) < 0)
		return -EINVAL;
	memcpy(num, dash + 1, (size_t)(sep - dash - 1));
	num[sep - dash - 1] = '\0';
	if (hb_parse_u64_base(num, 16, &e->end) < 0 || e->end < e->start)
		return -EINVAL;
	name = sep + 3;
	len = strcspn(name, "\n");
	if (len >= sizeof(e->name))
		len = sizeof(e->name) - 1;
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->depth = spaces / 2;
	return 0;
}

static int parse_stream(FILE *f, const char *path, struct hb_iomem *ret, struct hb_err *err)
{
	struct hb_iomem m = { 0 };
	unsigned int lineno = 0;
	bool nonzero = false;
	size_t cap = 0;
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		struct hb_iomem_entry *nv;

		lineno++;
		if (m.n == IOMEM_MAX_ENTRIES) {
			hb_iomem_done(&m);
			return hb_err_set(err, -E2BIG, "%s: more than %d entries", path,
					  IOMEM_MAX_ENTRIES);
		}
		if (m.n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(m.v, cap * sizeof(*m.v));
			if (!nv) {
				hb_iomem_done(&m);
				return hb_err_set(err, -ENOMEM, "out of memory");
			}
			m.v = nv;
		}
		if (parse_line(line, &m.v[m.n]) < 0) {
			hb_iomem_done(&m);
			return hb_err_set(err, -EINVAL, "%s:%u: not '<start>-<end> : <name>'", path,
					  lineno);
		}
		nonzero |= m.v[m.n].end != 0;
		m.n++;
	}
	if (m.n && !nonzero) {
		hb_iomem_done(&m);
		return hb_err_set(err, -EPERM,
				  "%s shows every address as 0 (reading them needs "
				  "CAP_SYS_ADMIN)",
				  path);
	}
	*ret = m;
	return 0;
}

int hb_iomem_load(const char *path, struct hb_iomem *ret, struct hb_err *err)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	r = parse_stream(f, path, ret, err);
	fclose(f);
	return r;
}

int hb_iomem_load_fd(int fd, const char *path, struct hb_iomem *ret, struct hb_err *err)
{
	FILE *f;
	int dfd, r;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3); /* the same open file: its opener's credentials */
	if (dfd < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	f = fdopen(dfd, "r");
	if (!f) {
		close(dfd);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	r = parse_stream(f, path, ret, err);
	fclose(f);
	return r;
}

void hb_iomem_done(struct hb_iomem *m)
{
	free(m->v);
	*m = (struct hb_iomem){ 0 };
}
