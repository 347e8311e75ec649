/* SPDX-License-Identifier: MIT */
/*
 * Name <-> value for enums whose names sit in a table indexed by the value
 * (designated initialisers, so a gap is a NULL entry):
 *
 *   static const char *const mode_names[_HB_MODE_MAX] = { [HB_MODE_RAM] = "ram", ... };
 *   HB_STRTAB_TO_STRING(hb_mode_to_string, enum hb_mode, mode_names, NULL)
 *   HB_STRTAB_FROM_STRING(hb_mode_from_string, enum hb_mode, mode_names)
 *
 * to_string gives the name, or the fallback for a value out of range or
 * with no name. from_string gives the value, or -EINVAL for NULL or a name
 * not in the table (the house's _HB_X_INVALID). Header only; no state.
 */
#ifndef HB_UTIL_STRTAB_H
#define HB_UTIL_STRTAB_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "macro.h"

static inline const char *hb_strtab_name(const char *const *table, size_t n, long v,
					 const char *fallback)
{
	if (v < 0 || (size_t)v >= n || !table[v])
		return fallback;
	return table[v];
}

static inline int hb_strtab_index(const char *const *table, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (table[i] && !strcmp(s, table[i]))
			return (int)i;
	return -EINVAL;
}

#define HB_STRTAB_TO_STRING(fn, type, table, fallback)                                 \
	const char *fn(type v)                                                         \
	{                                                                              \
		return hb_strtab_name(table, HB_ARRAY_SIZE(table), (long)v, fallback); \
	}

#define HB_STRTAB_FROM_STRING(fn, type, table)                                \
	type fn(const char *s)                                                \
	{                                                                     \
		return (type)hb_strtab_index(table, HB_ARRAY_SIZE(table), s); \
	}

#endif /* HB_UTIL_STRTAB_H */
