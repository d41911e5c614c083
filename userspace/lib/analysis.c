/* SPDX-License-Identifier: MIT */
/* Pair ids by one hash pass over the events; writer counts; static checks:
 *  - a read of a value that nothing writes (and no init gives) never succeeds;
 *  - in a variable with one writer thread, that thread's own reads see its
 *    own last write (or the initial value): checked without any search. */
#include "analysis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/util/hash.h"

/* The (variable, value) -> pair id map, only alive while building. */
struct pair_map {
	struct hash_index index; /* pair ids by (var, value) */
	uint32_t *var;
	int64_t *value;
	uint32_t count, cap;
	int failed; /* out of memory once: the ids are not to be trusted */
};

struct pair_key {
	uint32_t var;
	int64_t value;
};

static uint64_t pair_hash(uint32_t var, int64_t value)
{
	uint64_t h =
		(uint64_t)value * 0x9e3779b97f4a7c15ULL ^ (uint64_t)var * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 29);
}

static bool pair_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct pair_map *m = ctx;
	const struct pair_key *k = key;

	return m->var[id] == k->var && m->value[id] == k->value;
}

static int pair_map_grow(struct pair_map *m)
{
	uint32_t n = m->cap ? m->cap * 2 : 512;
	uint32_t *var = realloc(m->var, n * sizeof(*var));
	int64_t *value;

	if (var)
		m->var = var;
	value = realloc(m->value, n * sizeof(*value));
	if (value)
		m->value = value;
	if (!var || !value || n > (1u << 30) || hash_index_reserve(&m->index, n))
		return -ENOMEM;
	m->cap = n;
	return 0;
}

static void pair_map_free(struct pair_map *m)
{
	hash_index_free(&m->index);
	free(m->var);
	free(m->value);
}

/* The id of (var, value), added when new; PAIR_NONE when out of memory. */
static uint32_t pair_id(struct pair_map *m, uint32_t var, int64_t value)
{
	struct pair_key key = { var, value };
	uint64_t hash = pair_hash(var, value);
	int64_t found = hash_index_find(&m->index, hash, pair_eq, m, &key);

	if (found >= 0)
		return (uint32_t)found;
	if (m->count == m->cap && pair_map_grow(m)) {
		m->failed = 1;
		return PAIR_NONE;
	}
	m->var[m->count] = var;
	m->value[m->count] = value;
	hash_index_add(&m->index, hash, m->count); /* room was reserved by the growth */
	return m->count++;
}

void analysis_free(struct analysis *a)
{
	for (uint32_t t = 0; a->pairs && t < a->k; t++)
		free(a->pairs[t]);
	free(a->pairs);
	free(a->reads_of);
	free(a->writes_of);
	free(a->var_reads);
	free(a->var_writes);
	free(a->writers);
	free(a->writer);
	free(a->init);
	memset(a, 0, sizeof(*a));
}

#define EVENTS_PER_LOOK 65536

/* Every EVENTS_PER_LOOK events: a progress line, and is the time up? */
static int look_up(struct budget *b, uint64_t done, uint64_t total)
{
	if (!b)
		return 0;
	budget_progress(b, "analysis: events", done, total);
	return budget_spend(b, EVENTS_PER_LOOK) ? -ETIME : 0;
}

static int assign_pairs(struct analysis *a, const struct vsc_program *p, struct pair_map *m,
			struct budget *b)
{
	uint64_t done = 0;

	for (uint32_t v = 0; v < a->nvars; v++) {
		uint8_t kind = p->inits[v].kind;
		a->init[v] = kind == VSC_INIT_KNOWN     ? pair_id(m, v, p->inits[v].value)
			     : kind == VSC_INIT_UNKNOWN ? VALUE_UNDECIDED
							: VALUE_NONE;
	}
	for (uint32_t t = 0; t < a->k; t++) {
		const struct vsc_thread *th = &p->threads[t];
		a->pairs[t] = malloc((th->length ? th->length : 1) * sizeof(**a->pairs));
		if (!a->pairs[t])
			return -ENOMEM;
		for (uint32_t i = 0; i < th->length; i++) {
			const struct vsc_event *e = &th->events[i];
			struct event_pairs *ep = &a->pairs[t][i];
			if (++done % EVENTS_PER_LOOK == 0 && look_up(b, done, p->event_count))
				return -ETIME;
			ep->read = e->kind == VSC_WRITE ? PAIR_NONE : pair_id(m, e->var, e->value);
			ep->write = e->kind == VSC_READ
					    ? PAIR_NONE
					    : pair_id(m, e->var,
						      e->kind == VSC_RMW ? e->new_value : e->value);
		}
	}
	return 0;
}

