/* SPDX-License-Identifier: MIT */
/* Forced orders, saturated. For a variable x written by one thread W, W's
 * writes of x cut time into epochs (epoch 0 before the first write, epoch e
 * after the e-th). A read of x with value v by another thread must fall in
 * an epoch holding v, somewhere in [lo, hi]: so it comes after the write
 * opening epoch lo and before the write closing epoch hi. These orders and
 * program order form a graph; for each event we compute how many events of
 * each thread must precede it (a vector per event, by a topological pass;
 * a cycle means no SC interleaving at all). Then each read's [lo, hi]
 * shrinks: epochs whose closing write must precede it, or whose opening
 * write it must precede, are out; each new edge's orders are passed on to
 * the vectors that grow, which may shrink other ranges, until nothing
 * changes (saturate_fix.c). */
#include "saturate_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VECTOR_WORDS ((size_t)48 << 20) /* events * threads */

/* Is the read at flat f one we constrain? */
static inline int constrained(const struct sat_state *s, uint32_t t, uint32_t i, uint32_t *x)
{
	const struct vsc_event *e = &s->p->threads[t].events[i];
	*x = e->var;
	return e->kind == VSC_READ && s->a->writers[*x] == 1 && s->a->writer[*x] != t;
}

static int worth_it(const struct sat_state *s)
{
	const struct analysis *a = s->a;
	for (uint32_t t = 0; t < s->k; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length; i++) {
			uint32_t x, pair = a->pairs[t][i].read;
			if (constrained(s, t, i, &x) &&
			    a->writes_of[pair] + (uint32_t)init_matches(s, x, pair) >= 2)
				return 1;
		}
	return 0;
}

/* Is thread t's event i a write of a one-writer variable (so it opens an
 * epoch)? */
static inline int opens_epoch(const struct sat_state *s, uint32_t t, uint32_t i)
{
	uint32_t x = s->p->threads[t].events[i].var;

	return s->a->writers[x] == 1 && s->a->writer[x] == t &&
	       s->a->pairs[t][i].write != PAIR_NONE;
}

/* Turn counts at off[1..n] into starts at off[0..n-1] (off[n]: the total). */
static void counts_to_starts(uint32_t *off, uint32_t n)
{
	for (uint32_t q = 0; q < n; q++)
		off[q + 1] += off[q];
}

/* A fill that advanced each start to the next one: move them back. */
static void starts_back(uint32_t *off, uint32_t n)
{
	for (uint32_t q = n; q > 0; q--)
		off[q] = off[q - 1];
	off[0] = 0;
}

/* xw: each one-writer variable's writes, in its writer's order; pe: each
 * pair's epochs; read_flat: the constrained reads. The analysis counted
 * the writes (every write of a one-writer variable opens an epoch, and a
 * pair is of one variable), so one pass over the events fills all three.
 * pe_off leaves room for every pair's writes; only the pairs of one-writer
 * variables are filled, each start moving to its end (pe_start(),
 * pe_end()). read_flat has room for every read of a one-writer variable
 * until the pass has left out the writers' own reads; then it shrinks, so
 * that the room it gives back serves the arrays made next. */
