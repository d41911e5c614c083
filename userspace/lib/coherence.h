/* SPDX-License-Identifier: MIT */
/* Saturation of reads-from and coherence orders for programs whose values
 * identify writes (coherence.c; docs/solvers.md, "Values that identify
 * writes"). */
#ifndef VSC_COHERENCE_H
#define VSC_COHERENCE_H

#include "solver.h"

enum coherence_outcome {
	COHERENCE_DECIDED = 0,   /* res holds the answer */
	COHERENCE_OPEN = 1,      /* no answer; *least is a proven lower bound */
	COHERENCE_NOT_APPLY = 2, /* some read has a choice of writes, or too big */
};

/* What saturation leaves to the search. */
struct coherence_open {
	long least;        /* the least preemptions of any SC interleaving are >= this */
	uint32_t *witness; /* an SC interleaving (threads per step), or NULL; the caller frees it */
	long preemptions;  /* its preemptions (above the bound asked, or above least) */
};

/* Decide p by saturation when every read has exactly one write (or the
 * initial value) it can read. Returns an enum coherence_outcome or -errno
 * (-ETIME: the budget ran out); *open is filled on COHERENCE_OPEN, and
 * open->least alone (proven before it stopped) on -ETIME and -ENOMEM. */
int coherence_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		    struct vsc_result *res, struct coherence_open *open);

#endif
