/* SPDX-License-Identifier: MIT */
/* One variable: a lower bound on the preemptions of every SC interleaving
 * (hot_bound.c; docs/solvers.md, "One hot variable"). */
#ifndef VSC_HOT_BOUND_H
#define VSC_HOT_BOUND_H

#include "solver.h"

/* For p of one variable: preemptions every SC interleaving of p makes at
 * least (the own stops and the source stops no cut meets two of); 0 for
 * other programs; -ENOMEM. Linear but for two sorts. */
long hot_lower_bound(const struct vsc_program *p);

#endif
