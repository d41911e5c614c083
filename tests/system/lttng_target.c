/* SPDX-License-Identifier: MIT */
/*
 * A target program for the LTTng system tests and benchmark, built with
 * -DVSC_PROBE_LTTNG (the benchmark also builds it with the other backends of
 * <vsc/probe.h>). Every mode knows what it did and can print it, so the
 * tests compare the converted trace with the truth.
 *
 *   seq THREADS OPS      threads do loads, stores and fetch-adds on shared
 *                        words; each prints its own events afterwards, one
 *                        line per event in the trace format (no @ts), with
 *                        the variables named as vsc names them from symbols
 *   sb-weak | sb-sc      emit the events of a store-buffering run, with the
 *                        outcome both-read-0 (not SC) or an SC one
 *   segments ITERS       two threads, one segment per iteration
 *   flood THREADS N      N stores per thread as fast as possible
 *   cost N               time N stores, print "ns_per_event X" (wall) and
 *                        "cpu_ns_per_event Y" (this thread's CPU time)
 *   fork                 store forked = 1, fork; the child stores 5 in its
 *                        own copy; the parent reads its 1 (consistent, as
 *                        two processes; one thread storing 1, 5 and reading
 *                        1 is not SC: what a child labelled with its
 *                        parent's ids would read as)
 *   exec                 store forked = 1, then exec this program as
 *                        `seq 1 3` (one pid, two programs in turn)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vsc/probe.h"

#define MAX_THREADS 64

struct logged {
	char kind;
	char var[32]; /* the symbol name vsc gives the address */
	int64_t value, new_value;
};

struct worker {
	pthread_t thread;
	int index;
	long ops;
	pid_t tid;
	struct logged *log;
	long nlog;
};

static _Atomic int64_t shared[4];
static _Atomic int64_t counter;
static pthread_barrier_t barrier;

static void note(struct worker *w, char kind, const volatile void *addr, int64_t v, int64_t nv)
{
	struct logged *e = &w->log[w->nlog++];
	size_t i = (size_t)((const volatile _Atomic int64_t *)addr - shared);

	*e = (struct logged){ .kind = kind, .value = v, .new_value = nv };
	if (addr == &counter)
		snprintf(e->var, sizeof(e->var), "counter");
	else if (i == 0)
		snprintf(e->var, sizeof(e->var), "shared");
	else
		snprintf(e->var, sizeof(e->var), "shared:%u",
			 (unsigned)(i % 4 * sizeof(shared[0])));
}

static void *seq_worker(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	pthread_barrier_wait(&barrier);
	for (long k = 0; k < w->ops; k++) {
		_Atomic int64_t *a = &shared[(k + w->index) % 4];
		int64_t v;

		switch (k % 3) {
		case 0:
			v = w->index * 1000000 + k;
			atomic_store_explicit(a, v, memory_order_relaxed);
			VSC_PROBE_STORE(a, v);
			note(w, 'w', a, v, 0);
			break;
		case 1:
			v = atomic_load_explicit(a, memory_order_relaxed);
			VSC_PROBE_LOAD(a, v);
			note(w, 'r', a, v, 0);
			break;
		default:
			v = atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
			VSC_PROBE_RMW(&counter, v, v + 1);
			note(w, 'u', &counter, v, v + 1);
			break;
		}
	}
	return NULL;
}

static int run_seq(int nthreads, long ops)
{
	struct worker w[MAX_THREADS];

	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .index = i, .ops = ops };
		w[i].log = calloc((size_t)ops, sizeof(*w[i].log));
		if (!w[i].log || pthread_create(&w[i].thread, NULL, seq_worker, &w[i]))
			return 1;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; i < nthreads; i++) {
		for (long k = 0; k < w[i].nlog; k++) {
			struct logged *e = &w[i].log[k];

			if (e->kind == 'u')
				printf("%d u %s %lld %lld\n", w[i].tid, e->var, (long long)e->value,
				       (long long)e->new_value);
			else
				printf("%d %c %s %lld\n", w[i].tid, e->kind, e->var,
				       (long long)e->value);
		}
		free(w[i].log);
	}
	return 0;
}

/* Store buffering: T0 writes x then reads y, T1 writes y then reads x. The
 * events are emitted as given (not from real accesses) so that the verdict
 * is known: both reads 0 is not SC. x and y have no traced initial write, so
 * the trace says `init x ?`: some one value, the same for every read. */
