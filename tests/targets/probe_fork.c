/* SPDX-License-Identifier: MIT */
/*
 * A program that forks, for the recorder's children rule:
 *   probe_fork shared   store 0 into a MAP_SHARED word, fork; the child
 *                       stores 1 there; the parent reads the child's 1.
 *                       Correct, but the parent's accesses alone (w 0,
 *                       r 1) are not SC: the child's store is not recorded.
 *   probe_fork exec     store 1, run system("true") (a child that runs
 *                       exec at once), read the 1 back: nothing unrecorded.
 *   probe_fork early SECONDS
 *                       fork at once a child that keeps storing 1, 2, 3...
 *                       into a MAP_SHARED word while the parent reads it
 *                       for SECONDS: a recording that attaches (-p) after
 *                       the fork never sees the child (its hooks watch
 *                       forks from their start), and the parent's reads of
 *                       values nobody recorded writing are not SC.
 * Exit status 0 when the program saw what it expects.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vsc/probe.h"

int64_t word;

static int run_shared(void)
{
	int64_t *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status = 1;
	pid_t child;

	if (shared == MAP_FAILED)
		return 2;
	vsc_store64(shared, 0);
	child = fork();
	if (child == 0) {
		vsc_store64(shared, 1);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
		return 2;
	return vsc_load64(shared) == 1 ? 0 : 1;
}

static int run_exec(void)
{
	vsc_store64(&word, 1);
	if (system("true") != 0)
		return 2;
	return vsc_load64(&word) == 1 ? 0 : 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run_early(double seconds)
{
	/* [0]: the word both access, probed; [1]: the parent's stop sign */
	volatile int64_t *shared = mmap(NULL, 2 * sizeof(int64_t), PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status = 1;
	pid_t child;

	if (shared == MAP_FAILED)
		return 2;
	child = fork();
	if (child == 0) {
		for (int64_t i = 1; !shared[1]; i++) {
			vsc_store64((int64_t *)shared, i);
			usleep(200);
		}
		_exit(0);
	}
	if (child < 0)
		return 2;
	printf("forked %ld\n", (long)child);
	fflush(stdout);
	for (double end = now_s() + seconds; now_s() < end;) {
		(void)vsc_load64((int64_t *)shared);
		usleep(200);
	}
	shared[1] = 1;
	return waitpid(child, &status, 0) == child && status == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "early") == 0)
		return run_early(atof(argv[2]));
	if (argc == 2 && strcmp(argv[1], "shared") == 0)
		return run_shared();
	if (argc == 2 && strcmp(argv[1], "exec") == 0)
		return run_exec();
	return 2;
}
