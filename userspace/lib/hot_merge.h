/* SPDX-License-Identifier: MIT */
/* Fewer preemptions in an SC interleaving of one variable: a thread's
 * slices joined where the reads between still see their values
 * (hot_merge.c; docs/solvers.md, "One hot variable"). */
#ifndef VSC_HOT_MERGE_H
#define VSC_HOT_MERGE_H

#include "solver.h"

/* witness: n thread numbers, an SC interleaving of p (one variable).
 * Rewrites it in place into one with fewer preemptions where it finds
 * one; the result is SC when the input was. Returns the joins made, or
 * -ENOMEM. */
long hot_merge_slices(const struct vsc_program *p, uint32_t *witness, size_t n);

#endif
