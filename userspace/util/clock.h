/* SPDX-License-Identifier: MIT */
/* Monotonic time, for deadlines and durations (never the wall clock, which
 * can jump). */
#ifndef VSC_UTIL_CLOCK_H
#define VSC_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on CLOCK_MONOTONIC. */
static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Seconds on CLOCK_MONOTONIC. */
static inline double clock_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif /* VSC_UTIL_CLOCK_H */