static void count_accesses(struct analysis *a, const struct vsc_program *p)
{
	for (uint32_t v = 0; v < a->nvars; v++)
		a->writer[v] = UINT32_MAX;
	for (uint32_t t = 0; t < a->k; t++) {
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			uint32_t v = p->threads[t].events[i].var;
			if (ep->read != PAIR_NONE) {
				a->reads_of[ep->read]++;
				a->var_reads[v]++;
			}
			if (ep->write == PAIR_NONE)
				continue;
			a->writes_of[ep->write]++;
			a->var_writes[v]++;
			if (a->writer[v] != t) {
				a->writers[v]++;
				a->writer[v] = t;
			}
		}
	}
}

/* Reads that can never see their value. One pass over the events: `own`
 * starts as the initial values and each thread puts back what it changed
 * when it is done, so many threads over many variables cost no more than
 * their events (copying the initial values per thread was threads x vars). */
static int static_refutation(struct analysis *a, const struct vsc_program *p)
{
	uint32_t *own = malloc((a->nvars ? a->nvars : 1) * sizeof(*own));

	if (!own)
		return -ENOMEM;
	memcpy(own, a->init, a->nvars * sizeof(*own));
	for (uint32_t t = 0; t < a->k && !a->refuted; t++) {
		const struct vsc_thread *th = &p->threads[t];
		for (uint32_t i = 0; i < th->length && !a->refuted; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			uint32_t v = th->events[i].var;
			if (ep->read != PAIR_NONE && a->writes_of[ep->read] == 0 &&
			    a->init[v] != ep->read && a->init[v] != VALUE_UNDECIDED) {
				a->refuted = 1;
				a->why = "a read of a value nothing writes";
			}
			/* only thread t writes v: it sees its own last write */
			if (!a->refuted && ep->read != PAIR_NONE && a->writers[v] == 1 &&
			    a->writer[v] == t && own[v] != ep->read && own[v] != VALUE_UNDECIDED) {
				a->refuted = 1;
				a->why =
					"a read by the only writer of a variable misses its own last write";
			}
			if (ep->read != PAIR_NONE)
				own[v] = ep->read;
			if (ep->write != PAIR_NONE)
				own[v] = ep->write;
		}
		for (uint32_t i = 0; i < th->length; i++)
			own[th->events[i].var] = a->init[th->events[i].var];
	}
	free(own);
	return 0;
}

int analysis_build(struct analysis *a, const struct vsc_program *p)
{
	return analysis_build_within(a, p, NULL);
}

int analysis_build_within(struct analysis *a, const struct vsc_program *p, struct budget *b)
{
	uint32_t k = program_threads(p), nv = program_vars(p);
	size_t kk = k ? k : 1, vv = nv ? nv : 1;
	struct pair_map m;
	int err = 0;

	memset(a, 0, sizeof(*a));
	a->k = k;
	a->nvars = nv;
	a->pairs = calloc(kk, sizeof(*a->pairs));
	a->var_reads = calloc(vv, sizeof(uint32_t));
	a->var_writes = calloc(vv, sizeof(uint32_t));
	a->writers = calloc(vv, sizeof(uint32_t));
	a->writer = malloc(vv * sizeof(uint32_t));
	a->init = malloc(vv * sizeof(uint32_t));
	memset(&m, 0, sizeof(m));
	if (!a->pairs || !a->var_reads || !a->var_writes || !a->writers || !a->writer || !a->init)
		err = -ENOMEM;
	if (!err)
		err = assign_pairs(a, p, &m, b);
	if (!err && m.failed)
		err = -ENOMEM;
	a->npairs = m.count;
	pair_map_free(&m);
	if (!err) {
		a->reads_of = calloc(a->npairs ? a->npairs : 1, sizeof(uint32_t));
		a->writes_of = calloc(a->npairs ? a->npairs : 1, sizeof(uint32_t));
		if (!a->reads_of || !a->writes_of)
			err = -ENOMEM;
	}
	if (!err) {
		count_accesses(a, p);
		err = static_refutation(a, p);
	}
	if (err)
		analysis_free(a);
	return err;
}
