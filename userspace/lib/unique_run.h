/* SPDX-License-Identifier: MIT */
/* Programs with one SC interleaving at most (unique_run.c). */
#ifndef VSC_UNIQUE_RUN_H
#define VSC_UNIQUE_RUN_H

#include "solver.h"

#define UNIQUE_RUN_DECIDED 0 /* res holds the answer */
#define UNIQUE_RUN_CHOICE 1  /* some prefix has two SC extensions: not decided */

/* Run p one event at a time while exactly one thread's next event can
 * extend the run (SC). Returns UNIQUE_RUN_DECIDED (res: consistent with the
 * run as witness, or inconsistent), UNIQUE_RUN_CHOICE, or -errno (-ETIME:
 * the budget ran out). Linear in events, whatever the number of threads. */
int unique_run_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		     struct vsc_result *res);

#endif
