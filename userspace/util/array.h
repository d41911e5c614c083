/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays: one way to make room, used wherever an array grows one
 * element (or a few) at a time. The array is a pointer and a capacity the
 * caller keeps (a size_t or a uint32_t); the length is the caller's too.
 *
 *   if (ARRAY_RESERVE(g->edges, g->edge_cap, g->nedges + 1))
 *           return -ENOMEM;
 *   g->edges[g->nedges++] = edge;
 *
 * Arrays that grow together (one capacity for several) take the new room
 * from array_grown_cap() and resize each with ARRAY_RESIZE().
 */
#ifndef VSC_UTIL_ARRAY_H
#define VSC_UTIL_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* The room an array of cap elements grows to so that it holds need: cap
 * doubled (starting from min_cap when cap is 0) until it does, so appending
 * n elements costs O(n) in all. 0 when that room would pass max. */
static inline size_t array_grown_cap(size_t cap, size_t need, size_t min_cap, size_t max)
{
	size_t room = cap ? cap : (min_cap ? min_cap : 1);

	while (room < need) {
		if (room > max / 2)
			return 0;
		room *= 2;
	}
	return room <= max ? room : 0;
}

/* Resize *array to n elements of elem bytes. 0, or -ENOMEM with *array
 * unchanged (also when the byte count would overflow). */
static inline int array_resize(void **array, size_t n, size_t elem)
{
	size_t bytes = n * elem;
	void *resized;

	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	resized = realloc(*array, bytes ? bytes : 1); /* realloc(p, 0) may free p */
	if (!resized)
		return -ENOMEM;
	*array = resized;
	return 0;
}

/* Make room for need elements of elem bytes in *array, whose room is *cap
 * elements (at most max). 0, or -ENOMEM with *array and *cap unchanged. */
static inline int array_reserve_within(void **array, size_t *cap, size_t need, size_t elem,
				       size_t min_cap, size_t max)
{
	size_t room;

	if (need <= *cap)
		return 0;
	room = array_grown_cap(*cap, need, min_cap, max);
	if (!room || array_resize(array, room, elem))
		return -ENOMEM;
	*cap = room;
	return 0;
}

static inline int array_reserve(void **array, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
	return array_reserve_within(array, cap, need, elem, min_cap, SIZE_MAX);
}

/* The same for a 32-bit capacity: the room stays within UINT32_MAX. */
static inline int array_reserve32(void **array, uint32_t *cap, size_t need, size_t elem,
				  size_t min_cap)
{
	size_t room = *cap;
	int err = array_reserve_within(array, &room, need, elem, min_cap, UINT32_MAX);

	*cap = (uint32_t)room;
	return err;
}

/* ARRAY_RESERVE(ptr, cap, need): make room for need elements in the typed
 * array ptr whose capacity cap is a size_t or a uint32_t, growing from 16
 * elements; ARRAY_RESERVE_FROM the same from min_cap elements. */
#define ARRAY_RESERVE_FROM(ptr, cap, need, min_cap) \
	_Generic(&(cap), uint32_t *                 \
		 : array_reserve32, default         \
		 : array_reserve)((void **)&(ptr), &(cap), (need), sizeof(*(ptr)), (min_cap))
#define ARRAY_RESERVE(ptr, cap, need) ARRAY_RESERVE_FROM(ptr, cap, need, 16)

/* ARRAY_RESIZE(ptr, n): array_resize for the typed array ptr. */
#define ARRAY_RESIZE(ptr, n) array_resize((void **)&(ptr), (n), sizeof(*(ptr)))

#endif /* VSC_UTIL_ARRAY_H */
