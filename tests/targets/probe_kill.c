/* SPDX-License-Identifier: MIT */
/*
 * Kill target: THREADS threads add 1 to a counter with an atomic
 * fetch-and-add, store what they got, and read the counter back, until the
 * process is killed (SIGKILL from outside, or after MS milliseconds by
 * itself when MS > 0; MS < 0: exit(0) by the main thread after -MS
 * milliseconds).
 *   probe_kill THREADS FILE MS
 *   probe_kill THREADS FILE MS RUN_ON   (MS > 0: the main thread leaves by
 *     pthread_exit after MS ms; the workers run on, one increment each
 *     10 ms, for RUN_ON ms more, then one of them calls exit(0); RUN_ON
 *     < 0: after the main thread's exit as fast as they can, for -RUN_ON
 *     ms)
 *   probe_kill THREADS FILE MS RUN_ON exit32   (the same, the main thread
 *     leaving by the 32-bit exit system call, int 0x80: x86-64 only)
 *   probe_kill THREADS FILE MS exec   (the first worker calls
 *     execl("/bin/true") after MS ms: the other threads, the main one
 *     first, die of it while the workers run)
 *   probe_kill THREADS FILE MS execstop   (the last of the THREADS
 *     threads increments nothing: after MS ms it looks at the first
 *     worker, and calls execl("/bin/true") as soon as that one is in a
 *     tracing stop ('t': a recorder stopping every thread, one by one,
 *     has come to it and not yet to this one, whose tid is the highest);
 *     the main thread waits for ever)
 *   probe_kill THREADS FILE 0 vforkstop   (the last of the THREADS
 *     threads increments nothing until SIGUSR2; then it starts a thread of
 *     its own with CLONE_VFORK and waits in the kernel until that one ends
 *     20 s later: a wait a tracer's stop does not reach (PTRACE_INTERRUPT);
 *     then it increments as the others; the main thread waits for ever)
 *   probe_kill THREADS FILE MS reexec   (on SIGUSR2, or after MS ms when
 *     MS > 0, the main thread runs this program again, /proc/self/exe
 *     THREADS FILE 0: a new program in the same process, whose threads
 *     count from 0 again in FILE)
 *   probe_kill THREADS FILE MS exec inwrite   (as exec, the main thread
 *     blocked meanwhile in a native write(), system call 1, into a full
 *     pipe: killed there by the exec)
 * The counter lives in FILE (8 bytes, mapped shared), so its last value
 * survives the kill: every increment performed is one `u counter K K+1`,
 * K = 0 .. last-1, and a trace that lacks some of them must count the loss
 * (tests/system/kill.sh). Only this process maps FILE.
 * Before its own end, or on SIGUSR1, every thread goes under SCHED_IDLE:
 * beside a CPU hog, the threads then meet their end one by one, long after
 * the first (tests/system/kill.sh).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <vsc/probe.h>

static int64_t *counter;
int64_t seen[64];
static volatile pid_t tids[65]; /* the main thread's, then the workers' */
static volatile int started;

static long run_on_ms; /* > 0: the workers' end after the main thread's */
static int spin;       /* RUN_ON < 0: no pause once the main thread left */
static volatile int main_left;
static int exit32;                     /* the main thread leaves by a 32-bit exit */
static double exec_at;                 /* > 0: when the first worker calls exec */
static double exec_stop_at;            /* > 0: when the last looks at the first (execstop) */
static int vfork_mode;                 /* vforkstop */
static int in_write;                   /* the main thread waits in write() (exec inwrite) */
static int reexec;                     /* reexec: the main thread's exec on SIGUSR2 */
static double reexec_at;               /* ... or then (> 0) */
static volatile sig_atomic_t vfork_go; /* SIGUSR2 came (vforkstop, reexec) */
static int threads;
static volatile double deadline; /* then: when one of them calls exit(0) */

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The state letter of thread tid (/proc/self/task/TID/stat), 0 if none. */
static char thread_state(pid_t tid)
{
	char path[64], line[512], *end;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	end = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return end && end[1] == ' ' ? end[2] : 0;
}

/* execstop: the last thread execs while the first worker is stopped by a
 * tracer that has not come to this one yet. */
static void exec_at_stop(void)
{
	struct timespec gap = { 0, 1000000 };
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < threads ||
	       seconds_now() < exec_stop_at)
		nanosleep(&gap, NULL);
	gap.tv_nsec = 20000; /* a sleeper, soon on a CPU again among the workers */
	for (;;) {
		if (thread_state(tids[1]) == 't')
			execl("/bin/true", "true", (char *)NULL);
		nanosleep(&gap, NULL);
	}
}

/* vforkstop: a thread of the process (not a child process: nothing
 * forked) that sleeps 20 s on a stack of its own, system calls only. */
static int vfork_child(void *arg)
{
	struct timespec sleep = { 20, 0 };
	(void)arg;
	syscall(SYS_nanosleep, &sleep, NULL);
	syscall(SYS_exit, 0);
	return 0;
}

/* A write() that never returns: into a pipe that is full, never read. */
static void block_in_write(void)
{
	int p[2];
	char buf[4096] = { 0 };
	if (pipe(p))
		return;
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], buf, sizeof(buf)) > 0)
		;
	fcntl(p[1], F_SETFL, 0);
	if (write(p[1], buf, 1) < 0)
		return;
}

