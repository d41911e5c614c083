/* SPDX-License-Identifier: MIT */
/* A witness cut at a read that needs another thread's write (stale_cut.c):
 * where every thread is when that read happens, chosen by bounds that hold
 * in every SC interleaving, then the events before and the events after
 * decided apart and joined. Finds witnesses of stale reads with several
 * writers that still have an SC explanation, where the searches wander. */
#ifndef VSC_STALE_CUT_H
#define VSC_STALE_CUT_H

#include "solver.h"
#include "writer_groups.h"

enum stale_cut_answer {
	STALE_CUT_OPEN = 0,  /* no witness (or a limit or memory stopped it) */
	STALE_CUT_FOUND = 1, /* *witness: an SC interleaving, verified */
};

/* Look for a witness of p under work budget units (within b's own cap and
 * deadline), each half decided by solve with no bound, q->no_cut and
 * q->witness_only set. On STALE_CUT_FOUND, *witness (one thread a step, p->event_count
 * steps; the caller frees it) has passed vsc_witness_verify() and has
 * *preemptions. It never refutes. Programs of more than
 * STALE_CUT_MAX_THREADS threads are left open. */
int stale_cut_witness(const struct vsc_program *p, struct budget *b, unsigned long work,
		      writer_group_solve_fn solve, uint32_t **witness, long *preemptions);

#define STALE_CUT_MAX_THREADS 64

#endif
