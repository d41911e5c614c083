/* SPDX-License-Identifier: MIT */
/* A short inconsistent prefix of a long execution, before it is shrunk.
 *
 * Shrinking a whole execution of millions of events pays a check of most
 * of it at every large step, and holds as much. A violation shows in some
 * prefix, and in a recorded trace usually early: so the shrinking starts
 * from the shortest inconsistent prefix found.
 *
 * The prefix up to L: each thread's events up to line L of the trace when
 * every thread's lines increase and the threads' lines overlap (a recorded
 * trace: lines follow time), else each thread's first fraction L of its
 * events; then closed under the
 * source rule (core_sources.c), so that it may be a core. The whole
 * execution is checked first (it is inconsistent; its time sets the
 * limits); then prefixes of 4096 events, 4 times more each time, up to
 * half of it, until one is inconsistent; then bisection between the last
 * that was not and the first that was, until they differ by an eighth.
 * Each prefix check may take twice the whole one's time (plus 0.02 s): an
 * undecided prefix counts as not inconsistent. An execution whose lines do
 * not follow time (a file written thread after thread) is looked at only
 * from PREFIX_LONG events on: below, its consistent prefixes cost more
 * checks than they save (-p 3 on a generated 10^5-event execution that
 * needs 4 preemptions: 0.18 s CPU with them, 0.08 s without).
 *
 * Nothing is assumed of a prefix: the set handed on is one that the solver
 * found inconsistent and that keeps the source rule, as any step of the
 * shrinking. That inconsistency is not monotone in L only makes the
 * bisection find some short inconsistent prefix rather than the shortest. */
#include <errno.h>
#include <string.h>

#include "shrink.h"
#include "userspace/util/clock.h"

#define PREFIX_LONG (1u << 18)                     /* else only recorded traces look for a prefix */
#define PREFIX_FIRST 4096                          /* events of the first prefix tried */
#define PREFIX_GROWTH 4                            /* each next prefix this many times longer */
#define PREFIX_TRIAL_MIN_S 0.02                    /* seconds a prefix check may always take */
#define PREFIX_BISECTIONS 12                       /* bisection steps at most */
#define PREFIX_PHASE "a short inconsistent prefix" /* its progress lines */

/* Check the closed prefix up to L within limit_s (0: the deadline only);
 * when it is inconsistent it becomes the kept set. */
static int try_prefix(struct shrink *s, const struct shrink_key *k, uint64_t L, double limit_s,
		      double *took, const char *phase)
{
	size_t at = 0;
	double started;
	int r;

	memset(s->trial, 0, s->n);
	for (uint32_t t = 0; t < program_threads(s->p); t++) {
		memset(s->trial + at, 1, shrink_key_count_upto(k, t, L));
		at += s->p->threads[t].length;
	}
	shrink_progress(s, phase);
	if (shrink_close_trial(s) == 0)
		return 0;
	started = clock_now_s();
	r = s->closure ? shrink_check_closed_trial(s, limit_s) : shrink_check_trial(s, limit_s);
	*took = clock_now_s() - started;
	if (r > 0)
		memcpy(s->keep, s->trial, s->n);
	return r;
}

/* The whole execution, closed, as the kept set when it is inconsistent
 * (1), with the time its check took. A check made before (s->whole_s: the
 * first shrinking's, when the second looks for a proof, whose C' of the
 * whole is the whole) is not made again, at millions of events the cost
 * of a verdict. */
static int check_whole(struct shrink *s, const struct shrink_key *k, double *took)
{
	int r;

	if (s->n != s->p->event_count)
		return -EINVAL; /* `all` must be every event, thread by thread */
	memset(s->trial, 1, s->n);
	if (s->whole_s > 0 && shrink_close_trial(s) == s->n) {
		*took = s->whole_s;
		return 0;
	}
	if ((r = try_prefix(s, k, k->last, 0, took, "the whole execution")) <= 0)
		return r < 0 ? r : s->gave_up ? -ETIME : -EINVAL;
	s->whole_s = *took > 0 ? *took : 1e-9;
	return 0;
}

int shrink_whole(struct shrink *s)
{
	struct shrink_key k;
	double took;

	shrink_key_init(&k, s->p, false);
	return check_whole(s, &k, &took);
}

int shrink_prefix(struct shrink *s)
{
	struct shrink_key k;
	uint64_t lo = 0, hi;
	double took = 0, whole, limit;
	int r;

	shrink_key_init(&k, s->p, false);
	hi = k.last;
	if ((r = check_whole(s, &k, &whole)))
		return r;
	if (k.kind == KEY_FRACTION && s->n < PREFIX_LONG) {
		s->trial_limit = 4 * whole + TRIAL_MIN_S; /* cut down whole */
		return 0;
	}
	/* a prefix that takes longer than twice the whole is not worth it */
	limit = 2 * whole + PREFIX_TRIAL_MIN_S;
	for (size_t size = PREFIX_FIRST; size * 2 <= s->n && !s->gave_up; size *= PREFIX_GROWTH) {
		uint64_t at = shrink_key_for_size(&k, size);
		if ((r = try_prefix(s, &k, at, limit, &took, PREFIX_PHASE)) < 0)
			return r;
		if (r > 0) {
			hi = at;
			whole = took;
			break;
		}
		lo = at;
	}
	for (int step = 0; step < PREFIX_BISECTIONS && !s->gave_up; step++) {
		size_t at_hi = shrink_key_prefix_size(&k, hi);
		uint64_t mid = lo + (hi - lo) / 2;
		if (at_hi - shrink_key_prefix_size(&k, lo) <= at_hi / 8 || mid == lo)
			break;
		if ((r = try_prefix(s, &k, mid, limit, &took, PREFIX_PHASE)) < 0)
			return r;
		if (r > 0) {
			hi = mid;
			whole = took;
		} else {
			lo = mid;
		}
	}
	s->trial_limit = 4 * whole + TRIAL_MIN_S;
	memcpy(s->trial, s->keep, s->n);
	return shrink_keep_trial(s);
}
