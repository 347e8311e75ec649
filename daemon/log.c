// SPDX-License-Identifier: MIT
/* Log lines on stderr, with journald priority prefixes when it is the journal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "util/util.h"

bool hb_log_journal_stream_matches(const char *journal_stream, uint64_t dev, uint64_t ino)
{
	char buf[64];
	const char *colon;
	uint64_t d, i;

	if (!journal_stream)
		return false;
	colon = strchr(journal_stream, ':');
	if (!colon || (size_t)(colon - journal_stream) >= sizeof(buf))
		return false;
	memcpy(buf, journal_stream, (size_t)(colon - journal_stream));
	buf[colon - journal_stream] = '\0';
	if (hb_parse_u64_base(buf, 10, &d) < 0 || hb_parse_u64_base(colon + 1, 10, &i) < 0)
		return false;
	return d == dev && i == ino;
}

bool hb_log_stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	struct stat st;

	if (!js || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return hb_log_journal_stream_matches(js, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
}

/*
 * A line that stderr does not take (its reader gone: EPIPE, `run` ignores
 * SIGPIPE; or closed) goes to syslog instead, so that nothing, the exit
 * summary least of all, is lost in silence.
 */
void hb_log_vstderr(bool journal, int prio, const char *who, const char *fmt, va_list ap)
{
	char msg[HB_ERR_MSG_MAX + 1024]; /* an error's message and what leads it */
	int n, w;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return;
	if (journal)
		w = fprintf(stderr, "<%d>%s%s%s\n", prio, who ? who : "", who ? ": " : "", msg);
	else
		w = fprintf(stderr, "%s%s%s\n", who ? who : "", who ? ": " : "", msg);
	if (w < 0 || fflush(stderr) == EOF) {
		clearerr(stderr);
		syslog(LOG_DAEMON | prio, "%s%s%s", who ? who : "", who ? ": " : "", msg);
	}
}

void hb_log_early(int prio, const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hb_log_vstderr(hb_log_stderr_is_journal(), prio, who, fmt, ap);
	va_end(ap);
}
