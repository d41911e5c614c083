/* SPDX-License-Identifier: MIT */
/*
 * Stress target: a pool of short-lived worker threads, as a server that
 * starts a thread per request runs. Round after round, WORKERS threads are
 * started, each takes a CAS spinlock INCREMENTS times to add 1 to a shared
 * counter, and the round's threads are joined before the next round starts.
 *   stress_pool ROUNDS WORKERS INCREMENTS      (ROUNDS 0: until killed)
 * Every store is a locked read-modify-write, so every execution is
 * sequentially consistent and each increment shows in the trace as one
 * `u counter K-1 K` for K = 1 .. ROUNDS * WORKERS * INCREMENTS, exactly
 * once. Over a long run thread ids are used again (the kernel's pid_max):
 * the recorder must tell a new thread from an old one with the same id.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cas_lock.h"

#define MAX_WORKERS 64

int32_t lock_word;
int64_t counter;
static long increments;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < increments; i++)
		cas_lock_increment(&lock_word, &counter);
	return NULL;
}

/* One round: WORKERS threads started and joined; 0 when all went well. */
static int run_round(int workers)
{
	pthread_t t[MAX_WORKERS];

	for (int i = 0; i < workers; i++)
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			fprintf(stderr, "stress_pool: cannot start a thread\n");
			return 1;
		}
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: stress_pool ROUNDS WORKERS INCREMENTS\n");
		return 2;
	}
	long rounds = atol(argv[1]);
	int workers = atoi(argv[2]);
	increments = atol(argv[3]);
	if (rounds < 0 || workers < 1 || workers > MAX_WORKERS || increments < 0) {
		fprintf(stderr, "stress_pool: bad arguments\n");
		return 2;
	}
	for (long r = 0; rounds == 0 || r < rounds; r++)
		if (run_round(workers))
			return 1;
	if (counter != rounds * workers * increments) {
		fprintf(stderr, "stress_pool: counter %lld, expected %ld\n", (long long)counter,
			rounds * workers * increments);
		return 1;
	}
	return 0;
}
