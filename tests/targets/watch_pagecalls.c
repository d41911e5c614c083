/* SPDX-License-Identifier: MIT */
/*
 * System calls that change, replace or drop the page of a watched
 * variable, or give the kernel an address on it to write later, outside
 * any system call: by pages (docs/watch.md) the page is protected, and
 * the accesses or writes that follow would be lost without a word. Each
 * MODE stores to `wv` (its first 8 bytes, alone on its page) a few times, makes its
 * call, and stores again; tests/system/watch_pages.sh checks that a
 * recording of it is not taken for a whole one. No vsc headers.
 *
 *   watch_pagecalls MODE
 *
 * MODE: mremap (another page moved onto wv's: MREMAP_FIXED), mmap (a page
 * mapped over it: MAP_FIXED), madvise (MADV_DONTNEED: emptied), shmat (a
 * System V segment attached over it: SHM_REMAP), brk (wv on the heap,
 * dropped by brk and grown back: by PID only, the program says its
 * address: "addr 0x..."), cleartid (a thread started with
 * CLONE_CHILD_CLEARTID at wv: its exit writes 0 there and wakes a futex
 * wait; the program waits at most 1 s for it, and says whether the word
 * was cleared), settid (CLONE_PARENT_SETTID and CLONE_CHILD_SETTID at
 * wv), tidaddr (a thread's set_tid_address(&wv)), robust (a thread's
 * robust futex list head at wv), rseq (a thread's rseq area at wv),
 * altstack (its signal stack on wv's page: no signal comes), altsignal
 * (and a signal to a handler on it: the kernel cannot write its frame),
 * eventfd (a read of an eventfd's count into wv's page: the kernel takes
 * the count before its copy fails), dgram (a datagram received there).
 * Each says what its read got ("eventfd read 8", "dgram read 1", or the
 * error).
 * blocked (SIGSEGV blocked, a store to wv, a read from a pipe into wv's
 * page: SIGSEGV must stay blocked, the call read its byte, and the program
 * live on after SIGSEGV is unblocked; it says "read N, SIGSEGV blocked
 * still: yes|no"), segvaction (a handler of SIGSEGV, SIGSEGV blocked, a
 * store to wv: the kernel resets the action). And signals (2,000 stores, while a timer sends SIGRTMIN every 200 us
 * with a value, and another thread sends the main one SIGUSR1 by tgkill
 * and the process SIGUSR2 by kill every 300 us): each handler checks its
 * siginfo (si_code, si_value, si_pid); the program says how many came and
 * how many were wrong ("signals N wrong M"), exit status 1 when any was.
 * With WATCH_GO set, the program prints "ready" (and its address) and
 * waits until that file exists before it starts.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

/* alone on its page: nothing else of the program's there (watched as
 * wv:8, its first 8 bytes) */
union {
	volatile int64_t v;
	char page[PAGE];
} wv __attribute__((aligned(PAGE)));

static volatile int64_t *heap_wv;
static char stack[65536] __attribute__((aligned(16)));

static void stores(volatile int64_t *p, int64_t from, int n)
{
	for (int i = 0; i < n; i++)
		*p = from + i;
}

static void wait_go(const char *addr_note)
{
	const char *go = getenv("WATCH_GO");
	if (!go)
		return;
	if (addr_note)
		printf("%s\n", addr_note);
	printf("ready\n");
	fflush(stdout);
	while (access(go, F_OK) != 0)
		usleep(1000);
}

static int thread_exit_at_once(void *arg)
{
	(void)arg;
	usleep(100000);
	return 0;
}

static int thread_tidaddr(void *arg)
{
	(void)arg;
	syscall(SYS_set_tid_address, (void *)&wv.v);
	return 0;
}

/* struct robust_list_head: list.next, futex_offset, list_op_pending */
static int thread_robust(void *arg)
{
	(void)arg;
	volatile uintptr_t *head = (volatile uintptr_t *)&wv.page[64];
	head[0] = (uintptr_t)head; /* empty */
	head[1] = 0;
	head[2] = 0;
	syscall(SYS_set_robust_list, (void *)head, 3 * sizeof(uintptr_t));
	return 0;
}

#ifndef RSEQ_SIG
#define RSEQ_SIG 0x53053053
#endif
static volatile long rseq_ret = 1;
static int thread_rseq(void *arg)
{
	(void)arg;
	/* struct rseq: 32 bytes, 32-byte aligned */
	rseq_ret = syscall(SYS_rseq, (void *)&wv.page[128], 32, 0, RSEQ_SIG);
	return 0;
}

