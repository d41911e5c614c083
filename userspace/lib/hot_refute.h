/* SPDX-License-Identifier: MIT */
/* One variable: a refutation from the orders every SC interleaving must
 * have (hot_refute.c; docs/solvers.md, "One hot variable": refutations). */
#ifndef VSC_HOT_REFUTE_H
#define VSC_HOT_REFUTE_H

#include "solver.h"

#define HOT_REFUTED 1     /* no SC interleaving: a proof */
#define HOT_REFUTE_OPEN 0 /* nothing concluded */

/* For p of one variable: HOT_REFUTED when the orders forced on every SC
 * interleaving (program order, and what each read's possible sources
 * force) form a cycle or leave a read no source; HOT_REFUTE_OPEN when
 * they do not, or p is not such a program or too big; -ETIME, -ENOMEM.
 * Never wrong when it says HOT_REFUTED; never concludes consistent. */
int hot_refute(const struct vsc_program *p, struct budget *b);

#endif