static void on_vfork_signal(int sig)
{
	(void)sig;
	vfork_go = 1;
}

/* vforkstop: the last thread waits for vfork_child's end, in the kernel. */
static void vfork_stop(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	struct timespec gap = { 0, 1000000 };
	while (!vfork_go)
		nanosleep(&gap, NULL);
	clone(vfork_child, stack + sizeof(stack),
	      CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		      CLONE_VFORK,
	      NULL);
}

static void *worker(void *arg)
{
	int64_t *mine = arg;
	struct timespec gap = { 0, 10000000 };
	int me = __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	tids[me] = (pid_t)syscall(SYS_gettid);
	if (exec_stop_at > 0 && me == threads)
		exec_at_stop();
	if (vfork_mode && me == threads)
		vfork_stop();
	for (;;) {
		if (exec_at > 0 && me == 1 && seconds_now() > exec_at)
			execl("/bin/true", "true", (char *)NULL);
		int64_t k = vsc_fetch_add64(counter, 1);
		vsc_store64(mine, k);
		(void)vsc_load64(counter);
		if (!run_on_ms)
			continue;
		if (!spin || !main_left)
			nanosleep(&gap, NULL);
		if (seconds_now() > deadline)
			exit(0);
	}
	return NULL;
}

/* Every thread under SCHED_IDLE (async-signal-safe: system calls only). */
static void go_idle(int sig)
{
	struct sched_param idle = { 0 };
	(void)sig;
	for (int i = 0; i <= started; i++)
		if (tids[i])
			sched_setscheduler(tids[i], SCHED_IDLE, &idle);
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	if (argc == 6 && strcmp(argv[5], "exit32") == 0)
		exit32 = 1, argc = 5;
	if (argc == 6 && strcmp(argv[5], "inwrite") == 0)
		in_write = 1, argc = 5;
	if (argc != 4 && argc != 5) {
		fprintf(stderr,
			"usage: probe_kill THREADS FILE MS [RUN_ON [exit32] | exec [inwrite] | execstop | vforkstop | reexec]\n");
		return 2;
	}
	if (argc == 5 && strcmp(argv[4], "exec") == 0) {
		exec_at = seconds_now() + (double)atol(argv[3]) / 1000;
		argc = 4, argv[3] = "0"; /* the main thread waits */
	}
	if (argc == 5 && strcmp(argv[4], "execstop") == 0) {
		exec_stop_at = seconds_now() + (double)atol(argv[3]) / 1000;
		argc = 4, argv[3] = "0";
	}
	if (argc == 5 && strcmp(argv[4], "reexec") == 0) {
		reexec = 1;
		if (atol(argv[3]) > 0)
			reexec_at = seconds_now() + (double)atol(argv[3]) / 1000;
		signal(SIGUSR2, on_vfork_signal);
		argc = 4, argv[3] = "0";
	}
	if (argc == 5 && strcmp(argv[4], "vforkstop") == 0) {
		vfork_mode = 1;
		signal(SIGUSR2, on_vfork_signal);
		argc = 4, argv[3] = "0";
	}
	run_on_ms = argc == 5 ? atol(argv[4]) : 0;
	spin = run_on_ms < 0;
	run_on_ms = labs(run_on_ms);
	deadline = seconds_now() + (double)(labs(atol(argv[3])) + run_on_ms) / 1000;
	threads = atoi(argv[1]);
	long ms = atol(argv[3]);
	int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (threads < 1 + (exec_stop_at > 0) || threads > 64 || fd < 0 ||
	    ftruncate(fd, sizeof(*counter))) {
		fprintf(stderr, "probe_kill: bad arguments or %s\n", argv[2]);
		return 2;
	}
	counter = mmap(NULL, sizeof(*counter), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (counter == MAP_FAILED)
		return 2;
	close(fd);
	tids[0] = getpid();
	signal(SIGUSR1, go_idle);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, &seen[i]);
	long wait_ms = ms < 0 ? -ms : ms;
	struct timespec pause = { wait_ms / 1000, (wait_ms % 1000) * 1000000L };
	if (in_write)
		block_in_write();
	if (reexec) {
		while (!vfork_go && (reexec_at == 0 || seconds_now() < reexec_at))
			pause.tv_nsec = 1000000, nanosleep(&pause, NULL);
		char *again[] = { argv[0], argv[1], argv[2], "0", NULL };
		execv("/proc/self/exe", again);
		return 2;
	}
	if (ms == 0)
		for (;;)
			pause.tv_sec = 1, nanosleep(&pause, NULL);
	nanosleep(&pause, NULL);
	if (run_on_ms > 0) {
		if (spin) /* the run on counts from now */
			deadline = seconds_now() + (double)run_on_ms / 1000;
		main_left = 1;
#if defined(__x86_64__)
		if (exit32) /* exit (1) of the ia32 table: this thread alone */
			__asm__ volatile("int $0x80" : : "a"(1), "b"(0) : "memory");
#endif
		if (exit32)
			return 2; /* not here */
		pthread_exit(NULL);
	}
	go_idle(0);
	if (ms < 0)
		exit(0);
	kill(getpid(), SIGKILL);
	return 1;
}
