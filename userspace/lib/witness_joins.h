/* SPDX-License-Identifier: MIT */
/* Fewer preemptions in a witness of any program (witness_joins.c): the
 * sources its replay gives, then the joins of coherence_repair.c.
 * docs/solvers.md, "Joins in the cut's witness". */
#ifndef VSC_WITNESS_JOINS_H
#define VSC_WITNESS_JOINS_H

#include "solver.h"

/* steps: an SC interleaving of p (a thread per step), *pre its
 * preemptions; both rewritten when joins take some away. 0 or -ENOMEM
 * (steps untouched then). */
int witness_join_pieces(const struct vsc_program *p, uint32_t *steps, long *pre, struct budget *b);

#endif
