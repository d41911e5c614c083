/* SPDX-License-Identifier: MIT */
/* The SAT solver: "is there an SC interleaving with no preemption?" through
 * the encoding of encode.c and CaDiCaL. Answers only -p 0 (with or without
 * --min); other questions get -EINVAL. A model is read back as an order of
 * threads, each run whole. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cnf.h"
#include "sat_backend.h"
#include "solver.h"

static int budget_stop(void *ctx)
{
	return budget_expired(ctx);
}

struct ranked {
	uint32_t thread, before; /* threads that run before it */
};

static int compare_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	return (x->before > y->before) - (x->before < y->before);
}

static int witness_from_model(const struct vsc_program *p, const struct order_encoding *o,
			      struct sat_backend *s, struct vsc_result *res)
{
	struct ranked *r = malloc((o->count ? o->count : 1) * sizeof(*r));
	size_t n = 0;

	res->witness = malloc((p->event_count ? p->event_count : 1) * sizeof(uint32_t));
	if (!r || !res->witness) {
		free(r);
		return -ENOMEM;
	}
	for (uint32_t a = 0; a < o->count; a++) {
		r[a] = (struct ranked){ o->threads[a], 0 };
		for (uint32_t b = 0; b < o->count; b++) {
			int lit = b == a ? 0 : order_lit(o, b, a);
			if (lit && sat_backend_true(s, abs(lit)) == (lit > 0))
				r[a].before++;
		}
	}
	qsort(r, o->count, sizeof(*r), compare_ranked);
	for (uint32_t a = 0; a < o->count; a++)
		for (uint32_t i = 0; i < p->threads[r[a].thread].length; i++)
			res->witness[n++] = r[a].thread;
	res->witness_length = n;
	res->preemptions = 0;
	free(r);
	return 0;
}

int sat_decide_no_preemption(const struct vsc_program *p, struct budget *b,
			     struct vsc_result *res)
{
	struct cnf f;
	struct order_encoding o = { NULL, 0 };
	struct sat_backend *s = NULL;
	int err = encode_no_preemption(p, &f, &o), answer;

	if (err)
		goto out;
	s = sat_backend_new(budget_stop, b);
	if (!s) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f.count; i++)
		sat_backend_add(s, f.lits[i]);
	cnf_free(&f);
	answer = sat_backend_solve(s);
	if (answer < 0) {
		err = answer;
	} else if (answer == 10) {
		res->verdict = VSC_CONSISTENT;
		err = witness_from_model(p, &o, s, res);
	} else {
		res->verdict = answer == 20 ? VSC_INCONSISTENT : VSC_UNKNOWN;
	}
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
	err = encode_no_preemption(p, &f, &o);
	if (!err) {
		fprintf(out, "c vsc: SC with no preemption; variable 1.. are the pairs of threads\n"
			     "c (a, b), a < b, in row order, true when a runs first; then selectors\n");
		for (uint32_t i = 0; i < o.count; i++)
			fprintf(out, "c thread %u %s\n", i, vsc_program_thread_name(p, o.threads[i]));
		err = cnf_write_dimacs(&f, out, NULL);
	}
	cnf_free(&f);
	free(o.threads);
	return err;
}
