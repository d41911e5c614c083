/* SPDX-License-Identifier: MIT */
#include "sc_moments.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 32
#define MAX_VARS 64

/* A state is a key: each thread's events done and each variable's memory
 * (0: no value, 1: an unknown initial value not read yet, 2 + v: the
 * program's v-th distinct value), in mixed radix. */
struct walk {
	const struct vsc_program *p;
	size_t k, vars, nvalues, max_states;
	const struct vsc_event *ev[MAX_THREADS];
	size_t len[MAX_THREADS];
	uint64_t wt[MAX_THREADS], wz[MAX_VARS], radix, points; /* points: the threads' part */
	int64_t *values;
	uint64_t *keys;
	uint8_t *mark; /* 0: free slot, 1: no complete interleaving from it, 2: one */
	size_t cap, used;
};

static size_t slot_of(const struct walk *w, uint64_t key)
{
	size_t s = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (w->cap - 1);

	while (w->mark[s] && w->keys[s] != key)
		s = (s + 1) & (w->cap - 1);
	return s;
}

static int grow(struct walk *w)
{
	uint64_t *keys = w->keys;
	uint8_t *mark = w->mark;
	size_t cap = w->cap;

	w->cap = cap ? 2 * cap : 1024;
	w->keys = malloc(w->cap * sizeof(*w->keys));
	w->mark = calloc(w->cap, 1);
	if (!w->keys || !w->mark) {
		free(keys);
		free(mark);
		return -ENOMEM;
	}
	for (size_t s = 0; s < cap; s++)
		if (mark[s]) {
			size_t t = slot_of(w, keys[s]);
			w->keys[t] = keys[s];
			w->mark[t] = mark[s];
		}
	free(keys);
	free(mark);
	return 0;
}

static size_t value_code(const struct walk *w, int64_t v)
{
	for (size_t i = 0; i < w->nvalues; i++)
		if (w->values[i] == v)
			return 2 + i;
	return 0; /* not reached: every value is in the table */
}

static size_t digit(uint64_t key, uint64_t weight, uint64_t radix)
{
	return (size_t)(key / weight % radix);
}

/* The key after thread t's next event from key, or UINT64_MAX when that
 * event cannot run there (a read of another value). */
static uint64_t step(const struct walk *w, uint64_t key, size_t t)
{
	size_t pos = digit(key, w->wt[t], w->len[t] + 1);
	const struct vsc_event *e;
	size_t mem, now;

	if (pos == w->len[t])
		return UINT64_MAX;
	e = &w->ev[t][pos];
	mem = digit(key, w->wz[e->var], w->radix);
	if (e->kind != VSC_WRITE && !(mem == 1 || (mem >= 2 && w->values[mem - 2] == e->value)))
		return UINT64_MAX;
	now = e->kind == VSC_READ ? value_code(w, e->value)
				  : value_code(w, e->kind == VSC_RMW ? e->new_value : e->value);
	return key + w->wt[t] + (uint64_t)now * w->wz[e->var] - (uint64_t)mem * w->wz[e->var];
}

/* 1 when a complete SC interleaving goes on from key, 0 when none, or a
 * negative errno. */
static int visit(struct walk *w, uint64_t key)
{
	size_t s = w->cap ? slot_of(w, key) : 0;
	int good = 1;

	if (w->cap && w->mark[s])
		return w->mark[s] == 2;
	if (w->used >= w->max_states)
		return -E2BIG;
	if (2 * (w->used + 1) > w->cap) {
		if (grow(w))
			return -ENOMEM;
		s = slot_of(w, key);
	}
	w->keys[s] = key;
	w->mark[s] = 1;
	w->used++;
	for (size_t t = 0; t < w->k; t++)
		if (digit(key, w->wt[t], w->len[t] + 1) < w->len[t])
			good = 0; /* not done: good only through a step */
	for (size_t t = 0; t < w->k; t++) {
		uint64_t next = step(w, key, t);
		int r;
		if (next == UINT64_MAX)
			continue;
		if ((r = visit(w, next)) < 0)
			return r;
		good |= r;
	}
	if (good)
		w->mark[slot_of(w, key)] = 2;
	return good;
}

static int good_state(const struct walk *w, uint64_t key)
{
	size_t s = slot_of(w, key);

	return w->mark[s] == 2;
}

