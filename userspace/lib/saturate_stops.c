/* SPDX-License-Identifier: MIT */
/* Stops the forced orders impose on a thread while another one runs
 * (the intervals of struct forced, used by own_stops.c).
 *
 * Let R be thread r's event i, and u another thread. The vectors say that
 * u's first A = vec[R][u] events come before R, and u's event B (the first
 * of u with vec[B][r] > i) after it, in every SC interleaving. So while R
 * runs, u has run c events for some cut point c in [A, B]. When A >= 1
 * and B exists, u has run and has events left then: it was switched away
 * from at cut point c (its events c - 1 and c run in different slices),
 * a preemption of u. So u stops at one of the cut points A .. B: an
 * interval of u, of the same kind as the own stops' (own_stops.c), and
 * the least number of points stabbing all of u's intervals of both kinds
 * is a lower bound on u's stops; from a state where u has run pos < A
 * events the stop is still ahead. A spin read of a lock's flag that the
 * orders put inside one critical section of its holder is such an R: the
 * holder stops within that section.
 *
 * Along r's events both A and B only grow (vectors grow along program
 * order), so one walk per pair (r, u) finds them, and of a run of
 * intervals with the same B only the last (the smallest) is kept, of a
 * run with the same A only the first. */
#include "saturate_int.h"

#include <errno.h>
#include <stdlib.h>

#define POLL_EVENTS 65536 /* budget polled this often along a walk */

struct walk {
	struct own_interval *iv;
	uint32_t n, cap;
	struct own_interval held; /* the last one met, not yet kept */
	int holding;
};

static int keep(struct walk *w, struct own_interval v)
{
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? 2 * w->cap : 1024;
		struct own_interval *iv = realloc(w->iv, (size_t)cap * sizeof(*iv));
		if (!iv)
			return -ENOMEM;
		w->iv = iv;
		w->cap = cap;
	}
	w->iv[w->n++] = v;
	return 0;
}

/* The next interval along a walk: the minimal ones only. */
static int meet(struct walk *w, uint32_t left, uint32_t right)
{
	if (w->holding && w->held.right == right) {
		w->held.left = left; /* inside the held one */
		return 0;
	}
	if (w->holding && w->held.left == left)
		return 0; /* holds the held one */
	if (w->holding && keep(w, w->held))
		return -ENOMEM;
	w->held = (struct own_interval){ left, right };
	w->holding = 1;
	return 0;
}

/* Walk r's events against u's: u's intervals into w. */
static int walk_pair(const struct sat_state *s, uint32_t r, uint32_t u, struct walk *w,
		     struct budget *b)
{
	uint32_t lr = s->p->threads[r].length, lu = s->p->threads[u].length, k = s->k, next = 0;
	const uint32_t *vr = s->vec + (size_t)s->base[r] * k, *vu = s->vec + (size_t)s->base[u] * k;

	w->holding = 0;
	for (uint32_t i = 0; i < lr; i++) {
		uint32_t a = vr[(size_t)i * k + u];
		while (next < lu && vu[(size_t)next * k + r] <= i)
			next++;
		if (next == lu)
			break; /* nothing of u follows R, nor anything later of r */
		if (a >= 1 && a <= next && meet(w, a, next))
			return -ENOMEM;
		if ((i + 1) % POLL_EVENTS == 0 && budget_spend(b, POLL_EVENTS))
			return -ETIME;
	}
	return w->holding ? keep(w, w->held) : 0;
}

int saturate_stops(const struct sat_state *s, struct forced *f, struct budget *b)
{
	struct walk w = { 0 };
	int err = 0;

	f->iv_off = calloc((size_t)s->k + 1, sizeof(uint32_t));
	if (!f->iv_off)
		return -ENOMEM;
	for (uint32_t u = 0; u < s->k && !err; u++) {
		f->iv_off[u] = w.n;
		for (uint32_t r = 0; r < s->k && !err; r++)
			if (r != u)
				err = walk_pair(s, r, u, &w, b);
	}
	f->iv_off[s->k] = w.n;
	f->iv = w.iv;
	return err;
}
