/* SPDX-License-Identifier: MIT */
/* Stops a thread must still make because of its own accesses: a read of x
 * whose value differs from what the thread's own previous access of x
 * wrote or read needs another thread's write in between, so the thread
 * stops unfinished somewhere between the two (see own_stops.c). A lower
 * bound on the preemptions still needed, from the threads' positions. */
#ifndef VSC_OWN_STOPS_H
#define VSC_OWN_STOPS_H

#include "analysis.h"

struct own_stops {
	uint32_t k;
	uint32_t *off;   /* per thread: its stop points start at off[t] (k + 1) */
	uint32_t *point; /* per thread, ascending: positions where a stop is placed */
	uint64_t total;  /* stop points in all */
	uint64_t own;    /* of the own intervals alone (lock_stops.c adds to it) */
};

/* Cut points left .. right of a thread: it stops at one of them. */
struct own_interval {
	uint32_t left, right;
};

/* The intervals of thread t's reads into iv (room for one per event, in
 * program order of their reads); returns how many. last_pair (what x
 * holds for t after its last access) and last_pos are per-variable
 * scratch, PAIR_NONE on entry and on return. */
uint32_t own_stops_intervals(const struct vsc_program *p, const struct analysis *a, uint32_t t,
			     uint32_t *last_pair, uint32_t *last_pos, struct own_interval *iv);

struct forced;

/* Are the own stops built for this program (several writers on some
 * variable)? With one writer per variable the forced orders' table
 * (saturate_bound.c) serves the search instead. */
int own_stops_apply(const struct analysis *a);

/* Returns 0 (s->total may be 0: nothing to gain) or -ENOMEM. With forced
 * (may be NULL) and its intervals (saturate_stops.c), each thread's points
 * stab those too. */
int own_stops_build(struct own_stops *s, const struct vsc_program *p, const struct analysis *a,
		    const struct forced *forced);
void own_stops_free(struct own_stops *s);
/* Least number of stops (switches away from a thread with events left)
 * the threads must still make from positions pos. */
uint32_t own_stops_needed(const struct own_stops *s, const uint32_t *pos);

#endif
