/* SPDX-License-Identifier: MIT */
/* vsc gen sc: drawing the threads of the schedule's runs (run_pool.h). */
#include <stdlib.h>

#include "userspace/gen/run_pool.h"

int run_pool_init(struct run_pool *pool, const uint64_t *nruns, uint64_t threads)
{
	uint64_t most = 0;

	for (uint64_t t = 0; t < threads; t++)
		most = nruns[t] > most ? nruns[t] : most;
	*pool = (struct run_pool){ .threads = threads, .max1 = most };
	pool->left = malloc(threads * sizeof(*pool->left));
	pool->tree = calloc(threads + 1, sizeof(*pool->tree));
	pool->count = calloc(most + 1, sizeof(*pool->count));
	pool->id_sum = calloc(most + 1, sizeof(*pool->id_sum));
	if (!pool->left || !pool->tree || !pool->count || !pool->id_sum) {
		run_pool_free(pool);
		return -1;
	}
	for (uint64_t t = 0; t < threads; t++) {
		uint64_t i = t + 1, up = i + (i & -i);

		pool->left[t] = nruns[t];
		pool->sum += nruns[t];
		pool->count[nruns[t]]++;
		pool->id_sum[nruns[t]] += t;
		pool->tree[i] += nruns[t]; /* linear build: pass each node up once */
		if (up <= threads)
			pool->tree[up] += pool->tree[i];
	}
	return 0;
}

void run_pool_free(struct run_pool *pool)
{
	free(pool->left);
	free(pool->tree);
	free(pool->count);
	free(pool->id_sum);
	pool->left = pool->tree = pool->count = pool->id_sum = NULL;
}

void run_pool_take(struct run_pool *pool, uint64_t t)
{
	uint64_t v = pool->left[t];

	pool->count[v]--;
	pool->id_sum[v] -= t;
	pool->count[v - 1]++;
	pool->id_sum[v - 1] += t;
	pool->left[t] = v - 1;
	pool->sum--;
	for (uint64_t i = t + 1; i <= pool->threads; i += i & -i)
		pool->tree[i]--;
	while (pool->max1 && !pool->count[pool->max1])
		pool->max1--;
}

/* The first thread whose runs left, summed from thread 0 on, exceed w. */
static uint64_t first_beyond(const struct run_pool *pool, uint64_t w)
{
	uint64_t at = 0, step = 1;

	while (step * 2 <= pool->threads)
		step *= 2;
	for (; step; step /= 2)
		if (at + step <= pool->threads && pool->tree[at + step] <= w) {
			at += step;
			w -= pool->tree[at];
		}
	return at; /* tree index at + 1, thread at */
}

/* With s runs left in all and m the most of one thread, a run of thread c
 * can come next iff the other s - 1 can follow with no two neighbours of one
 * thread and not starting with c. When 2m > s, the thread with m (then the
 * only one) must take every other place: only it can come next, and only if
 * 2m = s + 1. Otherwise every thread can: the largest count among the
 * rest is at most s / 2 whichever c goes first. */
uint64_t run_pool_pick(const struct run_pool *pool, struct gen_rng *rng, uint64_t prev)
{
	uint64_t s = pool->sum, m = pool->max1, excluded, pick, t;

	if (2 * m > s) {
		t = pool->id_sum[m]; /* count[m] is 1 */
		if (t == prev || 2 * m > s + 1)
			return UINT64_MAX;
		gen_rng_below(rng, pool->left[t]); /* as the pass drew its one candidate */
		return t;
	}
	excluded = prev < pool->threads ? pool->left[prev] : 0;
	if (s == excluded)
		return UINT64_MAX;
	pick = gen_rng_below(rng, s - excluded);
	t = first_beyond(pool, pick);
	/* past prev, the prefix sums without prev are excluded smaller */
	return prev < pool->threads && t >= prev ? first_beyond(pool, pick + excluded) : t;
}
