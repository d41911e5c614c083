/* SPDX-License-Identifier: MIT */
/* A witness for a spin lock held when the recording started (lock_held.h).
 *
 * `vsc record -p` attaches to a running process: a thread inside its
 * critical section then starts with the rest of its hold (its first write
 * of the lock word x is a give, reading the taken value B, writing the
 * free one A) while the others wait for it (their first writes are takes,
 * reading A; before them they may read B). The lock stops' shape asks a
 * take first in every thread, so they left such recordings to the search,
 * which wanders there for minutes.
 *
 * With `init x ?` the initial value v may be B: that thread, h, held the
 * lock at the start. Then h runs up to just before its first give, the
 * other threads read B where they begin with such reads, h gives, and
 * from there on the program is the rest of every thread with x free: a
 * view of p that starts each thread after those events (no copy of the
 * events), whose lock stops (lock_stops.c, with its initial values pinned
 * by lock_init.c) give an interleaving along the holds. The prefix and
 * that interleaving together are verified on p before they are kept.
 *
 * Only a witness (an upper bound): with v unknown, v = A is not ruled out
 * (h's give may follow another thread's take, values allow it), so no
 * lower bound is taken from the view. When the waiters pin v = B
 * (lock_init.c), lock_stops.c puts h's first hold on the line itself and
 * bounds it; this view is then the fallback witness. */
#include "lock_held.h"

#include <stdlib.h>
#include <string.h>

#include "program.h"

/* Each thread's first write of x: the pairs it reads and writes into
 * r[t], w[t] (PAIR_NONE, PAIR_NONE: t does not write x; PAIR_NONE, a pair:
 * a plain write). */
static void first_writes(const struct vsc_program *p, const struct analysis *a, uint32_t x,
			 uint32_t *r, uint32_t *w)
{
	for (uint32_t t = 0; t < a->k; t++) {
		r[t] = w[t] = PAIR_NONE;
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			if (p->threads[t].events[i].var == x && ep->write != PAIR_NONE) {
				r[t] = ep->read;
				w[t] = ep->write;
				break;
			}
		}
	}
}

/* Is h the holder at the start: its first write of x a give (B to A), the
 * first write of every other thread that writes x a take (A to B)? */
static int holds_at_start(const struct analysis *a, const uint32_t *r, const uint32_t *w,
			  uint32_t h)
{
	if (r[h] == PAIR_NONE || w[h] == PAIR_NONE || r[h] == w[h])
		return 0;
	for (uint32_t t = 0; t < a->k; t++)
		if (t != h && w[t] != PAIR_NONE && (r[t] != w[h] || w[t] != r[h]))
			return 0;
	return 1;
}

/* Where each thread starts in the view: h after its first give of x, the
 * others after the reads of x seeing B they begin with. from[h]: 0 when
 * h has no such give. */
static void view_starts(const struct vsc_program *p, const struct analysis *a, uint32_t x,
			uint32_t h, uint32_t *from)
{
	uint32_t taken = PAIR_NONE;

	from[h] = 0;
	for (uint32_t i = 0; i < p->threads[h].length; i++)
		if (p->threads[h].events[i].var == x && a->pairs[h][i].write != PAIR_NONE) {
			from[h] = i + 1;
			taken = a->pairs[h][i].read;
			break;
		}
	for (uint32_t t = 0; t < a->k; t++) {
		const struct vsc_thread *th = &p->threads[t];
		uint32_t i = 0;
		if (t == h)
			continue;
		while (i < th->length && th->events[i].var == x &&
		       a->pairs[t][i].write == PAIR_NONE && a->pairs[t][i].read == taken)
			i++;
		from[t] = i;
	}
}

/* p from from[t] on in each thread, sharing p's events; the variables the
 * cut events write get `init ?` (their values there are not the initial
 * ones). Returns 0 or -1 (no memory: view_free() it anyway). */
