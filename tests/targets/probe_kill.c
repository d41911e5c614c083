/* SPDX-License-Identifier: MIT */
/*
 * Kill target: THREADS threads add 1 to a counter with an atomic
 * fetch-and-add, store what they got, and read the counter back, until the
 * process is killed (SIGKILL from outside, or after MS milliseconds by
 * itself when MS > 0; MS < 0: exit_group(0) by the main thread after -MS
 * milliseconds). With `idle`, every thread runs under SCHED_IDLE: it gets
 * the CPU only when nothing else wants it (tests/system/kill.sh makes its
 * threads end after the recorder sees the process end).
 *   probe_kill THREADS FILE MS [idle]
 * The counter lives in FILE (8 bytes, mapped shared), so its last value
 * survives the kill: every increment performed is one `u counter K K+1`,
 * K = 0 .. last-1, and a trace that lacks some of them must count the loss
 * (tests/system/kill.sh). Only this process maps FILE.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <vsc/probe.h>

static int64_t *counter;
int64_t seen[64];

static void *worker(void *arg)
{
	int64_t *mine = arg;
	for (;;) {
		int64_t k = vsc_fetch_add64(counter, 1);
		vsc_store64(mine, k);
		(void)vsc_load64(counter);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	if (argc != 4 && !(argc == 5 && strcmp(argv[4], "idle") == 0)) {
		fprintf(stderr, "usage: probe_kill THREADS FILE MS [idle]\n");
		return 2;
	}
	struct sched_param idle = { 0 };
	if (argc == 5 && sched_setscheduler(0, SCHED_IDLE, &idle)) {
		perror("probe_kill: SCHED_IDLE");
		return 2;
	}
	int threads = atoi(argv[1]);
	long ms = atol(argv[3]);
	int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (threads < 1 || threads > 64 || fd < 0 || ftruncate(fd, sizeof(*counter))) {
		fprintf(stderr, "probe_kill: bad arguments or %s\n", argv[2]);
		return 2;
	}
	counter = mmap(NULL, sizeof(*counter), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (counter == MAP_FAILED)
		return 2;
	close(fd);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, &seen[i]);
	long wait_ms = ms < 0 ? -ms : ms;
	struct timespec pause = { wait_ms / 1000, (wait_ms % 1000) * 1000000L };
	if (ms == 0)
		for (;;)
			pause.tv_sec = 1, nanosleep(&pause, NULL);
	nanosleep(&pause, NULL);
	if (ms < 0)
		exit(0);
	kill(getpid(), SIGKILL);
	return 1;
}
