/* SPDX-License-Identifier: MIT */
/* The common part of the two-thread lab targets (lab_sb.c, lab_mp.c): two
 * threads pinned to CPUs 0 and 1, a spin barrier before and after every
 * iteration, and a run that alternates blocks of the plain test with blocks
 * of the same test logged with <vsc/lab.h>, so both see the same machine
 * load. Only the lab.h iterations are emitted (after the whole run), one
 * segment each, numbered from 0.
 *
 * Both run one loop, the same machine code (run_block): the plain test on
 * its variables, keeping what it saw in rows of a static array of its own,
 * the lab.h test on its variables and the lab.h log. The rate of SB's weak
 * outcome with this spin barrier swings up to 8x with where a loop's code
 * lies (two loops, the same source, moved by -falign-functions=64: 336
 * plain, 2,682 lab.h in one run; docs/lab.md), so two loops would compare
 * their code's places, not lab.h.
 *
 * The including file defines TEST_NAME and TEST_SLOTS (logged values per
 * thread and iteration) before the include, and after it:
 *   test_describe(me, lab)        describe thread me's slots of x and y once
 *   test_run(me, i, row, x, y)    iteration i on the variables x[i], y[i],
 *                                 what thread me saw stored into row
 *   test_weak(logs, i)            did iteration i of logs show it
 *   test_print(out, logs, i)      the outcome line of iteration i of logs
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
/* the lab.h test's variables and log, and the plain test's */
static volatile int32_t x[MAX_ITERATIONS], y[MAX_ITERATIONS];
static struct vsc_lab thread_logs[2];
static volatile int32_t px[MAX_ITERATIONS], py[MAX_ITERATIONS];
static int64_t plain_rows[2][(size_t)MAX_ITERATIONS * TEST_SLOTS];
static struct vsc_lab plain_logs[2]; /* .log: plain_rows, never emitted */

/* what the including file defines after the include */
static inline void test_describe(int me, struct vsc_lab *lab);
static inline void test_run(int me, long i, int64_t *row, volatile int32_t *x, volatile int32_t *y);
static int test_weak(const struct vsc_lab *logs, long i);
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

/* One loop for both tests: the same instructions at the same addresses,
 * on the plain test's variables and rows or on the lab.h test's. */
__attribute__((noinline)) static void run_block(int me, int *sense, long from, long to,
						const struct vsc_lab *logs, volatile int32_t *vx,
						volatile int32_t *vy)
{
	for (long i = from; i < to; i++) {
		int64_t *row = vsc_lab_row(&logs[me], i);
		barrier_wait(sense);
		test_run(me, i, row, vx, vy);
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
			run_block(me, &sense, from, to, plain_logs, px, py);
			run_block(me, &sense, from, to, thread_logs, x, y);
		} else {
			run_block(me, &sense, from, to, thread_logs, x, y);
			run_block(me, &sense, from, to, plain_logs, px, py);
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
		plain_logs[t] = (struct vsc_lab){ .iterations = iterations,
						  .slots = TEST_SLOTS,
						  .log = plain_rows[t] };
		/* fault the plain rows' pages in before the run, as lab.h does */
		memset(plain_rows[t], 0, (size_t)iterations * TEST_SLOTS * sizeof(int64_t));
	}
	for (long i = 0; i < iterations; i++) /* and the variables' */
		x[i] = y[i] = px[i] = py[i] = 0;
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
		weak_plain += test_weak(plain_logs, i);
		weak_lab += test_weak(thread_logs, i);
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
