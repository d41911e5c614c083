/* SPDX-License-Identifier: MIT */
/* The runs each thread has left while `vsc gen sc` lays out its schedule,
 * kept so that drawing the next run's thread costs O(log threads) instead
 * of a pass over every thread (10^5 threads: minutes, now a blink). */
#ifndef VSC_GEN_RUN_POOL_H
#define VSC_GEN_RUN_POOL_H

#include <stdint.h>

#include "userspace/gen/gen.h"

struct run_pool {
	uint64_t threads, sum, max1; /* sum and largest of left[] */
	uint64_t *left;              /* runs left per thread */
	uint64_t *tree;              /* Fenwick tree over left[] (1-based) */
	uint64_t *count;             /* per number of runs left: threads with it */
	uint64_t *id_sum;            /* and the sum of their indices (mod 2^64) */
};

/* 0, or -1 when out of memory. */
int run_pool_init(struct run_pool *pool, const uint64_t *nruns, uint64_t threads);
void run_pool_free(struct run_pool *pool);
/* Thread t (with runs left) runs one of them. */
void run_pool_take(struct run_pool *pool, uint64_t t);
/* The thread of the next run after a run of prev, drawn like a pass over
 * the threads would: among the threads other than prev with runs left
 * after which the rest can still be laid out without two neighbouring runs
 * of one thread, weighted by runs left, in thread order; UINT64_MAX: none
 * (then rng is untouched). */
uint64_t run_pool_pick(const struct run_pool *pool, struct gen_rng *rng, uint64_t prev);

#endif
