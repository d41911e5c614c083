/* SPDX-License-Identifier: MIT */
/* One step of auto run alone, the way its property tests ask it (the
 * timestamp replay, the greedy run): a step answers consistent with a
 * witness, or leaves the program open. */
#ifndef VSC_TEST_STEP_ALONE_H
#define VSC_TEST_STEP_ALONE_H

#include "solver.h"

typedef int (*solver_step)(const struct vsc_program *p, const struct query *q, struct budget *b,
			   struct vsc_result *res);

/* step on p for (bound, minimize): VSC_CONSISTENT with *pre set, or -1
 * when it returns open; any other return fails the test. Its witness must
 * pass the verifier with the count it claims. */
int step_alone_verdict(solver_step step, int decided, int open, const struct vsc_program *p,
		       long bound, int minimize, long *pre);
/* The step said consistent with pre preemptions: exact must agree for the
 * same bound (and, with minimize, on the least). */
void step_alone_agrees(const struct vsc_program *p, long bound, int minimize, long pre);

#endif
