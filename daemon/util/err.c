// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "util.h"

int hb_err_set(struct hb_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	(void)vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void hb_err_clear(struct hb_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
