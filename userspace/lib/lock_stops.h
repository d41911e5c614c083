/* SPDX-License-Identifier: MIT */
/* Stops a spin lock forces on its holders: a thread that reads the lock
 * taken (or free again) while another holds it makes the holder stop
 * inside its hold (or between two holds of its own). Added to the own
 * stops (own_stops.h), a lower bound on the least preemptions of the whole
 * program; see lock_stops.c for when it applies and why it holds. */
#ifndef VSC_LOCK_STOPS_H
#define VSC_LOCK_STOPS_H

#include "analysis.h"

struct lock_stops {
	/* the own stops of the lock's threads, with the intervals of reads of
	 * variables only written inside holds narrowed to the gaps between
	 * the reader's holds (lock_stops.c): at least own_stops_build()'s own
	 * count; 0 when no variable is such a lock */
	uint64_t own;
	/* preemptions every SC interleaving makes beyond `own`: 0 when no
	 * variable is such a lock, when memory runs out, or when the budget
	 * stops the work */
	uint64_t extra;
	/* the minimal intervals `own` stabs: thread t's are narrowed[narrowed_off[t]
	 * .. narrowed_off[t + 1]) (cut points, as own_stops.h), or NULL */
	struct own_interval *narrowed;
	uint32_t *narrowed_off;
	uint32_t *witness; /* an SC interleaving along the holds, or NULL */
	long preemptions;  /* the witness's */
};

/* Fills found (b NULL: no budget); lock_stops_free() releases it. */
void lock_stops_find(struct lock_stops *found, const struct vsc_program *p,
		     const struct analysis *a, struct budget *b);
void lock_stops_free(struct lock_stops *found);

#endif
