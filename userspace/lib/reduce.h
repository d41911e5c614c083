/* SPDX-License-Identifier: MIT */
/* Exact reductions before the search (docs/solvers.md, "Reductions"):
 *  - drop the events of variables that cannot matter: touched by one thread
 *    only, or never written (their reads are checked here, once);
 *  - collapse a thread's consecutive identical reads (spins) into one;
 *  - split the threads into parts that share no variable.
 * None changes the verdict or the least preemptions; a witness of the
 * reduced parts expands back to one of the whole program with no more
 * preemptions (reduce_expand). */
#ifndef VSC_REDUCE_H
#define VSC_REDUCE_H

#include "program.h"
#include "value_span.h"

enum event_fate {
	FATE_KEEP, /* stays (the first read of a spin stands for the run) */
	FATE_SPIN, /* an identical read right after a kept one: collapsed */
	FATE_DROP, /* on a variable that cannot matter */
};

#define PART_NONE UINT32_MAX

struct reduction {
	uint8_t *fate;        /* per flat event: base[t] + index (NULL unless worth it) */
	uint32_t *base;       /* per thread + 1 */
	uint32_t *group;      /* per thread: its group of parts, or PART_NONE */
	uint32_t ngroups;     /* parts, small ones packed together */
	uint32_t *first;      /* per group: its first thread */
	uint32_t *next;       /* per thread: the next thread of its group */
	uint64_t *group_kept; /* per group: its kept events (its program's size) */
	uint32_t *local;      /* per variable: its index in its group's program */
	uint64_t parts;       /* independent parts (before packing) */
	uint64_t spins;       /* reads collapsed */
	uint64_t dropped;     /* events dropped */
	uint64_t kept;
	uint32_t writers; /* the most threads writing one variable (vsc_program_writers()) */
	int refuted;      /* a dropped variable's own reads contradict */
	/* per variable: the span of its values (VALUES_ALL), from the same
	 * pass, for the analysis of the whole program */
	struct value_span *spans;
};

/* Plan the reductions. Returns 0 (r->refuted may be set) or -ENOMEM. */
int reduce_plan(struct reduction *r, const struct vsc_program *p);
/* Is the plan worth building reduced programs for? */
int reduce_worth_it(const struct reduction *r, const struct vsc_program *p);
/* The reduced program of group g: its threads' kept events, threads in their
 * original order; *map gets the original thread of each of its threads. */
int reduce_group_program(struct reduction *r, const struct vsc_program *p, uint32_t g,
			 struct vsc_program **out, uint32_t **map);
/* kept: the kept events in an SC order, as original thread ids (r->kept of
 * them). Fills witness (p->event_count steps) with every original event. */
int reduce_expand(const struct reduction *r, const struct vsc_program *p, const uint32_t *kept,
		  uint32_t *witness);
void reduce_free(struct reduction *r);

#endif
