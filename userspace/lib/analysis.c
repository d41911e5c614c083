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

/* Each variable's span of values (one pass over the events, unless the
 * caller's pass found them: known), and a table for those whose span is
 * dense (value_span.h's rule, variable by variable). 0 or -ENOMEM. */
static int plan_dense(struct pair_map *m, const struct vsc_program *p, uint32_t nv,
		      const struct value_span *known)
{
	size_t vv = nv ? nv : 1, total = 0;
	struct value_span *span = malloc(vv * sizeof(*span));

	m->least = malloc(vv * sizeof(*m->least));
	m->dense_start = malloc(vv * sizeof(*m->dense_start));
	if (!span || !m->least || !m->dense_start) {
		free(span);
		return -ENOMEM;
	}
	if (known)
		memcpy(span, known, nv * sizeof(*span));
	else
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
	free(a->written_pairs);
	free(a->last_write);
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
	a->written_pairs[v] += a->writes_of[ep->write]++ == 0;
	a->var_writes[v]++;
	a->last_write[v] = ep->write;
	if (a->writer[v] != t) {
		a->writers[v]++;
		a->writer[v] = t;
	}
}

/* What the pass of assign_pairs() sees of static_refutation()'s second
 * check, so that the check's own pass runs only when it may refute: a
 * thread's read of a variable that is not the thread's last value of it
 * (or the initial value) is a miss; a variable is suspect once a thread
 * that writes it missed on it. Only a suspect variable that ends with one
 * writer can fail the check. own[v]: thread t's last value of v when
 * owner[v] is t + 1, else the initial value. */
struct own_watch {
	uint32_t *own, *owner;
	uint32_t *missed, nmissed; /* the variables the thread missed on ... */
	uint32_t *missed_by;       /* ... each once: thread + 1 */
	uint8_t *suspect;
	uint32_t *rmw_reads_of; /* per pair: the RMWs that read it */
};

static int own_watch_init(struct own_watch *w, uint32_t nvars)
{
	size_t vv = nvars ? nvars : 1;

	w->own = malloc(vv * sizeof(uint32_t));
	w->owner = calloc(vv, sizeof(uint32_t));
	w->missed = malloc(vv * sizeof(uint32_t));
	w->missed_by = calloc(vv, sizeof(uint32_t));
	w->suspect = calloc(vv, 1);
	w->rmw_reads_of = NULL; /* assign_pairs() knows how many pairs there may be */
	w->nmissed = 0;
	return w->own && w->owner && w->missed && w->missed_by && w->suspect ? 0 : -ENOMEM;
}

static void own_watch_free(struct own_watch *w)
{
	free(w->own);
	free(w->owner);
	free(w->missed);
	free(w->missed_by);
	free(w->suspect);
	free(w->rmw_reads_of);
}

static inline void own_watch_event(struct own_watch *w, const struct analysis *a, uint32_t t,
				   uint32_t v, const struct event_pairs *ep)
{
	if (w->owner[v] != t + 1) {
		w->owner[v] = t + 1;
		w->own[v] = a->init[v];
	}
	if (ep->read != PAIR_NONE) {
		if (w->own[v] != ep->read && w->own[v] != VALUE_UNDECIDED &&
		    w->missed_by[v] != t + 1) {
			w->missed_by[v] = t + 1;
			w->missed[w->nmissed++] = v;
		}
		w->own[v] = ep->read;
	}
	if (ep->write != PAIR_NONE)
		w->own[v] = ep->write;
}

/* Thread t is done: the variables it missed on and wrote are suspect
 * (a->writer[v] is t just when t wrote v, threads coming in order). */
static void own_watch_thread_done(struct own_watch *w, const struct analysis *a, uint32_t t)
{
	for (uint32_t j = 0; j < w->nmissed; j++)
		w->suspect[w->missed[j]] |= a->writer[w->missed[j]] == t;
	w->nmissed = 0;
}

/* Pair ids and the counts per pair and per variable, in one pass, which
 * also watches the writers' own reads (w). */
static int assign_pairs(struct analysis *a, const struct vsc_program *p, struct pair_map *m,
			struct own_watch *w, struct budget *b)
{
	uint64_t done = 0;

	/* counted as ids are handed out: room for the most there can be,
	 * untouched (so not resident) beyond the ids given */
	a->reads_of = calloc(m->most_ids + 1, sizeof(uint32_t));
	a->writes_of = calloc(m->most_ids + 1, sizeof(uint32_t));
	w->rmw_reads_of = calloc(m->most_ids + 1, sizeof(uint32_t));
	if (!a->reads_of || !a->writes_of || !w->rmw_reads_of)
		return -ENOMEM;
	for (uint32_t v = 0; v < a->nvars; v++) {
		uint8_t kind = p->inits[v].kind;
		a->writer[v] = UINT32_MAX;
		a->last_write[v] = VALUE_NONE;
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
			if (e->kind == VSC_RMW)
				w->rmw_reads_of[ep->read]++;
			own_watch_event(w, a, t, e->var, ep);
		}
		own_watch_thread_done(w, a, t);
	}
	return 0;
}

/* Can a writer's own read fail? Only on a suspect variable (struct
 * own_watch) that has one writer. */
static int maybe_own_miss(const struct analysis *a, const struct own_watch *w)
{
	for (uint32_t v = 0; v < a->nvars; v++)
		if (w->suspect[v] && a->writers[v] == 1)
			return 1;
	return 0;
}

