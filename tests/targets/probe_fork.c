/* SPDX-License-Identifier: MIT */
/*
 * A program that forks, for the recorder's children rule:
 *   probe_fork shared   store 0 into a MAP_SHARED word, fork; the child
 *                       stores 1 there; the parent reads the child's 1.
 *                       Correct, but the parent's accesses alone (w 0,
 *                       r 1) are not SC: the child's store is not recorded.
 *   probe_fork exec     store 1, run system("true") (a child that runs
 *                       exec at once), read the 1 back: nothing unrecorded.
 * Exit status 0 when the program saw what it expects.
 */
#include <stdint.h>
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

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "shared") == 0)
		return run_shared();
	if (argc == 2 && strcmp(argv[1], "exec") == 0)
		return run_exec();
	return 2;
}
