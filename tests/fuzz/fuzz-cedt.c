// SPDX-License-Identifier: MIT
/* libFuzzer target: the ACPI CEDT parser. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_cedt *c = malloc(sizeof(*c));
	struct hb_err err = { 0 };

	if (!c)
		return 0;
	if (hb_cedt_parse(data, size, c, &err) == 0 && c->nr_windows > 64)
		__builtin_trap();
	free(c);
	return 0;
}
