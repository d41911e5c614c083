/* SPDX-License-Identifier: MIT */
/* The seed paper's algorithm for 1-Writer programs (Section 3, Appendix 0.A),
 * written to follow the paper step by step rather than to be fast:
 *
 *   1.   guess a set P of at most pi preemption points (events that are not
 *        the last of their thread), smallest sets first;
 *   2.1  cut every thread after its points: inner blocks end at a point, the
 *        outer block is the last block of a thread;
 *   2.2  conflict graph on outer blocks: b_r -> b_w when the last write of
 *        some variable in b_w differs from a read of it in b_r; a cycle
 *        rejects P;
 *   2.3  for each order of the inner blocks (orders that break program order
 *        cannot be interleavings and are skipped),
 *   2.4  walk the positions 0..pi between inner blocks; at each, place again
 *        and again the first outer block of a linearisation of the conflict
 *        graph that is enabled (its inner blocks are placed, its conflict
 *        predecessors are placed, the prefix followed by it is SC) and that
 *        does not conflict with an inner block later in the order;
 *        then the final SC check.
 *
 * `u` events count as writes (so they make their thread the writer) and as
 * reads; `init x v` acts as a write before everything. `init x ?` is not
 * something the greedy placement of step 2.4 can handle: an outer block that
 * reads the unknown value would fix it early and starve a later inner block
 * that needs another value (tests/unit/test_paper.c has such a program). So
 * the solver tries each candidate: every value read of x, and one value no
 * read sees, as if it were `init x v`. The SC
 * checks are done while the interleaving is built left to right, which is the
 * same as checking the whole at the end. Without a bound the sets P grow
 * until every non-last event is a point, which is only usable on tiny
 * programs; this solver exists to test the paper, not to be used on traces. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

struct cell {
	uint8_t state; /* 0: no value, 1: unknown initial value, 2: value */
	int64_t value;
};

struct block {
	uint32_t thread, start, end; /* events [start, end) */
};

struct paper {
	const struct vsc_program *p;
	struct budget *budget;
	uint32_t k, nvars;
	uint32_t npoints; /* candidate points: non-last events */
	uint32_t *point_thread, *point_index;
	uint32_t *chosen;    /* indices into the candidates, increasing */
	struct block *inner; /* in thread order */
	uint32_t ninner;
	uint32_t *first_inner; /* per thread: index of its first inner block */
	uint32_t *inner_count; /* per thread */
	struct block *outer;   /* per thread */
	uint8_t *edge;         /* k * k: edge[r * k + w] means r before w */
	uint32_t *order;       /* a linearisation of the conflict graph */
	uint32_t *perm;        /* the current order of inner blocks */
	uint32_t *taken;       /* per thread: inner blocks already in perm */
	uint32_t *placed;      /* per thread: inner blocks placed so far */
	uint8_t *outer_done;
	struct cell *mem, *saved;
	uint32_t *witness;
	size_t wlen;
	uint32_t *stamp; /* per variable, for last-write maps */
	int64_t *last_value;
	uint32_t clock;
	/* init x ?: the candidate values of each such variable, and the pick */
	uint32_t *unknown_vars, nunknown;
	int64_t **candidates;
	uint32_t *ncandidates, *pick;
};

static const struct vsc_event *event_at(const struct paper *s, uint32_t t, uint32_t i)
{
	return &s->p->threads[t].events[i];
}

static void mem_reset(struct paper *s)
{
	for (uint32_t v = 0; v < s->nvars; v++) {
		uint8_t kind = s->p->inits[v].kind;
		s->mem[v].state = kind == VSC_INIT_KNOWN ? 2 : kind == VSC_INIT_UNKNOWN ? 1 : 0;
		s->mem[v].value = s->p->inits[v].value;
	}
	for (uint32_t u = 0; u < s->nunknown; u++) {
		uint32_t v = s->unknown_vars[u];
		s->mem[v].state = 2;
		s->mem[v].value = s->candidates[u][s->pick[u]];
	}
}

/* Append block b to the interleaving if every read sees its value; on
 * failure memory and interleaving are left as they were. */
