/* SPDX-License-Identifier: MIT */
/* Refuting a read that needs another thread's write by where every thread
 * can be when it happens (stale_refute.h; docs/solvers.md, "Refuting a
 * stale read by the positions at it").
 *
 * A read r (thread R, index i, variable x, value v) whose thread's own
 * last write of x is not v (or none, and the initial value cannot be v)
 * sees a write of (x, v) by another thread: R's own writes of x are not
 * the last before it. One case per such write w[a]: when r happens R has
 * done exactly i events, w at least a + 1 and at most b (w's next write of
 * x after a, which follows r). The cases cover every SC interleaving. A
 * case is a box L <= done <= U, closed when
 *
 *  - the bounds (stale_bounds.c) contradict, or
 *  - the prefix program has no SC interleaving: each thread's first L_t
 *    events (R's first i and r), without the reads that may see a write
 *    of another thread inside its window [L_w, U_w) (an RMW keeps its
 *    write). Restrict an SC interleaving of the case to these events: they
 *    all precede r, so a kept read's source precedes r, lies among its
 *    thread's first U_w events and, the read being kept, not in the
 *    window: it is kept, and still the last write before the read;
 *
 * else the widest window is halved and both halves must close (not when
 * the prefix program's solve ran out of its work: the halves' programs
 * are as large). Every case closed: no SC interleaving, whatever the
 * bound. */
#include "stale_refute.h"

#include "stale_bounds.h"
#include "stale_cut.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REFUTE_ANCHORS 4 /* reads tried as r, the narrowest first */
#define REFUTE_NODES 64  /* boxes a case may take */
#define REFUTE_DEPTH 16  /* halvings down one path */
#define WINDOW_VALUES 16 /* (writer, value) pairs kept a variable, else every read dropped */
/* Work (budget units per event of a prefix program) its solve may take:
 * the prefix programs the refutation closed took at most 1,700 (10^5
 * stale seed 1: 11,000 events, 18 M units), the ones it did not took the
 * whole share (a consistent 2x10^4 trace: 40 M units a 3,400-event
 * program, 2.6 s CPU in all). */
#define PREFIX_WORK 2048UL

enum prefix_answer {
	PREFIX_OPEN = 0,
	PREFIX_REFUTED = 1,
	PREFIX_STOPPED = 2, /* its solve ran out of work: a half would too */
};

/* A write of a variable inside its thread's window. */
struct window_write {
	uint32_t w;
	int64_t u;
};

struct refute {
	struct cut c;
	writer_group_solve_fn solve;
	uint32_t R, i;            /* the read r */
	uint32_t *win_n;          /* per variable: pairs kept, WINDOW_VALUES + 1 = too many */
	struct window_write *win; /* vars * WINDOW_VALUES */
	uint32_t *upto;           /* each thread's events in the prefix program */
};

/* The distinct (writer, value) pairs of the writes inside the windows. */
static void list_window_writes(struct refute *f, const uint32_t *L, const uint32_t *U)
{
	struct cut *c = &f->c;

	memset(f->win_n, 0, c->vars * sizeof(*f->win_n));
	for (uint32_t w = 0; w < c->k; w++)
		for (uint32_t z = 0; z < c->vars && L[w] < U[w]; z++)
			for (uint32_t s = c->first[w * c->vars + z];
			     s < c->first[w * c->vars + z + 1]; s++) {
				uint32_t *n = &f->win_n[z], m = 0;
				struct window_write *list = &f->win[(size_t)z * WINDOW_VALUES];
				if (c->at[s] < L[w] || c->at[s] >= U[w] || *n > WINDOW_VALUES)
					continue;
				while (m < *n && (list[m].w != w || list[m].u != c->val[s]))
					m++;
				if (m < *n)
					continue;
				if (*n == WINDOW_VALUES)
					*n = WINDOW_VALUES + 1; /* too many: every read of z goes */
				else
					list[(*n)++] = (struct window_write){ w, c->val[s] };
			}
}

/* Whether thread t's read of (z, u) may see a write inside another thread's
 * window. */
