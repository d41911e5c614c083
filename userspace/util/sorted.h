/* SPDX-License-Identifier: MIT */
/*
 * Searches in sorted arrays of 32-bit numbers (flat event numbers, epochs,
 * offsets): one binary search, so each caller says only what it looks for.
 */
#ifndef VSC_UTIL_SORTED_H
#define VSC_UTIL_SORTED_H

#include <stdint.h>

/* The first index in [lo, hi) of the increasing array a whose value is at
 * least v (hi when none). */
static inline uint32_t first_at_least(const uint32_t *a, uint32_t lo, uint32_t hi, uint32_t v)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last index in [lo, hi) of the increasing array a whose value is at
 * most v, given that a[lo] is (lo when no later one is): the part a flat
 * number v falls in, when a holds each part's first number. */
static inline uint32_t last_at_most(const uint32_t *a, uint32_t lo, uint32_t hi, uint32_t v)
{
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[mid] <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#endif /* VSC_UTIL_SORTED_H */