static int index_writes(struct sat_state *s)
{
	const struct analysis *a = s->a;
	uint32_t nv = a->nvars, np = a->npairs, x, *epochs, *read_flat;
	size_t writes = 0, pair_writes = 0, reads = 0;

	s->xw_off = malloc(((size_t)nv + 1) * sizeof(uint32_t));
	s->pe_off = malloc(((size_t)np + 1) * sizeof(uint32_t));
	epochs = calloc((size_t)nv + 1, sizeof(uint32_t));
	if (!s->xw_off || !s->pe_off || !epochs) {
		free(epochs);
		return -ENOMEM;
	}
	for (x = 0; x < nv; x++) {
		s->xw_off[x] = (uint32_t)writes;
		writes += a->writers[x] == 1 ? a->var_writes[x] : 0;
		reads += a->writers[x] == 1 ? a->var_reads[x] : 0;
	}
	s->xw_off[nv] = (uint32_t)writes;
	for (uint32_t q = 0; q < np; q++) {
		s->pe_off[q] = (uint32_t)pair_writes;
		pair_writes += a->writes_of[q];
	}
	s->xw = malloc((writes + 1) * sizeof(uint32_t));
	s->pe = malloc((pair_writes + 1) * sizeof(uint32_t));
	s->read_flat = malloc((reads + 1) * sizeof(uint32_t));
	if (!s->xw || !s->pe || !s->read_flat) {
		free(epochs);
		return -ENOMEM;
	}
	/* in program order, so that each pair's epochs come in order and the
	 * pairs, numbered by first sight, are met nearly in order too (by
	 * variable they were met 64 apart at 10^7 events: a cache miss each) */
	for (uint32_t t = 0, f = 0; t < s->k; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length; i++, f++)
			if (opens_epoch(s, t, i)) {
				x = s->p->threads[t].events[i].var;
				s->xw[s->xw_off[x]++] = i;
				s->pe[s->pe_off[a->pairs[t][i].write]++] = ++epochs[x];
			} else if (constrained(s, t, i, &x)) {
				s->read_flat[s->reads_max++] = f;
			}
	free(epochs);
	starts_back(s->xw_off, nv); /* every variable's slot was filled whole */
	read_flat = realloc(s->read_flat, ((size_t)s->reads_max + 1) * sizeof(uint32_t));
	s->read_flat = read_flat ? read_flat : s->read_flat; /* a failed shrink keeps it whole */
	return 0;
}

/* Each constrained read's first range [lo, hi]: the first and the last
 * epoch holding its value. */
static int collect_reads(struct sat_state *s)
{
	uint32_t t = 0, i;

	s->lo = malloc(((size_t)s->reads_max + 1) * sizeof(uint32_t));
	s->hi = malloc(((size_t)s->reads_max + 1) * sizeof(uint32_t));
	if (!s->lo || !s->hi)
		return -ENOMEM;
	for (uint32_t r = 0; r < s->reads_max; r++) { /* reads are in flat order */
		uint32_t x = flat_event_in_order(s, s->read_flat[r], &t, &i)->var;
		uint32_t pair = s->a->pairs[t][i].read;
		s->lo[r] = next_match(s, x, pair, 0);
		s->hi[r] = prev_match(s, x, pair, epochs_of(s, x));
		if (s->lo[r] == UINT32_MAX || s->hi[r] == UINT32_MAX)
			return 1; /* never satisfiable: refuted */
		s->choices |= s->lo[r] < s->hi[r];
		s->nreads++;
	}
	return 0;
}

static void add_edge(struct sat_state *s, uint32_t from, uint32_t to, int fill)
{
	if (fill)
		s->out[s->out_off[from]++] = to;
	else
		s->out_off[from + 1]++;
}

static void build_edges(struct sat_state *s)
{
	memset(s->out_off, 0, ((size_t)s->n + 1) * sizeof(uint32_t));
	for (int fill = 0; fill < 2; fill++) {
		for (uint32_t r = 0; r < s->nreads; r++) {
			uint32_t t, i, f = s->read_flat[r];
			uint32_t x = flat_event(s, f, &t, &i)->var;
			if (s->lo[r] >= 1)
				add_edge(s, opening(s, x, s->lo[r]), f, fill);
			if (s->hi[r] < epochs_of(s, x))
				add_edge(s, f, opening(s, x, s->hi[r] + 1), fill);
		}
		for (uint32_t f = 0, e, end; s->ue_off && f < s->n; f++)
			for (unique_edges(s, f, &e, &end); e < end; e++)
				add_edge(s, f, s->ue[e], fill);
		if (!fill)
			counts_to_starts(s->out_off, s->n);
	}
	starts_back(s->out_off, s->n);
}

static void raise_to(uint32_t *dst, const uint32_t *src, uint32_t k)
{
	for (uint32_t j = 0; j < k; j++)
		if (src[j] > dst[j])
			dst[j] = src[j];
}

static void push_after(struct sat_state *s, uint32_t from, uint32_t to, uint32_t *tail)
{
	uint32_t *v = s->vec + (size_t)to * s->k;
	uint32_t t = s->thread_of[from], i = from - s->base[t];
	raise_to(v, s->vec + (size_t)from * s->k, s->k);
	if (v[t] < i + 1)
		v[t] = i + 1;
	if (--s->indeg[to] == 0)
		s->queue[(*tail)++] = to;
}

