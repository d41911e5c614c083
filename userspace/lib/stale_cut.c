/* SPDX-License-Identifier: MIT */
/* A witness cut at a read (stale_cut.h; docs/solvers.md, "A witness cut
 * at a stale read").
 *
 * A read r (thread R, index i, variable x, value v) whose own thread's
 * last write of x is not v (or none, and the initial value cannot be v)
 * sees another thread's write of (x, v). Every SC interleaving has, when r
 * happens, some number of events of each thread done: R exactly i, and for
 * the write r sees, w[a], w at least a + 1 and at most b (w's next write of
 * x after a). Bounds L_t <= done_t <= U_t are tightened by the reads that
 * need another thread's write (the same relaxation as bench/stale_boxes.py:
 * such a read of z with value u sees the last write of z of one of its
 * writers A, B among the events they have done then, and a thread's reads
 * take points that only grow). Then the widest window is halved, the lower
 * half first, down to one point C (L = U).
 *
 * At a point the program splits in two: each thread's first C_t events
 * (R's first i + 1), and the rest of every thread from the memory the first
 * leave. An SC interleaving of the first, then one of the rest, is an SC
 * interleaving of the whole: the rest's reads see its own writes or the
 * memory the first left, which is its initial memory. Both halves are
 * decided by auto itself (no bound), the two witnesses joined, and the
 * whole passes vsc_witness_verify() before it is returned. The bounds only
 * choose the point: a wrong bound costs a witness not found, never a wrong
 * one; a half that is inconsistent says nothing of the whole (another
 * point may work), so this never refutes.
 *
 * Which read: the reads that need another thread's write, those whose own
 * thread touched the variable last the fewest events before first (a read
 * made stale lies a few events after its thread's own access: its source
 * must fall in that narrow window of another thread). */
#include "stale_cut.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define CUT_ANCHORS 6       /* reads tried as r, the narrowest first */
#define CUT_CASES 4         /* writes r may see tried per read */
#define CUT_NODES 256       /* halvings per read */
#define CUT_POINTS 1        /* points decided per read */
#define CUT_STAIRCASE 16384 /* points a staircase keeps, else no conclusion */

/* A read that needs a write of another thread: of a (and b; a == b: one). */
struct need {
	uint32_t t, a, b, j, z;
	int64_t u;
};

struct point {
	uint32_t a, b;
};

struct cut {
	const struct vsc_program *p;
	uint32_t k, vars;
	uint32_t *first; /* k * vars + 1: thread t's writes of z at first[t * vars + z] */
	uint32_t *at;    /* each write's index in its thread */
	int64_t *val;    /* and the value it writes */
	uint64_t *writers;
	struct need *needs;
	uint32_t n_needs;
	struct point *stair, *next; /* 2 * (CUT_STAIRCASE + 1) each */
	struct budget *b;
	unsigned long end; /* the budget's steps at which to stop */
	writer_group_solve_fn solve;
	uint32_t *witness;
	long preemptions;
	int nodes, points;
};

static int64_t written(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* What an access leaves in its variable. */
static int64_t left_by(const struct vsc_event *e)
{
	return e->kind == VSC_READ ? e->value : written(e);
}

static int init_may_be(const struct vsc_program *p, uint32_t z, int64_t u)
{
	const struct vsc_var_init *in = &p->inits[z];

	return in->kind == VSC_INIT_UNKNOWN || (in->kind == VSC_INIT_KNOWN && in->value == u);
}

/* Every thread's writes by variable, and each variable's writer threads. */
static int index_writes(struct cut *c)
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
			c->val[s] = written(e);
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
static int collect_needs(struct cut *c)
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
						 : !init_may_be(p, e->var, e->value));
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
				own[e->var] = written(e);
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

/* One class's facts on L and U. Returns 0 (a contradiction, or the
 * budget ran out: no point is looked for then either), 1, or 2 when some
 * bound moved. */
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
		return 0;
	default:
		break;
	}
	switch (embed(c, from, to, L[t], U, &la, &lb, &fail)) {
	case EMBED_FAILS:
	case EMBED_STOPPED:
		return 0;
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

/* The bounds' fixpoint: 0 when they contradict (or the budget ran out: no
 * point is looked for then either). */
static int tighten(struct cut *c, uint32_t *L, uint32_t *U)
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
			if (!r)
				return 0;
			moved |= r == 2;
		}
		for (uint32_t t = 0; t < c->k; t++)
			if (L[t] > U[t])
				return 0;
		if (c->b->steps >= c->end || budget_expired(c->b))
			return 0;
	}
	return 1;
}

/* Events [from[t], to[t]) of every thread, as a program with the initial
 * values inits (one a variable of p, the same numbering); threads[s]: p's
 * thread of its thread s. NULL when out of memory. */
static struct vsc_program *slice(const struct vsc_program *p, const uint32_t *from,
				 const uint32_t *to, const struct vsc_var_init *inits,
				 uint32_t *threads)
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