/* A thread of ours (a raw clone: glibc's own words stay elsewhere) with
 * flags and thread id words at ptid / ctid; waits for its end. */
static void run_thread(int (*fn)(void *), int extra, volatile int *ptid, volatile int *ctid)
{
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | extra;
	int t = clone(fn, stack + sizeof(stack), flags, NULL, ptid, NULL, ctid);
	if (t < 0) {
		perror("clone");
		exit(2);
	}
	if (!(extra & CLONE_CHILD_CLEARTID)) {
		/* no word cleared at its end: its /proc entry goes */
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/task/%d", t);
		for (int i = 0; i < 2000 && access(path, F_OK) == 0; i++)
			usleep(1000);
		return;
	}
	/* as pthread_join does: wait until the kernel clears the word */
	int waits = 0, v;
	while ((v = *ctid) != 0 && waits < 10) {
		struct timespec ts = { 0, 100000000 };
		syscall(SYS_futex, ctid, FUTEX_WAIT, v, &ts, NULL, 0);
		waits++;
	}
	printf("cleared: %s\n", *ctid == 0 ? "yes" : "no");
}

static volatile int sig_total, sig_wrong, sig_stop;
static pid_t main_tid;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	bool ok;
	if (sig == SIGUSR1)
		ok = si->si_code == SI_TKILL && si->si_pid == getpid();
	else if (sig == SIGUSR2)
		ok = si->si_code == SI_USER && si->si_pid == getpid();
	else
		ok = si->si_code == SI_TIMER && si->si_value.sival_int == 1234;
	__atomic_add_fetch(&sig_total, 1, __ATOMIC_RELAXED);
	if (!ok)
		__atomic_add_fetch(&sig_wrong, 1, __ATOMIC_RELAXED);
}

static void *sender(void *arg)
{
	(void)arg;
	while (!sig_stop) {
		syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
		kill(getpid(), SIGUSR2);
		usleep(300);
	}
	return NULL;
}

