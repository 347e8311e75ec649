/* SPDX-License-Identifier: MIT */
/*
 * The option rules every command shares (hotbridge(8) EXIT STATUS: a bad
 * option value is a usage error, 2):
 *  - hb_getopt(): getopt_long() that refuses an option taking a value when
 *    it is given twice (the last one would silently win), naming it;
 *  - hb_opt_u64(): a number option, its reason named when it is refused;
 *  - hb_cmd_fail(): say why on stderr and return the exit status or -errno.
 * argv[0] is "hotbridge CMD" (main.c), the prefix of every message.
 */
#ifndef HB_CMD_OPT_H
#define HB_CMD_OPT_H

#include <getopt.h>
#include <stdint.h>

#include "util/macro.h"

struct hb_getopt {
	const char *repeatable; /* vals (short letters) that may repeat: "s" for --set */
	uint64_t seen;          /* bit i: opts[i] given; zero it before the first call */
};

/*
 * As getopt_long(argc, argv, shortopts, opts, NULL), but a second
 * occurrence of an option with a required argument (other than those in
 * g->repeatable) says "PROG: --NAME given twice: it takes one value" on
 * stderr and returns '?', like getopt's own errors (the caller prints its
 * usage and returns 2). opts has at most 64 entries.
 */
int hb_getopt(int argc, char **argv, const char *shortopts, const struct option *opts,
	      struct hb_getopt *g);

/*
 * The number of option opt ("--cycles"): hb_parse_u64's syntax, within
 * [min, max]. 0, or -EINVAL after saying on stderr
 * "PROG: OPT 'ARG' is not a number: WHY; want WANT" or
 * "PROG: OPT 'ARG': want WANT" (in the syntax, out of range).
 */
int hb_opt_u64(const char *prog, const char *opt, const char *arg, uint64_t min, uint64_t max,
	       const char *want, uint64_t *ret);

/*
 * "PROG: MESSAGE\n" on stderr, written as one line, then rc: a command's
 * "log and return" in one statement,
 *   return hb_cmd_fail(2, argv[0], "unexpected argument '%s'", argv[optind]);
 * rc is whatever the caller returns (an exit status, or -errno from a
 * helper). errno is kept for "%m" and for the caller.
 */
int hb_cmd_fail(int rc, const char *prog, const char *fmt, ...) HB_PRINTF(3, 4);

#endif
