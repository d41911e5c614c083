/* SPDX-License-Identifier: MIT */
/* A test-and-set spinlock (xchg) around a shared counter, 4 threads, each
 * ITERATIONS times: lock; counter = counter + 1; unlock. The counter ends
 * at 4 * ITERATIONS; every run is sequentially consistent, on any hardware:
 * a full fence follows every access (EXP_FENCED, expect.h; ARM64 would
 * otherwise let the counter's accesses leave the relaxed lock). */
#include <sched.h>

#define EXP_FENCED
#include "expect.h"

#define THREADS 4
int32_t lock_word;
int64_t counter;
static long iterations;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; exp_more(i, iterations); i++) {
		while (t_xchg32(&lock_word, 1, "lock_word", 0) != 0)
			while (t_load32(&lock_word, "lock_word", 0) != 0)
				sched_yield(); /* 4 threads, maybe 2 cores */
		int64_t c = t_load(&counter, "counter", 0);
		t_store(&counter, c + 1, "counter", 0);
		t_store32(&lock_word, 0, "lock_word", 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	iterations = exp_start(argc, argv);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	if (iterations && counter != THREADS * iterations) {
		fprintf(stderr, "probe_spinlock: counter %lld, expected %ld\n", (long long)counter,
			THREADS * iterations);
		return 1;
	}
	exp_finish(argv[1]);
	return 0;
}
