/* SPDX-License-Identifier: MIT */
/* The exact solver and auto as the solve function a part of a program is
 * handed to (writer_group_solve_fn): the tests of the cut and the
 * refutation at a stale read decide their halves and prefix programs with
 * them. */
#ifndef VSC_TEST_PART_SOLVERS_H
#define VSC_TEST_PART_SOLVERS_H

#include "solver.h"

int exact_part_solve(const struct vsc_program *sp, const struct query *q, struct budget *b,
		     struct vsc_result *res);
int auto_part_solve(const struct vsc_program *sp, const struct query *q, struct budget *b,
		    struct vsc_result *res);

#endif
