/* SPDX-License-Identifier: MIT */
/* The SAT solver: "is there an SC interleaving with no preemption?" through
 * the encoding of encode.c and CaDiCaL. Answers only -p 0 (with or without
 * --min); other questions get -EINVAL. A model is read back as an order of
 * threads, each run whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cnf.h"
#include "sat_backend.h"
#include "solver.h"

static int budget_stop(void *ctx)
{
	return budget_expired(ctx);
}

#define CYCLES_PER_ROUND 200000 /* transitivity clauses added per model, at most */

struct tournament {
	uint32_t k;
	uint8_t *before; /* k x k: before[a * k + b], a runs before b */
	uint32_t *order; /* threads by how many they run before, most first */
	uint32_t *score;
	uint32_t *count; /* k + 1: threads per score, for the counting sort */
};

static void tournament_read(struct tournament *t, const struct order_encoding *o,
			    struct sat_backend *s)
{
	memset(t->score, 0, t->k * sizeof(*t->score));
	memset(t->count, 0, (t->k + 1) * sizeof(*t->count));
	for (uint32_t a = 0; a < t->k; a++) {
		for (uint32_t b = a + 1; b < t->k; b++) {
			int ab = sat_backend_true(s, order_lit(o, a, b));
			t->before[(size_t)a * t->k + b] = (uint8_t)ab;
			t->before[(size_t)b * t->k + a] = (uint8_t)!ab;
			t->score[ab ? a : b]++;
		}
	}
	/* counting sort, most runs-before first */
	for (uint32_t a = 0; a < t->k; a++)
		t->count[t->k - 1 - t->score[a]]++;
	for (uint32_t c = 0, sum = 0; c <= t->k; c++) {
		uint32_t here = t->count[c];
		t->count[c] = sum;
		sum += here;
	}
	for (uint32_t a = 0; a < t->k; a++)
		t->order[t->count[t->k - 1 - t->score[a]]++] = a;
}

/* Add a clause for each 3-cycle of the model's tournament through a back
 * edge (at most CYCLES_PER_ROUND; every cycle through the edge, which
 * measured fewer rounds than one or a few per edge): none means the order of
 * the threads is total. In the
 * order by score, a later thread v before an earlier u (score(u) >=
 * score(v)) closes a 3-cycle v -> u -> c -> v with some c: if every c that
 * u runs before ran after v, v would run before more threads than u. */
static size_t add_violated_transitivity(struct tournament *t, const struct order_encoding *o,
					struct sat_backend *s)
{
	size_t added = 0;
	uint32_t k = t->k;

	for (uint32_t i = 0; i < k && added < CYCLES_PER_ROUND; i++) {
		uint32_t u = t->order[i];
		for (uint32_t j = i + 1; j < k && added < CYCLES_PER_ROUND; j++) {
			uint32_t v = t->order[j];
			if (!t->before[(size_t)v * k + u])
				continue;
			for (uint32_t c = 0; c < k; c++) {
				if (t->before[(size_t)u * k + c] && t->before[(size_t)c * k + v]) {
					sat_backend_add(s, -order_lit(o, v, u));
					sat_backend_add(s, -order_lit(o, u, c));
					sat_backend_add(s, -order_lit(o, c, v));
					sat_backend_add(s, 0);
					added++;
				}
			}
		}
	}
	return added;
}

static void witness_from_order(const struct vsc_program *p, const struct order_encoding *o,
			       const struct tournament *t, struct vsc_result *res)
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

/* Solve, add the transitivity clauses the model breaks, solve again, until
 * the model is a total order or the formula unsatisfiable: the formula
 * without some transitivity clauses being unsatisfiable, the whole one is;
 * a model that breaks none satisfies the whole one. */
static int solve_lazily(const struct vsc_program *p, const struct order_encoding *o,
			struct sat_backend *s, struct budget *b, struct vsc_result *res)
{
	struct tournament t = { .k = o->count };
	int answer, err = 0;
	uint64_t added_before;

	t.before = malloc((size_t)t.k * t.k + 1);
	t.order = malloc((t.k + 1) * sizeof(*t.order));
	t.score = malloc((t.k + 1) * sizeof(*t.score));
	t.count = malloc((t.k + 1) * sizeof(*t.count));
	res->witness = malloc((p->event_count ? p->event_count : 1) * sizeof(uint32_t));
	if (!t.before || !t.order || !t.score || !t.count || !res->witness) {
		err = -ENOMEM;
		goto out;
	}
	res->verdict = VSC_UNKNOWN;
	for (;;) {
		budget_progress(b, "SAT rounds, threads", res->nodes, t.k);
		answer = sat_backend_solve(s);
		if (answer < 0) {
			err = answer;
			break;
		}
		if (answer != 10) {
			res->verdict = answer == 20 ? VSC_INCONSISTENT : VSC_UNKNOWN;
			break;
		}
		tournament_read(&t, o, s);
		added_before = res->steps;
		if (budget_spend(b, (unsigned long)t.k * t.k))
			break;
		res->nodes++; /* rounds */
		res->steps += add_violated_transitivity(&t, o, s);
		if (res->steps == added_before) {
			res->verdict = VSC_CONSISTENT;
			witness_from_order(p, o, &t, res);
			break;
		}
	}
out:
	if (res->verdict != VSC_CONSISTENT) {
		free(res->witness);
		res->witness = NULL;
	}
	free(t.before);
	free(t.order);
	free(t.score);
	free(t.count);
	return err;
}

int sat_decide_no_preemption(const struct vsc_program *p, struct budget *b, struct vsc_result *res)
{
	struct cnf f;
	struct order_encoding o = { NULL, 0 };
	struct sat_backend *s = NULL;
	int err = encode_no_preemption(p, &f, &o, 0);
	size_t lits = f.count;

	if (err)
		goto out;
	s = sat_backend_new(budget_stop, b);
	if (!s) {
		err = -ENOMEM;
		goto out;
	}
	sat_backend_reserve(s, f.nvars);
	for (size_t i = 0; i < f.count; i++)
		sat_backend_add(s, f.lits[i]);
	cnf_free(&f);
	if (budget_spend(b, lits))
		res->verdict = VSC_UNKNOWN;
	else
		err = solve_lazily(p, &o, s, b, res);
out:
	sat_backend_free(s);
	cnf_free(&f);
	free(o.threads);
	return err;
}

static int sat_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		     struct vsc_result *res)
{
	if (q->bound != 0)
		return -EINVAL; /* the encoding is for no preemption only */
	return sat_decide_no_preemption(p, b, res);
}

const struct solver sat_solver = { "sat", sat_solve };

int vsc_encode_dimacs(const struct vsc_program *p, FILE *out)
{
	struct cnf f;
	struct order_encoding o = { NULL, 0 };
	int err;

	if (!p || !out)
		return -EINVAL;
	err = encode_no_preemption(p, &f, &o, 1);
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
