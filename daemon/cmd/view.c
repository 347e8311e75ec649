// SPDX-License-Identifier: MIT
/* Reading the daemon's replies for top and heatmap (view.h). */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/util.h"
#include "view.h"

json_object *hb_view_get(json_object *o, const char *path)
{
	char key[64];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		if (len >= sizeof(key) || !json_object_is_type(o, json_type_object))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path += len + (dot ? 1 : 0);
	}
	return o;
}

double hb_view_num(json_object *o, const char *path)
{
	json_object *v = hb_view_get(o, path);
	uint64_t u;

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string))
		return hb_parse_u64(json_object_get_string(v), &u) == 0 ? (double)u : 0;
	return json_object_get_double(v);
}

uint64_t hb_view_u64(json_object *o, const char *path)
{
	json_object *v = hb_view_get(o, path);
	uint64_t u;

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string))
		return hb_parse_u64(json_object_get_string(v), &u) == 0 ? u : 0;
	if (json_object_is_type(v, json_type_double))
		return (uint64_t)json_object_get_double(v);
	return (uint64_t)json_object_get_int64(v);
}

const char *hb_view_str(json_object *o, const char *path, const char *dflt)
{
	json_object *v = hb_view_get(o, path);

	return v && !json_object_is_type(v, json_type_null) ? json_object_get_string(v) : dflt;
}
