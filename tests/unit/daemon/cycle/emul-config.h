/* SPDX-License-Identifier: MIT */
/*
 * The configuration the daemon's unit tests start from (emul-config.c):
 * the defaults, no control socket, no plugins, log level "err", and one
 * source "emu", an emulated CHMU on mem0 with params (NULL-terminated,
 * borrowed: they must outlive the config).
 */
#ifndef HB_TEST_EMUL_CONFIG_H
#define HB_TEST_EMUL_CONFIG_H

#include "conf/conf.h"

void hb_test_emul_config(struct hb_config *cfg, const char *const *params);

#endif
