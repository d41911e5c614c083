/* SPDX-License-Identifier: MIT */
/*
 * For the bundled probe targets: every probed access goes through a t_*
 * wrapper that does the vsc_* access and also notes it in a thread-local
 * list (plain memory, no probe). At the end the program writes the notes as
 * trace lines "TID r|w|u VAR VALUE [NEW]", per thread in program order,
 * naming variables the way the recorder must (CONTRACT section 4: a global's
 * symbol, "symbol:OFFSET" inside it, a hex address otherwise), so a test can
 * compare them with what `vsc record` wrote, exactly.
 *
 * Usage of every target: PROG EXPECT_FILE|- ITERATIONS [--wait] [--pace N]
 *   --wait: print "ready" and wait for SIGUSR1 before starting (so a
 *   recorder can attach by PID first); ITERATIONS 0: run until SIGTERM/SIGINT;
 *   --pace N: sleep 100 us every N iterations (a bounded event rate);
 *   EXPECT_FILE "-": note nothing (long runs).
 */
#ifndef VSC_TARGET_EXPECT_H
#define VSC_TARGET_EXPECT_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vsc/probe.h>

struct exp_entry {
	char kind;       /* 'r', 'w', 'u' */
	const char *sym; /* NULL: hex address */
	uintptr_t addr;
	unsigned off;
	int64_t value, new_value;
};

struct exp_thread {
	pid_t tid;
	size_t len, cap;
	struct exp_entry *v;
	struct exp_thread *next;
};

static pthread_mutex_t exp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct exp_thread *exp_threads;
static __thread struct exp_thread *exp_self;
static volatile sig_atomic_t exp_stop; /* set by SIGTERM/SIGINT when ITERATIONS is 0 */
static int exp_enabled = 1;            /* 0 with EXPECT_FILE "-" */
static long exp_pace_every;

static void exp_on_signal(int sig)
{
	(void)sig;
	exp_stop = 1;
}

static struct exp_thread *exp_me(void)
{
	if (!exp_self) {
		exp_self = calloc(1, sizeof(*exp_self));
		if (!exp_self)
			abort();
		exp_self->tid = (pid_t)syscall(SYS_gettid);
		pthread_mutex_lock(&exp_lock);
		exp_self->next = exp_threads;
		exp_threads = exp_self;
		pthread_mutex_unlock(&exp_lock);
	}
	return exp_self;
}

static void exp_note(char kind, const char *sym, unsigned off, const volatile void *addr,
		     int64_t value, int64_t new_value)
{
	if (!exp_enabled)
		return;
	struct exp_thread *t = exp_me();
	if (t->len == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->v = realloc(t->v, t->cap * sizeof(*t->v));
		if (!t->v)
			abort();
	}
	t->v[t->len++] = (struct exp_entry){ kind, sym, (uintptr_t)addr, off, value, new_value };
}

/*
 * Memory order. The <vsc/probe.h> helpers are relaxed: ARM64 hardware may
 * reorder a thread's accesses to different variables, x86-64 only lets a
 * load pass an earlier store (TSO). A target whose test expects
 * "consistent" on every run, whatever the hardware, defines EXP_FENCED
 * before including this file: every probed access is then followed by a
 * full fence (dmb ish on ARM64, mfence on x86-64). ARMv8 is other-multi-copy
 * atomic, so with a full fence between any two accesses of each thread
 * every execution is sequentially consistent. Targets that look for weak
 * outcomes (probe_sb) leave it out.
 */
#ifdef EXP_FENCED
#define exp_order() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#else
#define exp_order() ((void)0)
#endif

/* The probed accesses. sym/off name the variable (sym NULL: hex address). */
static inline int64_t t_load(volatile int64_t *p, const char *sym, unsigned off)
{
	int64_t v = vsc_load64(p);
	exp_order();
	exp_note('r', sym, off, p, v, 0);
	return v;
}

static inline void t_store(volatile int64_t *p, int64_t v, const char *sym, unsigned off)
{
	exp_note('w', sym, off, p, v, 0);
	vsc_store64(p, v);
	exp_order();
}

static inline int32_t t_xchg32(volatile int32_t *p, int32_t v, const char *sym, unsigned off)
{
	int32_t old = vsc_xchg32(p, v);
	exp_order();
	exp_note('u', sym, off, p, old, v);
	return old;
}

