/* SPDX-License-Identifier: MIT */
/* One greedy run that decides most consistent 1-Writer traces in a linear
 * pass, before the reductions and the analysis (greedy_run.c). */
#ifndef VSC_GREEDY_RUN_H
#define VSC_GREEDY_RUN_H

#include "solver.h"

#define GREEDY_RUN_DECIDED 0 /* res holds a consistent answer and its witness */
#define GREEDY_RUN_OPEN 1    /* no answer: the usual way decides */

/* Most threads the run takes: it looks at the others in turn at each
 * switch, and beyond this auto's own paths are better. */
#define GREEDY_RUN_THREADS 64

/* Run p's threads one after another, each as far as it can go without
 * spoiling a read still to come. Returns GREEDY_RUN_DECIDED when the run
 * completes within q's bound (under --min only with no preemption: then
 * it is the least), GREEDY_RUN_OPEN when it does not apply, gets stuck or
 * needs more preemptions, or -errno (-ETIME: the budget ran out). It never
 * answers inconsistent. */
int greedy_run_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		     struct vsc_result *res);

#endif
