/* SPDX-License-Identifier: MIT */
/* One memory word accessed with different sizes (trial16, finding 1): a
 * trace has one value per variable, so the recorder must count these
 * events as uncertain (vsc check: unknown), never give a plain verdict.
 *   probe_mixed packed ITERATIONS: the old x86 packed ticket lock, one
 *     32-bit word {owner: low 16 bits, next: high 16 bits}; lock =
 *     fetch_add32(word, 1 << 16), spin on load16(owner), unlock =
 *     fetch_add16(owner, 1). Every store is locked: the execution is SC,
 *     yet with the sizes folded vsc check called it inconsistent.
 *   probe_mixed split ITERATIONS: store buffering through an 8-byte store
 *     and a 4-byte load of its upper half (another start address):
 *     T0: x[i] = 1 << 32; r0 = y[i]    T1: y[i] = 1; r1 = upper half of x[i]
 *     (folded: the non-SC outcomes came out consistent, SC ones not).
 * Built for the eBPF recorder (bpf/bpf.mk) and, with -DVSC_PROBE_LTTNG,
 * by tests/system/lttng.sh. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vsc/probe.h>

#define MAX_ITERATIONS 100000

union packed_lock {
	int32_t word;
	struct {
		int16_t owner, next;
	} half;
};
union packed_lock lock_word;
int64_t counter;

union split_word {
	int64_t whole;
	int32_t half[2];
};
union split_word split_x[MAX_ITERATIONS];
int64_t split_y[MAX_ITERATIONS];
static int64_t results[2][MAX_ITERATIONS];

static long iterations;
static long arrived; /* not recorded: only pacing, so the threads overlap */

/* Both threads at iteration i (arrived counts up for ever). */
static void meet(long i)
{
	unsigned spins = 0;
	__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < 2 * (i + 1))
		if (++spins % 1024 == 0)
			sched_yield(); /* one CPU (an emulated machine): let the other run */
}

static void *packed(void *arg)
{
	(void)arg;
	for (long i = 0; i < iterations; i++) {
		int32_t old = vsc_fetch_add32(&lock_word.word, 1 << 16);
		int16_t mine = (int16_t)((uint32_t)old >> 16);
		unsigned spins = 0;
		while (vsc_load16(&lock_word.half.owner) != mine)
			if (++spins % 4 == 0)
				sched_yield(); /* short traces: spin little */
		vsc_xchg64(&counter, vsc_load64(&counter) + 1);
		vsc_fetch_add16(&lock_word.half.owner, 1);
	}
	return NULL;
}

static void *split(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (long i = 0; i < iterations; i++) {
		meet(i);
		if (me == 0) {
			vsc_store64(&split_x[i].whole, 1ll << 32);
			results[0][i] = vsc_load64(&split_y[i]);
		} else {
			vsc_store64(&split_y[i], 1);
			results[1][i] = vsc_load32(&split_x[i].half[1]);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int is_packed = argc == 3 && strcmp(argv[1], "packed") == 0;
	if (argc != 3 || (!is_packed && strcmp(argv[1], "split") != 0)) {
		fprintf(stderr, "usage: probe_mixed packed|split ITERATIONS\n");
		return 2;
	}
	iterations = atol(argv[2]);
	if (iterations <= 0 || iterations > MAX_ITERATIONS) {
		fprintf(stderr, "probe_mixed: ITERATIONS must be 1..%d\n", MAX_ITERATIONS);
		return 2;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, is_packed ? packed : split, (void *)(intptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (is_packed) {
		fprintf(stderr, "probe_mixed: counter %lld of %ld\n", (long long)counter,
			2 * iterations);
		return counter == 2 * iterations ? 0 : 1;
	}
	long weak = 0;
	for (long i = 0; i < iterations; i++)
		weak += results[0][i] == 0 && results[1][i] == 0;
	fprintf(stderr, "probe_mixed: %ld of %ld iterations saw both reads 0\n", weak, iterations);
	return 0;
}
