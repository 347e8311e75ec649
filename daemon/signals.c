// SPDX-License-Identifier: MIT
/* The daemon's signals: which the loop handles, which are ignored (signals.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "signals.h"
#include "util/macro.h"

const int hb_signals_handled[4] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1 };

static const int ignored[] = { SIGPIPE, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR };

static int handled_mask(int how)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < HB_ARRAY_SIZE(hb_signals_handled); i++)
		sigaddset(&set, hb_signals_handled[i]);
	return -pthread_sigmask(how, &set, NULL);
}

int hb_signals_prepare(void)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < HB_ARRAY_SIZE(ignored); i++)
		if (sigaction(ignored[i], &sa, NULL) < 0)
			return -errno;
	return handled_mask(SIG_BLOCK);
}

int hb_signals_unblock(void)
{
	return handled_mask(SIG_UNBLOCK);
}

int hb_signals_block(void)
{
	return handled_mask(SIG_BLOCK);
}
