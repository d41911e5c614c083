/* SPDX-License-Identifier: MIT */
/* Where every thread can be when a read happens (stale_bounds.c), shared
 * by the witness cut (stale_cut.c) and the refutation (stale_refute.c):
 * the reads that need another thread's write, bounds L_t <= (events of t
 * done) <= U_t tightened by them to a fixpoint, and the program of a range
 * of every thread's events. docs/solvers.md, "A witness cut at a stale
 * read" and "Refuting a stale read by the positions at it". */
#ifndef VSC_STALE_BOUNDS_H
#define VSC_STALE_BOUNDS_H

#include "solver.h"
#include "writer_groups.h"

#define NONE UINT32_MAX
#define CUT_STAIRCASE 16384 /* points a staircase keeps, else no conclusion */

/* A read that needs a write of another thread: of a (and b; a == b: one). */
struct need {
	uint32_t t, a, b, j, z;
	int64_t u;
};

struct point {
	uint32_t a, b;
};

struct cut {
	const struct vsc_program *p;
	uint32_t k, vars;
	uint32_t *first; /* k * vars + 1: thread t's writes of z at first[t * vars + z] */
	uint32_t *at;    /* each write's index in its thread */
	int64_t *val;    /* and the value it writes */
	uint64_t *writers;
	struct need *needs;
	uint32_t n_needs;
	struct point *stair, *next; /* 2 * (CUT_STAIRCASE + 1) each */
	struct budget *b;
	unsigned long end; /* the budget's steps at which to stop */
	writer_group_solve_fn solve;
	uint32_t *witness;
	long preemptions;
	int nodes, points;
	/* The corridors (stale_bounds.c), when corridors is set (before
	 * cut_init()): for an ordered pair of threads
	 * (A, B), corr[A * k + B][i] bounds from above how many events B has
	 * done when A does its event i; NULL: not built yet, CORR_NONE: no
	 * bound known. corr_cells: cells built, within CORR_CELLS a event. */
	int corridors;
	uint32_t **corr;
	size_t corr_cells;
	int corr_empty;   /* a pair's passes left a read no count: no SC interleaving */
	int corr_stopped; /* a corridor's passes stopped at the budget: nothing known */
};

/* A read ranked as r: its thread, index, and how many events before it its
 * thread last touched the variable. */
struct anchor {
	uint32_t gap, t, j;
};

int64_t cut_written(const struct vsc_event *e);
/* What an access leaves in its variable. */
int64_t cut_left_by(const struct vsc_event *e);
int cut_init_may_be(const struct vsc_program *p, uint32_t z, int64_t u);
/* c->p, c->b and c->end set: the writes, the needing reads and the
 * staircases. 0 or -ENOMEM (cut_free() frees what was made). */
int cut_init(struct cut *c);
void cut_free(struct cut *c);
enum cut_bounds {
	CUT_STOPPED = -1,    /* the budget ran out: nothing is known */
	CUT_CONTRADICTS = 0, /* no SC interleaving has r with positions in the box */
	CUT_HOLDS = 1,       /* the fixpoint, in L and U */
};

/* A's corridor against B (c->corridors set): most[i] bounds from above
 * how many events B has done when A does its event i, in every SC
 * interleaving; NULL when no bound is known. Built on first use. */
const uint32_t *cut_corridor(struct cut *c, uint32_t A, uint32_t B);
/* The bounds' fixpoint (enum cut_bounds). */
int cut_tighten(struct cut *c, uint32_t *L, uint32_t *U);
/* Events [from[t], to[t]) of every thread, as a program with the initial
 * values inits; threads[s]: p's thread of its thread s. NULL when out of
 * memory. */
struct vsc_program *cut_slice(const struct vsc_program *p, const uint32_t *from, const uint32_t *to,
			      const struct vsc_var_init *inits, uint32_t *threads);
/* The needing reads whose thread's last access of the variable before
 * left another value, the narrowest first: the first `most`; *n of them
 * (NULL: no memory). */
struct anchor *cut_rank_reads(const struct cut *c, uint32_t most, uint32_t *n);

#endif
