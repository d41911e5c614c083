/* SPDX-License-Identifier: MIT */
/* vsc_check(): options -> query, pick a solver, time it, hand back a result. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "opts.h"
#include "solver.h"
#include "userspace/util/clock.h"

static const struct solver *const solvers[] = {
	&auto_solver, &exact_solver, &paper_solver, &sat_solver, &coherence_solver,
};

static const char *const solver_names[] = { "auto", "exact", "paper", "sat", "coherence", NULL };

const char *const *vsc_solver_names(void)
{
	return solver_names;
}

static const struct solver *solver_by_name(const char *name)
{
	if (!name)
		return &auto_solver;
	for (size_t i = 0; i < sizeof(solvers) / sizeof(solvers[0]); i++)
		if (strcmp(solvers[i]->name, name) == 0)
			return solvers[i];
	return NULL;
}

int vsc_check(const struct vsc_program *p, const struct vsc_check_opts *opts,
	      struct vsc_result **out)
{
	struct vsc_check_opts o;
	const struct solver *solver;
	struct vsc_result *res;
	struct query q = { 0 }; /* fields not set below (no_cut, witness_only) are off */
	struct budget b;
	double started;
	int err;

	if (!p || !out)
		return -EINVAL;
	*out = NULL;
	if (OPTS_LOAD(o, opts))
		return -EINVAL;
	if (o.bounded && o.preemptions > (unsigned long)INT32_MAX)
		o.bounded = false; /* more than any trace can use */
	if (o.timeout_s < 0)
		return -EINVAL;
	solver = solver_by_name(o.solver);
	if (!solver)
		return -ENOENT;
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	q.bound = o.bounded ? (long)o.preemptions : -1;
	q.minimize = o.minimize;
	q.want_witness = o.want_witness || o.minimize;
	q.jobs = o.jobs > 1 ? o.jobs : 1;
	q.keep_analysis_of = o.keep_for_explain ? p : NULL;
	budget_init(&b, &o);
	res->preemptions = -1;
	res->lower = -1;
	res->solver = solver->name;
	started = clock_now_s();
	/* auto's greedy run reads packed events; it unpacks after that */
	err = solver == &auto_solver ? 0 : program_unpack(p);
	if (!err)
		err = solver->solve(p, &q, &b, res);
	res->time_s = clock_now_s() - started;
	if (err == -ENOMEM) {
		/* out of memory is the memory limit: unknown, like the budget's;
		 * a bound --min proved before it stays proven (the solver keeps
		 * in res->lower only what it proved) */
		free(res->witness);
		res->witness = NULL;
		res->witness_length = 0;
		res->preemptions = -1;
		if (!q.minimize || res->lower < 0)
			res->lower = -1;
		res->verdict = VSC_UNKNOWN;
		err = 0;
	}
	if (err) {
		vsc_result_free(res);
		return err;
	}
	*out = res;
	return 0;
}

enum vsc_verdict vsc_result_verdict(const struct vsc_result *res)
{
	return res->verdict;
}

long vsc_result_preemptions(const struct vsc_result *res)
{
	return res->verdict == VSC_CONSISTENT ? res->preemptions : -1;
}

size_t vsc_result_witness(const struct vsc_result *res, const uint32_t **threads)
{
	if (threads)
		*threads = res->witness;
	return res->witness ? res->witness_length : 0;
}

const char *vsc_result_solver(const struct vsc_result *res)
{
	return res->solver;
}

double vsc_result_time(const struct vsc_result *res)
{
	return res->time_s;
}

uint64_t vsc_result_nodes(const struct vsc_result *res)
{
	return res->nodes;
}

int vsc_result_least_bounds(const struct vsc_result *res, long *lower, long *upper)
{
	if (res->verdict != VSC_UNKNOWN || !res->witness || res->lower < 0)
		return -1;
	*lower = res->lower;
	*upper = res->preemptions;
	return 0;
}

long vsc_result_least_at_least(const struct vsc_result *res)
{
	return res->verdict == VSC_UNKNOWN && res->lower > 0 ? res->lower : -1;
}

void vsc_result_reductions(const struct vsc_result *res, struct vsc_reductions *out)
{
	*out = (struct vsc_reductions){ res->spins, res->dropped, res->parts };
}

uint64_t vsc_result_parts_out_of_memory(const struct vsc_result *res)
{
	return res->parts_out_of_memory;
}

uint64_t vsc_result_steps(const struct vsc_result *res)
{
	return res->steps;
}

void vsc_result_free(struct vsc_result *res)
{
	if (!res)
		return;
	free(res->witness);
	result_drop_analysis(res);
	free(res);
}

void result_drop_analysis(struct vsc_result *res)
{
	if (res->analysis)
		analysis_free(res->analysis);
	free(res->analysis);
	res->analysis = NULL;
	res->analysis_of = NULL;
}
