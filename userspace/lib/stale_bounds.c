/* SPDX-License-Identifier: MIT */
/* Bounds on where every thread is when a read happens (stale_bounds.h).
 *
 * A read of thread T of z with value u whose source is another thread's
 * write (T's own last write of z is not u, or T has none and the initial
 * value cannot be u), z with one or two other writers A and B, sees the
 * last write of z of A among A's events done then or of B among B's (the
 * later of the two; a relaxation: either). T's reads in program order take
 * points (p_A, p_B) that only grow; when T's first L_T events precede the
 * read r the bounds are about, their reads embed inside the box (U_A, U_B):
 * the least points raise L_A and L_B, an empty staircase contradicts, and
 * a read of T at j that cannot embed is not before r (U_T <= j). Each
 * step holds in every SC interleaving whose positions at r lie in the box. */
#include "stale_bounds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CORR_CELLS 4   /* corridor cells a event of the program, at most */
#define CORR_ROUNDS 32 /* the corridor's passes, at most */

int64_t cut_written(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* What an access leaves in its variable. */
int64_t cut_left_by(const struct vsc_event *e)
{
	return e->kind == VSC_READ ? e->value : cut_written(e);
}

int cut_init_may_be(const struct vsc_program *p, uint32_t z, int64_t u)
{
	const struct vsc_var_init *in = &p->inits[z];

	return in->kind == VSC_INIT_UNKNOWN || (in->kind == VSC_INIT_KNOWN && in->value == u);
}

/* Every thread's writes by variable, and each variable's writer threads. */
static int cut_index_writes(struct cut *c)
{
	const struct vsc_program *p = c->p;
	size_t cells = (size_t)c->k * c->vars, n = 0;

	c->first = calloc(cells + 1, sizeof(*c->first));
	c->writers = calloc(c->vars ? c->vars : 1, sizeof(*c->writers));
	if (!c->first || !c->writers)
		return -ENOMEM;
	for (uint32_t t = 0; t < c->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct vsc_event *e = &p->threads[t].events[i];
			if (e->kind == VSC_READ)
				continue;
			c->first[t * c->vars + e->var + 1]++;
			c->writers[e->var] |= (uint64_t)1 << t;
			n++;
		}
	for (size_t s = 0; s < cells; s++)
		c->first[s + 1] += c->first[s];
	c->at = malloc((n ? n : 1) * sizeof(*c->at));
	c->val = malloc((n ? n : 1) * sizeof(*c->val));
	uint32_t *fill = malloc((cells ? cells : 1) * sizeof(*fill));
	if (!c->at || !c->val || !fill) {
		free(fill);
		return -ENOMEM;
	}
	memcpy(fill, c->first, cells * sizeof(*fill));
	for (uint32_t t = 0; t < c->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct vsc_event *e = &p->threads[t].events[i];
			if (e->kind == VSC_READ)
				continue;
			uint32_t s = fill[t * c->vars + e->var]++;
			c->at[s] = i;
			c->val[s] = cut_written(e);
		}
	free(fill);
	return 0;
}

/* The other writers of z than t, when one or two: *a <= *b (a == b: one). */
static int two_writers_at_most(const struct cut *c, uint32_t z, uint32_t t, uint32_t *a,
			       uint32_t *b)
{
	uint64_t others = c->writers[z] & ~((uint64_t)1 << t);

	if (!others || __builtin_popcountll(others) > 2)
		return 0;
	*a = (uint32_t)__builtin_ctzll(others);
	others &= others - 1;
	*b = others ? (uint32_t)__builtin_ctzll(others) : *a;
	return 1;
}

static size_t need_class(const struct cut *c, const struct need *n)
{
	return ((size_t)n->t * c->k + n->a) * c->k + n->b;
}

/* c->needs, collected by thread and index, into their classes (thread,
 * then writers a and b), each class by index: a stable counting sort, in
 * linear time (a qsort took 1 s of the cut's and again of the
 * refutation's start at 5.6 M events, and no deadline stops it). */
static int by_class_sort(struct cut *c)
{
	size_t classes = (size_t)c->k * c->k * c->k;
	uint32_t *at = calloc(classes + 1, sizeof(*at));
	struct need *out = malloc((c->n_needs ? c->n_needs : 1) * sizeof(*out));

	if (!at || !out) {
		free(at);
		free(out);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < c->n_needs; s++)
		at[need_class(c, &c->needs[s]) + 1]++;
	for (size_t q = 0; q < classes; q++)
		at[q + 1] += at[q];
	for (uint32_t s = 0; s < c->n_needs; s++)
		out[at[need_class(c, &c->needs[s])]++] = c->needs[s];
	free(at);
	free(c->needs);
	c->needs = out;
	return 0;
}

/* The reads whose source is another thread's write (its own last write of
 * the variable has another value, or it has none and the initial value
 * cannot be the one read), of one or two other writers; by thread, writers
 * and index. */
static int cut_collect_needs(struct cut *c)
{
	const struct vsc_program *p = c->p;
	int64_t *own = malloc((c->vars ? c->vars : 1) * sizeof(*own));
	uint8_t *has = malloc(c->vars ? c->vars : 1);
	size_t cap = 64;

	c->needs = malloc(cap * sizeof(*c->needs));
	if (!own || !has || !c->needs) {
		free(own);
		free(has);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < c->k; t++) {
		memset(has, 0, c->vars);
		for (uint32_t j = 0; j < p->threads[t].length; j++) {
			const struct vsc_event *e = &p->threads[t].events[j];
			struct need n = { t, 0, 0, j, e->var, e->value };
			int needs = e->kind != VSC_WRITE &&
				    (has[e->var] ? own[e->var] != e->value
						 : !cut_init_may_be(p, e->var, e->value));
			if (needs && two_writers_at_most(c, e->var, t, &n.a, &n.b)) {
				if (c->n_needs == cap) {
					struct need *grown =
						realloc(c->needs, 2 * cap * sizeof(*grown));
					if (!grown) {
						free(own);
						free(has);
						return -ENOMEM;
					}
					c->needs = grown;
					cap *= 2;
				}
				c->needs[c->n_needs++] = n;
			}
			if (e->kind != VSC_READ) {
				has[e->var] = 1;
				own[e->var] = cut_written(e);
			}
		}
	}
	free(own);
	free(has);
	return by_class_sort(c);
}

/* The first of w's writes of z at or after its index p (c->at's slot;
 * the end of w's writes of z when none). */
static uint32_t write_from(const struct cut *c, uint32_t w, uint32_t z, uint32_t p)
{
	uint32_t l = c->first[w * c->vars + z], h = c->first[w * c->vars + z + 1];

	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (c->at[m] < p)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* The least p >= from with w's last write of z among its first p events of
 * value u; NONE when there is none. */
static uint32_t next_pos(const struct cut *c, uint32_t w, uint32_t from, uint32_t z, int64_t u)
{
	uint32_t lo = c->first[w * c->vars + z], hi = c->first[w * c->vars + z + 1];
	uint32_t l = write_from(c, w, z, from);

	if (l > lo && c->val[l - 1] == u)
		return from;
	for (uint32_t m = l; m < hi; m++)
		if (c->val[m] == u)
			return c->at[m] + 1;
	return NONE;
}

/* The largest p' <= p with w's last write of z among its first p' events of
 * value u; NONE when there is none. */
static uint32_t prev_pos(const struct cut *c, uint32_t w, uint32_t p, uint32_t z, int64_t u)
{
	uint32_t lo = c->first[w * c->vars + z], l = write_from(c, w, z, p);

	if (l == lo)
		return NONE;
	if (c->val[l - 1] == u)
		return p;
	for (uint32_t m = l - 1; m-- > lo;)
		if (c->val[m] == u)
			return c->at[m + 1];
	return NONE;
}

/* The corridor of two threads A and B (docs/solvers.md, "The corridor of
 * two writers"): A's reads whose only other writer is B (needs[from, to),
 * the class (A, B, B)) see B's last write, so at A's read j B has done a
 * count in [lo, hi] of B's positions with that value; those counts only
 * grow along A's reads; and B's reads of A's writes order events of the
 * two threads: B's read m with A at most hi' done puts A's event hi' (and
 * later) after it, B's read m with A at least lo' done puts A's event
 * lo' - 1 (and earlier) before it. */
struct side {
	uint32_t from, to;
	uint32_t *lo, *hi;
};

/* The needs of the class (t, w, w). */
static void class_range(const struct cut *c, uint32_t t, uint32_t w, struct side *s)
{
	s->from = s->to = 0;
	for (uint32_t r = 0; r < c->n_needs; r++) {
		const struct need *e = &c->needs[r];
		if (e->t != t || e->a != w || e->b != w)
			continue;
		if (s->to == 0 || s->to != r)
			s->from = r;
		s->to = r + 1;
	}
}

/* One side's passes (s: A's reads of B's writes, o: B's reads of A's);
 * 0, or -1 when they contradict. *moved set when a bound moved. */
static int corr_side(const struct cut *c, struct side *s, const struct side *o, uint32_t len_b,
		     int *moved)
{
	uint32_t n = s->to - s->from, m = o->to - o->from, q = 0, bound = 0;

	for (uint32_t r = 0; r < n; r++) { /* the least counts, forward */
		const struct need *e = &c->needs[s->from + r];
		uint32_t lo = s->lo[r];
		if (r && s->lo[r - 1] > lo)
			lo = s->lo[r - 1];
		while (q < m && o->hi[q] <= e->j) /* B's read q comes before A's read j */
			bound = c->needs[o->from + q++].j + 1;
		lo = next_pos(c, e->a, bound > lo ? bound : lo, e->z, e->u);
		if (lo == NONE || lo > s->hi[r])
			return -1;
		if (lo != s->lo[r])
			s->lo[r] = lo, *moved = 1;
	}
	q = m;
	bound = len_b;
	for (uint32_t r = n; r-- > 0;) { /* the greatest counts, backward */
		const struct need *e = &c->needs[s->from + r];
		uint32_t hi = s->hi[r];
		if (r + 1 < n && s->hi[r + 1] < hi)
			hi = s->hi[r + 1];
		while (q > 0 && o->lo[q - 1] > e->j) /* A's read j comes before B's read */
			bound = c->needs[o->from + --q].j;
		hi = prev_pos(c, e->a, bound < hi ? bound : hi, e->z, e->u);
		if (hi == NONE || hi < s->lo[r])
			return -1;
		if (hi != s->hi[r])
			s->hi[r] = hi, *moved = 1;
	}
	return 0;
}

/* out[i]: the most events B has done when A does its event i. */
static void corr_fill(const struct cut *c, const struct side *s, const struct side *o,
		      uint32_t len_a, uint32_t len_b, uint32_t *out)
{
	uint32_t most = len_b, r = s->to - s->from, q = o->to - o->from;

	for (uint32_t i = len_a; i-- > 0;) {
		for (; r > 0 && c->needs[s->from + r - 1].j >= i; r--)
			most = s->hi[r - 1] < most ? s->hi[r - 1] : most;
		for (; q > 0 && o->lo[q - 1] > i; q--)
			most = c->needs[o->from + q - 1].j < most ? c->needs[o->from + q - 1].j
								  : most;
		out[i] = most;
	}
}

static uint32_t corr_none; /* c->corr's mark of a pair without a corridor */

/* work spent; when the budget says stop (for good: its time, its work
 * cap or another part's answer), c->corr_stopped is set. */
static int corr_stop(struct cut *c, unsigned long work)
{
	if (budget_spend(c->b, work))
		c->corr_stopped = 1;
	return c->corr_stopped;
}

/* Builds the corridors of A and B both ways; 0, -1 (none) or -2 (the
 * budget ran out: nothing built, nothing concluded). */
static int corr_build(struct cut *c, uint32_t A, uint32_t B)
{
	uint32_t la = c->p->threads[A].length, lb = c->p->threads[B].length;
	struct side sa, sb;
	uint32_t *cells, na, nb;
	int moved = 1, err = 0;

	if (c->corr_cells + la + lb > CORR_CELLS * (c->p->event_count + 1024))
		return -1;
	class_range(c, A, B, &sa);
	class_range(c, B, A, &sb);
	na = sa.to - sa.from;
	nb = sb.to - sb.from;
	if (!na && !nb)
		return -1;
	cells = malloc(2 * ((size_t)na + nb + 1) * sizeof(*cells));
	if (!cells)
		return -1;
	sa.lo = cells;
	sa.hi = sa.lo + na;
	sb.lo = sa.hi + na;
	sb.hi = sb.lo + nb;
	for (uint32_t r = 0; r < na; r++)
		sa.lo[r] = 0, sa.hi[r] = lb;
	for (uint32_t r = 0; r < nb; r++)
		sb.lo[r] = 0, sb.hi[r] = la;
	for (int round = 0; moved && !err && round < CORR_ROUNDS; round++) {
		moved = 0;
		err = corr_side(c, &sa, &sb, lb, &moved) || corr_side(c, &sb, &sa, la, &moved);
		if (!err && corr_stop(c, 2UL * (na + nb) + 1)) {
			free(cells);
			return -2;
		}
	}
	c->corr_empty |= err;
	if (!err) {
		c->corr[A * c->k + B] = malloc(((size_t)la + 1) * sizeof(uint32_t));
		c->corr[B * c->k + A] = malloc(((size_t)lb + 1) * sizeof(uint32_t));
		if (!c->corr[A * c->k + B] || !c->corr[B * c->k + A])
			err = -1;
	}
	if (!err) {
		corr_fill(c, &sa, &sb, la, lb, c->corr[A * c->k + B]);
		corr_fill(c, &sb, &sa, lb, la, c->corr[B * c->k + A]);
		c->corr_cells += la + lb;
		corr_stop(c, la + lb + 1); /* built: kept, the next use stops */
	}
	free(cells);
	return err;
}

/* A's corridor against B (c->corr), or NULL: no bound known (none, or
 * the budget ran out: c->corr_stopped, left unbuilt). */
const uint32_t *cut_corridor(struct cut *c, uint32_t A, uint32_t B)
{
	uint32_t **slot;

	if (!c->corr)
		return NULL;
	slot = &c->corr[A * c->k + B];

	if (!*slot && !c->corr_stopped && corr_build(c, A, B) == -1) {
		free(c->corr[A * c->k + B]);
		free(c->corr[B * c->k + A]);
		c->corr[A * c->k + B] = c->corr[B * c->k + A] = &corr_none;
	}
	return *slot == &corr_none ? NULL : *slot;
}

/* For a read of z with value u, of two other writers a and b: the least p
 * >= pa such that a's last write of z among its first p events has value u
 * and may come after b's last write of z among its first pb events (the
 * corridor does not put b's after it); NONE when there is none. */
static uint32_t next_pos_after(struct cut *c, uint32_t a, uint32_t b, uint32_t pa, uint32_t pb,
			       uint32_t z, int64_t u)
{
	const uint32_t *most = cut_corridor(c, a, b);
	uint32_t lo, hi, l, last_b;

	if (!most)
		return next_pos(c, a, pa, z, u);
	l = write_from(c, b, z, pb);
	if (l == c->first[b * c->vars + z]) /* b wrote no z among its first pb events */
		return next_pos(c, a, pa, z, u);
	last_b = c->at[l - 1];
	lo = c->first[a * c->vars + z];
	hi = c->first[a * c->vars + z + 1];
	l = write_from(c, a, z, pa);
	if (l > lo && c->val[l - 1] == u && most[c->at[l - 1]] > last_b)
		return pa;
	for (uint32_t m = l; m < hi; m++)
		if (c->val[m] == u && most[c->at[m]] > last_b)
			return c->at[m] + 1;
	return NONE;
}

static int by_point(const void *x, const void *y)
{
	const struct point *m = x, *n = y;

	if (m->a != n->a)
		return m->a < n->a ? -1 : 1;
	return m->b < n->b ? -1 : m->b > n->b;
}

enum embedding {
	EMBED_OK,
	EMBED_FAILS,
	EMBED_WIDE,
	EMBED_STOPPED,
};

/* Thread t's reads of the class needs[from, to) before index `before`,
 * embedded in points (events of writers a, b done) that only grow, inside
 * the box (ua, ub). EMBED_FAILS with *fail: the read that cannot;
 * EMBED_STOPPED: the budget ran out; EMBED_WIDE: too many points to say;
 * EMBED_OK with *la, *lb: the least coordinates of the last staircase. */
static enum embedding embed(struct cut *c, uint32_t from, uint32_t to, uint32_t before,
			    const uint32_t *U, uint32_t *la, uint32_t *lb, uint32_t *fail)
{
	uint32_t a = c->needs[from].a, b = c->needs[from].b, n = 1;

	c->stair[0] = (struct point){ 0, 0 };
	for (uint32_t r = from; r < to && c->needs[r].j < before; r++) {
		const struct need *e = &c->needs[r];
		uint32_t m = 0, kept = 0;
		for (uint32_t s = 0; s < n; s++) {
			uint32_t x = a == b ? next_pos(c, a, c->stair[s].a, e->z, e->u)
					    : next_pos_after(c, a, b, c->stair[s].a, c->stair[s].b,
							     e->z, e->u);
			if (x != NONE && x <= U[a])
				c->next[m++] = (struct point){ x, a == b ? x : c->stair[s].b };
			if (a == b)
				continue;
			x = next_pos_after(c, b, a, c->stair[s].b, c->stair[s].a, e->z, e->u);
			if (x != NONE && x <= U[b])
				c->next[m++] = (struct point){ c->stair[s].a, x };
		}
		if (budget_spend(c->b, n + 1) || c->corr_stopped)
			return EMBED_STOPPED;
		qsort(c->next, m, sizeof(*c->next), by_point);
		for (uint32_t s = 0; s < m; s++)
			if (!kept || c->next[s].b < c->stair[kept - 1].b)
				c->stair[kept++] = c->next[s];
		if (!kept) {
			*fail = e->j;
			return EMBED_FAILS;
		}
		if (kept > CUT_STAIRCASE)
			return EMBED_WIDE;
		n = kept;
	}
	*la = *lb = NONE;
	for (uint32_t s = 0; s < n; s++) {
		*la = c->stair[s].a < *la ? c->stair[s].a : *la;
		*lb = c->stair[s].b < *lb ? c->stair[s].b : *lb;
	}
	return EMBED_OK;
}

/* One class's facts on L and U. Returns CUT_STOPPED (the budget ran out),
 * CUT_CONTRADICTS, 1, or 2 when some bound moved. */
static int tighten_class(struct cut *c, uint32_t from, uint32_t to, uint32_t *L, uint32_t *U)
{
	uint32_t t = c->needs[from].t, a = c->needs[from].a, b = c->needs[from].b;
	uint32_t la, lb, fail;
	int moved = 0;

	switch (embed(c, from, to, U[t], U, &la, &lb, &fail)) {
	case EMBED_FAILS:
		U[t] = fail; /* t's read at fail is not before r */
		moved = 1;
		break;
	case EMBED_STOPPED:
		return CUT_STOPPED;
	default:
		break;
	}
	switch (embed(c, from, to, L[t], U, &la, &lb, &fail)) {
	case EMBED_FAILS:
		return CUT_CONTRADICTS;
	case EMBED_STOPPED:
		return CUT_STOPPED;
	case EMBED_WIDE:
		return 1 + moved;
	case EMBED_OK:
		break;
	}
	if (la > L[a])
		L[a] = la, moved = 1;
	if (lb > L[b])
		L[b] = lb, moved = 1;
	return 1 + moved;
}

int cut_tighten(struct cut *c, uint32_t *L, uint32_t *U)
{
	for (int moved = 1; moved;) {
		moved = 0;
		for (uint32_t from = 0, to; from < c->n_needs; from = to) {
			for (to = from + 1; to < c->n_needs && c->needs[to].t == c->needs[from].t &&
					    c->needs[to].a == c->needs[from].a &&
					    c->needs[to].b == c->needs[from].b;
			     to++)
				;
			int r = tighten_class(c, from, to, L, U);
			if (r <= 0)
				return r;
			moved |= r == 2;
		}
		for (uint32_t t = 0; t < c->k; t++)
			if (L[t] > U[t])
				return CUT_CONTRADICTS;
		if (c->b->steps >= c->end || budget_expired(c->b))
			return CUT_STOPPED;
	}
	return CUT_HOLDS;
}

/* Events [from[t], to[t]) of every thread, as a program with the initial
 * values inits (one a variable of p, the same numbering); threads[s]: p's
 * thread of its thread s. NULL when out of memory. */
struct vsc_program *cut_slice(const struct vsc_program *p, const uint32_t *from, const uint32_t *to,
			      const struct vsc_var_init *inits, uint32_t *threads)
{
	struct vsc_program *out = vsc_program_new();
	int err = out ? 0 : -ENOMEM;

	for (uint32_t x = 0; x < program_vars(p) && !err; x++) {
		const char *name = p->var_names.names[x];
		int v = program_var(out, name, strlen(name));
		if (v < 0)
			err = v;
		else
			out->inits[v] = inits[x];
	}
	for (uint32_t t = 0; t < program_threads(p) && !err; t++) {
		const struct vsc_thread *th = &p->threads[t];
		const char *name = p->thread_names.names[t];
		int s;
		if (from[t] >= to[t])
			continue;
		if ((s = program_thread(out, name, strlen(name))) < 0) {
			err = s;
			break;
		}
		threads[s] = t;
		for (uint32_t i = from[t]; i < to[t] && !err; i++)
			err = program_append(out, (uint32_t)s, &th->events[i],
					     th->ts ? th->ts[i] : 0, 0);
	}
	if (err) {
		vsc_program_free(out);
		return NULL;
	}
	return out;
}

/* Is anchor m before n (narrower, then by thread and index)? */
static int narrower(const struct anchor *m, const struct anchor *n)
{
	if (m->gap != n->gap)
		return m->gap < n->gap;
	return m->t != n->t ? m->t < n->t : m->j < n->j;
}

/* The needing reads whose thread's last access of the variable before
 * left another value, by how many events before (the narrowest first):
 * the first `most` of them, kept in order as they come (the callers try a
 * few; sorting them all took a third of a second at 5.6 M events). */
struct anchor *cut_rank_reads(const struct cut *c, uint32_t most, uint32_t *n)
{
	struct anchor *out = malloc((most ? most : 1) * sizeof(*out));
	uint32_t *last = malloc((c->vars ? c->vars : 1) * sizeof(*last));
	uint32_t t = NONE, i = 0;

	*n = 0;
	for (uint32_t s = 0; out && last && s < c->n_needs; s++) {
		const struct need *e = &c->needs[s];
		struct anchor a;
		uint32_t q;
		if (e->t != t) /* the thread's accesses replayed up to each read */
			t = e->t, i = 0, memset(last, 0xff, c->vars * sizeof(*last));
		if (e->j < i)
			t = e->t, i = 0, memset(last, 0xff, c->vars * sizeof(*last));
		for (; i < e->j; i++)
			last[c->p->threads[t].events[i].var] = i;
		if (last[e->z] == NONE || cut_left_by(&c->p->threads[t].events[last[e->z]]) == e->u)
			continue;
		a = (struct anchor){ e->j - last[e->z], e->t, e->j };
		if (*n == most && (!most || !narrower(&a, &out[most - 1])))
			continue;
		q = *n < most ? (*n)++ : most - 1; /* the last one out */
		for (; q > 0 && narrower(&a, &out[q - 1]); q--)
			out[q] = out[q - 1];
		out[q] = a;
	}
	free(last);
	return out;
}

void cut_free(struct cut *c)
{
	free(c->first);
	free(c->at);
	free(c->val);
	free(c->writers);
	free(c->needs);
	free(c->stair);
	free(c->next);
	for (size_t s = 0; c->corr && s < (size_t)c->k * c->k; s++)
		if (c->corr[s] != &corr_none)
			free(c->corr[s]);
	free(c->corr);
}

int cut_init(struct cut *c)
{
	c->k = program_threads(c->p);
	c->vars = program_vars(c->p);
	c->stair = malloc(2 * (CUT_STAIRCASE + 1) * sizeof(*c->stair));
	c->next = malloc(2 * (CUT_STAIRCASE + 1) * sizeof(*c->next));
	if (c->corridors && !(c->corr = calloc((size_t)c->k * c->k, sizeof(*c->corr))))
		return -ENOMEM;
	if (!c->stair || !c->next || cut_index_writes(c) || cut_collect_needs(c))
		return -ENOMEM;
	return 0;
}
