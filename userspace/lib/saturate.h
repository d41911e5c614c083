/* SPDX-License-Identifier: MIT */
/* Forced orders for variables with one writer thread, saturated to a
 * fixpoint (saturate.c). Used by the engine when values do not identify
 * writes. Events are numbered flat: base[t] + index. */
#ifndef VSC_SATURATE_H
#define VSC_SATURATE_H

#include "analysis.h"
#include "own_stops.h"
#include "solver.h"

#define FORCED_NONE UINT32_MAX        /* not a constrained read */
#define FORCED_START (UINT32_MAX - 1) /* may read the initial value */

struct forced {
	uint32_t *base; /* per thread: flat number of its event 0 */
	/* per flat event, for a read of a one-writer variable by another thread
	 * (else FORCED_NONE): the writer's event it must come after, and the
	 * writer's event it must come before; NULL when no read has a choice
	 * of writes, where memory tells the engine as much) */
	uint32_t *after, *before;
	uint32_t *must_wait;     /* per flat event: reads that must come before it */
	uint32_t *opens_off;     /* per flat event + 1: CSR of the reads whose */
	uint32_t *opens;         /* earliest possible write it is (their pairs) */
	uint32_t *open_at_start; /* per pair: reads that may see the initial value */
	/* with the lower bound (else NULL), k x k: last[u * k + v] events of v
	 * must precede u's last event, and back[u * k + v] events of u must
	 * precede v's event last[u * k + v] - 1 (saturate_bound.c) */
	uint32_t *last, *back;
	/* with the lower bound and the vectors of the fixpoint (else NULL):
	 * per thread u, from iv_off[u] to iv_off[u + 1], intervals of cut
	 * points at one of which u stops while another thread runs
	 * (saturate_stops.c) */
	uint32_t *iv_off;
	struct own_interval *iv;
	uint32_t k;
	int refuted; /* a cycle of forced orders: no SC interleaving */
	int partial; /* FORCED_FIRST_RANGES left out a fixpoint that would run */
};

#define FORCED_BOUND 1        /* keep the lower bound's table */
#define FORCED_FIRST_RANGES 2 /* no fixpoint: the reads' first ranges only */

/* Returns 0 and fills f (f->refuted may be set), 1 when there is nothing to
 * gain (no read has a choice of writes, and the bound was not asked for) or
 * it would be too big, or -errno; -ETIME when the budget ran out. With
 * FORCED_BOUND in how the lower bound's table is kept in f->last and
 * f->back. The fixpoint runs when some read has a choice of writes and a
 * vector per event fits, unless FORCED_FIRST_RANGES. */
int forced_build(struct forced *f, const struct vsc_program *p, const struct analysis *a,
		 struct budget *b, int how);
/* Future preemptions forced from the state pos (thread positions): threads
 * u with a pending event that must come after a pending event of another
 * thread that must come after a pending event of u, so u stops unfinished
 * at least once more. Needs f->last (saturate_bound.c). */
uint32_t forced_stops(const struct forced *f, const struct vsc_program *p, const uint32_t *pos);
void forced_free(struct forced *f);

#endif