static int apply_block(struct paper *s, const struct block *b)
{
	memcpy(s->saved, s->mem, s->nvars * sizeof(*s->mem));
	for (uint32_t i = b->start; i < b->end; i++) {
		const struct vsc_event *e = event_at(s, b->thread, i);
		struct cell *c = &s->mem[e->var];
		if (e->kind != VSC_WRITE) {
			if (c->state == 0 || (c->state == 2 && c->value != e->value)) {
				memcpy(s->mem, s->saved, s->nvars * sizeof(*s->mem));
				return 0;
			}
			c->state = 2;
			c->value = e->value;
		}
		if (e->kind != VSC_READ) {
			c->state = 2;
			c->value = e->kind == VSC_RMW ? e->new_value : e->value;
		}
	}
	for (uint32_t i = b->start; i < b->end; i++)
		s->witness[s->wlen++] = b->thread;
	return 1;
}

/* Mark the last write of each variable in block w (fresh clock). */
static void mark_last_writes(struct paper *s, const struct block *w)
{
	s->clock++;
	for (uint32_t i = w->start; i < w->end; i++) {
		const struct vsc_event *e = event_at(s, w->thread, i);
		if (e->kind == VSC_READ)
			continue;
		s->stamp[e->var] = s->clock;
		s->last_value[e->var] = e->kind == VSC_RMW ? e->new_value : e->value;
	}
}

/* Does a read in block r see a value other than a marked last write? */
static int reads_conflict(const struct paper *s, const struct block *r)
{
	for (uint32_t i = r->start; i < r->end; i++) {
		const struct vsc_event *e = event_at(s, r->thread, i);
		if (e->kind != VSC_WRITE && s->stamp[e->var] == s->clock &&
		    s->last_value[e->var] != e->value)
			return 1;
	}
	return 0;
}

/* Step 2.1: blocks from the chosen points (sorted by thread, then index). */
static void make_blocks(struct paper *s, uint32_t npicked)
{
	uint32_t c = 0;

	s->ninner = 0;
	for (uint32_t t = 0; t < s->k; t++) {
		uint32_t start = 0;
		s->first_inner[t] = s->ninner;
		for (; c < npicked && s->point_thread[s->chosen[c]] == t; c++) {
			uint32_t end = s->point_index[s->chosen[c]] + 1;
			s->inner[s->ninner++] = (struct block){ t, start, end };
			start = end;
		}
		s->inner_count[t] = s->ninner - s->first_inner[t];
		s->outer[t] = (struct block){ t, start, s->p->threads[t].length };
	}
}

/* Step 2.2: conflict graph and a linearisation (Kahn, smallest first).
 * Returns 0 when the graph has a cycle. */
static int conflict_graph_order(struct paper *s)
{
	uint32_t k = s->k, n = 0;

	memset(s->edge, 0, (size_t)k * k);
	for (uint32_t w = 0; w < k; w++) {
		mark_last_writes(s, &s->outer[w]);
		for (uint32_t r = 0; r < k; r++)
			if (r != w && reads_conflict(s, &s->outer[r]))
				s->edge[r * k + w] = 1;
	}
	memset(s->outer_done, 0, k);
	while (n < k) {
		uint32_t pick = k;
		for (uint32_t b = 0; b < k && pick == k; b++) {
			if (s->outer_done[b])
				continue;
			uint32_t a = 0;
			while (a < k && (s->outer_done[a] || !s->edge[a * k + b]))
				a++;
			if (a == k)
				pick = b;
		}
		if (pick == k)
			return 0;
		s->outer_done[pick] = 1;
		s->order[n++] = pick;
	}
	return 1;
}

/* Would outer block b (its last writes marked) break a read of an inner
 * block at position pos or later? */
static int conflicts_later_inner(struct paper *s, uint32_t pos)
{
	for (uint32_t j = pos; j < s->ninner; j++)
		if (reads_conflict(s, &s->inner[s->perm[j]]))
			return 1;
	return 0;
}

static int outer_enabled_here(struct paper *s, uint32_t b, uint32_t pos)
{
	if (s->outer_done[b] || s->placed[b] != s->inner_count[b])
		return 0;
	for (uint32_t a = 0; a < s->k; a++)
		if (s->edge[a * s->k + b] && !s->outer_done[a])
			return 0;
	mark_last_writes(s, &s->outer[b]);
	if (conflicts_later_inner(s, pos))
		return 0;
	return apply_block(s, &s->outer[b]);
}

