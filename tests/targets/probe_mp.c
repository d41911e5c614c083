/* SPDX-License-Identifier: MIT */
/* Message passing: the writer stores data then flag, the reader loads flag
 * then data, ITERATIONS times each. Sequentially consistent on any run, on
 * any hardware: a full fence follows every access (EXP_FENCED, expect.h).
 * Under x86-64's TSO the stores and the loads keep their order anyway;
 * ARM64 reorders them without the fences. */
#define EXP_FENCED
#include "expect.h"

int64_t data, flag;
static long iterations;

static void *writer(void *arg)
{
	(void)arg;
	for (long i = 1; exp_more(i - 1, iterations); i++) {
		t_store(&data, i, "data", 0);
		t_store(&flag, i, "flag", 0);
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	int64_t sum = 0;
	for (long i = 0; exp_more(i, iterations); i++) {
		int64_t f = t_load(&flag, "flag", 0);
		int64_t d = t_load(&data, "data", 0);
		sum += f + d;
	}
	return (void *)(intptr_t)sum;
}

int main(int argc, char **argv)
{
	pthread_t w, r;
	iterations = exp_start(argc, argv);
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	exp_finish(argv[1]);
	return 0;
}
