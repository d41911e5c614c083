/* SPDX-License-Identifier: MIT */
/* Pair ids by one pass over the events (a table by value or a hash); writer counts; static checks:
 *  - a read of a value that nothing writes (and no init gives) never succeeds;
 *  - in a variable with one writer thread, that thread's own reads see its
 *    own last write (or the initial value): checked without any search. */
#include "analysis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/util/hash.h"
#include "value_span.h"

/* The (variable, value) -> pair id map, only alive while building. A
 * variable whose values lie in a range not much wider than its accesses
 * (counters, flags, indices: what generated and most recorded traces hold)
 * finds its ids in a table indexed by value - least value, which costs no
 * hashing and 4 bytes per value of the range; any other variable (pointers,
 * scattered values) in the hash. Ids are handed out in order of first
 * sight either way, so they do not depend on which variables are dense. */
struct pair_map {
	/* per variable: least value and start of its range in dense, or
	 * DENSE_NONE when its values are hashed */
	int64_t *least;
	size_t *dense_start;
	uint32_t *dense;         /* id + 1 per value of each dense range; 0: no id yet */
	struct hash_index index; /* hashed entries by (var, value) */
	uint32_t *var, *id;
	int64_t *value;
	uint32_t hashed, cap; /* hashed entries and their room */
	uint32_t count;       /* ids handed out */
	size_t most_ids;      /* at most this many: a dense span's width, a
			       * hashed variable's values */
	int failed;           /* out of memory once: the ids are not to be trusted */
};

#define DENSE_NONE SIZE_MAX

/* Table entries a variable may have beyond value_span.h's rule (a few
 * accesses of a small counter). */
#define DENSE_SLACK 64

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

static bool pair_eq(const void *ctx, uint32_t entry, const void *key)
{
	const struct pair_map *m = ctx;
	const struct pair_key *k = key;

	return m->var[entry] == k->var && m->value[entry] == k->value;
}

static int pair_map_grow(struct pair_map *m)
{
	uint32_t n = m->cap ? m->cap * 2 : 512;
	uint32_t *var = realloc(m->var, n * sizeof(*var)), *id;
	int64_t *value;

	if (var)
		m->var = var;
	id = realloc(m->id, n * sizeof(*id));
	if (id)
		m->id = id;
	value = realloc(m->value, n * sizeof(*value));
	if (value)
		m->value = value;
	if (!var || !id || !value || n > (1u << 30) || hash_index_reserve(&m->index, n))
		return -ENOMEM;
	m->cap = n;
	return 0;
}

static void pair_map_free(struct pair_map *m)
{
	hash_index_free(&m->index);
	free(m->var);
	free(m->id);
	free(m->value);
	free(m->least);
	free(m->dense_start);
	free(m->dense);
}

/* A new id for a pair seen for the first time; PAIR_NONE when there are
 * too many. */
static uint32_t next_id(struct pair_map *m)
{
	if (m->count >= PAIR_NONE - 2) {
		m->failed = 1;
		return PAIR_NONE;
	}
	return m->count++;
}

static uint32_t hashed_pair_id(struct pair_map *m, uint32_t var, int64_t value)
{
	struct pair_key key = { var, value };
	uint64_t hash = pair_hash(var, value);
	int64_t found = hash_index_find(&m->index, hash, pair_eq, m, &key);

	if (found >= 0)
		return m->id[found];
	if (m->hashed == m->cap && pair_map_grow(m)) {
		m->failed = 1;
		return PAIR_NONE;
	}
	m->var[m->hashed] = var;
	m->value[m->hashed] = value;
	m->id[m->hashed] = next_id(m);
	hash_index_add(&m->index, hash, m->hashed); /* room was reserved by the growth */
	return m->id[m->hashed++];
}

/* The id of (var, value), added when new; PAIR_NONE when out of memory. */
static inline uint32_t pair_id(struct pair_map *m, uint32_t var, int64_t value)
{
	uint32_t *slot;

	if (m->dense_start[var] == DENSE_NONE)
		return hashed_pair_id(m, var, value);
	slot = &m->dense[m->dense_start[var] + ((uint64_t)value - (uint64_t)m->least[var])];
	if (!*slot)
		*slot = next_id(m) + 1;
	return *slot - 1;
}

/* Each variable's span of values (one pass over the events), and a table
 * for those whose span is dense (value_span.h's rule, variable by
 * variable). 0 or -ENOMEM. */
static int plan_dense(struct pair_map *m, const struct vsc_program *p, uint32_t nv)
{
	size_t vv = nv ? nv : 1, total = 0;
	struct value_span *span = malloc(vv * sizeof(*span));

	m->least = malloc(vv * sizeof(*m->least));
	m->dense_start = malloc(vv * sizeof(*m->dense_start));
	if (!span || !m->least || !m->dense_start) {
		free(span);
		return -ENOMEM;
	}
	value_spans_find(span, p, VALUES_ALL);
	for (uint32_t v = 0; v < nv; v++) {
		uint64_t width = value_span_width(&span[v]);
		m->least[v] = span[v].least;
		m->dense_start[v] = DENSE_NONE;
		if (span[v].seen && value_span_dense(width, span[v].seen, DENSE_SLACK)) {
			m->dense_start[v] = total;
			total += width + 1;
		} else {
			m->most_ids += span[v].seen;
		}
	}
	m->most_ids += total;
	free(span);
	m->dense = calloc(total ? total : 1, sizeof(*m->dense)); /* fresh pages: no zeroing */
	return m->dense ? 0 : -ENOMEM;
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

/* The counts of thread t's event on variable v with pairs ep (PAIR_NONE
 * also when the map ran out of memory, which fails the build anyway). */
static inline void count_access(struct analysis *a, const struct event_pairs *ep, uint32_t v,
				uint32_t t)
{
	if (ep->read != PAIR_NONE) {
		a->reads_of[ep->read]++;
		a->var_reads[v]++;
	}
	if (ep->write == PAIR_NONE)
		return;
	a->writes_of[ep->write]++;
	a->var_writes[v]++;
	if (a->writer[v] != t) {
		a->writers[v]++;
		a->writer[v] = t;
	}
}

/* Pair ids and the counts per pair and per variable, in one pass. */
static int assign_pairs(struct analysis *a, const struct vsc_program *p, struct pair_map *m,
			struct budget *b)
{
	uint64_t done = 0;

	/* counted as ids are handed out: room for the most there can be,
	 * untouched (so not resident) beyond the ids given */
	a->reads_of = calloc(m->most_ids + 1, sizeof(uint32_t));
	a->writes_of = calloc(m->most_ids + 1, sizeof(uint32_t));
	if (!a->reads_of || !a->writes_of)
		return -ENOMEM;
	for (uint32_t v = 0; v < a->nvars; v++) {
		uint8_t kind = p->inits[v].kind;
		a->writer[v] = UINT32_MAX;
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
			count_access(a, ep, e->var, t);
		}
	}
	return 0;
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
		err = plan_dense(&m, p, nv);
	if (!err)
		err = assign_pairs(a, p, &m, b);
	if (!err && m.failed)
		err = -ENOMEM;
	a->npairs = m.count;
	pair_map_free(&m);
	if (!err)
		err = static_refutation(a, p);
	if (err)
		analysis_free(a);
	return err;
}
