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

static int by_class(const void *x, const void *y)
{
	const struct need *m = x, *n = y;

	if (m->t != n->t)
		return m->t < n->t ? -1 : 1;
	if (m->a != n->a)
		return m->a < n->a ? -1 : 1;
	if (m->b != n->b)
		return m->b < n->b ? -1 : 1;
	return m->j < n->j ? -1 : m->j > n->j;
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
	qsort(c->needs, c->n_needs, sizeof(*c->needs), by_class);
	return 0;
}

/* The least p >= from with w's last write of z among its first p events of
 * value u; NONE when there is none. */
static uint32_t next_pos(const struct cut *c, uint32_t w, uint32_t from, uint32_t z, int64_t u)
{
	uint32_t lo = c->first[w * c->vars + z], hi = c->first[w * c->vars + z + 1];
	uint32_t l = lo, h = hi;

	while (l < h) { /* the first of w's writes of z at or after from */
		uint32_t m = l + (h - l) / 2;
		if (c->at[m] < from)
			l = m + 1;
		else
			h = m;
	}
	if (l > lo && c->val[l - 1] == u)
		return from;
	for (uint32_t m = l; m < hi; m++)
		if (c->val[m] == u)
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
			uint32_t x = next_pos(c, a, c->stair[s].a, e->z, e->u);
			if (x != NONE && x <= U[a])
				c->next[m++] = (struct point){ x, a == b ? x : c->stair[s].b };
			if (a == b)
				continue;
			x = next_pos(c, b, c->stair[s].b, e->z, e->u);
			if (x != NONE && x <= U[b])
				c->next[m++] = (struct point){ c->stair[s].a, x };
		}
		if (budget_spend(c->b, n + 1))
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

static int narrow_first(const void *x, const void *y)
{
	const struct anchor *m = x, *n = y;

	if (m->gap != n->gap)
		return m->gap < n->gap ? -1 : 1;
	return m->t != n->t ? (m->t < n->t ? -1 : 1) : (m->j < n->j ? -1 : m->j > n->j);
}

/* The needing reads whose thread's last access of the variable before
 * left another value, by how many events before (the narrowest first). */
struct anchor *cut_rank_reads(const struct cut *c, uint32_t *n)
{
	struct anchor *out = malloc((c->n_needs ? c->n_needs : 1) * sizeof(*out));
	uint32_t *last = malloc((c->vars ? c->vars : 1) * sizeof(*last));
	uint32_t t = NONE, i = 0;

	*n = 0;
	for (uint32_t s = 0; out && last && s < c->n_needs; s++) {
		const struct need *e = &c->needs[s];
		if (e->t != t) /* the thread's accesses replayed up to each read */
			t = e->t, i = 0, memset(last, 0xff, c->vars * sizeof(*last));
		if (e->j < i)
			t = e->t, i = 0, memset(last, 0xff, c->vars * sizeof(*last));
		for (; i < e->j; i++)
			last[c->p->threads[t].events[i].var] = i;
		if (last[e->z] != NONE && cut_left_by(&c->p->threads[t].events[last[e->z]]) != e->u)
			out[(*n)++] = (struct anchor){ e->j - last[e->z], e->t, e->j };
	}
	free(last);
	if (out)
		qsort(out, *n, sizeof(*out), narrow_first);
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
}

int cut_init(struct cut *c)
{
	c->k = program_threads(c->p);
	c->vars = program_vars(c->p);
	c->stair = malloc(2 * (CUT_STAIRCASE + 1) * sizeof(*c->stair));
	c->next = malloc(2 * (CUT_STAIRCASE + 1) * sizeof(*c->next));
	if (!c->stair || !c->next || cut_index_writes(c) || cut_collect_needs(c))
		return -ENOMEM;
	return 0;
}
