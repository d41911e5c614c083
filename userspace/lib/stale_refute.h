/* SPDX-License-Identifier: MIT */
/* Refuting a read that needs another thread's write by where every thread
 * can be when it happens (stale_refute.c): one case per write it may see,
 * each closed by the bounds or by the program of the events surely before
 * it. docs/solvers.md, "Refuting a stale read by the positions at it". */
#ifndef VSC_STALE_REFUTE_H
#define VSC_STALE_REFUTE_H

#include "solver.h"
#include "writer_groups.h"

enum stale_refute_answer {
	STALE_REFUTE_OPEN = 0,    /* not refuted (or a limit stopped it) */
	STALE_REFUTE_REFUTED = 1, /* no SC interleaving, whatever the bound */
};

/* Try to refute p under work budget units (within b's own cap and
 * deadline); each prefix program is decided by solve with no bound and
 * q->no_cut set. Returns enum stale_refute_answer or -ENOMEM. Programs of
 * more than STALE_CUT_MAX_THREADS threads are left open. */
int stale_refute(const struct vsc_program *p, struct budget *b, unsigned long work,
		 writer_group_solve_fn solve);

#endif
