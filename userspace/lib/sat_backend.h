/* SPDX-License-Identifier: MIT */
/* A tiny C view of the SAT library (CaDiCaL, through sat_cadical.cc). */
#ifndef VSC_SAT_BACKEND_H
#define VSC_SAT_BACKEND_H

#ifdef __cplusplus
extern "C" {
#endif

struct sat_backend;

/* stop(ctx) is polled during the search; non-zero stops it (answer 0). */
struct sat_backend *sat_backend_new(int (*stop)(void *ctx), void *ctx);
void sat_backend_free(struct sat_backend *s);
/* The same on a thread of its own, returning at once: for a caller out of
 * time (deleting a solver of 600 MB took 0.8 s). */
void sat_backend_free_soon(struct sat_backend *s);
/* Make variables 1..nvars known (some may appear in no clause). */
void sat_backend_reserve(struct sat_backend *s, int nvars);
/* Add literals of a clause, 0 ends it (DIMACS style). Clauses may be added
 * after a solve, and the next solve sees them. */
void sat_backend_add(struct sat_backend *s, int lit);
/* Assume lit for the next solve only (CaDiCaL forgets assumptions after
 * each solve): a bound asked of a counter without adding a clause. */
void sat_backend_assume(struct sat_backend *s, int lit);
/* 10 satisfiable, 20 unsatisfiable, 0 stopped, -ENOMEM on failure. */
int sat_backend_solve(struct sat_backend *s);
/* After 10: is variable var true? */
int sat_backend_true(struct sat_backend *s, int var);

#ifdef __cplusplus
}
#endif
#endif