/* A witness of sp (no bound), or NULL; its steps are sp's threads. */
static uint32_t *decide_half(struct cut *c, const struct vsc_program *sp)
{
	struct query q = {
		.bound = -1, .want_witness = 1, .jobs = 1, .no_cut = 1, .witness_only = 1
	};
	struct vsc_result res;
	unsigned long outer = c->b->work_cap;
	uint32_t *w = NULL;

	memset(&res, 0, sizeof(res));
	res.preemptions = res.lower = -1;
	c->b->work_cap = outer && outer < c->end ? outer : c->end;
	if (c->solve(sp, &q, c->b, &res) == 0 && res.verdict == VSC_CONSISTENT &&
	    res.witness_length == sp->event_count) {
		w = res.witness;
		res.witness = NULL;
	}
	c->b->work_cap = outer;
	free(res.witness);
	result_drop_analysis(&res);
	return w;
}

/* The memory after the steps of sp's witness w, as initial values of p's
 * variables (sp numbers them as p does; what no step touched keeps p's). */
static int memory_after(const struct vsc_program *p, const struct vsc_program *sp,
			const uint32_t *w, struct vsc_var_init *mem)
{
	uint32_t *next = calloc(program_threads(sp) ? program_threads(sp) : 1, sizeof(*next));

	if (!next)
		return -ENOMEM;
	memcpy(mem, p->inits, program_vars(p) * sizeof(*mem));
	for (size_t s = 0; s < sp->event_count; s++) {
		const struct vsc_event *e = &sp->threads[w[s]].events[next[w[s]]++];
		mem[e->var].kind = VSC_INIT_KNOWN;
		mem[e->var].value = left_by(e);
	}
	free(next);
	return 0;
}

/* Decide the events before the point (each thread's first done[t]) and
 * the rest; on both witnesses, their join into c->witness when it
 * verifies. Returns 1 when it does, 0, or -ENOMEM. */
static int join_halves(struct cut *c, const uint32_t *done)
{
	const struct vsc_program *p = c->p;
	uint32_t k = c->k, *zero = calloc(k, sizeof(*zero)), *all = malloc(k * sizeof(*all));
	uint32_t *first_threads = malloc(k * sizeof(*first_threads));
	uint32_t *rest_threads = malloc(k * sizeof(*rest_threads));
	struct vsc_var_init *mem = malloc((c->vars ? c->vars : 1) * sizeof(*mem));
	struct vsc_program *before = NULL, *after = NULL;
	uint32_t *wb = NULL, *wa = NULL, *whole = NULL;
	int found = 0, err = -ENOMEM;

	if (!zero || !all || !first_threads || !rest_threads || !mem)
		goto out;
	for (uint32_t t = 0; t < k; t++)
		all[t] = p->threads[t].length;
	if (!(before = slice(p, zero, done, p->inits, first_threads)))
		goto out;
	err = 0;
	if (!(wb = decide_half(c, before)))
		goto out;
	err = -ENOMEM;
	if (memory_after(p, before, wb, mem) || !(after = slice(p, done, all, mem, rest_threads)))
		goto out;
	err = 0;
	if (!(wa = decide_half(c, after)))
		goto out;
	err = -ENOMEM;
	if (!(whole = malloc((p->event_count ? p->event_count : 1) * sizeof(*whole))))
		goto out;
	err = 0;
	for (size_t s = 0; s < before->event_count; s++)
		whole[s] = first_threads[wb[s]];
	for (size_t s = 0; s < after->event_count; s++)
		whole[before->event_count + s] = rest_threads[wa[s]];
	if (before->event_count + after->event_count == p->event_count &&
	    vsc_witness_verify(p, whole, p->event_count, &c->preemptions, NULL, 0) == 0) {
		c->witness = whole;
		whole = NULL;
		found = 1;
	}
out:
	free(whole);
	free(wa);
	free(wb);
	vsc_program_free(after);
	vsc_program_free(before);
	free(mem);
	free(rest_threads);
	free(first_threads);
	free(all);
	free(zero);
	return err ? err : found;
}

/* Halve the widest window, the lower half first, down to points; each
 * point decided by join_halves(). Returns 1 (a witness), 0, or -ENOMEM. */
static int dive(struct cut *c, uint32_t *L, uint32_t *U, uint32_t R, uint32_t i)
{
	uint32_t k = c->k, wide = 0, *L2, *U2;
	int r;

	if (c->nodes-- <= 0 || c->points <= 0 || !tighten(c, L, U))
		return 0;
	for (uint32_t t = 1; t < k; t++)
		if (U[t] - L[t] > U[wide] - L[wide])
			wide = t;
	if (U[wide] == L[wide]) {
		c->points--;
		L[R] = i + 1; /* the first half ends with r */
		r = join_halves(c, L);
		L[R] = i;
		return r;
	}
	L2 = malloc(k * sizeof(*L2));
	U2 = malloc(k * sizeof(*U2));
	if (!L2 || !U2) {
		free(L2);
		free(U2);
		return -ENOMEM;
	}
	memcpy(L2, L, k * sizeof(*L2));
	memcpy(U2, U, k * sizeof(*U2));
	U2[wide] = L[wide] + (U[wide] - L[wide]) / 2;
	r = dive(c, L2, U2, R, i);
	if (!r) {
		memcpy(L2, L, k * sizeof(*L2));
		memcpy(U2, U, k * sizeof(*U2));
		L2[wide] = L[wide] + (U[wide] - L[wide]) / 2 + 1;
		r = dive(c, L2, U2, R, i);
	}
	free(L2);
	free(U2);
	return r;
}

