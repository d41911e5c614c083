/* SPDX-License-Identifier: MIT */
/* One variable written by several threads: a witness from a choice of the
 * write each read sees, checked for a cycle (hot_var.c; docs/solvers.md,
 * "One hot variable"). */
#ifndef VSC_HOT_VAR_H
#define VSC_HOT_VAR_H

#include "solver.h"

#define HOT_VAR_FOUND 0   /* *witness: an SC interleaving, verified */
#define HOT_VAR_OPEN 1    /* not one variable, or the choice has a cycle */
#define HOT_VAR_REFUTED 2 /* hot_var_search(): no SC interleaving, a proof */

/* p has events on one variable only: choose for each read the write it
 * sees (by the timestamp hints when every event has one, else by the
 * events' places in their threads), order the writes along those choices,
 * and run the threads along that order. Returns HOT_VAR_FOUND with
 * *witness (p->event_count thread numbers, the caller frees it) and
 * *preemptions when the run is an SC interleaving (checked by the
 * verifier), HOT_VAR_OPEN when p is not such a program or the choice
 * fails, or -errno (-ETIME: the budget ran out). Never concludes
 * inconsistent. */
int hot_var_witness(const struct vsc_program *p, struct budget *b, uint32_t **witness,
		    long *preemptions);

/* The same with the writes the reads see searched, not guessed, for p of
 * one variable without RMWs (hot_search.c): HOT_VAR_FOUND with *witness
 * and *preemptions as above, HOT_VAR_REFUTED when no choice of them
 * makes an SC interleaving (exact), HOT_VAR_OPEN when p is not such a
 * program or the search's work cap stopped it, or -errno. */
int hot_var_search(const struct vsc_program *p, struct budget *b, uint32_t **witness,
		   long *preemptions);

#endif
