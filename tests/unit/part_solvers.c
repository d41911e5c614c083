/* SPDX-License-Identifier: MIT */
/* Solvers for parts of a program (part_solvers.h). */
#include "part_solvers.h"

int exact_part_solve(const struct vsc_program *sp, const struct query *q, struct budget *b,
		     struct vsc_result *res)
{
	return exact_solver.solve(sp, q, b, res);
}

int auto_part_solve(const struct vsc_program *sp, const struct query *q, struct budget *b,
		    struct vsc_result *res)
{
	return auto_solver.solve(sp, q, b, res);
}
