/* SPDX-License-Identifier: MIT */
/* The writes of one variable by value (writes_by_value.h). Taken in
 * program order, thread by thread, they are already by place: sorted by
 * value stably, they are by value, then place. Where the values written
 * span at most a few per write (counters, flags: the recordings' shape)
 * that is one counting pass that puts each write in its place at once;
 * elsewhere a sort. */
#include "writes_by_value.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "solver.h"

/* Values per write up to which the writes are placed by counting. */
#define SPAN_PER_WRITE 2

static int64_t value_after(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

static int value_write_cmp(const void *a, const void *b)
{
	const struct value_write *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* Each write of p into x->w, in program order thread by thread, each at
 * its slot: per value less least, the next free entry of the value (NULL:
 * the next entry). */
static void place_writes(struct writes_by_value *x, const struct vsc_program *p, uint32_t *slot,
			 int64_t least)
{
	size_t in_order = 0;

	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		for (uint32_t i = 0; i < th->length; i++) {
			int64_t v = value_after(&th->events[i]);
			if (th->events[i].kind == VSC_READ)
				continue;
			x->w[slot ? slot[(uint64_t)v - (uint64_t)least]++ : in_order++] =
				(struct value_write){ v, t, i };
		}
	}
}

/* x->w by counting: slots per value from least over span values. 0 or
 * -ENOMEM. */
static int place_by_counting(struct writes_by_value *x, const struct vsc_program *p, int64_t least,
			     uint64_t span)
{
	uint32_t *slot = calloc(span + 1, sizeof(uint32_t));

	if (!slot)
		return -ENOMEM;
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++)
			if (p->threads[t].events[i].kind != VSC_READ)
				slot[(uint64_t)value_after(&p->threads[t].events[i]) -
				     (uint64_t)least + 1]++;
	for (uint64_t v = 0; v < span; v++)
		slot[v + 1] += slot[v];
	place_writes(x, p, slot, least);
	free(slot);
	return 0;
}

int writes_by_value_build(struct writes_by_value *x, const struct vsc_program *p)
{
	int64_t least = INT64_MAX, most = INT64_MIN;
	uint64_t span;

	x->w = NULL;
	x->n = 0;
	if (p->event_count >= UINT32_MAX)
		return -EINVAL;
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct vsc_event *e = &p->threads[t].events[i];
			int64_t v = value_after(e);
			if (e->kind == VSC_READ)
				continue;
			least = v < least ? v : least;
			most = v > most ? v : most;
			x->n++;
		}
	if (!(x->w = malloc((x->n ? x->n : 1) * sizeof(*x->w))))
		return -ENOMEM;
	if (!x->n)
		return 0;
	span = (uint64_t)most - (uint64_t)least + 1; /* 0: all 2^64 */
	if (span && span <= SPAN_PER_WRITE * (uint64_t)x->n + 64)
		return place_by_counting(x, p, least, span);
	place_writes(x, p, NULL, 0);
	qsort(x->w, x->n, sizeof(*x->w), value_write_cmp);
	return 0;
}

void writes_by_value_free(struct writes_by_value *x)
{
	free(x->w);
	x->w = NULL;
	x->n = 0;
}

static int64_t key_of(const struct value_write *w, bool by_thread)
{
	return by_thread ? (int64_t)w->thread : w->value;
}

/* The first of w[l, h) whose key (its thread, else its value) is at least
 * v, or (past) above v; the keys are sorted there. */
static size_t first_from(const struct value_write *w, size_t l, size_t h, bool by_thread, int64_t v,
			 bool past)
{
	while (l < h) {
		size_t mid = l + (h - l) / 2;
		int64_t key = key_of(&w[mid], by_thread);
		if (key < v || (past && key == v))
			l = mid + 1;
		else
			h = mid;
	}
	return l;
}

/* The first of w[l, h) whose key is above v, every key of w[l, h) sorted
 * and w[l]'s at most v: by doubling steps from l, then halving the last. */
static size_t first_past(const struct value_write *w, size_t l, size_t h, bool by_thread, int64_t v)
{
	size_t step = 1;

	while (step < h - l && key_of(&w[l + step - 1], by_thread) <= v) {
		l += step;
		step *= 2;
	}
	return first_from(w, l, step < h - l ? l + step - 1 : h, by_thread, v, true);
}

void writes_of_value(const struct writes_by_value *x, int64_t v, size_t *lo, size_t *hi)
{
	*lo = first_from(x->w, 0, x->n, false, v, false);
	*hi = *lo < x->n && x->w[*lo].value == v ? first_past(x->w, *lo, x->n, false, v) : *lo;
}

void writes_of_thread(const struct writes_by_value *x, uint32_t t, size_t lo, size_t hi,
		      size_t *tlo, size_t *thi)
{
	*tlo = first_from(x->w, lo, hi, true, t, false);
	*thi = *tlo < hi && x->w[*tlo].thread == t ? first_past(x->w, *tlo, hi, true, t) : *tlo;
}
