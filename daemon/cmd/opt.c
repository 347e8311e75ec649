// SPDX-License-Identifier: MIT
/* Option rules shared by every command (opt.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "util/util.h"

/* the entry of opts that getopt_long's val c stands for: -1 for none */
static int option_index(const struct option *opts, int c)
{
	for (int i = 0; opts[i].name && i < 64; i++)
		if (!opts[i].flag && opts[i].val == c)
			return i;
	return -1;
}

int hb_getopt(int argc, char **argv, const char *shortopts, const struct option *opts,
	      struct hb_getopt *g)
{
	int c = getopt_long(argc, argv, shortopts, opts, NULL);
	int i;

	if (c == -1 || c == '?' || c == ':')
		return c;
	i = option_index(opts, c);
	if (i < 0 || opts[i].has_arg != required_argument)
		return c;
	if (c < 0x100 && g->repeatable && strchr(g->repeatable, c))
		return c;
	if (g->seen & (1ULL << i)) {
		fprintf(stderr, "%s: --%s given twice: it takes one value\n", argv[0], opts[i].name);
		return '?';
	}
	g->seen |= 1ULL << i;
	return c;
}

int hb_opt_u64(const char *prog, const char *opt, const char *arg, uint64_t min, uint64_t max,
	       const char *want, uint64_t *ret)
{
	uint64_t v;
	int r = hb_parse_u64(arg, &v);

	if (r < 0)
		return hb_cmd_fail(-EINVAL, prog, "%s '%s' %s; want %s", opt, arg,
				   hb_parse_u64_why(arg, r), want);
	if (v < min || v > max)
		return hb_cmd_fail(-EINVAL, prog, "%s '%s': want %s", opt, arg, want);
	*ret = v;
	return 0;
}

int hb_cmd_fail(int rc, const char *prog, const char *fmt, ...)
{
	int saved = errno;
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* out of memory: the format still says which failure it was */
	fprintf(stderr, "%s: %s\n", prog, msg ? msg : fmt);
	free(msg);
	errno = saved;
	return rc;
}
