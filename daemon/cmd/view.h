/* SPDX-License-Identifier: MIT */
/*
 * What `hotbridge top` and `hotbridge heatmap` share: the daemon's replies
 * read by path ("stats.decisions.promote"), absent fields as 0 or NULL.
 */
#ifndef HB_VIEW_H
#define HB_VIEW_H

#include <stdint.h>

struct json_object;

/* o's member at the dotted path, or NULL */
struct json_object *hb_view_get(struct json_object *o, const char *path);
/* its number (an integer, a double or a "0x..." string), 0 when absent */
double hb_view_num(struct json_object *o, const char *path);
uint64_t hb_view_u64(struct json_object *o, const char *path);
/* its string, or dflt when absent or null */
const char *hb_view_str(struct json_object *o, const char *path, const char *dflt);

#endif