/* Vectors of predecessors by a topological pass; 0 on a cycle. */
static int topological_vectors(struct sat_state *s)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t f = 0; f < s->n; f++)
		s->indeg[f] = f != s->base[s->thread_of[f]];
	for (uint32_t e = 0; e < s->out_off[s->n]; e++)
		s->indeg[s->out[e]]++;
	for (uint32_t f = 0; f < s->n; f++)
		if (s->indeg[f] == 0)
			s->queue[tail++] = f;
	while (head < tail) {
		uint32_t f = s->queue[head++], t = s->thread_of[f];
		if (f + 1 < s->base[t] + s->p->threads[t].length)
			push_after(s, f, f + 1, &tail);
		for (uint32_t e = s->out_off[f]; e < s->out_off[f + 1]; e++)
			push_after(s, f, s->out[e], &tail);
	}
	return head == s->n;
}

static int export(struct sat_state *s, struct forced *f)
{
	size_t nn = (size_t)s->n + 1;

	f->after = malloc(nn * sizeof(uint32_t));
	f->before = malloc(nn * sizeof(uint32_t));
	f->must_wait = calloc(nn, sizeof(uint32_t));
	f->opens_off = calloc(nn + 1, sizeof(uint32_t));
	f->opens = malloc(((size_t)s->nreads + 1) * sizeof(uint32_t));
	f->open_at_start = calloc((size_t)s->a->npairs + 1, sizeof(uint32_t));
	if (!f->after || !f->before || !f->must_wait || !f->opens_off || !f->opens ||
	    !f->open_at_start)
		return -ENOMEM;
	for (uint32_t q = 0; q < s->n; q++)
		f->after[q] = f->before[q] = FORCED_NONE;
	for (int fill = 0; fill < 2; fill++) {
		for (uint32_t r = 0; r < s->nreads; r++) {
			uint32_t t, i, q = s->read_flat[r];
			uint32_t x = flat_event(s, q, &t, &i)->var, pair = s->a->pairs[t][i].read;
			if (fill && s->lo[r] == 0)
				f->open_at_start[pair]++;
			else if (fill)
				f->opens[f->opens_off[opening(s, x, s->lo[r])]++] = pair;
			else if (s->lo[r] > 0)
				f->opens_off[opening(s, x, s->lo[r]) + 1]++;
			if (!fill)
				continue;
			f->after[q] = s->lo[r] ? s->xw[s->xw_off[x] + s->lo[r] - 1] : FORCED_START;
			if (s->hi[r] < epochs_of(s, x)) {
				f->before[q] = s->xw[s->xw_off[x] + s->hi[r]];
				f->must_wait[opening(s, x, s->hi[r] + 1)]++;
			}
		}
		if (!fill)
			counts_to_starts(f->opens_off, s->n);
	}
	starts_back(f->opens_off, s->n);
	return 0;
}

static void state_free(struct sat_state *s)
{
	free(s->thread_of);
	free(s->xw_off);
	free(s->xw);
	free(s->pe_off);
	free(s->pe);
	free(s->read_flat);
	free(s->lo);
	free(s->hi);
	free(s->out_off);
	free(s->out);
	free(s->ue_off);
	free(s->ue);
	free(s->indeg);
	free(s->queue);
	free(s->vec);
	saturate_fixpoint_free(s);
}

void forced_free(struct forced *f)
{
	free(f->last);
	free(f->back);
	free(f->iv_off);
	free(f->iv);
	free(f->base);
	free(f->after);
	free(f->before);
	free(f->must_wait);
	free(f->opens_off);
	free(f->opens);
	free(f->open_at_start);
	memset(f, 0, sizeof(*f));
}

/* The graph of the reads' first ranges and its vectors: 0, 1 on a cycle,
 * -ENOMEM or -ETIME. */
