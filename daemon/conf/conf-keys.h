/* SPDX-License-Identifier: MIT */
/*
 * The configuration's key table (conf-keys.c) as the parser (conf.c) uses
 * it: a key by name, whether a section exists, a value set through its key.
 */
#ifndef HB_CONF_KEYS_H
#define HB_CONF_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "conf/conf.h"

struct hb_conf_key;

/* NULL when [section] has no such key */
const struct hb_conf_key *hb_conf_key_find(const char *section, const char *name);
bool hb_conf_section_known(const char *section);
/*
 * Names are case-sensitive: for an unknown section.name, the key it
 * matches when case is ignored ("section.key", into buf), or NULL.
 */
const char *hb_conf_key_case_hint(const char *section, const char *name, char *buf, size_t size);
/*
 * A semantic error about one key ("policy.target_node=5: ...") prefixed
 * with where that key was set: "FILE:LINE: " or "--set: " (nothing for a
 * default, or a message about no one key). Returns r.
 */
int hb_config_err_where(const struct hb_config *c, struct hb_err *err, int r);
/* k's place in the table: its slot in struct hb_config's key_where */
size_t hb_conf_key_index(const struct hb_conf_key *k);
/* v checked against k's type and range; why gets "section.key=v: want ..." */
int hb_conf_key_set(struct hb_config *c, const struct hb_conf_key *k, const char *v, char *why,
		    size_t why_size);

#endif
