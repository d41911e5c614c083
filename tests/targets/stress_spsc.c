/* SPDX-License-Identifier: MIT */
/*
 * Stress target: a single-producer/single-consumer ring that spin-waits.
 *   stress_spsc ITEMS [seqcst|relaxed]
 * The producer puts 1 .. ITEMS into a 16-slot ring, the consumer takes them
 * out; each side spin-waits on the other's index when the ring is full or
 * empty (no sleeping, so the spin loads are many). seqcst (the default):
 * every store is an exchange (a locked RMW on x86-64, a seq_cst store), so
 * every execution is sequentially consistent. relaxed: plain stores; the
 * two index spin-waits then form a store-buffering pattern, so an x86-64
 * run may legitimately be inconsistent (docs/record.md). Either way each
 * item shows in the trace exactly once as the consumer's read of its slot.
 * Built with <vsc/probe.h> only: the eBPF and LTTng (-DVSC_PROBE_LTTNG)
 * paths share it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vsc/probe.h>

#define SLOTS 16

int64_t ring[SLOTS];
int64_t head; /* items put so far (written by the producer) */
int64_t tail; /* items taken so far (written by the consumer) */
static int64_t items;
static int64_t taken_sum;
static int relaxed;

static void put(int64_t *p, int64_t v)
{
	if (relaxed)
		vsc_store64(p, v);
	else
		vsc_xchg64(p, v);
}

static void *producer(void *arg)
{
	(void)arg;
	for (int64_t i = 0; i < items; i++) {
		while (i - vsc_load64(&tail) == SLOTS)
			; /* full: wait for the consumer */
		put(&ring[i % SLOTS], i + 1);
		put(&head, i + 1);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (int64_t i = 0; i < items; i++) {
		while (vsc_load64(&head) == i)
			; /* empty: wait for the producer */
		taken_sum += vsc_load64(&ring[i % SLOTS]);
		put(&tail, i + 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t p, c;

	if (argc < 2 || argc > 3 || (items = atoll(argv[1])) < 0 ||
	    (argc == 3 && strcmp(argv[2], "seqcst") && strcmp(argv[2], "relaxed"))) {
		fprintf(stderr, "usage: stress_spsc ITEMS [seqcst|relaxed]\n");
		return 2;
	}
	relaxed = argc == 3 && !strcmp(argv[2], "relaxed");
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	if (taken_sum != items * (items + 1) / 2) {
		fprintf(stderr, "stress_spsc: items taken add up to %lld, not %lld\n",
			(long long)taken_sum, (long long)(items * (items + 1) / 2));
		return 1;
	}
	return 0;
}
