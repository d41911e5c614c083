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

#include "writes_by_value.h"

#include <errno.h>
#include <stdlib.h>

/* Cuts a read's source stop may span in all; a read past it is left out
 * (the bound stays a bound: fewer needs). */
#define SOURCE_CUTS 64

struct need {
	uint32_t cuts; /* cuts it spans: its rank */
	uint32_t thread, at;
};

static int64_t value_after(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* By cuts, then by place (thread, index). */
static int need_cmp(const void *a, const void *b)
{
	const struct need *x = a, *y = b;

	if (x->cuts != y->cuts)
		return x->cuts < y->cuts ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

struct bound {
	const struct vsc_program *p;
	uint32_t k;
	size_t *base;           /* per thread + 1: its first cut's index */
	unsigned char *claimed; /* per (thread, cut): a need taken holds it */
	struct writes_by_value w;
};

/* The writes [*lo, *hi) of the value event i of thread t reads, and t's
 * own among them, [*olo, *ohi): a read's stops skip those at once. */
static void writes_seen(const struct bound *b, uint32_t t, uint32_t i, size_t *lo, size_t *hi,
			size_t *olo, size_t *ohi)
{
	writes_of_value(&b->w, b->p->threads[t].events[i].value, lo, hi);
	writes_of_thread(&b->w, t, *lo, *hi, olo, ohi);
}

/* The cuts a + 1 .. b from write s, at a, to its thread's next write, at
 * b: b - a; 0 when its thread writes no more within limit events. */
static uint32_t cuts_to_next_write(const struct bound *b, const struct value_write *s,
				   uint32_t limit)
{
	const struct vsc_thread *th = &b->p->threads[s->thread];

	for (uint32_t c = s->at + 1; c < th->length && c - s->at <= limit; c++)
		if (th->events[c].kind != VSC_READ)
			return c - s->at;
	return 0;
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

	writes_seen(b, t, i, &lo, &hi, &olo, &ohi);
	for (size_t j = past_own(lo, olo, ohi); j < hi; j = past_own(j + 1, olo, ohi)) {
		uint32_t span = cuts_to_next_write(b, &b->w.w[j], SOURCE_CUTS - cuts);
		if (!span)
			return 0;
		cuts += span;
	}
	return cuts;
}

/* Takes the source stop of event i of thread t when none of its cuts is
 * held. Returns 1 if taken. */
static int take_source(struct bound *b, uint32_t t, uint32_t i)
{
	size_t lo, hi, olo, ohi;

	writes_seen(b, t, i, &lo, &hi, &olo, &ohi);
	for (size_t j = past_own(lo, olo, ohi); j < hi; j = past_own(j + 1, olo, ohi)) {
		const struct value_write *s = &b->w.w[j];
		uint32_t span = cuts_to_next_write(b, s, SOURCE_CUTS);
		for (uint32_t c = s->at + 1; c <= s->at + span; c++)
			if (b->claimed[b->base[s->thread] + c])
				return 0;
	}
	for (size_t j = past_own(lo, olo, ohi); j < hi; j = past_own(j + 1, olo, ohi)) {
		const struct value_write *s = &b->w.w[j];
		uint32_t span = cuts_to_next_write(b, s, SOURCE_CUTS);
		for (uint32_t c = s->at + 1; c <= s->at + span; c++)
			b->claimed[b->base[s->thread] + c] = 1;
	}
	return 1;
}

/* The own stops claimed; returns how many. */
static long own_stops(struct bound *b)
{
	long own = 0;

	for (uint32_t t = 0; t < b->k; t++) {
		const struct vsc_thread *th = &b->p->threads[t];
		for (uint32_t i = 1; i < th->length; i++)
			if (th->events[i].kind != VSC_WRITE &&
			    value_after(&th->events[i - 1]) != th->events[i].value) {
				b->claimed[b->base[t] + i] = 1;
				own++;
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
	b.claimed = calloc(p->event_count + b.k + 1, 1);
	if (b.base && b.claimed && !writes_by_value_build(&b.w, p)) {
		b.base[0] = 0;
		for (uint32_t t = 0; t < b.k; t++)
			b.base[t + 1] = b.base[t] + p->threads[t].length + 1;
		own = own_stops(&b);
		source = source_stops(&b);
		if (source >= 0)
			source += own;
	}
	free(b.base);
	writes_by_value_free(&b.w);
	free(b.claimed);
	return source;
}
