/* SPDX-License-Identifier: MIT */
/* A lower bound on the preemptions of every SC interleaving of a program
 * of one variable (docs/solvers.md, "One hot variable": the bound). A
 * preemption is a switch away from thread w at some cut c (w has run c
 * events and has more), and no two preemptions have the same (w, c): so
 * needs that no single (w, c) can meet at once each cost one more.
 *
 *  - own stop: a read at i > 0 of a value other than what its thread's
 *    event i - 1 left needs its thread switched away at cut i;
 *  - source stop: such a read (or a first read of a value the initial one
 *    cannot be) sees a write s of its value by another thread w, at a; when
 *    w writes again at b > a, w is switched away at a cut in a + 1 .. b
 *    before the read runs. Which s is not known: the need is one (w, c) in
 *    any of those ranges, of every write of the value by another thread.
 *
 * The bound is a set of needs no (w, c) meets two of: every own stop, then
 * the source stops (fewest cuts first) whose cuts no need taken so far
 * holds. */
#include "hot_bound.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* Cuts a read's source stop may span in all; a read past it is left out
 * (the bound stays a bound: fewer needs). */
#define SOURCE_CUTS 64

struct hot_write {
	int64_t value;
	uint32_t thread;
	uint32_t at, next; /* its place and its thread's next write (NONE: none) */
};

struct need {
	uint32_t cuts; /* cuts it spans: its rank */
	uint32_t thread, at;
};

#define NONE UINT32_MAX

