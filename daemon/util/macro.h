/* SPDX-License-Identifier: MIT */
/*
 * Small helpers every folder may use: cleanup attributes, ownership
 * transfer, array sizes. Header only; no state.
 */
#ifndef HB_UTIL_MACRO_H
#define HB_UTIL_MACRO_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define HB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define HB_EXPORT __attribute__((visibility("default")))
#define HB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* Declare a cleanup function "fnp" that calls fn(*p) when *p is set. */
#define HB_DEFINE_CLEANUP(type, fn)       \
	static inline void fn##p(type *p) \
	{                                 \
		if (*p)                   \
			(void)fn(*p);     \
	}

static inline void hb_freep(void *p)
{
	free(*(void **)p);
}

static inline void hb_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		(void)close(*fd);
		errno = saved;
	}
}

static inline void hb_closedirp(DIR **d)
{
	if (*d)
		(void)closedir(*d);
}

static inline void hb_fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}

#define _hb_cleanup_(fn) __attribute__((cleanup(fn)))
#define _hb_cleanup_free_ _hb_cleanup_(hb_freep)
#define _hb_cleanup_close_ _hb_cleanup_(hb_closep)
#define _hb_cleanup_closedir_ _hb_cleanup_(hb_closedirp)
#define _hb_cleanup_fclose_ _hb_cleanup_(hb_fclosep)

/* Hand ownership out of a cleanup-managed variable. */
#define HB_TAKE_PTR(p)                      \
	({                                  \
		__typeof__(p) _taken = (p); \
		(p) = NULL;                 \
		_taken;                     \
	})

#define HB_TAKE_FD(fd)             \
	({                         \
		int _taken = (fd); \
		(fd) = -1;         \
		_taken;            \
	})

#endif /* HB_UTIL_MACRO_H */
