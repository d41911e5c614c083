/* SPDX-License-Identifier: MIT */
/* Store buffering, in a loop with fresh variables per iteration:
 *   T0: x[i] = 1; r0 = y[i]        T1: y[i] = 1; r1 = x[i]
 * Both reading 0 in one iteration is not sequentially consistent; x86-64
 * allows it (its store buffer), so a trace of this program may be
 * inconsistent: that is the hardware, not a recording error. The two threads
 * meet at an unrecorded barrier before each iteration so they overlap. */
#include "expect.h"

#define MAX_ITERATIONS 100000
int64_t sb_x[MAX_ITERATIONS], sb_y[MAX_ITERATIONS];
static long iterations;
static int barrier_count, barrier_sense; /* not recorded: only pacing */
static long both_zero;

static void barrier(int *local_sense)
{
	*local_sense = !*local_sense;
	if (__atomic_add_fetch(&barrier_count, 1, __ATOMIC_ACQ_REL) == 2) {
		__atomic_store_n(&barrier_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&barrier_sense, *local_sense, __ATOMIC_RELEASE);
	} else
		while (__atomic_load_n(&barrier_sense, __ATOMIC_ACQUIRE) != *local_sense)
			;
}

static int64_t results[2][MAX_ITERATIONS];

static void *side(void *arg)
{
	int me = (int)(intptr_t)arg, sense = 0;
	int64_t *mine = me ? sb_y : sb_x, *other = me ? sb_x : sb_y;
	const char *mine_name = me ? "sb_y" : "sb_x", *other_name = me ? "sb_x" : "sb_y";
	for (long i = 0; i < iterations; i++) {
		barrier(&sense);
		t_store(&mine[i], 1, mine_name, (unsigned)(i * 8));
		results[me][i] = t_load(&other[i], other_name, (unsigned)(i * 8));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	iterations = exp_start(argc, argv);
	if (iterations <= 0 || iterations > MAX_ITERATIONS) {
		fprintf(stderr, "probe_sb: ITERATIONS must be 1..%d\n", MAX_ITERATIONS);
		return 2;
	}
	pthread_create(&a, NULL, side, (void *)0);
	pthread_create(&b, NULL, side, (void *)1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (long i = 0; i < iterations; i++)
		both_zero += results[0][i] == 0 && results[1][i] == 0;
	fprintf(stderr, "probe_sb: %ld of %ld iterations saw both reads 0\n", both_zero,
		iterations);
	exp_finish(argv[1]);
	return 0;
}