/* The distinct values of the program (its events' and known inits'). */
static int list_values(struct walk *w)
{
	size_t cap = 2 * (vsc_program_event_count(w->p) + w->vars) + 1;

	w->values = malloc(cap * sizeof(*w->values));
	if (!w->values)
		return -ENOMEM;
	for (size_t t = 0; t < w->k; t++)
		for (size_t i = 0; i < w->len[t]; i++) {
			int64_t v[2] = { w->ev[t][i].value, w->ev[t][i].new_value };
			for (int j = 0; j < (w->ev[t][i].kind == VSC_RMW ? 2 : 1); j++)
				if (value_code(w, v[j]) == 0)
					w->values[w->nvalues++] = v[j];
		}
	for (size_t z = 0; z < w->vars; z++) {
		int64_t v = 0;
		if (vsc_program_var_init(w->p, z, &v) == VSC_INIT_KNOWN && value_code(w, v) == 0)
			w->values[w->nvalues++] = v;
	}
	return 0;
}

/* The weights of the key's digits; -E2BIG when they pass 64 bits. */
static int weigh(struct walk *w)
{
	uint64_t m = 1;

	w->radix = 2 + w->nvalues;
	for (size_t t = 0; t < w->k; t++) {
		w->wt[t] = m;
		if (__builtin_mul_overflow(m, (uint64_t)(w->len[t] + 1), &m))
			return -E2BIG;
	}
	w->points = m;
	for (size_t z = 0; z < w->vars; z++) {
		w->wz[z] = m;
		if (__builtin_mul_overflow(m, w->radix, &m))
			return -E2BIG;
	}
	return 0;
}

static uint64_t start_key(const struct walk *w)
{
	uint64_t key = 0;

	for (size_t z = 0; z < w->vars; z++) {
		int64_t v = 0;
		int kind = vsc_program_var_init(w->p, z, &v);
		size_t code = kind == VSC_INIT_KNOWN ? value_code(w, v) : kind == VSC_INIT_UNKNOWN;
		key += (uint64_t)code * w->wz[z];
	}
	return key;
}

/* The good states' points, each once, with the steps from any of them. */
static int collect(struct walk *w, struct sc_moments *m)
{
	size_t cap = 1, n = 0;
	uint64_t *seen;
	size_t *at;

	while (cap < 2 * w->used + 2)
		cap *= 2;
	seen = malloc(cap * sizeof(*seen));
	at = malloc(cap * sizeof(*at));
	m->pos = malloc((w->used + 1) * w->k * sizeof(*m->pos));
	m->steps = calloc(w->used + 1, sizeof(*m->steps));
	if (!seen || !at || !m->pos || !m->steps) {
		free(seen);
		free(at);
		return -ENOMEM;
	}
	memset(at, 0xff, cap * sizeof(*at));
	for (size_t s = 0; s < w->cap; s++) {
		uint64_t key = w->keys[s], point = key % w->points;
		size_t h = (size_t)((point * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
		uint32_t bits = 0;
		if (w->mark[s] != 2)
			continue;
		for (size_t t = 0; t < w->k; t++) {
			uint64_t next = step(w, key, t);
			if (next != UINT64_MAX && good_state(w, next))
				bits |= (uint32_t)1 << t;
		}
		while (at[h] != SIZE_MAX && seen[h] != point)
			h = (h + 1) & (cap - 1);
		if (at[h] == SIZE_MAX) {
			seen[h] = point;
			at[h] = n;
			for (size_t t = 0; t < w->k; t++)
				m->pos[n * w->k + t] =
					(uint32_t)digit(key, w->wt[t], w->len[t] + 1);
			n++;
		}
		m->steps[at[h]] |= bits;
	}
	m->n = n;
	free(seen);
	free(at);
	return 0;
}

int sc_moments(const struct vsc_program *p, size_t max_states, struct sc_moments *m)
{
	struct walk w = { .p = p, .max_states = max_states };
	int r;

	memset(m, 0, sizeof(*m));
	w.k = vsc_program_thread_count(p);
	w.vars = vsc_program_var_count(p);
	m->threads = w.k;
	if (w.k > MAX_THREADS || w.vars > MAX_VARS)
		return -E2BIG;
	for (size_t t = 0; t < w.k; t++) {
		w.len[t] = vsc_program_thread_length(p, t);
		w.ev[t] = vsc_program_events(p, t);
	}
	r = list_values(&w);
	if (!r)
		r = weigh(&w);
	if (!r && (r = visit(&w, start_key(&w))) >= 0) {
		m->consistent = r;
		r = collect(&w, m);
	}
	free(w.values);
	free(w.keys);
	free(w.mark);
	if (r)
		sc_moments_free(m);
	return r;
}

void sc_moments_free(struct sc_moments *m)
{
	free(m->pos);
	free(m->steps);
	m->pos = NULL;
	m->steps = NULL;
	m->n = 0;
}
