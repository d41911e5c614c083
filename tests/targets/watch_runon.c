/* SPDX-License-Identifier: MIT */
/*
 * The main thread leaves by pthread_exit after MS ms while THREADS threads
 * run on: each stores to and loads `hot` (8 bytes) every 10 ms until
 * RUN_ON ms after that, then returns (the last one's end is the
 * process's, exit status 0). No vsc headers (tests/system/watch.sh: a
 * --watch recording of it must not end with a plain verdict).
 * With exec, the first thread calls execl("/bin/true") instead of
 * returning (its last store to `hot` is -1), and the others run on until
 * it kills them (exec is a group exit of the other threads, the main
 * thread's zombie among them): the process then runs true, exit status 0.
 *
 *   watch_runon THREADS MS RUN_ON [exec]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile int64_t hot;

static double deadline;
static int exec_first; /* the first thread calls exec at the deadline */
static int started;

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
	int me = __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	for (int64_t i = 0; now() < deadline || (exec_first && me > 1); i++) {
		hot = i;
		(void)hot;
		nanosleep(&gap, NULL);
	}
	if (exec_first && me == 1) {
		hot = -1; /* its last store: the trace must hold it */
		execl("/bin/true", "true", (char *)NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	if (argc != 4 && !(argc == 5 && strcmp(argv[4], "exec") == 0)) {
		fprintf(stderr, "usage: watch_runon THREADS MS RUN_ON [exec]\n");
		return 2;
	}
	exec_first = argc == 5;
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
