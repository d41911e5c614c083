/* SPDX-License-Identifier: MIT */
/* SAT for any bound and for no bound (encode_events.h):
 *
 *  - no bound: the order of events by the pairs the reads name
 *    (order_cycles.c), cycles forbidden lazily; a model is an SC
 *    interleaving, no model means none;
 *  - -p k: the slots (order_slots.c) with L = threads + k;
 *  - --min: the least is at least `lower` (sat.c asks -p 0 first); a
 *    first witness as above (U preemptions), then bounds lower,
 *    2 lower + 1, ... below U (galloping), each on slots of its own size,
 *    up to the first that works; then bisection on those slots, each bound
 *    k an assumption (not lim(threads + k + 1)) on one CaDiCaL instance,
 *    which keeps what it learned from one bound to the next. A limit stops
 *    it with the least's bounds known. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode_events.h"
#include "solver.h"

struct bounded {
	struct event_encoding e;
	struct cycle_order cycles;
	struct slot_order slots;
	struct sat_backend *s;
	struct budget *b;
	struct vsc_result *res;
	uint32_t *found; /* the last model's order as threads: a witness */
	long found_preemptions;
};

static int stop_at_budget(void *ctx)
{
	return budget_look(ctx);
}

/* Out of time: the solver is freed on a thread of its own. */
static void teardown(struct bounded *x, int late)
{
	cycle_order_free(&x->cycles);
	slot_order_free(&x->slots);
	event_encoding_free(&x->e);
	if (late)
		sat_backend_free_soon(x->s);
	else
		sat_backend_free(x->s);
	x->s = NULL;
}

/* A solver with the clauses of one order: the pairs the reads name
 * (slots 0) or the slots. 0, -E2BIG, -ENOMEM, -ETIME. */
static int setup(struct bounded *x, const struct vsc_program *p, uint32_t slots)
{
	int err;

	if (!(x->s = sat_backend_new(stop_at_budget, x->b)))
		return -ENOMEM;
	if ((err = events_number(p, &x->e, x->s, x->b)))
		return err;
	if (slots)
		err = slot_order_init(&x->slots, &x->e, slots, x->b);
	else
		err = cycle_order_init(&x->cycles, &x->e);
	if (!err)
		err = encode_reads_from(&x->e, x->b);
	return err ? err : events_done(&x->e);
}

/* The model into x->found; 10, or -errno. */
static int read_model(struct bounded *x)
{
	int err = 0;

	if (x->slots.slots)
		err = slot_witness(&x->slots, x->found);
	else
		for (uint32_t i = 0; i < x->e.n; i++)
			x->found[i] = x->e.thread[x->cycles.order[i]];
	if (err)
		return err;
	x->found_preemptions = count_preemptions(x->e.p, x->found, x->e.n);
	return x->found_preemptions < 0 ? (int)x->found_preemptions : 10;
}

/* Is there an SC interleaving with at most k preemptions (any when the
 * order is the pairs)? 10 with x->found, 20, 0 stopped, or -errno. */
static int probe(struct bounded *x, long k)
{
	int r, limit;

	if (!x->slots.slots) {
		r = cycle_order_solve(&x->cycles, x->b, &x->res->nodes, &x->res->steps);
	} else {
		if (x->e.threads + (uint64_t)k < x->slots.slots) {
			limit = slot_limit(&x->slots, (uint32_t)k);
			sat_backend_assume(x->s, limit);
		}
		x->res->nodes++;
		r = sat_backend_solve(x->s);
	}
	return r == 10 ? read_model(x) : r;
}

/* The witness found last becomes the result's. */
static int keep_found(struct bounded *x)
{
	uint32_t *spare = x->res->witness;

	if (!spare && !(spare = malloc((x->e.n + 1) * sizeof(*spare))))
		return -ENOMEM;
	x->res->witness = x->found;
	x->res->witness_length = x->e.n;
	x->res->preemptions = x->found_preemptions;
	x->found = spare;
	return 0;
}

/* Least preemptions in [lo, res->preemptions] by bisection on the slots:
 * a bound that fails raises lo, a model lowers the upper end to its own
 * count. A limit leaves the verdict unknown with both ends (res->lower,
 * the witness). */
