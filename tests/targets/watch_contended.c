/* SPDX-License-Identifier: MIT */
/*
 * Contended atomic counters, no vsc headers: THREADS threads each add 1 to
 * two globals N times, at the same time.
 *   `counter`: __atomic_add_fetch with the result unused, so the compiler
 *   emits `lock add`/`lock inc`: no register holds the old or the new value,
 *   and what the recorder reads from memory afterwards may already include
 *   another thread's add (the values are marked unsure).
 *   `total`: __atomic_fetch_add with the result used, `lock xadd`: the
 *   register receives the old value and the increment is an immediate
 *   moved just before, so both values are exact: each `u total K-1 K`,
 *   K = 1 .. THREADS * N, must be in the trace exactly once.
 *
 *   watch_contended THREADS N     prints "total T" and "counter C"
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int64_t counter;
int64_t total;

static long n;
static pthread_barrier_t start;

static void *worker(void *arg)
{
	int64_t sum = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < n; i++) {
		__atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
		sum += __atomic_fetch_add(&total, 1, __ATOMIC_SEQ_CST);
	}
	return (void *)(intptr_t)(sum & 1);
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[64];

	n = argc > 2 ? atol(argv[2]) : 1000;
	if (threads < 1 || threads > 64 || n < 1)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	/* plain loads into registers (exact), not a compare with memory */
	int64_t t = __atomic_load_n(&total, __ATOMIC_SEQ_CST);
	int64_t c = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
	printf("total %lld\ncounter %lld\n", (long long)t, (long long)c);
	return t == threads * n && c == threads * n ? 0 : 1;
}
