// SPDX-License-Identifier: MIT
/* The machine's clocks in the units the folders count in (util.h says which is for what). */
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

uint64_t hb_wall_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
