/* SPDX-License-Identifier: MIT */
/* SAT for any bound and for no bound (encode_events.h), over the order of
 * events by the pairs the reads name (order_cycles.c, cycles forbidden
 * lazily); first no bound: no model means inconsistent for every bound, a
 * model is an SC interleaving, a witness with U preemptions. A bound
 * below U two ways:
 *
 *  - gaps (order_gaps.c; many threads): on the same instance, a literal
 *    per two consecutive events of a thread ("they run together") and a
 *    counter of the false ones up to k + 1 (--min: U), the bound k an
 *    assumption "not k + 1 of them";
 *  - slots (order_slots.c; few threads, long ones): L = threads + k slots,
 *    an instance of their own.
 *
 * --min: the least is at least `lower` (from the caller); bounds lower,
 * 2 lower + 1, ... below U (galloping) up to the first that works (slots:
 * each on slots of its own size), then bisection on that instance, each
 * bound an assumption, so what CaDiCaL learned carries from one bound to
 * the next. A limit stops it with the least's bounds known. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode_events.h"
#include "solver.h"

struct bounded {
	struct event_encoding e;
	struct cycle_order cycles;
	struct slot_order slots; /* slots.slots: the slots are the order */
	int by_gaps;             /* a bound by the gaps, else by the slots */
	int *counter;            /* counter[j - 1]: at least j preemptions (order_gaps.c) */
	uint32_t outputs;        /* of the counter */
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
	free(x->counter);
	x->counter = NULL;
	event_encoding_free(&x->e);
	if (late)
		sat_backend_free_soon(x->s);
	else
		sat_backend_free(x->s);
	x->s = NULL;
}

/* A solver with the reads-from clauses over the pairs the reads name
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

/* The gap literals and their counter up to cutoff, once. 0, -E2BIG,
 * -ENOMEM, -ETIME. */
static int count_gaps(struct bounded *x, long cutoff)
{
	int err;

	if (x->counter)
		return 0;
	if ((err = cycle_order_gaps(&x->cycles)))
		return err;
	err = gap_counter(&x->cycles, (uint32_t)cutoff, &x->counter, &x->outputs, x->b);
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

/* Is there an SC interleaving with at most k preemptions (any for k < 0)?
 * 10 with x->found, 20, 0 stopped, or -errno. */
static int probe(struct bounded *x, long k)
{
	int r;

	if (x->slots.slots) {
		if (x->e.threads + (uint64_t)k < x->slots.slots)
			sat_backend_assume(x->s, slot_limit(&x->slots, (uint32_t)k));
		x->res->nodes++;
		r = sat_backend_solve(x->s);
	} else {
		x->cycles.assume = k >= 0 && (uint64_t)k < x->outputs ? -x->counter[k] : 0;
		r = cycle_order_solve(&x->cycles, x->b, &x->res->nodes, &x->res->steps);
	}
	if (r == 10 && (r = read_model(x)) == 10 && k >= 0 && x->found_preemptions > k)
		return -EPROTO; /* the counter's promise broken: a bug, not a verdict */
	return r;
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

/* Least preemptions in [lo, res->preemptions] by bisection:
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
		return r == -ETIME || r == -E2BIG ? 0 : r;
	}
	res->lower = res->preemptions;
	return 0;
}

/* Slots for bound k at most, the solver's before dropped: 0, or -errno
 * (-ETIME, -E2BIG: stopped). */
static int slots_for(struct bounded *x, const struct vsc_program *p, long k)
{
	uint32_t threads = x->e.threads;

	teardown(x, 0);
	return setup(x, p, threads + (uint32_t)k);
}

/* At most k preemptions, below the witness's count: 10 with x->found,
 * 20, 0 stopped, or -errno. */
static int bounded_probe(struct bounded *x, const struct vsc_program *p, long k, long cutoff)
{
	int r = x->by_gaps ? count_gaps(x, cutoff) : slots_for(x, p, k);

	return r ? r : probe(x, k);
}

/* The first question: no bound, then (gaps) a bound k below the
 * witness's count; or (slots) the bound at once, unless it is at least
 * n - threads (more than any interleaving has: no bound). Stopped: 0 with
 * the verdict unknown. */
static int first_witness(struct bounded *x, const struct vsc_program *p, long bound)
{
	int r = setup(x, p, 0);

	if (!r && !x->by_gaps && bound >= 0 && (uint64_t)bound + x->e.threads <= x->e.n)
		r = 10; /* the slots at once: few threads, no bound first costs more */
	else if (!r && (r = probe(x, -1)) == 10 && (r = keep_found(x)) == 0)
		r = bound >= 0 && x->res->preemptions > bound ? 10 : 11;
	if (r == 10)
		r = bounded_probe(x, p, bound, bound + 1);
	if (r == 10)
		r = keep_found(x) ? -ENOMEM : 11;
	if (r == 20)
		x->res->verdict = VSC_INCONSISTENT;
	if (r != 11)
		return r < 0 ? r : 0; /* -E2BIG: the caller searches instead */
	x->res->verdict = VSC_CONSISTENT;
	return 0;
}

/* --min after a first witness: bounds lower, 2 lower + 1, ... (galloping)
 * up to the first that works (gaps: on one instance; slots: each on slots
 * of its own size), then bisection on that instance. */
static int gallop(struct bounded *x, const struct vsc_program *p, long lower)
{
	struct vsc_result *res = x->res;
	long k = lower;
	int r = 0;

	while (lower < res->preemptions) { /* k in [lower, preemptions - 1] */
		budget_progress(x->b, "least preemptions between", (unsigned long long)lower,
				(unsigned long long)res->preemptions);
		r = bounded_probe(x, p, k, res->preemptions);
		if (r == 10)
			return (r = keep_found(x)) ? r : least(x, lower);
		if (r != 20)
			break;
		r = 0;
		lower = k + 1;
		k = 2 * k + 1 < res->preemptions ? 2 * k + 1 : res->preemptions - 1;
	}
	if (lower < res->preemptions) { /* stopped: the bounds so far, with the witness */
		res->verdict = VSC_UNKNOWN;
		res->lower = lower;
		return r == -ETIME || r == -E2BIG ? 0 : r;
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
	return sat_decide_bounded_by(p, q, b, res, lower, sat_events_first(p));
}

int sat_decide_bounded_by(const struct vsc_program *p, const struct query *q, struct budget *b,
			  struct vsc_result *res, long lower, int gaps)
{
	struct bounded x = { .b = b, .res = res, .by_gaps = gaps };
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
	if (res->verdict == VSC_UNKNOWN && res->lower < lower)
		res->lower = lower; /* the caller's proven least, no witness beside it */
	free(x.found);
	teardown(&x, budget_look(b));
	return r;
}