static int least(struct bounded *x, long lo)
{
	struct vsc_result *res = x->res;
	int r = 0;

	while (lo < res->preemptions) {
		long mid = lo + (res->preemptions - lo) / 2;
		budget_progress(x->b, "least preemptions between", (unsigned long long)lo,
				(unsigned long long)res->preemptions);
		r = probe(x, mid);
		if (r == 10 && (r = keep_found(x)) == 0)
			continue;
		if (r == 20) {
			lo = mid + 1;
			continue;
		}
		res->verdict = VSC_UNKNOWN;
		res->lower = lo;
		return r < 0 ? r : 0;
	}
	res->lower = res->preemptions;
	return 0;
}

/* The first question: the bound (slots), or none (pairs). */
static int first_witness(struct bounded *x, const struct vsc_program *p, long bound)
{
	uint32_t threads = 0;
	int r;

	for (uint32_t t = 0; t < program_threads(p); t++)
		threads += p->threads[t].length > 0;
	if (bound >= 0 && (uint64_t)bound + threads > p->event_count)
		bound = -1; /* more than any interleaving has */
	r = setup(x, p, bound >= 0 ? threads + (uint32_t)bound : 0);
	if (!r)
		r = probe(x, bound);
	if (r == 20)
		x->res->verdict = VSC_INCONSISTENT;
	if (r != 10)
		return r < 0 ? r : 0;
	x->res->verdict = VSC_CONSISTENT;
	return keep_found(x);
}

/* Slots for bound k at most, the solver's before dropped: 0, or -errno
 * (-ETIME, -E2BIG: stopped). */
static int slots_for(struct bounded *x, const struct vsc_program *p, uint32_t threads, long k)
{
	teardown(x, 0);
	return setup(x, p, threads + (uint32_t)k);
}

/* --min after a first witness: bounds lower, 2 lower + 1, ... (galloping)
 * each on slots of its own size (small slots answer small bounds fast),
 * up to the first that works, then bisection on those slots. */
static int gallop(struct bounded *x, const struct vsc_program *p, long lower)
{
	uint32_t threads = x->e.threads;
	struct vsc_result *res = x->res;
	long k = lower;
	int r;

	while (lower < res->preemptions) { /* k in [lower, preemptions - 1] */
		budget_progress(x->b, "least preemptions between", (unsigned long long)lower,
				(unsigned long long)res->preemptions);
		r = slots_for(x, p, threads, k);
		if (!r)
			r = probe(x, k);
		if (r == 10)
			return (r = keep_found(x)) ? r : least(x, lower);
		if (r != 20) { /* stopped: the bounds so far, with the witness */
			res->verdict = VSC_UNKNOWN;
			res->lower = lower;
			return r == -ETIME || r == -E2BIG || r == 0 ? 0 : r;
		}
		lower = k + 1;
		k = 2 * k + 1 < res->preemptions ? 2 * k + 1 : res->preemptions - 1;
	}
	res->lower = res->preemptions;
	return 0;
}

static int decide(struct bounded *x, const struct vsc_program *p, const struct query *q, long lower)
{
	int r = first_witness(x, p, q->bound);

	if (r || x->res->verdict != VSC_CONSISTENT || !q->minimize)
		return r;
	return gallop(x, p, lower);
}

int sat_decide_bounded(const struct vsc_program *p, const struct query *q, struct budget *b,
		       struct vsc_result *res, long lower)
{
	struct bounded x = { .b = b, .res = res };
	int r;

	res->verdict = VSC_UNKNOWN;
	res->lower = -1;
	x.found = malloc((p->event_count + 1) * sizeof(*x.found));
	r = x.found ? decide(&x, p, q, lower) : -ENOMEM;
	if (r == -ETIME) {
		res->verdict = VSC_UNKNOWN;
		r = 0;
	}
	if (res->verdict == VSC_INCONSISTENT || (res->verdict == VSC_UNKNOWN && res->lower < 0)) {
		free(res->witness);
		res->witness = NULL;
		res->witness_length = 0;
		res->preemptions = -1;
	}
	free(x.found);
	teardown(&x, budget_look(b));
	return r;
}
