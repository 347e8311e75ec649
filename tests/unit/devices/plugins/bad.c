/* SPDX-License-Identifier: MIT */
/*
 * Plugins that must be refused, one per -DBAD_<kind> build (tests/meson.build):
 * ABI major 2, NULL ops, a table smaller than v1, POLL without poll(),
 * no entry symbol at all; one that loads but fails to open (ENXIO); one
 * whose every poll fails (EIO); one whose constructor crashes (after
 * creating the file $HB_TEST_CTOR_MARKER, so a test sees whether it ran);
 * one whose entry point crashes; one whose entry point never returns.
 * The source name is "bad" unless -DBAD_NAME="..." says otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "hb-device.h"

#ifndef BAD_NAME
#define BAD_NAME "bad"
#endif

#if defined(BAD_CRASHCTOR)
__attribute__((constructor)) static void crash_on_load(void)
{
	const char *marker = getenv("HB_TEST_CTOR_MARKER");

	if (marker)
		close(open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	raise(SIGSEGV);
}
#endif

static int bad_open(const struct hb_host_ops *ops, struct hb_host *h,
		    const struct hb_dev_info *info, void **ret_priv)
{
	(void)ops;
	(void)h;
	(void)info;
	*ret_priv = NULL;
#if defined(BAD_OPENFAIL)
	return -ENXIO;
#else
	return 0;
#endif
}

__attribute__((unused)) static int bad_poll(void *priv)
{
	(void)priv;
#if defined(BAD_POLLFAIL)
	return -EIO;
#else
	return 0;
#endif
}

static void bad_close(void *priv)
{
	(void)priv;
}

static const struct hb_device_ops bad_ops = {
#if defined(BAD_ABI)
	2,
	0,
#else
	HB_DEVICE_ABI_MAJOR,
	HB_DEVICE_ABI_MINOR,
#endif
#if defined(BAD_SIZE)
	offsetof(struct hb_device_ops, poll),
#else
	sizeof(struct hb_device_ops),
#endif
	0,
	BAD_NAME,
	HB_DEV_CAP_POLL | HB_DEV_CAP_DPA,
	NULL,
	bad_open,
#if defined(BAD_NOPOLL)
	NULL,
#else
	bad_poll,
#endif
	bad_close,
};

#if !defined(BAD_NOENTRY)
__attribute__((visibility("default"))) const struct hb_device_ops *hb_device_entry_v1(void)
{
#if defined(BAD_NULL)
	return bad_ops.size ? NULL : NULL;
#elif defined(BAD_CRASHENTRY)
	raise(SIGSEGV);
	return &bad_ops;
#elif defined(BAD_HANG)
	while (bad_ops.size)
		pause();
	return &bad_ops;
#else
	return &bad_ops;
#endif
}
#else
__attribute__((visibility("default"))) int hb_device_entry_v0(void);
int hb_device_entry_v0(void)
{
	return bad_ops.size != 0;
}
#endif
