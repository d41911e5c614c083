/* SPDX-License-Identifier: MIT */
/* The search of the auto solver: a depth-first search over interleavings
 * that only branches where a choice can matter (see engine.c), with
 * memoisation of (thread positions, running thread, memory not implied by
 * the positions). */
#ifndef VSC_ENGINE_H
#define VSC_ENGINE_H

#include "analysis.h"
#include "own_stops.h"
#include "saturate.h"
#include "solver.h"
#include "state_table.h"

struct engine {
	const struct vsc_program *p;
	const struct analysis *a;
	struct budget *budget;
	uint32_t k;
	uint32_t *pos;                                    /* per thread: next event */
	uint32_t last;                                    /* the running thread, or ENGINE_NOBODY */
	uint32_t *mem;                                    /* per variable: pair id or VALUE_* */
	uint32_t *pending_reads, *pending_writes;         /* per pair: events not run yet */
	uint32_t *var_pending_reads, *var_pending_writes; /* per variable */
	uint32_t *writer_reads; /* per pair of a one-writer variable: its writer's pending reads */
	uint32_t *trail;        /* thread of each step run so far: the witness */
	uint32_t *trail_old;    /* memory word of the step's variable before it */
	size_t depth, n;
	uint32_t *key_vars; /* variables whose value is part of a state */
	uint32_t nkey_vars;
	uint32_t *key;       /* the current state, packed (make_key()) */
	uint32_t key_words;  /* words of a packed state */
	uint8_t *key_bits;   /* per field (positions, running thread, values): its bits */
	uint32_t *pair_code; /* per pair of a key variable: its number among the variable's */
	uint32_t *var_codes; /* per key variable: its pairs' count */
	struct state_table table[2]; /* [0] unbounded, [1] bounded */
	struct engine_frame *frames;
	size_t frames_cap;
	int eager;            /* wide keys: states recorded on entry (enter_marking()) */
	uint32_t *path_state; /* then: the state of each frame */
	size_t path_cap;
	uint64_t nodes;              /* statistics: branch points visited */
	uint64_t steps;              /* statistics: events run (and undone) */
	const struct forced *forced; /* NULL, or the saturated forced orders */
	const struct forced *bound;  /* NULL, or the lower bound's table */
	uint32_t *must_wait;         /* per flat event: reads still to come before it */
	uint32_t *open_reads;        /* per pair: pending reads that may see it now */
	int ranked;                  /* every event has a @ts hint: switch by it */
	struct own_stops stops;      /* stops forced by threads' own accesses (bound) */
};

#define ENGINE_NOBODY UINT32_MAX
/* State keys wider than this many words are recorded on entry. */
#define ENGINE_EAGER_WORDS 4096
#define ENGINE_UNBOUNDED (-1L)
/* Each table of failed states holds at most this many bytes, plus
 * ENGINE_TABLE_EVENT_BYTES an event of the program (when keys are not
 * wide): beyond, a new failed state drops one (state_table.h), which costs
 * its search again if it comes back, never a verdict. Without a cap the
 * table took the memory limit (half the machine's RAM) on a trace of 10^4
 * events (8 threads, 3 values, every thread writing: 8.6-9.5 GB). */
#define ENGINE_TABLE_BYTES ((size_t)256 << 20)
#define ENGINE_TABLE_EVENT_BYTES 256

/* forced: NULL or saturated forced orders (used when forced->after is set);
 * with forced->last the bounded search also cuts where a lower bound
 * exceeds the preemptions left. */
int engine_init(struct engine *g, const struct vsc_program *p, const struct analysis *a,
		const struct forced *forced, struct budget *b);
void engine_free(struct engine *g);
/* Is there an SC interleaving with at most bound preemptions (bound
 * ENGINE_UNBOUNDED: any number)? Returns VSC_CONSISTENT with the witness in
 * g->trail, VSC_INCONSISTENT, VSC_UNKNOWN (budget), or a negative errno.
 * Facts learnt are kept for the next call on the same engine. */
int engine_search(struct engine *g, long bound);

/* Each table of failed states within bytes from now on (engine_init()
 * sets the default above; tests set less). */
void engine_limit_tables(struct engine *g, size_t bytes);

/* The state g->pos, g->last and g->mem make, packed into g->key
 * (g->key_words words; unbounded: without the running thread), as the
 * tables of failed states keep it. */
void engine_state_key(struct engine *g, int unbounded);

/* Order switches by the @ts hints when every event has one. Returns 0. */
int engine_rank_by_ts(struct engine *g);

#endif
