/* SPDX-License-Identifier: MIT */
/* Numbers sorted by the 32 bits of each from a given bit (a place kept
 * above a node's number, or a place alone). */
#ifndef VSC_SORT_NUMBERS_H
#define VSC_SORT_NUMBERS_H

#include <stdint.h>

/* a[0..n) sorted by (a[i] >> shift) & 0xffffffff, ties in their order;
 * tmp: room for n. */
void sort_numbers(uint64_t *a, uint64_t *tmp, uint32_t n, unsigned shift);

#endif
