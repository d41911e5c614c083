/* SPDX-License-Identifier: MIT */
/* A witness for recorded traces whose times are close to the order memory
 * saw (seq_cst atomics, fenced stores): the events run in the order of the
 * times, and where a read finds another value the last few steps are
 * searched again, by a small search that also lets events run before
 * their time (time_windows.c). Where the run by the recorded times
 * (hint_run.c), which keeps a thread running as long as it can, gets stuck
 * on a recorded seq_cst Peterson's lock. */
#ifndef VSC_TIME_WINDOWS_H
#define VSC_TIME_WINDOWS_H

#include "analysis.h"

/* An SC interleaving of p (event_count thread numbers, verified) into
 * *witness with its preemptions, or *witness NULL: a time hint missing, a
 * window that no search found a way through, or the budget ran out.
 * Returns 0 or -ENOMEM. */
int time_windows_run(const struct vsc_program *p, const struct analysis *a, struct budget *b,
		     uint32_t **witness, long *preemptions);

#endif
