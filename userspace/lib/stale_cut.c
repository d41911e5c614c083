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

#include "stale_bounds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CUT_ANCHORS 6 /* reads tried as r, the narrowest first */
#define CUT_CASES 4   /* writes r may see tried per read */
#define CUT_NODES 256 /* halvings per read */
#define CUT_POINTS 1  /* points decided per read */

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
		mem[e->var].value = cut_left_by(e);
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
	if (!(before = cut_slice(p, zero, done, p->inits, first_threads)))
		goto out;
	err = 0;
	if (!(wb = decide_half(c, before)))
		goto out;
	err = -ENOMEM;
	if (memory_after(p, before, wb, mem) ||
	    !(after = cut_slice(p, done, all, mem, rest_threads)))
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

	if (c->nodes-- <= 0 || c->points <= 0 || cut_tighten(c, L, U) != CUT_HOLDS)
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
	if (!found && !own && cut_init_may_be(c->p, x, r->value)) {
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

int stale_cut_witness(const struct vsc_program *p, struct budget *b, unsigned long work,
		      writer_group_solve_fn solve, uint32_t **witness, long *preemptions)
{
	struct cut c = { .p = p, .k = program_threads(p), .vars = program_vars(p), .b = b };
	struct anchor *anchors = NULL;
	uint32_t *L = NULL, *U = NULL, n = 0;
	int r = 0;

	*witness = NULL;
	/* the clock looked at now: a phase before may have stopped at the
	 * deadline, and the next look of budget_expired() is 4,096 units on */
	if (c.k < 2 || c.k > STALE_CUT_MAX_THREADS || !p->event_count || budget_look(b))
		return STALE_CUT_OPEN;
	c.end = b->steps + work;
	c.solve = solve;
	L = malloc(c.k * sizeof(*L));
	U = malloc(c.k * sizeof(*U));
	if (!L || !U || cut_init(&c))
		r = -ENOMEM;
	else if (budget_look(b)) /* its start is linear, but long at 10^7 events */
		r = STALE_CUT_OPEN;
	else if (!(anchors = cut_rank_reads(&c, CUT_ANCHORS, &n)))
		r = -ENOMEM;
	for (uint32_t s = 0; !r && s < n; s++) {
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
