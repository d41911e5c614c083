/* SPDX-License-Identifier: MIT */
/* Which threads to try whole around a preempted thread (coherence_guess.h;
 * docs/solvers.md, "Threads run whole: windows that fit").
 *
 * Any set of threads charged nothing may be tried whole: a refutation of
 * some of them is a refutation of all (coherence_blocks.c), so the choice
 * decides what is found, never whether it is true. The threads with an
 * event in the witness's span of u (its first event to its last), widened
 * on each side, hold the orders that close a cycle. The widening is a
 * quarter of the span, or the widest margin whose threads fit in the bit
 * rows (a 10^4-thread pool left open when the quarter was too many and
 * the span alone refuted nothing); when the span alone does not fit, the
 * threads there that access one of u's variables, widened the same way. */
#include "coherence_guess.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define TAKEN UINT32_MAX /* picker stamp: a charged thread, never picked */

struct picker {
	const struct coh_sources *s;
	const uint32_t *steps;
	uint32_t *stamp;        /* per thread: the pick that took it, or TAKEN */
	const uint8_t *touched; /* per variable: u accesses it (NULL: no filter) */
	uint32_t *threads;      /* the last pick */
	uint32_t epoch, max;
};

static bool accesses_touched(const struct picker *pk, uint32_t t)
{
	const struct vsc_thread *th = &pk->s->p->threads[t];

	for (uint32_t i = 0; i < th->length; i++)
		if (pk->touched[th->events[i].var])
			return true;
	return false;
}

/* The threads with an event in steps[lo, hi), charged ones aside (and
 * with a filter, those that access none of u's variables), into threads:
 * how many, or max + 1 when more. */
static uint32_t pick(struct picker *pk, uint32_t lo, uint32_t hi)
{
	uint32_t nb = 0;

	pk->epoch++;
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t t = pk->steps[i];
		if (pk->stamp[t] == pk->epoch || pk->stamp[t] == TAKEN)
			continue;
		pk->stamp[t] = pk->epoch;
		if (pk->touched && !accesses_touched(pk, t))
			continue;
		if (nb == pk->max)
			return nb + 1;
		pk->threads[nb++] = t;
	}
	return nb;
}

/* The span [lo, hi) of u widened by the widest margin up to a quarter of
 * it whose threads fit, picked: how many (max + 1: not even the span
 * fits). A margin's pick only grows with it, so a binary search finds it. */
static uint32_t pick_fitting(struct picker *pk, uint32_t lo, uint32_t hi, struct budget *b)
{
	uint32_t n = pk->s->n, low = 0, high = (hi - lo) / 4 + 1;

	if (pick(pk, lo, hi) > pk->max)
		return pk->max + 1;
	while (low < high && !budget_spend(b, hi - lo + 2 * (unsigned long)high)) {
		uint32_t m = low + (high - low + 1) / 2;
		if (pick(pk, lo > m ? lo - m : 0, n - hi > m ? hi + m : n) <= pk->max)
			low = m;
		else
			high = m - 1;
	}
	return pick(pk, lo > low ? lo - low : 0, n - hi > low ? hi + low : n);
}

int coh_whole_around(const struct coh_sources *s, const uint32_t *steps, uint32_t u,
		     const uint32_t *charged, uint32_t ncharged, uint32_t max_blocks,
		     struct budget *b)
{
	struct picker pk = { .s = s, .steps = steps, .max = max_blocks };
	const struct vsc_thread *th = &s->p->threads[u];
	uint8_t *touched = calloc((size_t)s->nvars + 1, 1);
	uint32_t lo = UINT32_MAX, hi = 0, nb;
	int r = -ENOMEM;

	for (uint32_t i = 0; i < s->n; i++)
		if (steps[i] == u) {
			lo = lo < i ? lo : i;
			hi = i + 1;
		}
	pk.stamp = calloc((size_t)s->k + 1, sizeof(uint32_t));
	pk.threads = malloc(((size_t)max_blocks + 1) * sizeof(uint32_t));
	if (!pk.stamp || !pk.threads || !touched)
		goto out;
	r = 0;
	if (hi == 0) /* u has no step: nothing to look around */
		goto out;
	for (uint32_t j = 0; j < ncharged; j++)
		pk.stamp[charged[j]] = TAKEN;
	nb = pick_fitting(&pk, lo, hi, b);
	if (nb > max_blocks) {
		for (uint32_t i = 0; i < th->length; i++)
			touched[th->events[i].var] = 1;
		pk.touched = touched;
		nb = pick_fitting(&pk, lo, hi, b);
	}
	r = nb > max_blocks ? 0 : coh_blocks_refuted(s, pk.threads, nb, b);
out:
	free(pk.stamp);
	free(pk.threads);
	free(touched);
	return r;
}