/* Step 2.4 (the paper's Algorithm 1) for the order in perm. */
static int place_outer_blocks(struct paper *s)
{
	mem_reset(s);
	s->wlen = 0;
	memset(s->placed, 0, s->k * sizeof(*s->placed));
	memset(s->outer_done, 0, s->k);
	for (uint32_t pos = 0; pos <= s->ninner; pos++) {
		for (uint32_t i = 0; i < s->k;) {
			uint32_t b = s->order[i];
			if (outer_enabled_here(s, b, pos)) {
				s->outer_done[b] = 1;
				i = 0; /* the earliest enabled block of the order next */
			} else {
				i++;
			}
		}
		if (pos == s->ninner)
			break;
		const struct block *in = &s->inner[s->perm[pos]];
		if (!apply_block(s, in))
			return 0; /* the final SC check would fail */
		s->placed[in->thread]++;
	}
	for (uint32_t b = 0; b < s->k; b++)
		if (!s->outer_done[b])
			return 0;
	return s->wlen == s->p->event_count;
}

/* Step 2.3: every order of inner blocks that keeps program order.
 * Returns 1 found, 0 none, -1 budget expired. */
static int try_orders(struct paper *s, uint32_t depth)
{
	if (budget_expired(s->budget))
		return -1;
	if (depth == s->ninner)
		return place_outer_blocks(s);
	for (uint32_t t = 0; t < s->k; t++) {
		if (s->taken[t] == s->inner_count[t])
			continue;
		s->perm[depth] = s->first_inner[t] + s->taken[t]++;
		int r = try_orders(s, depth + 1);
		s->taken[t]--;
		if (r)
			return r;
	}
	return 0;
}

/* Steps 2.1 to 2.4 for the current set of points. */
static int try_points(struct paper *s, uint32_t npicked)
{
	make_blocks(s, npicked);
	if (!conflict_graph_order(s))
		return 0;
	memset(s->taken, 0, s->k * sizeof(*s->taken));
	return try_orders(s, 0);
}

/* Step 1: every set of exactly `size` points. */
static int try_sets_of_size(struct paper *s, uint32_t size)
{
	uint32_t *c = s->chosen;

	if (size > s->npoints)
		return 0;
	for (uint32_t i = 0; i < size; i++)
		c[i] = i;
	for (;;) {
		int r = try_points(s, size);
		if (r)
			return r;
		budget_progress(s->budget, "paper: point sets of size", size, s->npoints);
		uint32_t i = size;
		while (i > 0 && c[i - 1] == s->npoints - size + i - 1)
			i--;
		if (i == 0)
			return 0;
		c[i - 1]++;
		for (uint32_t j = i; j < size; j++)
			c[j] = c[j - 1] + 1;
	}
}

static int has_value(const int64_t *values, uint32_t n, int64_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (values[i] == v)
			return 1;
	return 0;
}

/* For each `init x ?`: the distinct values read of x, then one no read sees. */
static int unknown_init_candidates(struct paper *s)
{
	const struct vsc_program *p = s->p;
	size_t vv = s->nvars ? s->nvars : 1;

	s->unknown_vars = malloc(vv * sizeof(uint32_t));
	s->candidates = calloc(vv, sizeof(int64_t *));
	s->ncandidates = calloc(vv, sizeof(uint32_t));
	s->pick = calloc(vv, sizeof(uint32_t));
	if (!s->unknown_vars || !s->candidates || !s->ncandidates || !s->pick)
		return -ENOMEM;
	for (uint32_t v = 0; v < s->nvars; v++) {
		if (p->inits[v].kind != VSC_INIT_UNKNOWN)
			continue;
		uint32_t u = s->nunknown++, n = 0;
		int64_t fresh = INT64_MIN;
		s->unknown_vars[u] = v;
		s->candidates[u] = malloc((p->event_count + 1) * sizeof(int64_t));
		if (!s->candidates[u])
			return -ENOMEM;
		for (uint32_t t = 0; t < s->k; t++)
			for (uint32_t i = 0; i < p->threads[t].length; i++) {
				const struct vsc_event *e = event_at(s, t, i);
				if (e->var == v && e->kind != VSC_WRITE &&
				    !has_value(s->candidates[u], n, e->value))
					s->candidates[u][n++] = e->value;
			}
		while (has_value(s->candidates[u], n, fresh))
			fresh++;
		s->candidates[u][n++] = fresh;
		s->ncandidates[u] = n;
	}
	return 0;
}