static int64_t value_after(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* By key, then by place (thread, index): qsort's order for both arrays. */
static int keyed_place_cmp(int64_t kx, uint32_t tx, uint32_t ix, int64_t ky, uint32_t ty,
			   uint32_t iy)
{
	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return (ix > iy) - (ix < iy);
}

static int write_cmp(const void *a, const void *b)
{
	const struct hot_write *x = a, *y = b;

	return keyed_place_cmp(x->value, x->thread, x->at, y->value, y->thread, y->at);
}

static int need_cmp(const void *a, const void *b)
{
	const struct need *x = a, *y = b;

	return keyed_place_cmp(x->cuts, x->thread, x->at, y->cuts, y->thread, y->at);
}

struct bound {
	const struct vsc_program *p;
	uint32_t k;
	size_t *base;           /* per thread + 1: its first cut's index */
	unsigned char *claimed; /* per (thread, cut): a need taken holds it */
	struct hot_write *w;
	size_t nw;
};

/* The first of b->w[l, h) whose key (its thread, else its value) is at
 * least v, or (past) above v; they are sorted by value, then thread. By
 * halving: a value written often would else cost a step per write, for
 * every read of it (two threads toggling 1, 0 and reading 1 back, 360,000
 * events: 10 s in this bound, unpolled, past any --timeout). */
static size_t first_from(const struct bound *b, size_t l, size_t h, bool by_thread, int64_t v,
			 bool past)
{
	while (l < h) {
		size_t mid = l + (h - l) / 2;
		int64_t key = by_thread ? (int64_t)b->w[mid].thread : b->w[mid].value;
		if (key < v || (past && key == v))
			l = mid + 1;
		else
			h = mid;
	}
	return l;
}

/* The writes of v: [*lo, *hi) of b->w. */
static void writes_of(const struct bound *b, int64_t v, size_t *lo, size_t *hi)
{
	*lo = first_from(b, 0, b->nw, false, v, false);
	*hi = first_from(b, *lo, b->nw, false, v, true);
}

/* Thread t's own writes among the writes [lo, hi) of one value: [*olo,
 * *ohi). A read's stops skip them at once. */
static void own_writes(const struct bound *b, uint32_t t, size_t lo, size_t hi, size_t *olo,
		       size_t *ohi)
{
	*olo = first_from(b, lo, hi, true, t, false);
	*ohi = first_from(b, *olo, hi, true, t, true);
}

/* j, or past thread t's own writes [olo, ohi) when j is their first. */
static size_t past_own(size_t j, size_t olo, size_t ohi)
{
	return j == olo ? ohi : j;
}

/* Does event i of thread t need a source stop (it cannot see its own
 * thread's write, nor the initial value)? */
static int needs_source(const struct bound *b, uint32_t t, uint32_t i)
{
	const struct vsc_event *e = &b->p->threads[t].events[i];
	const struct vsc_var_init *in = &b->p->inits[0];

	if (e->kind == VSC_WRITE)
		return 0;
	if (i > 0)
		return value_after(e - 1) != e->value;
	return in->kind == VSC_INIT_NONE || (in->kind == VSC_INIT_KNOWN && in->value != e->value);
}

/* The cuts the source stop of event i of thread t spans, or 0 when some
 * source needs no stop (its thread writes no more) or they are too many. */
static uint32_t source_cuts(const struct bound *b, uint32_t t, uint32_t i)
{
	size_t lo, hi, olo, ohi;
	uint32_t cuts = 0;

	writes_of(b, b->p->threads[t].events[i].value, &lo, &hi);
	own_writes(b, t, lo, hi, &olo, &ohi);
	for (size_t j = past_own(lo, olo, ohi); j < hi; j = past_own(j + 1, olo, ohi)) {
		const struct hot_write *s = &b->w[j];
		if (s->next == NONE || s->next - s->at > SOURCE_CUTS - cuts)
			return 0;
		cuts += s->next - s->at;
	}
	return cuts;
}

/* Takes the source stop of event i of thread t when none of its cuts is
 * held. Returns 1 if taken. */
static int take_source(struct bound *b, uint32_t t, uint32_t i)
{
	size_t lo, hi, olo, ohi;

	writes_of(b, b->p->threads[t].events[i].value, &lo, &hi);
	own_writes(b, t, lo, hi, &olo, &ohi);
	for (size_t j = past_own(lo, olo, ohi); j < hi; j = past_own(j + 1, olo, ohi)) {
		const struct hot_write *s = &b->w[j];
		for (uint32_t c = s->at + 1; c <= s->next; c++)
			if (b->claimed[b->base[s->thread] + c])
				return 0;
	}
	for (size_t j = past_own(lo, olo, ohi); j < hi; j = past_own(j + 1, olo, ohi)) {
		const struct hot_write *s = &b->w[j];
		for (uint32_t c = s->at + 1; c <= s->next; c++)
			b->claimed[b->base[s->thread] + c] = 1;
	}
	return 1;
}

/* The writes with their next ones, and the own stops claimed; returns how
 * many own stops. */
static long own_stops(struct bound *b)
{
	long own = 0;

	for (uint32_t t = 0; t < b->k; t++) {
		const struct vsc_thread *th = &b->p->threads[t];
		uint32_t last = NONE;
		for (uint32_t i = 0; i < th->length; i++) {
			if (th->events[i].kind != VSC_WRITE && i > 0 &&
			    value_after(&th->events[i - 1]) != th->events[i].value) {
				b->claimed[b->base[t] + i] = 1;
				own++;
			}
			if (th->events[i].kind == VSC_READ)
				continue;
			if (last != NONE)
				b->w[last].next = i;
			last = (uint32_t)b->nw;
			b->w[b->nw++] =
				(struct hot_write){ value_after(&th->events[i]), t, i, NONE };
		}
	}
	return own;
}

static long source_stops(struct bound *b)
{
	struct need *needs;
	size_t n = 0;
	long taken = 0;

	for (uint32_t t = 0; t < b->k; t++)
		n += b->p->threads[t].length;
	if (!(needs = malloc((n ? n : 1) * sizeof(*needs))))
		return -ENOMEM;
	n = 0;
	for (uint32_t t = 0; t < b->k; t++)
		for (uint32_t i = 0; i < b->p->threads[t].length; i++) {
			uint32_t cuts = needs_source(b, t, i) ? source_cuts(b, t, i) : 0;
			if (cuts)
				needs[n++] = (struct need){ cuts, t, i };
		}
	qsort(needs, n, sizeof(*needs), need_cmp);
	for (size_t j = 0; j < n; j++)
		taken += take_source(b, needs[j].thread, needs[j].at);
	free(needs);
	return taken;
}

long hot_lower_bound(const struct vsc_program *p)
{
	struct bound b = { .p = p, .k = program_threads(p) };
	long own, source = -ENOMEM;

	if (program_vars(p) != 1 || p->event_count >= UINT32_MAX)
		return 0;
	b.base = malloc((b.k + 1) * sizeof(size_t));
	b.w = malloc((p->event_count ? p->event_count : 1) * sizeof(*b.w));
	b.claimed = calloc(p->event_count + b.k + 1, 1);
	if (b.base && b.w && b.claimed) {
		b.base[0] = 0;
		for (uint32_t t = 0; t < b.k; t++)
			b.base[t + 1] = b.base[t] + p->threads[t].length + 1;
		own = own_stops(&b);
		qsort(b.w, b.nw, sizeof(*b.w), write_cmp);
		source = source_stops(&b);
		if (source >= 0)
			source += own;
	}
	free(b.base);
	free(b.w);
	free(b.claimed);
	return source;
}
