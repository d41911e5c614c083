/* SPDX-License-Identifier: MIT */
/* The common part of the two-thread lab targets (lab_sb.c, lab_mp.c): two
 * threads pinned to CPUs 0 and 1, a spin barrier before and after every
 * iteration, and a run that alternates blocks of the plain test with blocks
 * of the same test logged with <vsc/lab.h>, so both see the same machine
 * load. Only the lab.h iterations are emitted (after the whole run), one
 * segment each, numbered from 0.
 *
 * The including file defines TEST_NAME and TEST_SLOTS (logged values per
 * thread and iteration) before the include, and after it:
 *   test_describe(me, lab)        describe thread me's slots once
 *   test_touch()                  fault the variables' pages in
 *   test_plain(me, i)             iteration i of the plain test
 *   test_lab(me, i, row)          iteration i logged into row
 *   test_plain_weak(i), test_lab_weak(thread_logs, i)   did iteration i show it
 *   test_print(out, thread_logs, i)      the outcome line of lab iteration i
 * Usage: NAME ITERATIONS OUTCOMES_FILE [BLOCK]: ITERATIONS of each build,
 * alternated in blocks of BLOCK (default 1); the file gets the lab.h
 * iterations' outcomes; stderr the count of weak outcomes of both. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vsc/lab.h>

#define MAX_ITERATIONS 1000000

static long iterations, block = 1;
static struct vsc_lab thread_logs[2];

/* what the including file defines after the include */
static inline void test_describe(int me, struct vsc_lab *lab);
static inline void test_touch(void);
static inline void test_plain(int me, long i);
static inline void test_lab(int me, long i, int64_t *row);
static int test_plain_weak(long i);
static int test_lab_weak(const struct vsc_lab *logs, long i);
static void test_print(FILE *out, const struct vsc_lab *logs, long i);

/* A sense-reversing spin barrier for two threads, so both start each
 * iteration at nearly the same time (what makes weak outcomes show). */
static volatile int barrier_count, barrier_sense;

static inline void barrier_wait(int *local_sense)
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

__attribute__((noinline)) static void run_plain_block(int me, int *sense, long from, long to)
{
	for (long i = from; i < to; i++) {
		barrier_wait(sense);
		test_plain(me, i);
		barrier_wait(sense);
	}
}

__attribute__((noinline)) static void run_lab_block(int me, int *sense, long from, long to)
{
	for (long i = from; i < to; i++) {
		int64_t *row = vsc_lab_row(&thread_logs[me], i);
		barrier_wait(sense);
		test_lab(me, i, row);
		barrier_wait(sense);
	}
}

static void *run(void *arg)
{
	int me = (int)(long)arg, sense = 0;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(me, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus); /* best effort */
	for (long from = 0, b = 0; from < iterations; from += block, b++) {
		long to = from + block < iterations ? from + block : iterations;
		/* which build goes first changes too, in a pseudo-random order both
		 * threads agree on, so no build keeps a phase of its own */
		if (((uint64_t)b * 0x9e3779b97f4a7c15ull) >> 63) {
			run_plain_block(me, &sense, from, to);
			run_lab_block(me, &sense, from, to);
		} else {
			run_lab_block(me, &sense, from, to);
			run_plain_block(me, &sense, from, to);
		}
	}
	/* after the run (nothing was emitted during it), in chunks that every
	 * thread finishes before the next, for a recorder that streams */
	for (long from = 0; from < iterations; from += VSC_LAB_EMIT_CHUNK) {
		vsc_lab_emit_range(&thread_logs[me], 0, from, from + VSC_LAB_EMIT_CHUNK);
		barrier_wait(&sense);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[2];
	long weak_plain = 0, weak_lab = 0;
	FILE *out;

	if (argc < 3 || argc > 4 || (iterations = atol(argv[1])) < 1 ||
	    iterations > MAX_ITERATIONS || (argc == 4 && (block = atol(argv[3])) < 1)) {
		fprintf(stderr, "usage: %s ITERATIONS(1..%d) OUTCOMES_FILE [BLOCK]\n", TEST_NAME,
			MAX_ITERATIONS);
		return 2;
	}
	for (int t = 0; t < 2; t++) {
		if (vsc_lab_init(&thread_logs[t], iterations, TEST_SLOTS)) {
			fprintf(stderr, "%s: no memory for the log\n", TEST_NAME);
			return 1;
		}
		test_describe(t, &thread_logs[t]);
	}
	test_touch(); /* fault the variables' pages in before the run */
	for (long t = 0; t < 2; t++)
		if (pthread_create(&threads[t], NULL, run, (void *)t)) {
			perror(TEST_NAME ": pthread_create");
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
		test_print(out, thread_logs, i);
		weak_plain += test_plain_weak(i);
		weak_lab += test_lab_weak(thread_logs, i);
	}
	if (fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	fprintf(stderr, "%s: plain %ld iterations %ld weak; lab.h %ld iterations %ld weak\n",
		TEST_NAME, iterations, weak_plain, iterations, weak_lab);
	for (int t = 0; t < 2; t++)
		vsc_lab_free(&thread_logs[t]);
	return 0;
}
