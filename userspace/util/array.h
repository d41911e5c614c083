/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays: one way to make room, used wherever an array grows one
 * element (or a few) at a time. The array is a pointer and a capacity the
 * caller keeps; the length is the caller's too.
 */
#ifndef VSC_UTIL_ARRAY_H
#define VSC_UTIL_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Make room for need elements of elem bytes in *array, whose room is *cap
 * elements: the room at least doubles (from min_cap), so appending n
 * elements costs O(n) in all. 0, or -ENOMEM with *array and *cap unchanged
 * (also when the byte count would overflow). */
static inline int array_reserve(void **array, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
	size_t room = *cap ? *cap : (min_cap ? min_cap : 1);
	void *grown;

	if (need <= *cap)
		return 0;
	while (room < need) {
		if (room > SIZE_MAX / 2)
			return -ENOMEM;
		room *= 2;
	}
	if (elem && room > SIZE_MAX / elem)
		return -ENOMEM;
	grown = realloc(*array, room * elem);
	if (!grown)
		return -ENOMEM;
	*array = grown;
	*cap = room;
	return 0;
}

/* ARRAY_RESERVE(ptr, cap, need): array_reserve for a typed pointer ptr and
 * a size_t capacity cap, growing from 16 elements. */
#define ARRAY_RESERVE(ptr, cap, need) \
	array_reserve((void **)&(ptr), &(cap), (need), sizeof(*(ptr)), 16)

#endif /* VSC_UTIL_ARRAY_H */
