/* SPDX-License-Identifier: MIT */
/*
 * THREADS threads each do N stores and N loads of one global (`hot`, 8
 * bytes), no vsc headers. Prints how many accesses it made and the
 * nanoseconds per access (wall time of the slowest thread), so a run under
 * the recorder and one without it can be compared (bench/watch.sh), and
 * recorded + lost can be checked against what it did (tests/system).
 *
 *   watch_hammer THREADS N
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile int64_t hot;

static long n;
static pthread_barrier_t start;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	double *elapsed = arg;
	int64_t sum = 0;
	pthread_barrier_wait(&start);
	double t0 = now();
	for (long i = 0; i < n; i++) {
		hot = i;
		sum += hot;
	}
	*elapsed = now() - t0;
	return (void *)(intptr_t)(sum & 1);
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1;
	n = argc > 2 ? atol(argv[2]) : 100000;
	pthread_t th[64];
	double elapsed[64], worst = 0;

	if (threads < 1 || threads > 64 || n < 1)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, &elapsed[i]);
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		if (elapsed[i] > worst)
			worst = elapsed[i];
	}
	printf("accesses %ld\n", 2 * n * threads);
	printf("seconds %.6f\n", worst);
	printf("ns_per_access %.1f\n", worst * 1e9 / (2.0 * n));
	printf("accesses_per_s %.0f\n", 2.0 * n * threads / worst);
	return 0;
}
