/* SPDX-License-Identifier: MIT */
/* Numbers sorted by 32 bits of each: the places of the nodes that the
 * dynamic order (dyn_order.c) and the least path (least_path.c) sort at
 * every step. qsort's calls to its comparison were most of the search of
 * sources' time on 10^5 events (hot_search.c); by bytes it is linear. */
#include "sort_numbers.h"

#include <string.h>

/* a[0..n) sorted by the 32 bits of each from bit `shift` (the rest of
 * each number in a tie keeps their order): insertion for a few, else by
 * bytes, least first, through tmp, skipping a byte all share. */
void sort_numbers(uint64_t *a, uint64_t *tmp, uint32_t n, unsigned shift)
{
	if (n < 64) {
		for (uint32_t i = 1; i < n; i++) {
			uint64_t x = a[i];
			uint32_t key = (uint32_t)(x >> shift), j = i;
			for (; j > 0 && (uint32_t)(a[j - 1] >> shift) > key; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return;
	}
	for (unsigned byte = 0; byte < 4; byte++) {
		unsigned at = shift + 8 * byte;
		uint32_t count[257] = { 0 };
		uint64_t *from = a, *to = tmp;
		for (uint32_t i = 0; i < n; i++)
			count[((from[i] >> at) & 0xff) + 1]++;
		if (count[((from[0] >> at) & 0xff) + 1] == n)
			continue; /* one value of this byte: in order already */
		for (unsigned v = 1; v <= 256; v++)
			count[v] += count[v - 1];
		for (uint32_t i = 0; i < n; i++)
			to[count[(from[i] >> at) & 0xff]++] = from[i];
		memcpy(a, to, (size_t)n * sizeof(*a));
	}
}
