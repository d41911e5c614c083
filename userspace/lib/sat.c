/* SPDX-License-Identifier: MIT */
/* The SAT solver: "is there an SC interleaving with no preemption?" through
 * the encoding of encode.c and CaDiCaL, a model read back as an order of
 * threads, each run whole; other bounds, no bound and --min through
 * sat_bound.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cnf.h"
#include "lazy_order.h"
#include "solver.h"

static int budget_stop(void *ctx)
{
	return budget_look(ctx);
}

/* order_lit as lazy_order.h wants it: the encoding's pairs of threads. */
static int thread_lit(const void *ctx, uint32_t a, uint32_t b)
{
	return order_lit(ctx, a, b);
}

static void witness_from_order(const struct vsc_program *p, const struct order_encoding *o,
			       const struct lazy_order *t, struct vsc_result *res)
{
	size_t n = 0;

	for (uint32_t a = 0; a < t->k; a++) {
		uint32_t thread = o->threads[t->order[a]];
		for (uint32_t i = 0; i < p->threads[thread].length; i++)
			res->witness[n++] = thread;
	}
	res->witness_length = n;
	res->preemptions = 0;
}

/* The order of the threads, transitivity added lazily (lazy_order.c). */
static int solve_lazily(const struct vsc_program *p, const struct order_encoding *o,
			struct sat_backend *s, struct budget *b, struct vsc_result *res)
{
	struct lazy_order t;
	int answer, err = lazy_order_init(&t, o->count, thread_lit, o, "SAT rounds, threads");

	res->verdict = VSC_UNKNOWN;
	if (err)
		return err;
	answer = lazy_order_solve(&t, s, b, NULL, 0, &res->nodes, &res->steps);
	if (answer == 20)
		res->verdict = VSC_INCONSISTENT;
	if (answer == 10) {
		res->witness = malloc((p->event_count ? p->event_count : 1) * sizeof(uint32_t));
		if (!res->witness)
			answer = -ENOMEM;
		else
			witness_from_order(p, o, &t, res);
		res->verdict = res->witness ? VSC_CONSISTENT : VSC_UNKNOWN;
	}
	lazy_order_free(&t);
	return answer < 0 ? answer : 0;
}

/* Hands f's clauses to the solver, looking at the clock between chunks:
 * adding tens of millions of literals takes seconds (the encoding charged
 * the budget for them already). 1 when the budget ran out first. */
static int add_clauses(struct sat_backend *s, const struct cnf *f, struct budget *b)
{
	enum {
		CHUNK = 1 << 16
	};

	for (size_t i = 0; i < f->count; i += CHUNK) {
		size_t end = f->count - i < CHUNK ? f->count : i + CHUNK;
		for (size_t j = i; j < end; j++)
			sat_backend_add(s, f->lits[j]);
		if (budget_look(b))
			return 1;
	}
	return 0;
}

int sat_decide_no_preemption(const struct vsc_program *p, struct budget *b, struct vsc_result *res)
{
	struct cnf f;
	struct order_encoding o = { NULL, 0 };
	struct sat_backend *s = NULL;
	int err = encode_no_preemption(p, &f, &o, 0, b);
	int stopped = err == -ETIME;

	if (stopped)
		res->verdict = VSC_UNKNOWN;
	if (err)
		goto out;
	s = sat_backend_new(budget_stop, b);
	if (!s) {
		err = -ENOMEM;
		goto out;
	}
	sat_backend_reserve(s, f.nvars);
	stopped = add_clauses(s, &f, b);
	cnf_free(&f);
	if (stopped)
		res->verdict = VSC_UNKNOWN;
	else
		err = solve_lazily(p, &o, s, b, res);
out:
	if (budget_look(b))
		sat_backend_free_soon(s); /* out of time: not waiting for it */
	else
		sat_backend_free(s);
	cnf_free(&f);
	free(o.threads);
	return stopped ? 0 : err;
}

int sat_events_first(const struct vsc_program *p)
{
	uint32_t threads = 0;

	if (p->event_count > SAT_EVENTS_MAX)
		return 0;
	for (uint32_t t = 0; t < program_threads(p) && threads < SAT_EVENTS_THREADS; t++)
		threads += p->threads[t].length > 0;
	return threads >= SAT_EVENTS_THREADS;
}

/* With many threads (sat_events_first) every question by the order of
 * events (sat_bound.c), which asks no bound first: on the reductions of
 * unsatisfiable formulas that refutes every bound at once, where -p 0 is
 * the hard 3-SAT question. Else -p 0 by the order of threads first,
 * whatever the bound (cheap there, and an order of whole threads answers
 * every bound with least 0); other bounds, no bound and --min then by
 * the order of events. */
static int sat_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		     struct vsc_result *res)
{
	long lower = 0;
	int r;

	if (sat_events_first(p) && (r = sat_decide_bounded(p, q, b, res, 0)) != -E2BIG)
		return r;
	r = sat_decide_no_preemption(p, b, res);
	if (r != -E2BIG) { /* -E2BIG: too many threads for that encoding */
		if (r || q->bound == 0 || res->verdict != VSC_INCONSISTENT) {
			res->lower = res->verdict == VSC_CONSISTENT ? 0 : -1;
			return r;
		}
		lower = 1;
	}
	return sat_decide_bounded(p, q, b, res, lower);
}

const struct solver sat_solver = { "sat", sat_solve };

int vsc_encode_dimacs(const struct vsc_program *p, FILE *out)
{
	struct cnf f;
	struct order_encoding o = { NULL, 0 };
	int err;

	if (!p || !out)
		return -EINVAL;
	err = program_unpack(p);
	if (err)
		return err;
	err = encode_no_preemption(p, &f, &o, 1, NULL);
	if (!err) {
		fprintf(out,
			"c vsc: SC with no preemption; variable 1.. are the pairs of threads\n"
			"c (a, b), a < b, in row order, true when a runs first; then selectors\n");
		for (uint32_t i = 0; i < o.count; i++)
			fprintf(out, "c thread %u %s\n", i,
				vsc_program_thread_name(p, o.threads[i]));
		err = cnf_write_dimacs(&f, out, NULL);
	}
	cnf_free(&f);
	free(o.threads);
	return err;
}
