// SPDX-License-Identifier: MIT
/* The daemon's logger: a threshold parsed once, one sink. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>
#include <unistd.h>
/* CODE_FILE= and CODE_LINE= would name this file, not the record's origin */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "log.h"
#include "logger.h"
#include "util/strtab.h"
#include "util/util.h"

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

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* one journal record; 0 or -errno (then the caller writes the line to stderr) */
static int journal_send(int prio, const struct hb_log_fields *f, const char *fmt, va_list ap)
{
	char msg[HB_ERR_MSG_MAX + 1024], pri[16], src[96], mdev[48], hpa[32], dpa[32];
	struct iovec iov[7];
	int n, k = 0;

	memcpy(msg, "MESSAGE=", 8);
	n = vsnprintf(msg + 8, sizeof(msg) - 8, fmt, ap);
	if (n < 0)
		return -EINVAL;
	snprintf(pri, sizeof(pri), "PRIORITY=%d", prio);
	iov[k++] = (struct iovec){ .iov_base = msg, .iov_len = strlen(msg) };
	iov[k++] = (struct iovec){ .iov_base = pri, .iov_len = strlen(pri) };
	iov[k++] = (struct iovec){ .iov_base = (void *)"SYSLOG_IDENTIFIER=hotbridge",
				   .iov_len = strlen("SYSLOG_IDENTIFIER=hotbridge") };
	if (f && f->source) {
		snprintf(src, sizeof(src), "SOURCE=%s", f->source);
		iov[k++] = (struct iovec){ .iov_base = src, .iov_len = strlen(src) };
	}
	if (f && f->memdev) {
		snprintf(mdev, sizeof(mdev), "MEMDEV=%s", f->memdev);
		iov[k++] = (struct iovec){ .iov_base = mdev, .iov_len = strlen(mdev) };
	}
	if (f && f->hpa != HB_LOG_NO_ADDR) {
		snprintf(hpa, sizeof(hpa), "HPA=0x%llx", (unsigned long long)f->hpa);
		iov[k++] = (struct iovec){ .iov_base = hpa, .iov_len = strlen(hpa) };
	}
	if (f && f->dpa != HB_LOG_NO_ADDR) {
		snprintf(dpa, sizeof(dpa), "DPA=0x%llx", (unsigned long long)f->dpa);
		iov[k++] = (struct iovec){ .iov_base = dpa, .iov_len = strlen(dpa) };
	}
	return sd_journal_sendv(iov, k);
}

void hb_logger_vlogf(const struct hb_logger *l, int prio, const struct hb_log_fields *f,
		     const char *fmt, va_list ap)
{
	va_list again;

	if (prio > l->level)
		return;
	if (l->syslog) {
		vsyslog(prio, fmt, ap);
		return;
	}
	/*
	 * sd_journal_sendv() returns 0 when the journal's socket is missing (a
	 * journald stopped, a namespace without it): ask first, so that such a
	 * record goes to stderr rather than nowhere.
	 */
	if (l->journal && access(JOURNAL_SOCKET, W_OK) == 0) {
		int r;

		va_copy(again, ap);
		r = journal_send(prio, f, fmt, again);
		va_end(again);
		if (r >= 0)
			return;
	}
	hb_log_vstderr(l->journal, prio, l->journal ? NULL : "hotbridge", fmt, ap);
}

void hb_logger_logf(const struct hb_logger *l, int prio, const struct hb_log_fields *f,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hb_logger_vlogf(l, prio, f, fmt, ap);
	va_end(ap);
}

void hb_logger_vlog(const struct hb_logger *l, int prio, const char *fmt, va_list ap)
{
	hb_logger_vlogf(l, prio, NULL, fmt, ap);
}

void hb_logger_log(const struct hb_logger *l, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hb_logger_vlogf(l, prio, NULL, fmt, ap);
	va_end(ap);
}
