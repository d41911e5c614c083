/* SPDX-License-Identifier: MIT */
/* A witness for recorded traces of plain-store locks, guided by the
 * recorded times (hint_run.c): each thread runs for as long as it can, and
 * a write waits for the other threads' accesses of its variable that the
 * recording saw first. An upper bound on the least preemptions, found in
 * about linear time where the search without a bound wanders. */
#ifndef VSC_HINT_RUN_H
#define VSC_HINT_RUN_H

#include "analysis.h"

struct forced;

/* Does every event of p carry a time hint (the run's guide)? */
int hint_run_applies(const struct vsc_program *p);

/* An SC interleaving of p (event_count thread numbers, verified) into
 * *witness with its preemptions, or *witness NULL: no time hint on some
 * event, the run stuck past its repairs and the windows by the times
 * (time_windows.h) too, or the budget ran out. forced
 * (NULL: none) keeps its reads inside the epochs the forced orders allow.
 * Returns 0 or -ENOMEM. */
int hint_run(const struct vsc_program *p, const struct analysis *a, const struct forced *forced,
	     struct budget *b, uint32_t **witness, long *preemptions);

#endif
