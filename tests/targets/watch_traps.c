/* SPDX-License-Identifier: MIT */
/*
 * THREADS threads store and load one global (`hot`) for SECONDS, LATE more
 * start while they run, and every thread raises SIGTRAPs of its own now
 * and then (raise(), and int3 on x86-64), which a handler counts. No vsc
 * headers. Prints
 *   accesses N
 *   own_traps M      traps the program raised itself
 *   traps_seen K     SIGTRAPs its handler got
 *   untraced U       threads that ran with no tracer (/proc TracerPid)
 * Recorded with `vsc record --watch hot`, K must equal M (the program gets
 * its own traps, and no trap of the recorder's breakpoints) and U must be
 * 0 (a thread nobody traces would get such a trap: tests/system).
 * With WATCH_GO=PATH it prints "ready PID" and waits for PATH first
 * (watch_log.h; only that is used from there).
 *
 *   watch_traps THREADS SECONDS [LATE]
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "watch_log.h"

#define TRAP_EVERY 4096 /* iterations between two traps of the program's own */

volatile int64_t hot;

static double seconds, end;
static pthread_barrier_t start;
static long accesses, own_traps, untraced;
static volatile long traps_seen;

static void on_trap(int sig)
{
	(void)sig;
	__atomic_fetch_add(&traps_seen, 1, __ATOMIC_RELAXED);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Does anybody trace this thread? */
static int traced(void)
{
	char path[64], line[128];
	int pid = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	FILE *f = fopen(path, "r");
	if (!f)
		abort();
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			pid = atoi(line + 10);
	fclose(f);
	return pid != 0;
}

static void own_trap(long i)
{
	__atomic_fetch_add(&own_traps, 1, __ATOMIC_RELAXED);
#if defined(__x86_64__)
	if (i & TRAP_EVERY) {
		__asm__ volatile("int3");
		return;
	}
#endif
	(void)i;
	raise(SIGTRAP);
}

static void *worker(void *early)
{
	int64_t sum = 0;
	long i = 0;
	if (early)
		pthread_barrier_wait(&start);
	if (!traced())
		__atomic_fetch_add(&untraced, 1, __ATOMIC_RELAXED);
	for (;; i++) {
		if (i % 256 == 0 && now() >= end)
			break;
		hot = i;
		sum += hot;
		if (i % TRAP_EVERY == TRAP_EVERY - 1)
			own_trap(i);
	}
	__atomic_fetch_add(&accesses, 2 * i, __ATOMIC_RELAXED);
	return (void *)(intptr_t)(sum & 1);
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	seconds = argc > 2 ? atof(argv[2]) : 1;
	int late = argc > 3 ? atoi(argv[3]) : 0;
	pthread_t th[64];

	if (threads < 1 || late < 0 || threads + late > 64 || !(seconds > 0))
		return 2;
	signal(SIGTRAP, on_trap);
	/* the first threads exist (and wait) before a recorder attaches */
	pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, &start);
	watch_wait_go();
	end = now() + seconds;
	pthread_barrier_wait(&start);
	/* the late ones start while the first ones run */
	usleep((useconds_t)(seconds * 1e6 / 4));
	for (int i = threads; i < threads + late; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < threads + late; i++)
		pthread_join(th[i], NULL);
	printf("accesses %ld\nown_traps %ld\ntraps_seen %ld\nuntraced %ld\n", accesses, own_traps,
	       (long)traps_seen, untraced);
	return 0;
}
