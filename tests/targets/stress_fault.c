/* SPDX-License-Identifier: MIT */
/*
 * Fault target: THREADS threads add 1 to a shared counter with an atomic
 * fetch-and-add (and read it back) as fast as they can, until the main
 * thread, after MS milliseconds, ends the run the way END says:
 *   stress_fault THREADS MS END
 *   END: exit     exit(0) while the workers run
 *        kill     SIGKILL itself while the workers run
 *        exec     execv("/bin/true") while the workers run
 *        fork     fork a child that does the same work briefly, then exit(0)
 *        wait     run until SIGTERM/SIGINT, then return from main
 * Every increment performed is one `u counter K K+1`, K = 0, 1, 2, ...: a
 * trace that holds K but not some K' < K lost the RMW that wrote K'+1.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vsc/probe.h>

int64_t counter;
int64_t seen[64];
static volatile sig_atomic_t stop;

static void *worker(void *arg)
{
	int64_t *mine = arg;
	while (!stop) {
		int64_t k = vsc_fetch_add64(&counter, 1);
		vsc_store64(mine, k);
		(void)vsc_load64(&counter);
	}
	return NULL;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void start_workers(int threads, pthread_t *t)
{
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, &seen[i]);
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	if (argc != 4) {
		fprintf(stderr, "usage: stress_fault THREADS MS exit|kill|exec|fork|wait\n");
		return 2;
	}
	int threads = atoi(argv[1]);
	long ms = atol(argv[2]);
	const char *end = argv[3];
	if (threads < 1 || threads > 64 || ms < 0) {
		fprintf(stderr, "stress_fault: bad arguments\n");
		return 2;
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	start_workers(threads, t);
	struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };
	if (strcmp(end, "wait") != 0)
		nanosleep(&pause, NULL);
	if (strcmp(end, "exit") == 0)
		exit(0);
	if (strcmp(end, "kill") == 0)
		kill(getpid(), SIGKILL);
	if (strcmp(end, "exec") == 0) {
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	}
	if (strcmp(end, "fork") == 0) {
		pid_t child = fork();
		if (child == 0) {
			/* the child runs the same code; it is not recorded */
			pthread_t c[2];
			start_workers(2, c);
			nanosleep(&pause, NULL);
			_exit(0);
		}
		nanosleep(&pause, NULL);
		int status;
		waitpid(child, &status, 0);
		exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1);
	}
	while (!stop)
		pause.tv_sec = 0, pause.tv_nsec = 10000000, nanosleep(&pause, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