static int may_see_window(const struct refute *f, uint32_t t, uint32_t z, int64_t u)
{
	const struct window_write *list = &f->win[(size_t)z * WINDOW_VALUES];

	if (f->win_n[z] > WINDOW_VALUES)
		return 1;
	for (uint32_t m = 0; m < f->win_n[z]; m++)
		if (list[m].w != t && list[m].u == u)
			return 1;
	return 0;
}

/* The prefix program of the box; NULL when out of memory. */
static struct vsc_program *prefix_program(struct refute *f, const uint32_t *L, const uint32_t *U)
{
	const struct vsc_program *p = f->c.p;
	struct vsc_program *out = vsc_program_new();
	int err = out ? 0 : -ENOMEM;

	list_window_writes(f, L, U);
	memcpy(f->upto, L, f->c.k * sizeof(*f->upto));
	f->upto[f->R] = f->i + 1;
	for (uint32_t x = 0; x < f->c.vars && !err; x++) {
		const char *name = p->var_names.names[x];
		int v = program_var(out, name, strlen(name));
		if (v < 0)
			err = v;
		else
			out->inits[v] = p->inits[x];
	}
	for (uint32_t t = 0; t < f->c.k && !err; t++) {
		const struct vsc_thread *th = &p->threads[t];
		const char *name = p->thread_names.names[t];
		int s;
		if (!f->upto[t])
			continue;
		if ((s = program_thread(out, name, strlen(name))) < 0) {
			err = s;
			break;
		}
		for (uint32_t j = 0; j < f->upto[t] && !err; j++) {
			struct vsc_event e = th->events[j];
			if (e.kind != VSC_WRITE && may_see_window(f, t, e.var, e.value)) {
				if (e.kind == VSC_READ)
					continue;
				e.kind = VSC_WRITE; /* an RMW keeps its write */
				e.value = e.new_value;
				e.new_value = 0;
			}
			err = program_append(out, (uint32_t)s, &e, th->ts ? th->ts[j] : 0, 0);
		}
	}
	if (err) {
		vsc_program_free(out);
		return NULL;
	}
	return out;
}

/* Whether the box's prefix program has no SC interleaving (enum
 * prefix_answer), or -ENOMEM. */
static int prefix_refuted(struct refute *f, const uint32_t *L, const uint32_t *U)
{
	struct query q = { .bound = -1, .jobs = 1, .no_cut = 1 };
	struct budget *b = f->c.b;
	unsigned long outer = b->work_cap, cap;
	struct vsc_program *sp;
	struct vsc_result res;
	int answer = PREFIX_OPEN;

	if (budget_spend(b, (unsigned long)f->c.k * f->c.vars + 1))
		return 0; /* the windows' scan, charged like the rest */
	if (!(sp = prefix_program(f, L, U)))
		return -ENOMEM;
	memset(&res, 0, sizeof(res));
	res.preemptions = res.lower = -1;
	cap = b->steps + PREFIX_WORK * (vsc_program_event_count(sp) + 1);
	if (f->c.end < cap)
		cap = f->c.end;
	b->work_cap = outer && outer < cap ? outer : cap;
	if (f->solve(sp, &q, b, &res) == 0 && res.verdict == VSC_INCONSISTENT)
		answer = PREFIX_REFUTED;
	else if (res.verdict == VSC_UNKNOWN)
		answer = PREFIX_STOPPED;
	b->work_cap = outer;
	free(res.witness);
	result_drop_analysis(&res);
	vsc_program_free(sp);
	return answer;
}

/* 1 when no SC interleaving has r with every thread's position in the box
 * [L, U] (both changed), 0 when that is not shown, or -ENOMEM. */
