/* SPDX-License-Identifier: MIT */
/*
 * Stress target: a sequence lock, one writer and READERS readers.
 *   stress_seqlock READERS WRITES
 * The writer makes the sequence odd, writes a = b = k, makes it even again,
 * for k = 1 .. WRITES; readers spin reading (seq, a, b, seq) until the writer
 * is done, and count the snapshots that were consistent (same even seq on
 * both sides) yet had a != b: there must be none. Every store is an
 * exchange, so every execution is sequentially consistent, and the writer's
 * values show in the trace as `u a K-1 K` and `u b K-1 K` for each K once.
 * Built with <vsc/probe.h> only: the eBPF and LTTng (-DVSC_PROBE_LTTNG)
 * paths share it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <vsc/probe.h>

int64_t seq;
int64_t a, b;
static int64_t writes;
static int done;

static void *writer(void *arg)
{
	(void)arg;
	for (int64_t k = 1; k <= writes; k++) {
		vsc_xchg64(&seq, 2 * k - 1);
		vsc_xchg64(&a, k);
		vsc_xchg64(&b, k);
		vsc_xchg64(&seq, 2 * k);
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *reader(void *arg)
{
	long *torn = arg;

	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		int64_t s1 = vsc_load64(&seq);
		int64_t va = vsc_load64(&a);
		int64_t vb = vsc_load64(&b);
		int64_t s2 = vsc_load64(&seq);
		if (s1 == s2 && !(s1 & 1) && va != vb)
			(*torn)++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, r[64];
	long torn[64] = { 0 };
	int readers;

	if (argc != 3 || (readers = atoi(argv[1])) < 1 || readers > 64 ||
	    (writes = atoll(argv[2])) < 0) {
		fprintf(stderr, "usage: stress_seqlock READERS WRITES\n");
		return 2;
	}
	for (int i = 0; i < readers; i++)
		pthread_create(&r[i], NULL, reader, &torn[i]);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(w, NULL);
	for (int i = 0; i < readers; i++) {
		pthread_join(r[i], NULL);
		if (torn[i]) {
			fprintf(stderr, "stress_seqlock: reader %d saw a torn snapshot\n", i);
			return 1;
		}
	}
	return 0;
}
