/* SPDX-License-Identifier: MIT */
/*
 * The target of bench/probe_cost.sh.
 *   probe_bench cost N            one thread, N recorded relaxed stores;
 *                                 prints "cpu_ns_per_event wall_ns_per_event"
 *   probe_bench rate T E R        T threads, E stores each, paced at R stores
 *                                 per second per thread (in steps of 256);
 *                                 prints the achieved total rate (events/s)
 * Built with probes, or with -DVSC_PROBE_DISABLE for the baseline.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vsc/probe.h>

int64_t bench_slots[64 * 8]; /* one cache line apart per thread */

static double now(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct rate_arg {
	int index;
	long events;
	double per_second;
};

static void *rate_thread(void *p)
{
	struct rate_arg *a = p;
	volatile int64_t *slot = &bench_slots[a->index * 8];
	double start = now(CLOCK_MONOTONIC);
	for (long i = 0; i < a->events; i++) {
		vsc_store64(slot, i);
		if ((i & 255) == 255) {
			double due = start + (double)(i + 1) / a->per_second;
			double left = due - now(CLOCK_MONOTONIC);
			if (left > 0) {
				struct timespec ts = { (time_t)left,
						       (long)((left - (time_t)left) * 1e9) };
				nanosleep(&ts, NULL);
			}
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "cost") == 0) {
		long n = atol(argv[2]);
		double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
		for (long i = 0; i < n; i++)
			vsc_store64(&bench_slots[0], i);
		double c1 = now(CLOCK_THREAD_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
		printf("%.1f %.1f\n", (c1 - c0) * 1e9 / (double)n, (w1 - w0) * 1e9 / (double)n);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "rate") == 0) {
		int threads = atoi(argv[2]);
		if (threads < 1 || threads > 64)
			return 2;
		struct rate_arg args[64];
		pthread_t tid[64];
		double w0 = now(CLOCK_MONOTONIC);
		for (int t = 0; t < threads; t++) {
			args[t] = (struct rate_arg){ t, atol(argv[3]), atof(argv[4]) };
			pthread_create(&tid[t], NULL, rate_thread, &args[t]);
		}
		for (int t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
		double w1 = now(CLOCK_MONOTONIC);
		printf("%.0f\n", (double)threads * (double)atol(argv[3]) / (w1 - w0));
		return 0;
	}
	fprintf(stderr, "usage: probe_bench cost N | rate THREADS EVENTS PER_SECOND\n");
	return 2;
}