static int box_refuted(struct refute *f, uint32_t *L, uint32_t *U, int depth)
{
	uint32_t k = f->c.k, wide = 0, *L2, *U2;
	int r = cut_tighten(&f->c, L, U);

	if (r == CUT_CONTRADICTS)
		return 1;
	if (r == CUT_STOPPED || f->c.nodes-- <= 0)
		return 0;
	if ((r = prefix_refuted(f, L, U)) != PREFIX_OPEN)
		return r == PREFIX_STOPPED ? 0 : r;
	for (uint32_t t = 1; t < k; t++)
		if (U[t] - L[t] > U[wide] - L[wide])
			wide = t;
	if (depth == 0 || U[wide] == L[wide])
		return 0;
	L2 = malloc(k * sizeof(*L2));
	U2 = malloc(k * sizeof(*U2));
	r = L2 && U2 ? 1 : -ENOMEM;
	for (int half = 0; half < 2 && r == 1; half++) {
		uint32_t mid = L[wide] + (U[wide] - L[wide]) / 2;
		memcpy(L2, L, k * sizeof(*L2));
		memcpy(U2, U, k * sizeof(*U2));
		if (half)
			L2[wide] = mid + 1;
		else
			U2[wide] = mid;
		r = box_refuted(f, L2, U2, depth - 1);
	}
	free(L2);
	free(U2);
	return r;
}

/* 1 when every write r = R[i] may see is ruled out, 0, or -ENOMEM. r needs
 * another thread's write (it is one of the cut's needing reads). */
static int read_refuted(struct refute *f, uint32_t R, uint32_t i, uint32_t *L, uint32_t *U)
{
	struct cut *c = &f->c;
	const struct vsc_event *r = &c->p->threads[R].events[i];
	uint32_t x = r->var;

	f->R = R;
	f->i = i;
	for (uint32_t w = 0; w < c->k; w++) {
		if (w == R || !(c->writers[x] >> w & 1))
			continue;
		uint32_t lo = c->first[w * c->vars + x], hi = c->first[w * c->vars + x + 1];
		for (uint32_t s = lo; s < hi; s++) {
			int closed;
			if (c->val[s] != r->value)
				continue;
			for (uint32_t t = 0; t < c->k; t++)
				L[t] = 0, U[t] = c->p->threads[t].length;
			L[w] = c->at[s] + 1;
			U[w] = s + 1 < hi ? c->at[s + 1] : c->p->threads[w].length;
			L[R] = U[R] = i;
			c->nodes = REFUTE_NODES;
			if ((closed = box_refuted(f, L, U, REFUTE_DEPTH)) != 1)
				return closed;
		}
	}
	return 1;
}

static void refute_free(struct refute *f)
{
	free(f->win_n);
	free(f->win);
	free(f->upto);
	cut_free(&f->c);
}

int stale_refute(const struct vsc_program *p, struct budget *b, unsigned long work,
		 writer_group_solve_fn solve)
{
	struct refute f = { .c = { .p = p, .b = b, .corridors = 1 }, .solve = solve };
	struct anchor *anchors = NULL;
	uint32_t *L = NULL, *U = NULL, n = 0, k = program_threads(p);
	unsigned long end = b->steps + work;
	int r = 0;

	/* the clock looked at now: a phase before may have stopped at the
	 * deadline, and the next look of budget_expired() is 4,096 units on */
	if (k < 2 || k > STALE_CUT_MAX_THREADS || !p->event_count || budget_look(b))
		return STALE_REFUTE_OPEN;
	L = malloc(k * sizeof(*L));
	U = malloc(k * sizeof(*U));
	f.upto = malloc(k * sizeof(*f.upto));
	f.win_n = malloc((program_vars(p) ? program_vars(p) : 1) * sizeof(*f.win_n));
	f.win = malloc((program_vars(p) ? program_vars(p) : 1) * WINDOW_VALUES * sizeof(*f.win));
	if (!L || !U || !f.upto || !f.win_n || !f.win || cut_init(&f.c))
		r = -ENOMEM;
	else if (budget_look(b)) /* its start is linear, but long at 10^7 events */
		r = STALE_REFUTE_OPEN;
	else if (!(anchors = cut_rank_reads(&f.c, REFUTE_ANCHORS, &n)))
		r = -ENOMEM;
	for (uint32_t s = 0; !r && s < n; s++) {
		uint32_t left = n - s;
		if (b->steps >= end || budget_expired(b))
			break;
		f.c.end = b->steps + (end - b->steps) / left; /* a fair share of what is left */
		r = read_refuted(&f, anchors[s].t, anchors[s].j, L, U);
	}
	free(anchors);
	free(L);
	free(U);
	refute_free(&f);
	if (r < 0)
		return r;
	return r == 1 ? STALE_REFUTE_REFUTED : STALE_REFUTE_OPEN;
}
