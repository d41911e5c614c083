/* SPDX-License-Identifier: MIT */
/* A total order of k items (threads, or events) asked of the SAT solver
 * with its transitivity added lazily: solve, add the 3-cycles the model
 * closes, solve again (sat.c for threads, sat_bound.c for events). */
#ifndef VSC_LAZY_ORDER_H
#define VSC_LAZY_ORDER_H

#include <limits.h>
#include <stdint.h>

#include "sat_backend.h"
#include "solver.h"

/* Literals that are fixed before solving (two events of one thread are in
 * program order): a clause with LIT_TRUE is left out, LIT_FALSE is left
 * out of its clause. -LIT_TRUE == LIT_FALSE. */
#define LIT_TRUE INT_MAX
#define LIT_FALSE (-INT_MAX)

/* "a comes before b" as a literal, or LIT_TRUE / LIT_FALSE. */
typedef int (*order_lit_fn)(const void *ctx, uint32_t a, uint32_t b);

struct lazy_order {
	uint32_t k;
	order_lit_fn lit;
	const void *ctx;
	const char *what; /* named in progress lines: "threads", "events" */
	int one_per_edge; /* one 3-cycle per back edge a round, not every one */
	uint8_t *before;  /* k x k: before[a * k + b], a comes before b in the model */
	uint32_t *order;  /* items by how many they come before, most first */
	uint32_t *score;
	uint32_t *count; /* k + 1: items per score, for the counting sort */
};

int lazy_order_init(struct lazy_order *t, uint32_t k, order_lit_fn lit, const void *ctx,
		    const char *what);
void lazy_order_free(struct lazy_order *t);

/* Solve under the assumptions (none: nassume 0), adding each 3-cycle the
 * model closes as a clause, until the model is a total order (10: t->order
 * holds it, first item first) or the formula is unsatisfiable (20); 0 when
 * b stopped it, -ENOMEM. Counts rounds and the clauses added. */
int lazy_order_solve(struct lazy_order *t, struct sat_backend *s, struct budget *b,
		     const int *assume, size_t nassume, uint64_t *rounds, uint64_t *added);

/* Add a clause of n literals to s, fixed ones resolved (see LIT_TRUE). */
void sat_clause(struct sat_backend *s, const int *lits, int n);

#endif
