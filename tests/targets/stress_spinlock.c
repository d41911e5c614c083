/* SPDX-License-Identifier: MIT */
/*
 * Stress target: a compare-and-swap spinlock around a shared counter.
 *   stress_spinlock THREADS ITERATIONS
 * Every store is a locked read-modify-write (lock: CAS; counter: exchange;
 * unlock: exchange), so on x86-64 and ARM64 every execution is sequentially
 * consistent, and each increment shows in the trace as one
 * `u counter K-1 K` for K = 1 .. THREADS * iterationsATIONS, exactly once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cas_lock.h"

int32_t lock_word;
int64_t counter;
static long iterations;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < iterations; i++)
		cas_lock_increment(&lock_word, &counter);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: stress_spinlock THREADS ITERATIONS\n");
		return 2;
	}
	int threads = atoi(argv[1]);
	iterations = atol(argv[2]);
	if (threads < 1 || threads > 64 || iterations < 0) {
		fprintf(stderr, "stress_spinlock: bad arguments\n");
		return 2;
	}
	pthread_t t[64];
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	if (counter != threads * iterations) {
		fprintf(stderr, "stress_spinlock: counter %lld, expected %ld\n", (long long)counter,
			threads * iterations);
		return 1;
	}
	return 0;
}
