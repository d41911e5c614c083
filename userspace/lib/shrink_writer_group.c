/* SPDX-License-Identifier: MIT */
/* A start for the shrinking from a writer group: the events of a set S of
 * threads (the writers of some variable) on V_S, the variables that only
 * threads of S write (writer_groups.c, which refutes a program by them).
 *
 * When the verdict came from a group, the whole execution is the hard
 * case for the solver (its search over every thread wanders), and each
 * trial of the large steps is a check of most of it: a 10^4-event
 * `gen sc --writers 2` trace went past 120 s with a core of 7,440 events.
 * The group's events are a small start instead. They are a set the
 * shrinking may start from: every write of a variable of V_S is made by a
 * thread of S, so every candidate source of each kept read is kept (the
 * source rule holds, and C' is the set itself: a proof, if it is
 * inconsistent); and nothing is assumed of the group, each is checked
 * like any trial, within the time the whole execution's check took. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrink.h"
#include "solver.h"
#include "userspace/util/array.h"
#include "userspace/util/clock.h"

#define GROUP_THREADS_MIN 3  /* as writer_groups.c: a smaller program is a group itself */
#define GROUP_THREADS_MAX 64 /* one bit a thread */
#define GROUPS_TRIED 32      /* groups checked at most, the smallest first */
#define GROUPS_TIME_FACTOR 2 /* all of them within this many whole checks */

struct group {
	uint64_t threads; /* S, one bit a thread */
	size_t events;
};

/* Each variable's writers, one bit a thread. */
static uint64_t *writers_of_vars(const struct vsc_program *p)
{
	uint64_t *w = calloc(program_vars(p) ? program_vars(p) : 1, sizeof(*w));

	for (uint32_t t = 0; w && t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++)
			if (p->threads[t].events[i].kind != VSC_READ)
				w[p->threads[t].events[i].var] |= (uint64_t)1 << t;
	return w;
}

static bool in_group(const struct vsc_program *p, const uint64_t *writers, uint64_t threads,
		     struct vsc_event_ref r)
{
	uint64_t w = writers[p->threads[r.thread].events[r.index].var];

	return (threads >> r.thread & 1) && w && !(w & ~threads);
}

/* The group's events into s->trial: how many. */
static size_t mark_group(struct shrink *s, const uint64_t *writers, uint64_t threads)
{
	size_t m = 0;

	for (size_t i = 0; i < s->n; i++)
		m += s->trial[i] = s->keep[i] && in_group(s->p, writers, threads, s->all[i]);
	return m;
}

/* Whether threads is one of sets[0..n). */
static bool among(const uint64_t *sets, size_t n, uint64_t threads)
{
	for (size_t i = 0; i < n; i++)
		if (sets[i] == threads)
			return true;
	return false;
}

/* The distinct writer sets of two threads or more whose events are not
 * all of the kept ones into groups: how many (at most `most`), or -errno
 * (-ETIME past the deadline). Each set is marked once, the ones that hold
 * every kept event too (remembered apart: the set of all the threads,
 * when every thread writes each variable, was marked again for every
 * variable, a pass over the whole execution each: 10^3 variables and
 * 3.9 M events went 17 s past --timeout 8), and the deadline is looked at
 * after each pass. */
static int find_groups(struct shrink *s, const uint64_t *writers, struct group *groups,
		       uint32_t most)
{
	uint64_t *whole = NULL; /* the sets that hold every kept event */
	size_t nwhole = 0, cap = 0;
	uint32_t n = 0;
	int err = 0;

	for (uint32_t x = 0; x < program_vars(s->p) && n < most && !err; x++) {
		uint64_t threads = writers[x];
		uint32_t seen = 0;
		size_t events;
		if (__builtin_popcountll(threads) < 2 || among(whole, nwhole, threads))
			continue;
		while (seen < n && groups[seen].threads != threads)
			seen++;
		if (seen < n)
			continue;
		if (s->deadline.tv_sec && seconds_until(&s->deadline) <= 0) {
			s->gave_up = true;
			err = -ETIME;
		} else if ((events = mark_group(s, writers, threads)) < s->n) {
			groups[n++] = (struct group){ threads, events };
		} else if (!(err = ARRAY_RESERVE(whole, cap, nwhole + 1))) {
			whole[nwhole++] = threads;
		}
	}
	free(whole);
	return err ? err : (int)n;
}

static int smaller_first(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->events != y->events)
		return x->events < y->events ? -1 : 1;
	return (x->threads > y->threads) - (x->threads < y->threads);
}

/* Check the groups in turn: 1 when one passed (it is s->trial, and
 * *took what its check took), 0, or -errno. */
static int try_groups(struct shrink *s, const uint64_t *writers, const struct group *groups,
		      uint32_t n, double *took)
{
	double end = clock_now_s() + GROUPS_TIME_FACTOR * s->whole_s + TRIAL_MIN_S, started;
	int r = 0;

	for (uint32_t g = 0; g < n && !r && !s->gave_up && clock_now_s() < end; g++) {
		mark_group(s, writers, groups[g].threads);
		shrink_progress(s, "a writer group");
		if (shrink_close_trial(s) == 0)
			continue;
		started = clock_now_s();
		r = shrink_check_trial(s, s->whole_s + TRIAL_MIN_S);
		*took = clock_now_s() - started;
	}
	return r;
}

int shrink_writer_group(struct shrink *s)
{
	uint32_t k = program_threads(s->p), most = GROUPS_TRIED * 8;
	uint64_t *writers;
	struct group *groups;
	double took = 0;
	int r = 0;

	if (k < GROUP_THREADS_MIN || k > GROUP_THREADS_MAX || s->whole_s <= 0)
		return 0;
	writers = writers_of_vars(s->p);
	groups = malloc(most * sizeof(*groups));
	if (writers && groups) {
		int n = find_groups(s, writers, groups, most);
		if (n >= 0) {
			qsort(groups, (size_t)n, sizeof(*groups), smaller_first);
			r = try_groups(s, writers, groups,
				       n < GROUPS_TRIED ? (uint32_t)n : GROUPS_TRIED, &took);
		} else {
			r = n;
		}
	} else {
		r = -ENOMEM;
	}
	free(writers);
	free(groups);
	if (r <= 0)
		return r;
	s->trial_limit = 4 * took + TRIAL_MIN_S;
	r = shrink_keep_trial(s);
	return r ? r : 1;
}