static inline void t_store32(volatile int32_t *p, int32_t v, const char *sym, unsigned off)
{
	exp_note('w', sym, off, p, v, 0);
	vsc_store32(p, v);
	exp_order();
}

static inline int32_t t_load32(volatile int32_t *p, const char *sym, unsigned off)
{
	int32_t v = vsc_load32(p);
	exp_order();
	exp_note('r', sym, off, p, v, 0);
	return v;
}

static inline int t_cas(volatile int64_t *p, int64_t *expected, int64_t desired, const char *sym,
			unsigned off)
{
	int64_t want = *expected;
	int ok = vsc_cas64(p, expected, desired);
	exp_order();
	if (ok)
		exp_note('u', sym, off, p, want, desired);
	else
		exp_note('r', sym, off, p, *expected, 0);
	return ok;
}

static inline int64_t t_fetch_add(volatile int64_t *p, int64_t v, const char *sym, unsigned off)
{
	int64_t old = vsc_fetch_add64(p, v);
	exp_order();
	exp_note('u', sym, off, p, old, old + v);
	return old;
}

/* Parse the common arguments; with --wait, block until SIGUSR1. */
static long exp_start(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
			"usage: %s EXPECT_FILE|- ITERATIONS [--wait] [--chatty] [--sigign] [--pace N]\n",
			argv[0]);
		exit(2);
	}
	long iterations = strtol(argv[2], NULL, 10);
	exp_enabled = strcmp(argv[1], "-") != 0;
	for (int i = 3; i + 1 < argc; i++)
		if (strcmp(argv[i], "--pace") == 0)
			exp_pace_every = strtol(argv[i + 1], NULL, 10);
	/* --sigign: the signals this process ignores (it must inherit them
	 * from whoever ran the recorder, not from the recorder itself), read
	 * before our own handlers replace an inherited SIG_IGN of SIGINT */
	for (int i = 3; i < argc; i++)
		if (strcmp(argv[i], "--sigign") == 0) {
			char line[256];
			FILE *status = fopen("/proc/self/status", "re");
			while (status && fgets(line, sizeof(line), status))
				if (strncmp(line, "SigIgn:", 7) == 0)
					fputs(line, stdout);
			if (status)
				fclose(status);
		}
	struct sigaction sa = { .sa_handler = exp_on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	int wait = 0;
	for (int i = 3; i < argc; i++)
		wait |= strcmp(argv[i], "--wait") == 0;
	/* --chatty: lines on standard output, which must not end up in a
	 * trace written to the recorder's standard output */
	for (int i = 3; i < argc; i++)
		if (strcmp(argv[i], "--chatty") == 0)
			for (int line = 1; line <= 3; line++)
				printf("%s: chatty line %d\n", argv[0], line);
	fflush(stdout);
	if (wait) {
		sigset_t set;
		int sig;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		printf("ready %ld\n", (long)getpid());
		fflush(stdout);
		sigwait(&set, &sig);
	}
	return iterations;
}

/* Keep going: iteration i of n (n == 0: until a signal). */
static inline int exp_more(long i, long n)
{
	if (exp_pace_every && i && i % exp_pace_every == 0) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	return n ? i < n : !exp_stop;
}

/* Write every thread's notes (call after joining the threads). */
static void exp_finish(const char *path)
{
	if (strcmp(path, "-") == 0)
		return;
	FILE *out = fopen(path, "w");
	if (!out) {
		perror(path);
		exit(1);
	}
	for (struct exp_thread *t = exp_threads; t; t = t->next)
		for (size_t i = 0; i < t->len; i++) {
			const struct exp_entry *e = &t->v[i];
			char name[96];
			if (e->sym && e->off)
				snprintf(name, sizeof(name), "%s:%u", e->sym, e->off);
			else if (e->sym)
				snprintf(name, sizeof(name), "%s", e->sym);
			else
				snprintf(name, sizeof(name), "0x%lx", (unsigned long)e->addr);
			if (e->kind == 'u')
				fprintf(out, "%d u %s %lld %lld\n", (int)t->tid, name,
					(long long)e->value, (long long)e->new_value);
			else
				fprintf(out, "%d %c %s %lld\n", (int)t->tid, e->kind, name,
					(long long)e->value);
		}
	fclose(out);
}

#endif
