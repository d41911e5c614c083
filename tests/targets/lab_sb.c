/* SPDX-License-Identifier: MIT */
/* Store buffering, the litmus test, recorded with <vsc/lab.h>:
 *
 *   T0: x[i] = 1; r0 = y[i]        T1: y[i] = 1; r1 = x[i]
 *
 * with fresh variables in every iteration i. Under SC at least one of r0,
 * r1 is 1; x86-64 (TSO) and ARM64 also allow r0 = r1 = 0, which vsc must
 * report as inconsistent. Usage: lab_sb ITERATIONS OUTCOMES_FILE; the file
 * gets one line "i r0 r1" per iteration, what the target knows it saw. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <vsc/lab.h>

#define MAX_ITERATIONS 100000

static int32_t x[MAX_ITERATIONS], y[MAX_ITERATIONS];
static int32_t seen[2][MAX_ITERATIONS];
static long iterations;

/* A sense-reversing spin barrier for two threads, so both start each
 * iteration at nearly the same time (what makes the weak outcome show). */
static volatile int barrier_count, barrier_sense;

static void barrier_wait(int *local_sense)
{
	*local_sense = !*local_sense;
	if (__atomic_add_fetch(&barrier_count, 1, __ATOMIC_SEQ_CST) == 2) {
		barrier_count = 0;
		__atomic_store_n(&barrier_sense, *local_sense, __ATOMIC_SEQ_CST);
	} else {
		while (__atomic_load_n(&barrier_sense, __ATOMIC_SEQ_CST) != *local_sense)
			;
	}
}

static void *run(void *arg)
{
	int me = (int)(long)arg, sense = 0;
	int32_t *mine = me ? y : x, *other = me ? x : y;
	struct vsc_lab_log log;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(me, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus); /* best effort */
	for (long i = 0; i < iterations; i++) {
		vsc_lab_begin(&log, i);
		barrier_wait(&sense);
		vsc_lab_store32(&log, &mine[i], 1);
		seen[me][i] = vsc_lab_load32(&log, &other[i]);
		barrier_wait(&sense);
		if (vsc_lab_end(&log))
			fprintf(stderr, "lab_sb: iteration %ld overflowed its log\n", i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[2];
	FILE *out;
	long weak = 0;

	if (argc != 3 || (iterations = atol(argv[1])) < 1 || iterations > MAX_ITERATIONS) {
		fprintf(stderr, "usage: lab_sb ITERATIONS(1..%d) OUTCOMES_FILE\n", MAX_ITERATIONS);
		return 2;
	}
	for (long t = 0; t < 2; t++)
		if (pthread_create(&threads[t], NULL, run, (void *)t)) {
			perror("lab_sb: pthread_create");
			return 1;
		}
	for (int t = 0; t < 2; t++)
		pthread_join(threads[t], NULL);
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	for (long i = 0; i < iterations; i++) {
		fprintf(out, "%ld %d %d\n", i, seen[0][i], seen[1][i]);
		weak += !seen[0][i] && !seen[1][i];
	}
	fclose(out);
	fprintf(stderr, "lab_sb: %ld iterations, %ld with r0 = r1 = 0\n", iterations, weak);
	return 0;
}
