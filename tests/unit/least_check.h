/* SPDX-License-Identifier: MIT */
/* Checks shared by the tests of the lower bounds (own, lock and forced
 * stops): a witness that verifies, auto against exact's least, and what a
 * least witness still makes after each of its prefixes. */
#ifndef VSC_TEST_LEAST_CHECK_H
#define VSC_TEST_LEAST_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "random_program.h"
#include "vsc/vsc.h"

/* res's witness passes the verifier; *count: its preemptions. */
int witness_verified(const struct vsc_program *p, const struct vsc_result *res, long *count);
/* auto's --min, -p least - 1 and -p least agree with exact's answer
 * (consistent, least), witnesses verified; with plain, the verdict
 * without a bound too (its witness never below the least). */
int auto_agrees_with_least(const struct vsc_program *p, int consistent, long least, int plain);
/* auto against exact on p for each of the n bounds (-1: none) and for
 * --min: the same verdicts and least, every witness verified with the
 * count it claims; the test fails (p dumped) when not. */
void auto_agrees_on_bounds(const struct vsc_program *p, const long *bounds, unsigned n);
/* after[m] (n + 2 entries): the preemptions witness w makes after its
 * first m steps, not counting the switch right after them (a stop of the
 * thread that ran step m - 1 at its current position, which no interval
 * wholly ahead contains); left: scratch, one per thread. */
void preemptions_after(const struct vsc_program *p, const uint32_t *w, size_t n, uint32_t *left,
		       long *after);

/* The shape the lower-bound tests draw their random programs from: 2-4
 * threads, 2 to 1 + max_events events, 1-3 variables, values from
 * least_values to least_values + value_spread - 1, 30-69% writes and up to
 * 3% reads of a random value, drawn in this order; the caller sets the
 * writers, RMWs and init it wants. */
struct random_shape small_shape(uint64_t *seed, unsigned max_events, unsigned least_values,
				unsigned value_spread);

#endif