/* The next choice of values for the `init x ?` variables; 0 after the last. */
static int next_pick(struct paper *s)
{
	for (uint32_t u = 0; u < s->nunknown; u++) {
		if (++s->pick[u] < s->ncandidates[u])
			return 1;
		s->pick[u] = 0;
	}
	return 0;
}

static void paper_free(struct paper *s)
{
	for (uint32_t u = 0; u < s->nunknown; u++)
		free(s->candidates[u]);
	free(s->unknown_vars);
	free(s->candidates);
	free(s->ncandidates);
	free(s->pick);
	free(s->point_thread);
	free(s->point_index);
	free(s->chosen);
	free(s->inner);
	free(s->first_inner);
	free(s->inner_count);
	free(s->outer);
	free(s->edge);
	free(s->order);
	free(s->perm);
	free(s->taken);
	free(s->placed);
	free(s->outer_done);
	free(s->mem);
	free(s->saved);
	free(s->witness);
	free(s->stamp);
	free(s->last_value);
}

static int paper_init(struct paper *s, const struct vsc_program *p, struct budget *b)
{
	uint32_t k = program_threads(p), nv = program_vars(p), n = 0;
	size_t kk = k ? k : 1, vv = nv ? nv : 1, ev = p->event_count ? p->event_count : 1;

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->budget = b;
	s->k = k;
	s->nvars = nv;
	s->point_thread = malloc(ev * sizeof(uint32_t));
	s->point_index = malloc(ev * sizeof(uint32_t));
	s->chosen = malloc(ev * sizeof(uint32_t));
	s->inner = malloc(ev * sizeof(*s->inner));
	s->perm = malloc(ev * sizeof(uint32_t));
	s->witness = malloc(ev * sizeof(uint32_t));
	s->first_inner = malloc(kk * sizeof(uint32_t));
	s->inner_count = malloc(kk * sizeof(uint32_t));
	s->outer = malloc(kk * sizeof(*s->outer));
	s->edge = malloc(kk * kk);
	s->order = malloc(kk * sizeof(uint32_t));
	s->taken = malloc(kk * sizeof(uint32_t));
	s->placed = malloc(kk * sizeof(uint32_t));
	s->outer_done = malloc(kk);
	s->mem = malloc(vv * sizeof(*s->mem));
	s->saved = malloc(vv * sizeof(*s->saved));
	s->stamp = calloc(vv, sizeof(uint32_t));
	s->last_value = malloc(vv * sizeof(int64_t));
	if (!s->point_thread || !s->point_index || !s->chosen || !s->inner || !s->perm ||
	    !s->witness || !s->first_inner || !s->inner_count || !s->outer || !s->edge ||
	    !s->order || !s->taken || !s->placed || !s->outer_done || !s->mem || !s->saved ||
	    !s->stamp || !s->last_value)
		return -ENOMEM;
	for (uint32_t t = 0; t < k; t++)
		for (uint32_t i = 0; i + 1 < p->threads[t].length; i++) {
			s->point_thread[n] = t;
			s->point_index[n++] = i;
		}
	s->npoints = n;
	return unknown_init_candidates(s);
}

static int paper_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		       struct vsc_result *res)
{
	struct paper s;
	uint32_t limit;
	int err, found = 0;

	if (vsc_program_writers(p) > 1)
		return -EINVAL; /* the algorithm is for 1-Writer programs only */
	if ((err = paper_init(&s, p, b))) {
		paper_free(&s);
		return err;
	}
	limit = q->bound >= 0 && (uint64_t)q->bound < s.npoints ? (uint32_t)q->bound : s.npoints;
	res->verdict = VSC_INCONSISTENT;
	/* Smallest sets first: the first success also answers --min. */
	for (uint32_t size = 0; size <= limit && !found; size++) {
		memset(s.pick, 0, (s.nvars ? s.nvars : 1) * sizeof(uint32_t));
		do
			found = try_sets_of_size(&s, size);
		while (!found && next_pick(&s));
	}
	if (found < 0) {
		res->verdict = VSC_UNKNOWN;
	} else if (found) {
		res->verdict = VSC_CONSISTENT;
		res->witness = s.witness;
		res->witness_length = s.wlen;
		res->preemptions = count_preemptions(p, s.witness, s.wlen);
		s.witness = NULL;
	}
	paper_free(&s);
	return 0;
}

const struct solver paper_solver = { "paper", paper_solve };
