// SPDX-License-Identifier: MIT
/*
 * The built-in sources: an explicit table (constructor-registered objects
 * would vanish from a static library). External plugins come from
 * loader.c. Sources are appended here as they land.
 */
#include <errno.h>
#include <string.h>

#include "chmu/chmu.h"
#include "emul/emul.h"
#include "cxl-events/cxl-events.h"
#include "devices.h"
#include "hmu/hmu.h"
#include "replay/replay.h"
#include "util/macro.h"

extern const struct hb_device_ops hb_source_chmu;
extern const struct hb_device_ops hb_source_emul_chmu;
extern const struct hb_device_ops hb_source_replay;
extern const struct hb_device_ops hb_source_cxl_events;
extern const struct hb_device_ops hb_source_cxl_hmu;
extern const char *const hb_source_chmu_params[],
	*const hb_source_emul_chmu_params[],
		*const hb_source_replay_params[], *const hb_source_chmu_test_params[],
							  *const hb_source_cxl_events_params[],
								  *const hb_source_cxl_hmu_params[];

static const struct hb_device_ops *const builtins[] = {
	&hb_source_chmu,       &hb_source_emul_chmu, &hb_source_replay,
	&hb_source_cxl_events, &hb_source_cxl_hmu,   NULL,
};

size_t hb_builtin_sources(const struct hb_device_ops *const **ret)
{
	*ret = builtins;
	return HB_ARRAY_SIZE(builtins) - 1;
}

const struct hb_device_ops *hb_builtin_find(const char *name)
{
	for (size_t i = 0; builtins[i]; i++)
		if (!strcmp(builtins[i]->name, name))
			return builtins[i];
	return NULL;
}

/* what the daemon knows of each built-in beyond its ops table */
static const struct {
	const struct hb_device_ops *ops;
	const char *const *params;
	int (*check)(const struct hb_dev_info *info, struct hb_err *err);
} table[] = {
	{ &hb_source_chmu, hb_source_chmu_params, hb_source_chmu_check },
	{ &hb_source_emul_chmu, hb_source_emul_chmu_params, hb_source_emul_chmu_check },
	{ &hb_source_replay, hb_source_replay_params, hb_source_replay_check },
	{ &hb_source_cxl_events, hb_source_cxl_events_params, hb_source_cxl_events_check },
	{ &hb_source_cxl_hmu, hb_source_cxl_hmu_params, hb_source_cxl_hmu_check },
};

const char *const *hb_builtin_params(const char *name)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].ops->name, name))
			return table[i].params;
	return NULL;
}

int hb_builtin_check(const char *name, const struct hb_dev_info *info, struct hb_err *err)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].ops->name, name))
			return table[i].check(info, err);
	return 0;
}

const char *const *hb_builtin_test_params(const char *name)
{
	return !strcmp(name, hb_source_chmu.name) ? hb_source_chmu_test_params : NULL;
}

int hb_builtin_available(const char *name, char *why, size_t size)
{
	if (!strcmp(name, hb_source_cxl_events.name))
		return hb_cxl_events_available(why, size);
	return -ENOSYS;
}