static int signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigaction(SIGRTMIN, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	main_tid = (pid_t)syscall(SYS_gettid);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGRTMIN,
			       .sigev_value.sival_int = 1234 };
	timer_t tm;
	struct itimerspec its = { { 0, 200000 }, { 0, 200000 } };
	pthread_t t;
	if (timer_create(CLOCK_MONOTONIC, &ev, &tm) || timer_settime(tm, 0, &its, NULL) ||
	    pthread_create(&t, NULL, sender, NULL)) {
		perror("signals");
		return 2;
	}
	for (int i = 0; i < 2000; i++)
		wv.v = i;
	memset(&its, 0, sizeof(its));
	timer_settime(tm, 0, &its, NULL);
	sig_stop = 1;
	pthread_join(t, NULL);
	printf("signals %d wrong %d\n", sig_total, sig_wrong);
	return sig_wrong != 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc == 2 ? argv[1] : "";
	void *page = (void *)&wv;

	if (strcmp(mode, "brk") == 0) {
		/* a page of the heap of its own, at its top (nothing malloc'd
		 * after it, which brk would drop: stdout's buffer is static) */
		static char out[4096];
		setvbuf(stdout, out, _IOLBF, sizeof(out));
		char *top = sbrk(0);
		char *lo = (char *)(((uintptr_t)top + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
		if (brk(lo + 2 * PAGE)) {
			perror("brk");
			return 2;
		}
		heap_wv = (volatile int64_t *)lo;
		char note[64];
		snprintf(note, sizeof(note), "addr %p", (void *)lo);
		wait_go(note);
		stores(heap_wv, 1, 5);
		if (brk(lo) || brk(lo + 2 * PAGE)) { /* dropped, a new page there */
			perror("brk");
			return 2;
		}
		stores(heap_wv, 10, 5);
		printf("wv %lld\n", (long long)*heap_wv);
		return 0;
	}
	wait_go(NULL);
	if (strcmp(mode, "signals") == 0)
		return signals();
	stores(&wv.v, 1, 5);
	if (strcmp(mode, "mremap") == 0) {
		char *m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);
		if (m == MAP_FAILED ||
		    mremap(m, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, page) == MAP_FAILED) {
			perror("mremap");
			return 2;
		}
	} else if (strcmp(mode, "mmap") == 0) {
		if (mmap(page, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
			perror("mmap");
			return 2;
		}
	} else if (strcmp(mode, "madvise") == 0) {
		if (madvise(page, PAGE, MADV_DONTNEED)) {
			perror("madvise");
			return 2;
		}
	} else if (strcmp(mode, "shmat") == 0) {
		int id = shmget(IPC_PRIVATE, PAGE, IPC_CREAT | 0600);
		void *at = id < 0 ? (void *)-1 : shmat(id, page, SHM_REMAP);
		if (id >= 0)
			shmctl(id, IPC_RMID, NULL);
		if (at == (void *)-1) {
			perror("shmat");
			return 2;
		}
	} else if (strcmp(mode, "cleartid") == 0) {
		wv.v = 1;
		run_thread(thread_exit_at_once, CLONE_CHILD_CLEARTID, NULL, (volatile int *)&wv.v);
	} else if (strcmp(mode, "settid") == 0) {
		run_thread(thread_exit_at_once, CLONE_PARENT_SETTID | CLONE_CHILD_SETTID,
			   (volatile int *)&wv.v, (volatile int *)&wv.v);
	} else if (strcmp(mode, "tidaddr") == 0) {
		run_thread(thread_tidaddr, 0, NULL, NULL);
	} else if (strcmp(mode, "robust") == 0) {
		run_thread(thread_robust, 0, NULL, NULL);
	} else if (strcmp(mode, "altstack") == 0 || strcmp(mode, "altsignal") == 0) {
		stack_t ss = { .ss_sp = &wv.page[1024], .ss_size = PAGE - 1024 };
		if (sigaltstack(&ss, NULL)) {
			perror("sigaltstack");
			return 2;
		}
		if (strcmp(mode, "altsignal") == 0) {
			struct sigaction sa = { .sa_sigaction = on_signal,
						.sa_flags = SA_SIGINFO | SA_ONSTACK };
			sigaction(SIGUSR1, &sa, NULL);
			raise(SIGUSR1);
		}
	} else if (strcmp(mode, "eventfd") == 0 || strcmp(mode, "dgram") == 0) {
		int fds[2] = { -1, -1 };
		ssize_t n;
		if (mode[0] == 'e') {
			fds[0] = eventfd(5, EFD_NONBLOCK);
			n = read(fds[0], &wv.page[256], 8);
		} else {
			if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) == 0)
				send(fds[1], "x", 1, 0);
			n = recv(fds[0], &wv.page[256], 1, MSG_DONTWAIT);
		}
		printf("%s read %zd%s%s\n", mode, n, n < 0 ? ": " : "",
		       n < 0 ? strerror(errno) : "");
	} else if (strcmp(mode, "blocked") == 0) {
		sigset_t segv;
		int fds[2];
		sigemptyset(&segv);
		sigaddset(&segv, SIGSEGV);
		if (pipe(fds) || write(fds[1], "x", 1) != 1) {
			perror("pipe");
			return 2;
		}
		sigprocmask(SIG_BLOCK, &segv, NULL);
		wv.v = 100;
		sigset_t now;
		sigprocmask(SIG_BLOCK, NULL, &now);
		ssize_t n = read(fds[0], &wv.page[256], 1);
		int err = errno;
		sigprocmask(SIG_UNBLOCK, &segv, NULL);
		printf("read %zd%s%s, SIGSEGV blocked still: %s\n", n, n < 0 ? ": " : "",
		       n < 0 ? strerror(err) : "", sigismember(&now, SIGSEGV) ? "yes" : "no");
		if (n != 1 || wv.page[256] != 'x' || !sigismember(&now, SIGSEGV))
			return 1;
	} else if (strcmp(mode, "segvaction") == 0) {
		struct sigaction sa = { .sa_handler = SIG_IGN };
		sigset_t segv;
		sigaction(SIGSEGV, &sa, NULL);
		sigemptyset(&segv);
		sigaddset(&segv, SIGSEGV);
		sigprocmask(SIG_BLOCK, &segv, NULL);
		wv.v = 100;
	} else if (strcmp(mode, "rseq") == 0) {
		run_thread(thread_rseq, 0, NULL, NULL);
		printf("rseq: %ld\n", rseq_ret);
	} else {
		fprintf(stderr, "usage: watch_pagecalls mremap|mmap|madvise|shmat|brk|cleartid|"
				"settid|tidaddr|robust|rseq|altstack|altsignal|eventfd|dgram|"
				"blocked|segvaction|signals\n");
		return 2;
	}
	stores(&wv.v, 10, 5);
	printf("wv %lld\n", (long long)wv.v);
	return 0;
}
