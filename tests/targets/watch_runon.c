/* SPDX-License-Identifier: MIT */
/*
 * The main thread leaves by pthread_exit after MS ms while THREADS threads
 * run on: each stores to and loads `hot` (8 bytes) every 10 ms until
 * RUN_ON ms after that, then returns (the last one's end is the
 * process's, exit status 0). No vsc headers (tests/system/watch.sh: a
 * --watch recording of it must not end with a plain verdict).
 *
 *   watch_runon THREADS MS RUN_ON
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile int64_t hot;

static double deadline;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	struct timespec gap = { 0, 10000000 };
	(void)arg;
	for (int64_t i = 0; now() < deadline; i++) {
		hot = i;
		(void)hot;
		nanosleep(&gap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	if (argc != 4) {
		fprintf(stderr, "usage: watch_runon THREADS MS RUN_ON\n");
		return 2;
	}
	int threads = atoi(argv[1]);
	long ms = atol(argv[2]), run_on = atol(argv[3]);
	if (threads < 1 || threads > 64 || ms < 0 || run_on < 0)
		return 2;
	deadline = now() + (double)(ms + run_on) / 1000;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&pause, NULL);
	pthread_exit(NULL);
}
