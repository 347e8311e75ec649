// SPDX-License-Identifier: MIT
/* The daemon's unit tests' starting configuration (emul-config.h). */
#include <stdio.h>
#include <string.h>

#include "emul-config.h"

void hb_test_emul_config(struct hb_config *cfg, const char *const *params)
{
	size_t i = 0;

	hb_config_defaults(cfg);
	cfg->control_socket[0] = cfg->plugin_dir[0] = '\0';
	snprintf(cfg->log_level, sizeof(cfg->log_level), "err");
	cfg->nsources = 1;
	memset(&cfg->sources[0], 0, sizeof(cfg->sources[0]));
	strcpy(cfg->sources[0].name, "emu");
	strcpy(cfg->sources[0].type, "emul-chmu");
	strcpy(cfg->sources[0].memdev, "mem0");
	for (; params && params[i] && i < HB_MAX_SOURCE_PARAMS; i++)
		cfg->sources[0].params[i] = (char *)params[i];
	cfg->sources[0].params[i] = NULL;
}
