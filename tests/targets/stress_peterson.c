/* SPDX-License-Identifier: MIT */
/*
 * Stress target: Peterson's lock for N threads (the filter lock) around a
 * shared counter.
 *   stress_peterson THREADS ITERATIONS [seqcst|relaxed]
 * Unlike stress_spinlock, the lock is made of plain stores, not RMWs:
 * every thread writes its own level[] and each victim[] has several writers
 * with few values (thread numbers), the shape real flag-based locks have.
 * seqcst (the default): stores and loads are seq_cst atomics (on x86-64 a
 * store then a full fence), so every execution is sequentially consistent,
 * and each increment shows as one `w counter K` for K = 1 .. THREADS *
 * ITERATIONS, exactly once. relaxed: plain stores; a thread's store of its
 * level and its loads of the others' form store buffering, which x86-64
 * allows: the lock may fail, the run may be inconsistent and increments may
 * be lost (said on stderr, not an error).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vsc/probe.h>

#define MAX_THREADS 4

int32_t level[MAX_THREADS];  /* the level each thread is at; 0: not trying */
int32_t victim[MAX_THREADS]; /* victim[L]: the last thread to enter level L */
int64_t counter;
static int threads;
static long iterations;
static int relaxed;

/* seq_cst: logged before it is performed, as the vsc_* helpers do */
static void put(int32_t *p, int32_t v)
{
	if (relaxed) {
		vsc_store32(p, v);
		return;
	}
	VSC_PROBE_STORE(p, v);
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

/* seq_cst: logged after it is performed */
static int32_t get(int32_t *p)
{
	if (relaxed)
		return vsc_load32(p);
	int32_t v = __atomic_load_n(p, __ATOMIC_SEQ_CST);
	VSC_PROBE_LOAD(p, v);
	return v;
}

/* Someone else is at level l or above while I am its victim: wait. */
static int must_wait(int32_t me, int32_t l)
{
	for (int32_t k = 0; k < threads; k++)
		if (k != me && get(&level[k]) >= l)
			return get(&victim[l]) == me;
	return 0;
}

static void lock(int32_t me)
{
	for (int32_t l = 1; l < threads; l++) {
		put(&level[me], l);
		put(&victim[l], me);
		while (must_wait(me, l))
			sched_yield(); /* the holder may be off its CPU */
	}
}

static void *worker(void *arg)
{
	int32_t me = (int32_t)(intptr_t)arg;
	for (long i = 0; i < iterations; i++) {
		lock(me);
		vsc_store64(&counter, vsc_load64(&counter) + 1);
		put(&level[me], 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4 ||
	    (argc == 4 && strcmp(argv[3], "seqcst") && strcmp(argv[3], "relaxed"))) {
		fprintf(stderr, "usage: stress_peterson THREADS ITERATIONS [seqcst|relaxed]\n");
		return 2;
	}
	threads = atoi(argv[1]);
	iterations = atol(argv[2]);
	relaxed = argc == 4 && strcmp(argv[3], "relaxed") == 0;
	if (threads < 2 || threads > MAX_THREADS || iterations < 0) {
		fprintf(stderr, "stress_peterson: bad arguments (2 to %d threads)\n", MAX_THREADS);
		return 2;
	}
	pthread_t t[MAX_THREADS];
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	if (counter != threads * iterations) {
		fprintf(stderr, "stress_peterson: counter %lld, expected %ld%s\n",
			(long long)counter, threads * iterations,
			relaxed ? " (relaxed: the lock can fail)" : "");
		return relaxed ? 0 : 1;
	}
	return 0;
}
