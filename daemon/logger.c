// SPDX-License-Identifier: MIT
/* The daemon's logger: a threshold parsed once, one sink. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "logger.h"
#include "util/strtab.h"

/* syslog's levels are the index; emerg, alert and crit are not offered */
static const char *const level_names[LOG_DEBUG + 1] = {
	[LOG_ERR] = "err",   [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

HB_STRTAB_FROM_STRING(hb_log_level_from_string, int, level_names)

int hb_logger_set_level(struct hb_logger *l, const char *level)
{
	int v = hb_log_level_from_string(level);

	if (v < 0)
		return v;
	l->level = v;
	return 0;
}

int hb_logger_init(struct hb_logger *l, const char *level, const char *target)
{
	int v = hb_log_level_from_string(level);
	bool to_syslog;

	if (v < 0)
		return v;
	if (!strcmp(target, "syslog"))
		to_syslog = true;
	else if (!strcmp(target, "stderr"))
		to_syslog = false;
	else
		return -EINVAL;
	*l = (struct hb_logger){ .level = v,
				 .syslog = to_syslog,
				 .journal = hb_log_stderr_is_journal() };
	if (to_syslog)
		openlog("hotbridge", LOG_PID, LOG_DAEMON);
	return 0;
}

void hb_logger_vlog(const struct hb_logger *l, int prio, const char *fmt, va_list ap)
{
	if (prio > l->level)
		return;
	if (l->syslog) {
		vsyslog(prio, fmt, ap);
		return;
	}
	hb_log_vstderr(l->journal, prio, l->journal ? NULL : "hotbridge", fmt, ap);
}

void hb_logger_log(const struct hb_logger *l, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hb_logger_vlog(l, prio, fmt, ap);
	va_end(ap);
}
