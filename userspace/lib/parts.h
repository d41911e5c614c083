/* SPDX-License-Identifier: MIT */
/* The groups of independent parts of a reduced program (reduce.h), decided
 * one by one or by up to q->jobs threads at once, with the same answer
 * either way (docs/solvers.md, "Parts at once"). */
#ifndef VSC_PARTS_H
#define VSC_PARTS_H

#include "reduce.h"
#include "solver.h"

/* Decides one group's program as a whole (auto.c). */
typedef int (*part_solve_fn)(const struct vsc_program *gp, const struct query *q, struct budget *b,
			     struct vsc_result *res);

/* Fill res for p from the groups of rd, as a solver does: inconsistent when
 * a group is (or when the groups' least preemptions add up past the bound),
 * unknown when one stopped, else consistent with the groups' witnesses one
 * after the other, expanded to every event of p. Returns 0 or -errno. */
int parts_solve(const struct vsc_program *p, struct reduction *rd, const struct query *q,
		struct budget *b, part_solve_fn solve, struct vsc_result *res);

#endif