/* May more RMWs read some pair than there are writes of it? (Then, unless
 * the initial value makes up the difference, the check fails.) */
static int maybe_rmw_excess(const struct analysis *a, const struct own_watch *w)
{
	for (uint32_t q = 0; q < a->npairs; q++)
		if (w->rmw_reads_of[q] > a->writes_of[q])
			return 1;
	return 0;
}

/* Two RMWs never read one write (or the initial value): the first one's
 * write comes at once after it, so the second, later, cannot see the
 * same write as the latest. So the RMWs reading a value need as many
 * sources of it: its writes (an RMW cannot read its own, which only
 * makes the count generous), plus the initial value when it may be that
 * value. A lost update (two increments that read one value) fails this. */
static int rmw_without_source(const struct analysis *a, const struct own_watch *w, uint32_t v,
			      uint32_t q)
{
	uint32_t initial = a->init[v] == q || a->init[v] == VALUE_UNDECIDED;

	return w->rmw_reads_of[q] > a->writes_of[q] + initial;
}

/* May some read see a value that nothing writes (and no init gives)? By the
 * pairs' counts: the pairs read and never written are each some variable's
 * initial value exactly when there are no more of them than such initial
 * values (a pair is of one variable). With `init x ?` the answer may be a
 * false yes, which only costs the full check. */
static int maybe_unwritten_read(const struct analysis *a)
{
	uint64_t unwritten = 0, initial = 0;

	for (uint32_t q = 0; q < a->npairs; q++)
		unwritten += a->reads_of[q] && !a->writes_of[q];
	for (uint32_t v = 0; v < a->nvars; v++) {
		uint32_t q = a->init[v];
		initial += q < VALUE_UNDECIDED && a->reads_of[q] && !a->writes_of[q];
	}
	return unwritten > initial;
}

/* Reads that can never see their value (RMWs: see rmw_without_source()).
 * One pass over the events: own[v]
 * is thread t's last value of v when owner[v] is t + 1, else the initial
 * value, so many threads over many variables cost no more than their
 * events (copying the initial values per thread was threads x vars, and
 * putting back what a thread changed was a second walk over its events).
 * It runs only when the counts and the watch (w) say that a check may
 * fail, which on consistent traces is seldom: then it finds the first
 * failing read and says why. */
static int static_refutation(struct analysis *a, const struct vsc_program *p,
			     const struct own_watch *w)
{
	if (!maybe_unwritten_read(a) && !maybe_own_miss(a, w) && !maybe_rmw_excess(a, w))
		return 0;

	uint32_t *own = malloc((a->nvars ? a->nvars : 1) * sizeof(*own));
	uint32_t *owner = calloc(a->nvars ? a->nvars : 1, sizeof(*owner));

	if (!own || !owner) {
		free(own);
		free(owner);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < a->k && !a->refuted; t++) {
		const struct vsc_thread *th = &p->threads[t];
		for (uint32_t i = 0; i < th->length && !a->refuted; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			uint32_t v = th->events[i].var;
			if (owner[v] != t + 1) {
				owner[v] = t + 1;
				own[v] = a->init[v];
			}
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
			if (!a->refuted && th->events[i].kind == VSC_RMW &&
			    rmw_without_source(a, w, v, ep->read)) {
				a->refuted = 1;
				a->why =
					"more RMWs read a value than there are writes of it to read";
			}
			if (ep->read != PAIR_NONE)
				own[v] = ep->read;
			if (ep->write != PAIR_NONE)
				own[v] = ep->write;
		}
	}
	free(own);
	free(owner);
	return 0;
}

int analysis_build(struct analysis *a, const struct vsc_program *p)
{
	return analysis_build_within(a, p, NULL);
}

int analysis_build_within(struct analysis *a, const struct vsc_program *p, struct budget *b)
{
	return analysis_build_spanned(a, p, b, NULL);
}

int analysis_build_spanned(struct analysis *a, const struct vsc_program *p, struct budget *b,
			   const struct value_span *spans)
{
	uint32_t k = program_threads(p), nv = program_vars(p);
	size_t kk = k ? k : 1, vv = nv ? nv : 1;
	struct own_watch w;
	struct pair_map m;
	int err = own_watch_init(&w, nv);

	memset(a, 0, sizeof(*a));
	a->k = k;
	a->nvars = nv;
	a->pairs = calloc(kk, sizeof(*a->pairs));
	a->var_reads = calloc(vv, sizeof(uint32_t));
	a->var_writes = calloc(vv, sizeof(uint32_t));
	a->writers = calloc(vv, sizeof(uint32_t));
	a->writer = malloc(vv * sizeof(uint32_t));
	a->written_pairs = calloc(vv, sizeof(uint32_t));
	a->last_write = malloc(vv * sizeof(uint32_t));
	a->init = malloc(vv * sizeof(uint32_t));
	memset(&m, 0, sizeof(m));
	if (!a->pairs || !a->var_reads || !a->var_writes || !a->writers || !a->writer || !a->init ||
	    !a->written_pairs || !a->last_write)
		err = -ENOMEM;
	if (!err)
		err = plan_dense(&m, p, nv, spans);
	if (!err)
		err = assign_pairs(a, p, &m, &w, b);
	if (!err && m.failed)
		err = -ENOMEM;
	a->npairs = m.count;
	pair_map_free(&m);
	if (!err)
		err = static_refutation(a, p, &w);
	own_watch_free(&w);
	if (err)
		analysis_free(a);
	return err;
}