static int view_make(struct vsc_program *v, const struct vsc_program *p, const uint32_t *from)
{
	uint32_t k = program_threads(p), nv = program_vars(p);

	*v = *p;
	v->threads = malloc((k ? k : 1) * sizeof(*v->threads));
	v->inits = malloc((nv ? nv : 1) * sizeof(*v->inits));
	if (!v->threads || !v->inits)
		return -1;
	memcpy(v->inits, p->inits, nv * sizeof(*v->inits));
	v->event_count = 0;
	for (uint32_t t = 0; t < k; t++) {
		const struct vsc_thread *th = &p->threads[t];
		struct vsc_thread *vt = &v->threads[t];
		*vt = *th;
		vt->events = th->events ? th->events + from[t] : NULL;
		vt->ts = th->ts ? th->ts + from[t] : NULL;
		vt->lines = th->lines ? th->lines + from[t] : NULL;
		vt->packed = NULL;
		vt->length = vt->cap = th->length - from[t];
		vt->events_mapped = vt->lines_mapped = vt->packed_mapped = 0;
		v->event_count += vt->length;
		for (uint32_t i = 0; i < from[t]; i++)
			if (th->events[i].kind != VSC_READ)
				v->inits[th->events[i].var].kind = VSC_INIT_UNKNOWN;
	}
	return 0;
}

static void view_free(struct vsc_program *v)
{
	free(v->threads);
	free(v->inits);
}

/* The cut events (h up to before its give, the others' reads of B, h's
 * give), then the view's witness w2 (thread numbers are p's). */
static uint32_t *join_witness(const struct vsc_program *p, uint32_t h, const uint32_t *from,
			      const uint32_t *w2, size_t n2)
{
	uint32_t *w = malloc((p->event_count + 1) * sizeof(uint32_t));
	size_t n = 0;

	if (!w)
		return NULL;
	for (uint32_t i = 0; i + 1 < from[h]; i++)
		w[n++] = h;
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; t != h && i < from[t]; i++)
			w[n++] = t;
	if (from[h])
		w[n++] = h;
	memcpy(w + n, w2, n2 * sizeof(uint32_t));
	return w;
}

/* The witness for holder h of x, into found when it verifies. */
static void held_by(struct lock_stops *found, const struct vsc_program *p, const struct analysis *a,
		    uint32_t x, uint32_t h, struct budget *b)
{
	uint32_t *from = malloc((a->k + 1) * sizeof(uint32_t)), *w = NULL;
	struct vsc_program v;
	struct analysis va;
	struct lock_stops rest;
	long count;

	memset(&v, 0, sizeof(v));
	if (!from)
		return;
	view_starts(p, a, x, h, from);
	if (from[h] && !view_make(&v, p, from) && !analysis_build_within(&va, &v, b)) {
		lock_stops_find(&rest, &v, &va, b);
		if (rest.witness)
			w = join_witness(p, h, from, rest.witness, v.event_count);
		if (w && !vsc_witness_verify(p, w, p->event_count, &count, NULL, 0) &&
		    (!found->witness || count < found->preemptions)) {
			free(found->witness);
			found->witness = w;
			found->preemptions = count;
			w = NULL;
		}
		free(w);
		lock_stops_free(&rest);
		analysis_free(&va);
	}
	view_free(&v);
	free(from);
}

void lock_held_witness(struct lock_stops *found, const struct vsc_program *p,
		       const struct analysis *a, uint32_t x, struct budget *b)
{
	uint32_t *r, *w;

	if (a->init[x] != VALUE_UNDECIDED || a->k > LOCK_HELD_THREADS || program_packed(p))
		return;
	r = malloc(a->k * sizeof(uint32_t));
	w = malloc(a->k * sizeof(uint32_t));
	if (r && w)
		first_writes(p, a, x, r, w);
	for (uint32_t h = 0; r && w && h < a->k; h++)
		if (holds_at_start(a, r, w, h))
			held_by(found, p, a, x, h, b);
	free(r);
	free(w);
}