static int first_graph(struct sat_state *s, struct budget *b)
{
	/* thread_of only here: the passes of the first ranges (4 bytes an
	 * event less at their peak) meet events in flat order (thread_at) */
	s->thread_of = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	if (!s->thread_of)
		return -ENOMEM;
	for (uint32_t t = 0, q = 0; t < s->k; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length; i++)
			s->thread_of[q++] = t;
	if (saturate_unique_edges(s))
		return -ENOMEM;
	s->out_off = malloc(((size_t)s->n + 2) * sizeof(uint32_t));
	s->out = malloc(((size_t)2 * s->nreads + (s->ue_off ? s->ue_off[s->n] : 0) + 1) *
			sizeof(uint32_t));
	s->indeg = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	s->queue = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	s->vec = calloc((size_t)s->n * s->k + 1, sizeof(uint32_t)); /* zero: fresh pages */
	if (!s->out_off || !s->out || !s->indeg || !s->queue || !s->vec)
		return -ENOMEM;
	if (budget_spend(b, (unsigned long)s->n * s->k + s->nreads))
		return -ETIME;
	build_edges(s);
	return !topological_vectors(s);
}

/* What the lower bound takes from the vectors: the table, and the
 * intervals (saturate_stops.c) when the own stops are built to take them. */
static int bounds_from_vectors(const struct sat_state *s, struct forced *f, struct budget *b)
{
	int r = bound_table_from_vectors(s, f);

	if (r || !own_stops_apply(s->a))
		return r;
	return saturate_stops(s, f, b);
}

/* The orders: with choices of writes and room for a vector per event, the
 * fixpoint that tightens the reads' ranges (the bound's table then comes
 * from its vectors) and the orders for the engine; else (want_bound) the
 * table of the first ranges by two passes, and no orders for the engine:
 * with first ranges its memory tells as much (a read's range is every
 * epoch holding its value). Returns 0, 1 when too big, or -errno. */
static int saturate(struct sat_state *s, struct forced *f, struct budget *b, int how)
{
	int r, want_bound = how & FORCED_BOUND;
	int room = (size_t)s->n * s->k <= MAX_VECTOR_WORDS;
	int fixpoint = s->choices && room && !(how & FORCED_FIRST_RANGES);

	if (!fixpoint && !want_bound) {
		r = 0; /* first ranges and no bound: nothing the engine's memory lacks */
	} else if (!fixpoint) {
		r = bound_table_by_passes(s, f, b);
	} else if ((r = first_graph(s, b)) == 0 && (r = saturate_fixpoint(s, b)) == 0 &&
		   want_bound) {
		r = bounds_from_vectors(s, f, b);
	}
	if (r == -E2BIG)
		return 1;
	if (r < 0)
		return r;
	if (r > 0) {
		f->refuted = 1;
		return 0;
	}
	f->k = want_bound ? s->k : 0;
	f->partial = s->choices && room && !fixpoint;
	return fixpoint ? export(s, f) : 0;
}

/* The fixpoint keeps a vector per event; without room for them, only the
 * bound is left to gain. The passes cost up to events x threads each:
 * beyond 64 threads at a size where the vectors would not fit either, more
 * than the bound saves. */
static int too_big(const struct sat_state *s, int want_bound)
{
	if ((size_t)s->n * s->k <= MAX_VECTOR_WORDS)
		return 0;
	return !want_bound || s->k > 64;
}

/* base (k + 1 starts), the writes' epochs and the reads' first ranges: 0,
 * 1 when some read can see no write (refuted), or -ENOMEM. */
static int first_ranges(struct sat_state *s, struct forced *f)
{
	const struct vsc_program *p = s->p;
	uint32_t q = 0;
	int err;

	f->base = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	if (!f->base)
		return -ENOMEM;
	for (uint32_t t = 0; t < s->k; t++) {
		f->base[t] = q;
		q += p->threads[t].length;
	}
	f->base[s->k] = q;
	s->base = f->base;
	err = index_writes(s);
	return err ? err : collect_reads(s);
}

int forced_build(struct forced *f, const struct vsc_program *p, const struct analysis *a,
		 struct budget *b, int how)
{
	struct sat_state s = { .p = p, .a = a, .k = a->k, .n = (uint32_t)p->event_count };
	int err, want_bound = how & FORCED_BOUND;

	memset(f, 0, sizeof(*f));
	if (p->event_count >= UINT32_MAX - 2 || (!want_bound && !worth_it(&s)))
		return 1; /* flat numbers would not fit, or nothing to gain */
	err = first_ranges(&s, f);
	if (err > 0) {
		f->refuted = 1;
		err = 0;
	} else if (!err && too_big(&s, want_bound)) {
		err = 1;
	} else if (!err) {
		err = saturate(&s, f, b, how);
	}
	state_free(&s);
	if (err)
		forced_free(f);
	return err;
}
