/* SPDX-License-Identifier: MIT */
/* Stops forced by a thread's own accesses (the lower bound of own_stops.h).
 *
 * Let thread u access x at its position j (a write, a read or an RMW),
 * after which x holds v for u (the value written, else the value read),
 * and read x at a later position i with a value other than v, with no
 * access of x by u in between (for an RMW at i, its old value). In any SC
 * interleaving another thread writes x after j and before i, so u is
 * switched away from, with events left, somewhere after running j and
 * before running i: at one of the cut points j + 1 .. i (cut point c: u's
 * event c runs in a later slice than its event c - 1). Call [j + 1, i] the
 * interval of the read. Values are compared as (variable, value) pairs,
 * so `init x ?` changes nothing: two reads of different values need a
 * write between them whatever the initial value.
 *
 * From a state where u has run its first pos events, the intervals with
 * j >= pos lie wholly ahead, and u makes at least as many stops from now on
 * as points are needed to stab them all. Each stop is a preemption (a
 * switch away from a thread with events left), and belongs to the one
 * thread it switches away from, so the sum over the threads is a lower
 * bound on the preemptions still needed.
 *
 * The least number of points that stab a set of intervals is given by the
 * greedy from the right: take the intervals by decreasing left end and put
 * a point at the left end of each that no point put so far stabs. For the
 * intervals with left end > pos (j >= pos) that greedy makes exactly the
 * decisions of the greedy over all of them up to its first interval with
 * left end <= pos, so the points it puts are the whole greedy's points
 * greater than pos: one sorted array per thread answers every position. */
#include "own_stops.h"
#include "saturate.h"
#include "userspace/util/sorted.h"

#include <errno.h>
#include <stdlib.h>

static int by_left_descending(const void *a, const void *b)
{
	const struct own_interval *x = a, *y = b;

	return x->left < y->left ? 1 : x->left > y->left ? -1 : 0;
}

uint32_t own_stops_intervals(const struct vsc_program *p, const struct analysis *a, uint32_t t,
			     uint32_t *last_pair, uint32_t *last_pos, struct own_interval *iv)
{
	const struct vsc_thread *th = &p->threads[t];
	uint32_t n = 0;

	for (uint32_t i = 0; i < th->length; i++) {
		const struct event_pairs *ep = &a->pairs[t][i];
		uint32_t x = th->events[i].var;
		if (ep->read != PAIR_NONE && last_pair[x] != PAIR_NONE && last_pair[x] != ep->read)
			iv[n++] = (struct own_interval){ last_pos[x] + 1, i };
		last_pair[x] = ep->write != PAIR_NONE ? ep->write : ep->read;
		last_pos[x] = i;
	}
	for (uint32_t i = 0; i < th->length; i++)
		last_pair[th->events[i].var] = PAIR_NONE;
	return n;
}

/* The greedy from the right over iv (n of them): its points, ascending,
 * into out; returns how many. */
static uint32_t stab(struct own_interval *iv, uint32_t n, uint32_t *out)
{
	uint32_t m = 0, point = UINT32_MAX;

	qsort(iv, n, sizeof(*iv), by_left_descending);
	for (uint32_t i = 0; i < n; i++)
		if (iv[i].right < point) /* left <= point: stabbed iff point <= right */
			out[m++] = point = iv[i].left;
	for (uint32_t i = 0; i < m / 2; i++) {
		uint32_t keep = out[i];
		out[i] = out[m - 1 - i];
		out[m - 1 - i] = keep;
	}
	return m;
}

static uint32_t longest_thread(const struct vsc_program *p)
{
	uint32_t most = 0;

	for (uint32_t t = 0; t < program_threads(p); t++)
		if (p->threads[t].length > most)
			most = p->threads[t].length;
	return most;
}

int own_stops_apply(const struct analysis *a)
{
	for (uint32_t x = 0; x < a->nvars; x++)
		if (a->writers[x] > 1)
			return 1;
	return 0;
}

/* The most intervals forced gives one thread (0 without them). */
static uint32_t most_forced(const struct forced *f, uint32_t k)
{
	uint32_t most = 0;

	for (uint32_t t = 0; f && f->iv_off && t < k; t++)
		if (f->iv_off[t + 1] - f->iv_off[t] > most)
			most = f->iv_off[t + 1] - f->iv_off[t];
	return most;
}

/* Thread t's forced intervals after its n own ones in iv: how many now. */
static uint32_t add_forced(const struct forced *f, uint32_t t, struct own_interval *iv, uint32_t n)
{
	if (!f || !f->iv_off)
		return n;
	for (uint32_t j = f->iv_off[t]; j < f->iv_off[t + 1]; j++)
		iv[n++] = f->iv[j];
	return n;
}

int own_stops_build(struct own_stops *s, const struct vsc_program *p, const struct analysis *a,
		    const struct forced *forced)
{
	uint32_t most = longest_thread(p) + most_forced(forced, a->k), used = 0;
	size_t vv = a->nvars ? a->nvars : 1;
	uint32_t *last_pair, *last_pos;
	struct own_interval *iv;

	s->k = a->k;
	s->total = s->own = 0;
	s->point = NULL;
	if (!(s->off = calloc((size_t)a->k + 1, sizeof(uint32_t))))
		return -ENOMEM;
	/* with one writer per variable the bound's table of the forced orders
	 * serves the search; this one is for several writers */
	if (!own_stops_apply(a))
		return 0;
	last_pair = malloc(vv * sizeof(uint32_t));
	last_pos = malloc(vv * sizeof(uint32_t));
	iv = malloc(((size_t)most + 1) * sizeof(*iv));
	/* a thread's points are at most its events, whatever the intervals */
	s->point = malloc(((size_t)p->event_count + 1) * sizeof(uint32_t));
	if (!last_pair || !last_pos || !iv || !s->point) {
		free(last_pair);
		free(last_pos);
		free(iv);
		own_stops_free(s);
		return -ENOMEM;
	}
	for (size_t x = 0; x < vv; x++)
		last_pair[x] = PAIR_NONE;
	for (uint32_t t = 0; t < a->k; t++) {
		uint32_t n = own_stops_intervals(p, a, t, last_pair, last_pos, iv);
		uint32_t m = add_forced(forced, t, iv, n), alone = stab(iv, n, s->point + used);
		s->off[t] = used;
		s->own += alone;
		used += m > n ? stab(iv, m, s->point + used) : alone;
	}
	s->off[a->k] = used;
	s->total = used;
	free(last_pair);
	free(last_pos);
	free(iv);
	return 0;
}

void own_stops_free(struct own_stops *s)
{
	free(s->off);
	free(s->point);
	s->off = s->point = NULL;
	s->total = s->own = 0;
}

/* Points of [lo, hi) greater than pos (ascending points; pos is a
 * position, below UINT32_MAX). */
static uint32_t points_after(const uint32_t *point, uint32_t lo, uint32_t hi, uint32_t pos)
{
	return hi - first_at_least(point, lo, hi, pos + 1);
}

uint32_t own_stops_needed(const struct own_stops *s, const uint32_t *pos)
{
	uint32_t need = 0;

	if (!s->total)
		return 0;
	for (uint32_t t = 0; t < s->k; t++)
		if (s->off[t] < s->off[t + 1])
			need += points_after(s->point, s->off[t], s->off[t + 1], pos[t]);
	return need;
}
