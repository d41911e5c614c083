/* SPDX-License-Identifier: MIT */
/*
 * A single-producer/single-consumer ring with relaxed stores, for the
 * explanation tests: explain_ring ITEMS
 *
 * The producer puts 1 .. ITEMS into an 8-slot ring and publishes `head`; the
 * consumer takes them out and publishes `tail`. Every access is a relaxed
 * atomic (plain moves on x86-64), which is enough for the ring to work under
 * x86-TSO, but not for its executions to be sequentially consistent: each
 * side stores its index and then loads the other's, and a store still in
 * the store buffer while the other side's load runs is store buffering. So a
 * recorded run of a few thousand items is, on x86-64, almost always
 * inconsistent, and the reason is a handful of events. Built with
 * -DRING_SEQ_CST, the stores are exchanges (locked, a full barrier each) and
 * every run is consistent.
 */
#define _GNU_SOURCE /* pthread_attr_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <vsc/probe.h>

#define SLOTS 8

int64_t ring[SLOTS];
int64_t head; /* items put so far (written by the producer) */
int64_t tail; /* items taken so far (written by the consumer) */
static int64_t items;
static int64_t taken_sum;

static void publish(int64_t *where, int64_t value)
{
#ifdef RING_SEQ_CST
	vsc_xchg64(where, value);
#else
	vsc_store64(where, value);
#endif
}

/* One side of the ring. Item i may go when the other side's index, plus
 * `room`, is past i (the producer: a slot is free; the consumer: the item
 * is there); the side then moves it (stores it into its slot, or loads it)
 * and publishes its own index. Each side thus stores its index and next
 * loads the other's: store buffering, when both do it at once. */
struct side {
	int64_t *mine, *theirs;
	int64_t room;
	int producer;
};

static void *run_side(void *arg)
{
	const struct side *s = arg;

	for (int64_t i = 0; i < items; i++) {
		for (int spins = 1; vsc_load64(s->theirs) + s->room <= i; spins++)
			if (spins % 64 == 0)
				sched_yield(); /* the other side is off its CPU */
		if (s->producer)
			publish(&ring[i % SLOTS], i + 1);
		else
			taken_sum += vsc_load64(&ring[i % SLOTS]);
		publish(s->mine, i + 1);
	}
	return NULL;
}

/* Each side on a CPU of its own when there are two: store buffering needs
 * the two running at the same time. */
static void start(pthread_t *t, struct side *s, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;

	pthread_attr_init(&attr);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	pthread_create(t, &attr, run_side, s);
	pthread_attr_destroy(&attr);
}

int main(int argc, char **argv)
{
	struct side producer = { &head, &tail, SLOTS, 1 }, consumer = { &tail, &head, 0, 0 };
	pthread_t p, c;

	if (argc != 2 || (items = atoll(argv[1])) <= 0) {
		fprintf(stderr, "usage: explain_ring ITEMS\n");
		return 2;
	}
	start(&p, &producer, 0);
	start(&c, &consumer, 1);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	if (taken_sum != items * (items + 1) / 2) {
		fprintf(stderr, "explain_ring: items taken add up to %lld, not %lld\n",
			(long long)taken_sum, (long long)(items * (items + 1) / 2));
		return 1;
	}
	return 0;
}