static int64_t sb_x, sb_y;
static int sb_weak;

static void *sb_worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	int64_t *mine = me ? &sb_y : &sb_x, *other = me ? &sb_x : &sb_y;

	pthread_barrier_wait(&barrier);
	VSC_PROBE_STORE(mine, 1);
	/* SC outcome: T1 read T0's write, T0 read the initial value */
	VSC_PROBE_LOAD(other, sb_weak ? 0 : me);
	return NULL;
}

static int run_sb(int weak)
{
	pthread_t t[2];

	sb_weak = weak;
	pthread_barrier_init(&barrier, NULL, 2);
	for (intptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, sb_worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static long seg_iters;
static _Atomic int64_t seg_a, seg_b;

static void *segment_worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	_Atomic int64_t *mine = me ? &seg_b : &seg_a, *other = me ? &seg_a : &seg_b;
	char name[32];

	for (long i = 0; i < seg_iters; i++) {
		int64_t v;

		snprintf(name, sizeof(name), "iter%ld", i);
		pthread_barrier_wait(&barrier);
		VSC_PROBE_SEGMENT(i, name);
		atomic_store_explicit(mine, i + 1, memory_order_relaxed);
		VSC_PROBE_STORE(mine, i + 1);
		v = atomic_load_explicit(other, memory_order_relaxed);
		VSC_PROBE_LOAD(other, v);
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static int run_segments(long iters)
{
	pthread_t t[2];

	seg_iters = iters;
	pthread_barrier_init(&barrier, NULL, 2);
	for (intptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, segment_worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static void *flood_worker(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&barrier);
	for (long k = 0; k < w->ops; k++) {
		atomic_store_explicit(&shared[w->index % 4], k, memory_order_relaxed);
		VSC_PROBE_STORE(&shared[w->index % 4], k);
	}
	return NULL;
}

static int run_flood(int nthreads, long n)
{
	struct worker w[MAX_THREADS];

	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .index = i, .ops = n };
		if (pthread_create(&w[i].thread, NULL, flood_worker, &w[i]))
			return 1;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	return 0;
}

static double elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

/* Wall time, and this thread's CPU time (user and system: a uprobe's BPF
 * program runs in the thread), which other load on the machine does not
 * inflate. */
static int run_cost(long n)
{
	struct timespec t0, t1, c0, c1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	for (long k = 0; k < n; k++) {
		atomic_store_explicit(&shared[0], k, memory_order_relaxed);
		VSC_PROBE_STORE(&shared[0], k);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ns_per_event %.1f\ncpu_ns_per_event %.1f\n", elapsed_ns(&t0, &t1) / (double)n,
	       elapsed_ns(&c0, &c1) / (double)n);
	return 0;
}

static int64_t forked; /* fork and exec modes */

static int run_fork(void)
{
	int status = 1;
	pid_t child;

	vsc_store64(&forked, 1);
	child = fork();
	if (child == 0) {
		vsc_store64(&forked, 5);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
		return 1;
	return vsc_load64(&forked) == 1 ? 0 : 1;
}

static int run_exec(const char *self)
{
	vsc_store64(&forked, 1);
	execl(self, self, "seq", "1", "3", (char *)NULL);
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;

	if (strcmp(mode, "seq") == 0 && a > 0 && a <= MAX_THREADS && b > 0)
		return run_seq((int)a, b);
	if (strcmp(mode, "sb-weak") == 0 || strcmp(mode, "sb-sc") == 0)
		return run_sb(strcmp(mode, "sb-weak") == 0);
	if (strcmp(mode, "segments") == 0 && a > 0)
		return run_segments(a);
	if (strcmp(mode, "flood") == 0 && a > 0 && a <= MAX_THREADS && b > 0)
		return run_flood((int)a, b);
	if (strcmp(mode, "cost") == 0 && a > 0)
		return run_cost(a);
	if (strcmp(mode, "fork") == 0)
		return run_fork();
	if (strcmp(mode, "exec") == 0)
		return run_exec(argv[0]);
	fprintf(stderr, "usage: lttng_target seq THREADS OPS | sb-weak | sb-sc | "
			"segments ITERS | flood THREADS N | cost N | fork | exec\n");
	return 2;
}
