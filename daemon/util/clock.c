// SPDX-License-Identifier: MIT
/* CLOCK_MONOTONIC in the units the folders count in (util.h). */
#include <time.h>

#include "util.h"

uint64_t hb_now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t hb_now_us(void)
{
	return hb_now_ns() / 1000ULL;
}

uint64_t hb_now_ms(void)
{
	return hb_now_ns() / 1000000ULL;
}
