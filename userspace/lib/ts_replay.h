/* SPDX-License-Identifier: MIT */
/* The events in the order of their timestamp hints, tried as a witness
 * (ts_replay.c; docs/solvers.md, "Timestamp replay"). */
#ifndef VSC_TS_REPLAY_H
#define VSC_TS_REPLAY_H

#include "solver.h"

#define TS_REPLAY_DECIDED 0 /* res: consistent, the replay is the witness */
#define TS_REPLAY_OPEN \
	1 /* some event has no hint, a read does not see its value
			     * in that order, or the order has too many preemptions */

/* Replay p in timestamp order (each thread in program order, the thread
 * whose next event has the least hint first). Returns TS_REPLAY_DECIDED
 * when that order is an SC interleaving that answers q, TS_REPLAY_OPEN,
 * or -errno (-ETIME: the budget ran out). Never concludes inconsistent. */
int ts_replay_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		    struct vsc_result *res);

/* The same order as a witness, whatever the question: 1 with *witness
 * (malloc'd, p->event_count threads) and its *preemptions when every read
 * sees its value in that order, 0 when one does not or some event has no
 * hint, or -errno (-ETIME: the budget ran out). */
int ts_replay_witness(const struct vsc_program *p, struct budget *b, uint32_t **witness,
		      long *preemptions);

#endif