/* The cases of the write r = R[i] sees, the first CUT_CASES: the initial
 * value (when R has no write of x before and it may be v), then each
 * other writer's writes of (x, v) in order. Returns 1, 0 or -ENOMEM. */
static int try_read(struct cut *c, uint32_t R, uint32_t i, uint32_t *L, uint32_t *U)
{
	const struct vsc_event *r = &c->p->threads[R].events[i];
	uint32_t x = r->var, cases = 0;
	int own = 0, found = 0;

	c->nodes = CUT_NODES;
	c->points = CUT_POINTS;
	for (uint32_t s = c->first[R * c->vars + x]; s < c->first[R * c->vars + x + 1]; s++)
		own = own || c->at[s] < i;
	for (uint32_t w = 0; w < c->k && !found && cases < CUT_CASES; w++) {
		if (w == R || !(c->writers[x] >> w & 1))
			continue;
		uint32_t lo = c->first[w * c->vars + x], hi = c->first[w * c->vars + x + 1];
		for (uint32_t s = lo; s < hi && !found && cases < CUT_CASES; s++) {
			if (c->val[s] != r->value)
				continue;
			for (uint32_t t = 0; t < c->k; t++)
				L[t] = 0, U[t] = c->p->threads[t].length;
			L[w] = c->at[s] + 1;
			U[w] = s + 1 < hi ? c->at[s + 1] : c->p->threads[w].length;
			L[R] = U[R] = i;
			cases++;
			found = dive(c, L, U, R, i);
		}
	}
	if (!found && !own && init_may_be(c->p, x, r->value)) {
		for (uint32_t t = 0; t < c->k; t++) {
			L[t] = 0, U[t] = c->p->threads[t].length;
			if (t != R && c->first[t * c->vars + x] < c->first[t * c->vars + x + 1])
				U[t] = c->at[c->first[t * c->vars + x]];
		}
		L[R] = U[R] = i;
		found = dive(c, L, U, R, i);
	}
	return found;
}

struct anchor {
	uint32_t gap, t, j;
};

static int narrow_first(const void *x, const void *y)
{
	const struct anchor *m = x, *n = y;

	if (m->gap != n->gap)
		return m->gap < n->gap ? -1 : 1;
	return m->t != n->t ? (m->t < n->t ? -1 : 1) : (m->j < n->j ? -1 : m->j > n->j);
}

/* The needing reads whose thread's last access of the variable before
 * left another value, by how many events before (the narrowest first). */
static struct anchor *rank_reads(const struct cut *c, uint32_t *n)
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
		if (last[e->z] != NONE && left_by(&c->p->threads[t].events[last[e->z]]) != e->u)
			out[(*n)++] = (struct anchor){ e->j - last[e->z], e->t, e->j };
	}
	free(last);
	if (out)
		qsort(out, *n, sizeof(*out), narrow_first);
	return out;
}

static void cut_free(struct cut *c)
{
	free(c->first);
	free(c->at);
	free(c->val);
	free(c->writers);
	free(c->needs);
	free(c->stair);
	free(c->next);
}

int stale_cut_witness(const struct vsc_program *p, struct budget *b, unsigned long work,
		      writer_group_solve_fn solve, uint32_t **witness, long *preemptions)
{
	struct cut c = { .p = p, .k = program_threads(p), .vars = program_vars(p), .b = b };
	struct anchor *anchors = NULL;
	uint32_t *L = NULL, *U = NULL, n = 0;
	int r = 0;

	*witness = NULL;
	if (c.k < 2 || c.k > STALE_CUT_MAX_THREADS || !p->event_count)
		return STALE_CUT_OPEN;
	c.end = b->steps + work;
	c.solve = solve;
	c.stair = malloc(2 * (CUT_STAIRCASE + 1) * sizeof(*c.stair));
	c.next = malloc(2 * (CUT_STAIRCASE + 1) * sizeof(*c.next));
	L = malloc(c.k * sizeof(*L));
	U = malloc(c.k * sizeof(*U));
	if (!c.stair || !c.next || !L || !U || index_writes(&c) || collect_needs(&c) ||
	    !(anchors = rank_reads(&c, &n)))
		r = -ENOMEM;
	for (uint32_t s = 0; !r && s < n && s < CUT_ANCHORS; s++) {
		if (b->steps >= c.end || budget_expired(b))
			break;
		r = try_read(&c, anchors[s].t, anchors[s].j, L, U);
	}
	free(anchors);
	free(L);
	free(U);
	cut_free(&c);
	if (r < 0)
		return r;
	if (r != 1)
		return STALE_CUT_OPEN;
	*witness = c.witness;
	*preemptions = c.preemptions;
	return STALE_CUT_FOUND;
}
