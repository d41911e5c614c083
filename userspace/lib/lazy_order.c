/* SPDX-License-Identifier: MIT */
/* Lazy transitivity (lazy_order.h). The k^3/3 transitivity clauses are
 * what makes an order encoding big (23 M at 411 threads); a model usually
 * breaks few of them, so only those are added, round after round. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lazy_order.h"

#define CYCLES_PER_ROUND 200000 /* transitivity clauses added per model, at most */

int lazy_order_init(struct lazy_order *t, uint32_t k, order_lit_fn lit, const void *ctx,
		    const char *what)
{
	*t = (struct lazy_order){ .k = k, .lit = lit, .ctx = ctx, .what = what };
	/* zeroed: the tournament reads its diagonal, which no model sets */
	t->before = calloc((size_t)k * k + 1, 1);
	t->order = malloc((k + 1) * sizeof(*t->order));
	t->score = malloc((k + 1) * sizeof(*t->score));
	t->count = malloc((k + 1) * sizeof(*t->count));
	if (t->before && t->order && t->score && t->count)
		return 0;
	lazy_order_free(t);
	return -ENOMEM;
}

void lazy_order_free(struct lazy_order *t)
{
	free(t->before);
	free(t->order);
	free(t->score);
	free(t->count);
	t->before = NULL;
	t->order = t->score = t->count = NULL;
}

static int lit_true(struct sat_backend *s, int lit)
{
	if (lit == LIT_TRUE || lit == LIT_FALSE)
		return lit == LIT_TRUE;
	return lit > 0 ? sat_backend_true(s, lit) : !sat_backend_true(s, -lit);
}

void sat_clause(struct sat_backend *s, const int *lits, int n)
{
	for (int i = 0; i < n; i++)
		if (lits[i] == LIT_TRUE)
			return;
	for (int i = 0; i < n; i++)
		if (lits[i] != LIT_FALSE)
			sat_backend_add(s, lits[i]);
	sat_backend_add(s, 0);
}

/* The model's tournament into t->before, and the items by score. */
static void tournament_read(struct lazy_order *t, struct sat_backend *s)
{
	uint32_t k = t->k;

	memset(t->score, 0, k * sizeof(*t->score));
	memset(t->count, 0, (k + 1) * sizeof(*t->count));
	for (uint32_t a = 0; a < k; a++) {
		for (uint32_t b = a + 1; b < k; b++) {
			int ab = lit_true(s, t->lit(t->ctx, a, b));
			t->before[(size_t)a * k + b] = (uint8_t)ab;
			t->before[(size_t)b * k + a] = (uint8_t)!ab;
			t->score[ab ? a : b]++;
		}
	}
	/* counting sort, most comes-before first */
	for (uint32_t a = 0; a < k; a++)
		t->count[k - 1 - t->score[a]]++;
	for (uint32_t c = 0, sum = 0; c <= k; c++) {
		uint32_t here = t->count[c];
		t->count[c] = sum;
		sum += here;
	}
	for (uint32_t a = 0; a < k; a++)
		t->order[t->count[k - 1 - t->score[a]]++] = a;
}

/* Add a clause for each 3-cycle of the model's tournament through a back
 * edge (at most CYCLES_PER_ROUND; every cycle through the edge, which
 * measured fewer rounds than one or a few per edge with threads, or one
 * per edge, which with events measured a fifth of the clauses and of the
 * memory): none means the order is total. In the order by score, a later item v before an earlier u
 * (score(u) >= score(v)) closes a 3-cycle v -> u -> c -> v with some c: if
 * every c that u comes before came after v, v would come before more items
 * than u. */
static size_t add_violated_transitivity(struct lazy_order *t, struct sat_backend *s)
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
					int cycle[3] = { -t->lit(t->ctx, v, u),
							 -t->lit(t->ctx, u, c),
							 -t->lit(t->ctx, c, v) };
					sat_clause(s, cycle, 3);
					added++;
					if (t->one_per_edge)
						break;
				}
			}
		}
	}
	return added;
}

/* Exact: the formula without some transitivity clauses being
 * unsatisfiable, the whole one is; a model that breaks none satisfies the
 * whole one. */
int lazy_order_solve(struct lazy_order *t, struct sat_backend *s, struct budget *b,
		     const int *assume, size_t nassume, uint64_t *rounds, uint64_t *added)
{
	for (;;) {
		size_t more;
		int answer;

		budget_progress(b, t->what, *rounds, t->k);
		for (size_t i = 0; i < nassume; i++)
			sat_backend_assume(s, assume[i]);
		answer = sat_backend_solve(s);
		if (answer != 10)
			return answer;
		tournament_read(t, s);
		if (budget_spend(b, (unsigned long)t->k * t->k))
			return 0;
		++*rounds;
		more = add_violated_transitivity(t, s);
		*added += more;
		if (!more)
			return 10;
	}
}
