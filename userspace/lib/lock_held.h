/* SPDX-License-Identifier: MIT */
/* A witness along the holds of a spin lock that one thread held when the
 * recording started (lock_held.c): `init x ?`, that thread's first write
 * of x a give, every other thread's a take. */
#ifndef VSC_LOCK_HELD_H
#define VSC_LOCK_HELD_H

#include "analysis.h"
#include "lock_stops.h"

/* Threads beyond which it is not tried (each candidate holder is a look
 * at every thread's first write) */
#define LOCK_HELD_THREADS 64

/* For lock word x: a verified SC interleaving into found (found->witness,
 * ->preemptions) when it has fewer preemptions than found's; found's
 * bounds (own, extra) are left as they are. b: NULL or the budget. */
void lock_held_witness(struct lock_stops *found, const struct vsc_program *p,
		       const struct analysis *a, uint32_t x, struct budget *b);

#endif
