/* SPDX-License-Identifier: MIT */
/* The default solver: analysis, then the engine.
 *
 *  1. analysis (analysis.c): pair ids, writer counts, static refutations;
 *  2. with -p N (no --min): the bounded search alone (a search with no bound
 *     first would find a witness that rarely fits the bound: measured on
 *     the 1-Writer, 4-value and independent-set families, it only doubled
 *     the steps); with several writers, first at the least the own stops
 *     allow and a few bounds above, up to N, each under a work cap (the
 *     search at a bound far above the least wanders); then those bounds,
 *     N and (N above them) no bound by rounds under doubling caps;
 *  3. with --min or no bound: the search with no bound (every thread runs
 *     its safe events at once, which is fast): inconsistent there is
 *     inconsistent for every bound, and its witness is an upper bound on
 *     the preemptions needed;
 *  4. with -p 0 and several writers on a variable (where the search can be
 *     exponential: the paper's NP-hardness reductions are such programs):
 *     the SAT encoding of sat.c instead of steps 2 and 3;
 *  5. with --min: galloping from 0 (1, 2, 4... more each time) up to the
 *     first bound that works, then bisection; each witness found lowers the
 *     upper bound to its own count, and states known to fail with some
 *     preemptions left stay known across the searches;
 *  6. with several writers, a bound above 0 (or none, or --min) and a small
 *     program: steps 2, 3 and 5 under a work cap, then SAT over the order
 *     of events (sat_bound.c) on what they leave open. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coherence.h"
#include "engine.h"
#include "greedy_run.h"
#include "hint_run.h"
#include "hot_bound.h"
#include "hot_refute.h"
#include "hot_var.h"
#include "lock_stops.h"
#include "parts.h"
#include "serial.h"
#include "source_orders.h"
#include "stale_cut.h"
#include "stale_refute.h"
#include "thread_order.h"
#include "ts_replay.h"
#include "unique_run.h"
#include "witness_joins.h"
#include "writer_groups.h"

struct best {
	uint32_t *witness;
	long preemptions;  /* -1: none yet */
	long lower;        /* the least preemptions are proven at least this */
	int sources_tried; /* source_orders_refute() ran (1), and then the cut (2) */
	long lock_least;   /* the own and lock stops' bound, -1 until counted */
	/* budget units the search may take after the steps decide() runs once
	 * a program (the tries at the least, the source orders), 0: no cap of
	 * its own; search_cap: the cap that gave, once applied (else 0) */
	unsigned long search_work, search_cap;
	int groups_tried;       /* writer_groups_refute() ran on this program */
	int stale_refute_tried; /* stale_refute() ran on this program */
	int hint_tried;         /* hint_run() ran on this program */
	/* the preemptions of hint_run()'s witness, -1: none. Within 0.01% of
	 * the least on recorded 3-thread Peterson's locks, where the own and
	 * forced stops are 0.2% below it: --min then gallops down from it
	 * (searches that succeed are cheap there, and every failing one near
	 * the least costs the most: 3 x 50,000, 2.4 M events, 15.5 s CPU
	 * galloping up from the lower bound) */
	long hinted;
	/* the fixpoint with_hint_run() built beside a search on the reads'
	 * first ranges (has_fixpoint), for the search on the fixpoint to take */
	struct forced fixpoint;
	int has_fixpoint;
	int first_ranges; /* the search runs on them, its fixpoint left out */
};

/* The least preemptions are proven at least lower: kept in best, and said
 * on --progress under --min (with or without a witness). */
static void proven_least(struct engine *g, const struct query *q, struct best *best, long lower)
{
	best->lower = lower;
	if (q->minimize)
		budget_least(g->budget, lower);
}

/* Out of memory after lower was proven: a bound proven stays proven
 * (vsc_check() keeps res->lower of an unknown --min). */
static void keep_lower(struct vsc_result *res, long lower)
{
	if (lower > res->lower)
		res->lower = lower;
}

static int keep_witness(struct engine *g, struct best *best)
{
	long c = count_preemptions(g->p, g->trail, g->n);

	if (c < 0)
		return (int)c;
	if (!best->witness && !(best->witness = malloc((g->n ? g->n : 1) * sizeof(uint32_t))))
		return -ENOMEM;
	memcpy(best->witness, g->trail, g->n * sizeof(uint32_t));
	best->preemptions = c;
	return 0;
}

/* The last search on g found a witness: its trail becomes best's witness
 * without a copy (4 bytes an event less at the end, where the peak is).
 * Nothing but engine_free() may use g after this. */
static int take_trail(struct engine *g, struct best *best)
{
	long c = count_preemptions(g->p, g->trail, g->n);

	if (c < 0)
		return (int)c;
	free(best->witness);
	best->witness = g->trail;
	best->preemptions = c;
	g->trail = NULL;
	return 0;
}

/* Try bound; on success keep the witness. Returns the verdict or -errno. */
static int probe(struct engine *g, long bound, struct best *best)
{
	int r = engine_search(g, bound);

	if (r == VSC_CONSISTENT) {
		int err = keep_witness(g, best);
		if (err)
			return err;
	}
	return r;
}

/* A lower bound this share of itself below the witness's count, or more,
 * is probed first at lo + lo / NEAR_SHARE (below). */
#define NEAR_SHARE 32

/* Before galloping up from lo: when the witness is far above lo, one
 * bound a little above lo. The own and forced stops bring lo within about
 * 1% of the least on recorded locks, where the search without a bound's
 * witness is 2-3x it; such a bound succeeds at once and brings the witness
 * near (on a recorded Peterson's lock of 2.25 M events every bound the
 * galloping tried below the least cost more than the one before, and no
 * witness came in 180 s). Returns lo, raised when the bound failed, or
 * -1 with *r the verdict when the search stopped (a limit, an error). */
static long probe_near_above(struct engine *g, struct best *best, long lo, int *r)
{
	long mid = lo + lo / NEAR_SHARE;

	if (lo / NEAR_SHARE < 1 || best->preemptions - lo <= 2 * (lo / NEAR_SHARE))
		return lo;
	budget_progress(g->budget, "least preemptions between", (unsigned long long)lo,
			(unsigned long long)best->preemptions);
	*r = probe(g, mid, best);
	if (*r < 0 || *r == VSC_UNKNOWN)
		return -1;
	if (*r == VSC_INCONSISTENT) {
		best->lower = lo = mid + 1;
		budget_least(g->budget, lo); /* --min's alone */
	}
	return lo;
}

/* Least preemptions in [lo, best->preemptions]: best holds a witness. */
static int minimize(struct engine *g, struct best *best, long lo)
{
	long gap = 1;
	int galloping = 1, r = VSC_CONSISTENT;
	/* from the run by the recorded times' witness down (see hinted) */
	int down = best->hinted >= 0 && best->hinted == best->preemptions;

	if (!down && (lo = probe_near_above(g, best, lo, &r)) < 0)
		return r;
	while (lo < best->preemptions) {
		long hi = best->preemptions;
		long mid = !galloping ? lo + (hi - lo) / 2 : down ? hi - gap : lo + gap - 1;
		if (mid >= hi)
			mid = hi - 1;
		if (mid < lo)
			mid = lo;
		budget_progress(g->budget, "least preemptions between", (unsigned long long)lo,
				(unsigned long long)hi);
		r = probe(g, mid, best);
		if (r < 0 || r == VSC_UNKNOWN)
			return r;
		if (r == VSC_CONSISTENT) {
			galloping = galloping && down;
			gap *= 2;
		} else {
			lo = mid + 1;
			best->lower = lo;
			budget_least(g->budget, lo); /* --min's alone */
			galloping = galloping && !down;
			gap *= 2;
		}
	}
	return VSC_CONSISTENT;
}

/* With -p N and at most this many threads, the bounded search alone; with
 * more, the search without a bound first, as for --min: its lower bound
 * prunes little there, while the search without a bound runs every safe
 * event at once. A stale read among 256 threads (vsc gen sc --threads 256
 * --total 1000000 --writers 1 -p 3 --stale 1): -p 3 was unknown after 20 s
 * (946,886 branch points), the search without a bound refutes it at its
 * first (inconsistent for every bound). */
#define BOUNDED_FIRST_THREADS 64

/* Work (budget units per event) the bounded searches at the least
 * preemptions the own stops allow may take before no bound or --min goes
 * its usual way (the search without a bound first). */
#define AT_LEAST_WORK 1024UL
/* The same, first, before the source orders: a search that goes straight
 * to a witness at the least takes 20-100 units per event (few values,
 * several writers), so consistent traces do not pay for the orders. */
#define AT_LEAST_FIRST_WORK 128UL
#define AT_LEAST_PROBES 4
#define AT_LEAST_OPEN 2    /* not a verdict: the usual way decides */
#define AT_LEAST_REFUTED 4 /* the same, after every bound tried failed */

/* Several writers: the own stops (own_stops.c) give the least preemptions
 * a start, s->total, often the answer on few-value traces where the search
 * without a bound wanders, and where the search at a bound far above it
 * wanders too (2 x 8 threads, 250,000 events: at the least 43 units per
 * event, at 12 more than 25,000). So the bounded search is tried first at
 * that bound and a few above, each under its own work cap (a bound that
 * failed near its cap left the next one nothing of a shared cap: 86 units
 * per event to fail at 2, then 214 to succeed at 3). A failed bound
 * raises the least past it (every bound below fails too); a witness is
 * the least when the bounds below it failed, and answers -p N at once.
 * Returns the verdict when it decides, AT_LEAST_REFUTED when every bound
 * it tried failed, AT_LEAST_OPEN else (*least raised, and perhaps a
 * witness in best: an upper bound for --min). */
static int try_at_least(struct engine *g, const struct query *q, struct best *best, long *least,
			unsigned long work, int until_capped)
{
	struct budget *b = g->budget;
	unsigned long outer = b->work_cap;
	long at = *least > (long)g->stops.total ? *least : (long)g->stops.total, last;
	int r = AT_LEAST_OPEN, failed = 0, least_found;

	if (best->witness || !g->stops.total || program_threads(g->p) > BOUNDED_FIRST_THREADS)
		return AT_LEAST_OPEN;
	last = q->bound >= 0 && q->bound < at + AT_LEAST_PROBES ? q->bound
								: at + AT_LEAST_PROBES - 1;
	for (; at <= last; at++) {
		b->work_cap = b->steps + work * (g->n + 1);
		if (outer && outer < b->work_cap)
			b->work_cap = outer;
		r = probe(g, at, best);
		if (r != VSC_INCONSISTENT && r != VSC_UNKNOWN)
			break; /* a witness, or an error */
		if (r == VSC_UNKNOWN && (b->steps < b->work_cap || b->work_cap == outer))
			break; /* the deadline, the memory limit or the outer cap */
		if (r == VSC_UNKNOWN && until_capped)
			break; /* its own cap: the bounds above cost as much */
		if (r == VSC_INCONSISTENT) {
			*least = at + 1; /* and every bound below fails */
			proven_least(g, q, best, *least);
			failed++;
		}
	}
	b->work_cap = outer;
	if (r < 0)
		return r;
	least_found = r == VSC_CONSISTENT && best->preemptions <= *least;
	if (least_found)
		best->lower = best->preemptions;
	if (r == VSC_CONSISTENT && (least_found || !q->minimize))
		return VSC_CONSISTENT; /* within the bound, if any: all but --min ask */
	if (q->bound >= 0 && *least > q->bound)
		return VSC_INCONSISTENT; /* every bound up to q->bound fails */
	return failed == AT_LEAST_PROBES ? AT_LEAST_REFUTED : AT_LEAST_OPEN;
}

static int solve_part(const struct vsc_program *gp, const struct query *q, struct budget *b,
		      struct vsc_result *res);

/* solve_part() for a step's own programs (the cut's halves, the stale
 * refutation's prefix programs, writer groups): the progress lines keep
 * naming the step (they named the inner solve's last phase, "SAT" or
 * "search", for seconds after it ended, through the step's own passes). */
static int solve_inner(const struct vsc_program *gp, const struct query *q, struct budget *b,
		       struct vsc_result *res)
{
	int r;

	b->inner++;
	r = solve_part(gp, q, b, res);
	b->inner--;
	return r;
}

/* Work (budget units per event of the program) its writer groups may take
 * in all (writer_groups.c). */
#define WRITER_GROUPS_WORK 4096UL

/* Whether a refutation for every bound is worth its one try now: no bound
 * or --min, no witness yet, and *tried not set (it is set here). */
static int first_try_for_every_bound(const struct query *q, const struct best *best, int *tried)
{
	if (best->witness || *tried || (q->bound >= 0 && !q->minimize))
		return 0;
	*tried = 1;
	return 1;
}

/* No bound or --min and no witness yet: the orders the reads' sources
 * force (source_orders.c) refute stale reads with several writers for
 * every bound, where the search without a bound wanders; before the
 * bounded tries at the least, whose work cap costs far more when they
 * fail (10^6 events: 34 s, the orders 0.25 s). Once a program. */
static int refuted_by_sources(struct engine *g, const struct query *q, struct best *best)
{
	int r;

	if (!first_try_for_every_bound(q, best, &best->sources_tried))
		return 0;
	budget_phase(g->budget, "source orders");
	r = source_orders_refute(g->p, g->a, g->budget);
	budget_phase(g->budget, "search");
	return r == SOURCE_ORDERS_REFUTED;
}

/* Work (budget units per event of the program) a cut at a stale read may
 * take in all (stale_cut.c). */
#define STALE_CUT_WORK 8192UL
/* Smaller programs are left to the search and SAT, which decide most of
 * them (and whose witnesses and timings stay as they were). */
#define STALE_CUT_MIN_EVENTS 16384

/* Work (budget units per event) of the search without a bound tried
 * before the cut and the refutation at a stale read, which take up to
 * STALE_CUT_WORK and STALE_REFUTE_WORK each: where that search decides at
 * once, they cost for nothing. A store-buffering pair injected into a
 * 1-Writer trace (bench/explain.sh's sb-pair) is refuted by it in 0.3 s
 * at 10^6 events, while the cut and the refutation took 3 s first (52 s
 * at 10^7). */
#define UNBOUNDED_FIRST_WORK 16UL

/* Before the cut at a stale read (the same programs: no bound or --min,
 * STALE_CUT_MIN_EVENTS or more, no witness yet), the search without a
 * bound under a small cap: inconsistent there is inconsistent for every
 * bound; a witness is an upper bound (and the answer without a bound).
 * Returns the verdict when it decides, AT_LEAST_OPEN else (a witness may
 * be in best), or -errno. */
static int unbounded_first(struct engine *g, const struct query *q, struct best *best)
{
	struct budget *b = g->budget;
	unsigned long outer = b->work_cap;
	int r;

	if (best->sources_tried != 1 || q->no_cut || g->n < STALE_CUT_MIN_EVENTS || best->witness ||
	    (q->bound >= 0 && !q->minimize))
		return AT_LEAST_OPEN;
	b->work_cap = b->steps + UNBOUNDED_FIRST_WORK * (g->n + 1);
	if (outer && outer < b->work_cap)
		b->work_cap = outer;
	r = probe(g, ENGINE_UNBOUNDED, best);
	b->work_cap = outer;
	if (r == VSC_INCONSISTENT || r < 0)
		return r;
	if (r == VSC_CONSISTENT && !q->minimize && q->bound < 0)
		return VSC_CONSISTENT;
	return AT_LEAST_OPEN;
}

/* --min, no witness yet, and the cut at a stale read comes next: the
 * bounds at the least under the full tries' cap first, up to the first
 * that reaches its cap. A bound that fails there takes little (the 10^5
 * stale trace: 5 fails within 560 units per event, where the cut and the
 * refutation at the stale read take up to 8,192 each and left --min
 * `at least 5` at 8 s); the first that does not fail costs its cap once,
 * and the tries after the cut go on from where it stopped. */
static int before_stale_cut(const struct engine *g, const struct query *q, const struct best *best)
{
	return q->minimize && !best->witness && !q->witness_only && !q->no_cut &&
	       best->sources_tried == 1 && g->n >= STALE_CUT_MIN_EVENTS;
}

/* No bound or --min, no witness yet, right after the source orders ran
 * (once a program): a witness cut at a read that needs another thread's
 * write (stale_cut.c), where the searches wander on a stale read that
 * still has an SC explanation. Its count is an upper bound on the least.
 * Not inside a cut's own halves. Returns 0 or -ENOMEM. */
static int with_stale_cut(struct engine *g, const struct query *q, struct best *best)
{
	uint32_t *witness;
	long preemptions;
	int r;

	if (best->sources_tried != 1)
		return 0; /* the source orders did not run just now, or the cut ran */
	best->sources_tried = 2;
	if (q->no_cut || g->n < STALE_CUT_MIN_EVENTS || best->witness ||
	    (q->bound >= 0 && !q->minimize))
		return 0;
	budget_phase(g->budget, "cut at a stale read");
	r = stale_cut_witness(g->p, g->budget, STALE_CUT_WORK * (g->n + 1), solve_inner, &witness,
			      &preemptions);
	budget_phase(g->budget, "search");
	if (r == STALE_CUT_FOUND) {
		/* the count is where --min's bisection starts; out of memory:
		 * the witness as it was */
		if (q->minimize)
			witness_join_pieces(g->p, witness, &preemptions, g->budget);
		best->witness = witness;
		best->preemptions = preemptions;
	}
	return r < 0 ? r : 0;
}

/* Work (budget units per event of the program) the refutation at a stale
 * read may take in all (stale_refute.c). */
#define STALE_REFUTE_WORK 8192UL

/* Right after the cut found no witness (the same programs: no bound or
 * --min, STALE_CUT_MIN_EVENTS or more, not inside a cut's or a prefix
 * program's own solve): the positions at a read that needs another
 * thread's write, each write it may see ruled out (stale_refute.c), refute
 * the program for every bound. Once a program. */
static int refuted_by_stale_read(struct engine *g, const struct query *q, struct best *best)
{
	int r;

	if (best->sources_tried != 2 || q->no_cut || q->witness_only ||
	    g->n < STALE_CUT_MIN_EVENTS ||
	    !first_try_for_every_bound(q, best, &best->stale_refute_tried))
		return 0;
	budget_phase(g->budget, "refutation at a stale read");
	r = stale_refute(g->p, g->budget, STALE_REFUTE_WORK * (g->n + 1), solve_inner);
	budget_phase(g->budget, "search");
	return r == STALE_REFUTE_REFUTED ? 1 : r < 0 ? r : 0;
}

/* After the source orders and the bounded tries under the full cap (so
 * that a consistent program they decide does not pay for it), the writer
 * groups (writer_groups.c): a part of the program with no SC interleaving
 * refutes it for every bound. Once a program. */
static int refuted_by_groups(struct engine *g, const struct query *q, struct best *best)
{
	int r;

	if (q->witness_only || !first_try_for_every_bound(q, best, &best->groups_tried))
		return 0;
	budget_phase(g->budget, "writer groups");
	r = writer_groups_refute(g->p, g->budget, WRITER_GROUPS_WORK * (g->n + 1), solve_inner);
	budget_phase(g->budget, "search");
	return r == WRITER_GROUPS_REFUTED;
}

/* decide() on the reads' first ranges stopped: with_hint_run() built the
 * fixpoint, and the search on it comes next (search_engine()). */
#define FIXPOINT_READY 5

/* The forced orders the search builds for q (search_engine()), less
 * FORCED_FIRST_RANGES. */
static int forced_how(const struct query *q)
{
	return q->bound >= 0 || q->minimize ? FORCED_BOUND : 0;
}

/* Beside the run by the recorded times: the events in the order of their
 * hints alone (ts_replay.c), kept when every read sees its value there and
 * it has fewer preemptions than what best holds. The run goes on with the
 * running thread while its next event may run, which on few values leaves
 * a value another thread was to read: 8 threads writing 8 variables with 3
 * values, 10^4 events, whose hints are an SC order with 20 preemptions,
 * took 65 s CPU at -p 20 and over 7 minutes without a bound. Verified
 * like the run's witness; an upper bound only, as the run's is. Returns 1
 * when the order is an SC interleaving (kept or not), else 0. */
static int with_hint_order(struct engine *g, struct best *best)
{
	uint32_t *witness;
	long preemptions, c;

	if (ts_replay_witness(g->p, g->budget, &witness, &preemptions) != 1)
		return 0; /* no such order, or a limit the search sees next */
	if ((!best->witness || preemptions < best->preemptions) &&
	    vsc_witness_verify(g->p, witness, g->p->event_count, &c, NULL, 0) == 0) {
		/* --min gallops down from it where it replaces the run's
		 * witness (nearer the least still), else up to it: alone it
		 * may be far above the least (it switches at every hint) */
		if (best->witness && best->hinted == best->preemptions)
			best->hinted = c;
		free(best->witness);
		best->witness = witness;
		best->preemptions = c;
		return 1;
	}
	free(witness);
	return 1;
}

/* Several writers and the recorded times: the run they guide (hint_run.c),
 * inside the epochs of the forced orders' fixpoint, is a witness where the
 * searches wander: on a recorded 4-thread Peterson's lock of 4.1 M events
 * neither the search without a bound nor the bounded one near the least
 * found any in 180 s; the run takes 3 s. Without the fixpoint's epochs it
 * gets stuck there, and the search on the reads' first ranges comes first
 * (search_engine()): so the fixpoint is built for it then, as the search
 * on the fixpoint builds it, and kept for that search, which comes next
 * (returns 1; built twice before: 4 x 10,000 --min 4.7 -> 4.0 s CPU). Its
 * count is an upper bound on the least. Once a program, and the order of
 * the times alone beside it (with_hint_order()). */
static int with_hint_run(struct engine *g, const struct query *q, struct best *best, long least)
{
	unsigned long cap = g->budget->work_cap;
	struct forced own = { 0 };
	const struct forced *epochs = g->forced;
	uint32_t *witness = NULL;
	long preemptions;
	int built = 0, kept = 0, run;

	if (!g->stops.point || best->hint_tried || !hint_run_applies(g->p) ||
	    (best->witness && best->preemptions <= least))
		return 0; /* tried, or a witness at the least (a spin lock's) */
	best->hint_tried = 1;
	g->budget->work_cap = 0; /* about linear: the deadline is its limit */
	budget_phase(g->budget, "run by the recorded times");
	if (!epochs || !epochs->after) {
		built = forced_build(&own, g->p, g->a, g->budget, forced_how(q)) == 0;
		epochs = built && !own.refuted && own.after ? &own : NULL;
		/* the search on the fixpoint would build the same */
		kept = built && best->first_ranges && (own.after || own.refuted);
	}
	/* without the epochs (no fixpoint: nothing for it to gain, or too
	 * big) the run still goes where the order of the times is not SC: on
	 * a recorded reader-writer lock of 1.7 M events (the lock word's
	 * writers many, the data's one, every read of the data one write's)
	 * neither gave a witness else, and the searches wandered for minutes */
	run = epochs || (!with_hint_order(g, best) && !(built && own.refuted));
	if (run && hint_run(g->p, g->a, epochs, g->budget, &witness, &preemptions) == 0 &&
	    witness && (!best->witness || preemptions < best->preemptions)) {
		free(best->witness);
		best->witness = witness;
		best->preemptions = best->hinted = preemptions;
		witness = NULL;
	}
	free(witness);
	if (epochs) /* without them it was tried above, before the run */
		with_hint_order(g, best);
	if (kept) {
		best->fixpoint = own;
		best->has_fixpoint = 1;
	} else if (built) {
		forced_free(&own);
	}
	budget_phase(g->budget, "search");
	g->budget->work_cap = cap;
	return kept;
}

/* Several writers: the stops a spin lock forces on its holders
 * (lock_stops.c) beyond the own stops raise the least preemptions at the
 * start (a bound or --min), and so do the forced orders' intervals that
 * g's own stops hold when the fixpoint ran (saturate_stops.c). The lock
 * stops add to the own intervals alone (they chose their costly places
 * outside those), so the larger of the two sums counts. The interleaving
 * along the lock's holds is a witness (any query: with no bound the search
 * alone wanders on a recorded 4.8 M-event spin lock past 120 s, where this
 * witness takes 2 s); counted once a program. */
static long with_lock_stops(struct engine *g, struct best *best, long least)
{
	unsigned long cap = g->budget->work_cap;
	struct lock_stops found;

	if (!g->stops.point)
		return least;
	if (best->lock_least < 0) {
		/* linear but for its episodes' programs: a search's cap is not
		 * for it (the deadline is) */
		g->budget->work_cap = 0;
		budget_phase(g->budget, "lock stops");
		lock_stops_find(&found, g->p, g->a, g->budget);
		budget_phase(g->budget, "search");
		g->budget->work_cap = cap;
		best->lock_least = (long)(found.own + found.extra);
		if (best->lock_least < (long)g->stops.own)
			best->lock_least = (long)g->stops.own;
		if (found.witness && (!best->witness || found.preemptions < best->preemptions)) {
			free(best->witness);
			best->witness = found.witness;
			best->preemptions = found.preemptions;
			found.witness = NULL;
		}
		lock_stops_free(&found);
	}
	if (least < (long)g->stops.total) /* with the forced orders' intervals */
		least = (long)g->stops.total;
	return best->lock_least > least ? best->lock_least : least;
}

/* From here on the search has best->search_work units (if a cap was asked
 * for), under any cap already set. */
static void cap_search(struct budget *b, struct best *best)
{
	if (!best->search_work)
		return;
	best->search_cap = b->steps + best->search_work;
	if (!b->work_cap || best->search_cap < b->work_cap)
		b->work_cap = best->search_cap;
}

/* One search on g at bound (or ENGINE_UNBOUNDED) under work budget units
 * per event from now (0: none of its own), within the cap already set.
 * *capped: its own cap stopped it (not the deadline, the memory limit or
 * the outer cap). A search stopped by a cap leaves the engine exact: it
 * keeps the states that failed and unmarks the ones on its path, so the
 * next search at the same bound goes on from there. */
static int capped_search(struct engine *g, long bound, unsigned long work, int *capped)
{
	struct budget *b = g->budget;
	unsigned long outer = b->work_cap;
	int r;

	if (work) {
		b->work_cap = b->steps + work * (g->n + 1);
		if (outer && outer < b->work_cap)
			b->work_cap = outer;
	}
	r = engine_search(g, bound);
	*capped = r == VSC_UNKNOWN && b->work_cap != outer && b->steps >= b->work_cap;
	b->work_cap = outer;
	return r;
}

/* Work (budget units per event) -p N asks of the bound itself before the
 * tries at the least (try_at_least()), when N is above it: a search that
 * goes straight to a witness takes 40-45 units per event (8 threads), so
 * a bound the search at N finds at once does not pay for the failed
 * bounds below it first. */
#define BOUND_FIRST_WORK 64UL
/* ... and only this far above the least at most */
#define BOUND_FIRST_ABOVE 2

/* -p N a little above the least the own stops allow: N itself under a
 * small cap first. Returns the verdict when that decides (a witness is taken from
 * g: no search on it after), AT_LEAST_OPEN else. */
static int bound_first(struct engine *g, const struct query *q, struct best *best, long least)
{
	int capped, r, err;

	long at = least > (long)g->stops.total ? least : (long)g->stops.total;

	/* further above, the search at N seldom goes straight (it wanders
	 * more the more N is above the least), and stopped at this cap it
	 * cost 0.3 s at 10^6 events (2 writers, 4 values, -p 6, least 3) */
	if (best->witness || q->minimize || q->bound < 0 || !g->stops.total ||
	    program_threads(g->p) > BOUNDED_FIRST_THREADS || q->bound <= at ||
	    q->bound > at + BOUND_FIRST_ABOVE)
		return AT_LEAST_OPEN;
	r = capped_search(g, q->bound, BOUND_FIRST_WORK, &capped);
	if (capped)
		return AT_LEAST_OPEN;
	if (r == VSC_CONSISTENT && (err = take_trail(g, best)))
		return err;
	return r;
}

/* The first round's work (budget units per event, each search) in
 * by_rounds(), after the tries' 128 and 1,024; each round doubles it. */
#define ROUNDS_FIRST_WORK 2048UL

/* One search of by_rounds() ended (not at its cap) with r at bound
 * (ENGINE_UNBOUNDED: none). Returns the verdict for -p N when it decides,
 * AT_LEAST_OPEN else (*least raised past a bound that failed, *unbounded
 * cleared when the search without a bound found a witness above N). */
static int round_ended(struct engine *g, const struct query *q, struct best *best, long bound,
		       int r, long *least, int *unbounded)
{
	long c;
	int err;

	if (r == VSC_CONSISTENT && bound < 0) {
		if ((c = count_preemptions(g->p, g->trail, g->n)) < 0)
			return (int)c;
		if (c > q->bound) {
			*unbounded = 0; /* its witness does not fit */
			return AT_LEAST_OPEN;
		}
	}
	if (r == VSC_CONSISTENT)
		return (err = take_trail(g, best)) ? err : r;
	if (r != VSC_INCONSISTENT || bound < 0 || bound == q->bound)
		return r;   /* a limit, an error; inconsistent for N, or every bound */
	*least = bound + 1; /* and every bound below fails */
	proven_least(g, q, best, *least);
	return AT_LEAST_OPEN;
}

/* -p N after the tries at the least left it open (several writers, at
 * most BOUNDED_FIRST_THREADS threads): the searches at the bounds the
 * tries asked (the least and up to 3 above, not above N), at N, and
 * without a bound, by rounds, each search going on from where the one at
 * its bound stopped (capped_search()), under a cap that doubles each
 * round. A witness at any of them within N answers; a bound that fails
 * raises the least past it. The search at a bound far above the least
 * wanders (its cost grows exponentially with the excess, and the lower
 * bound cuts nothing there: 8 threads, 3 values, 10^4 events, -p 23:
 * `unknown` after 81,000 units per event, where the search at the least
 * 20 finds a witness within 2,400), so N alone was worse than any bound
 * near the least; now a large bound costs at most a few times the
 * cheapest of these searches. Returns the verdict or -errno. */
static int by_rounds(struct engine *g, const struct query *q, struct best *best, long least)
{
	unsigned long work = ROUNDS_FIRST_WORK;
	/* without a bound only when N is above the bounds the tries asked */
	int unbounded = q->bound >= least + AT_LEAST_PROBES, capped, r;

	for (;; work = work < ULONG_MAX / 4 / (g->n + 1) ? work * 2 : work) {
		long top = least + AT_LEAST_PROBES - 1 < q->bound ? least + AT_LEAST_PROBES - 1
								  : q->bound;
		long bounds[AT_LEAST_PROBES + 2];
		int m = 0;

		for (long b = least; b <= top; b++)
			bounds[m++] = b;
		if (top < q->bound)
			bounds[m++] = q->bound;
		if (unbounded)
			bounds[m++] = ENGINE_UNBOUNDED;
		for (int i = 0; i < m; i++) {
			if (bounds[i] >= 0 && bounds[i] < least)
				continue; /* failed with one below it */
			r = capped_search(g, bounds[i], m > 1 ? work : 0, &capped);
			if (capped)
				continue;
			r = round_ended(g, q, best, bounds[i], r, &least, &unbounded);
			if (r != AT_LEAST_OPEN)
				return r;
		}
	}
}

/* --min, no witness after the steps decide() runs once a program: the
 * search at the least and the search without a bound by rounds, each going
 * on from where it stopped, under a cap that doubles each round (as
 * by_rounds() for -p N). A bound that fails raises the least at once (the
 * search without a bound alone proved nothing until it ended: 8 threads,
 * 3 values, 10^4 events stayed `at least 18` for 60 s where -p 18 fails
 * in 1.6 s, now 19 within 10 s CPU); a witness at
 * the least is the answer, one without a bound the upper bound minimize()
 * starts from. Returns the verdict (consistent: a witness in best) or
 * -errno. */
static int least_by_rounds(struct engine *g, const struct query *q, struct best *best, long *least)
{
	unsigned long work = ROUNDS_FIRST_WORK;
	int capped, r, err, failed;

	for (;; work = work < ULONG_MAX / 4 / (g->n + 1) ? work * 2 : work) {
		/* a few bounds a round, so that the search without a bound,
		 * which alone refutes for every bound, gets its turn */
		for (failed = 0;
		     (r = capped_search(g, *least, work, &capped)) == VSC_INCONSISTENT && !capped &&
		     ++failed < AT_LEAST_PROBES;)
			proven_least(g, q, best, ++*least); /* and every bound below fails */
		if (r == VSC_INCONSISTENT && !capped) {
			proven_least(g, q, best, ++*least);
			capped = 1; /* the next bound in the next round */
		}
		if (!capped)
			break; /* a witness at the least, a limit or an error */
		r = capped_search(g, ENGINE_UNBOUNDED, work, &capped);
		if (!capped)
			break; /* a witness, inconsistent for every bound, a limit... */
	}
	if (r == VSC_CONSISTENT && (err = keep_witness(g, best)))
		return err;
	return r;
}

static int decide(struct engine *g, const struct query *q, struct best *best, long least)
{
	int r, err;

	if (least < best->lower)
		least = best->lower; /* proven by an earlier search on this program */
	least = with_lock_stops(g, best, least);
	if (with_hint_run(g, q, best, least))
		return FIXPOINT_READY;
	proven_least(g, q, best, least);
	if (q->bound >= 0 && least > q->bound)
		return VSC_INCONSISTENT; /* every bound up to q->bound fails */
	if ((r = bound_first(g, q, best, least)) != AT_LEAST_OPEN)
		return r;
	r = try_at_least(g, q, best, &least, AT_LEAST_FIRST_WORK, 0);
	if ((r == AT_LEAST_OPEN || r == AT_LEAST_REFUTED) && refuted_by_sources(g, q, best))
		return VSC_INCONSISTENT;
	if ((r == AT_LEAST_OPEN || r == AT_LEAST_REFUTED) &&
	    (err = unbounded_first(g, q, best)) != AT_LEAST_OPEN)
		return err;
	if ((r == AT_LEAST_OPEN || r == AT_LEAST_REFUTED) && before_stale_cut(g, q, best))
		r = try_at_least(g, q, best, &least, AT_LEAST_WORK, 1);
	if ((r == AT_LEAST_OPEN || r == AT_LEAST_REFUTED) && (err = with_stale_cut(g, q, best)))
		return err;
	if ((r == AT_LEAST_OPEN || r == AT_LEAST_REFUTED) &&
	    (err = refuted_by_stale_read(g, q, best)))
		return err < 0 ? err : VSC_INCONSISTENT;
	/* With no bound the tries are there to find a witness at once; when
	 * the own stops are that far below the least (every bound tried
	 * failed), the next ones fail too and cost far more: on a recorded
	 * Peterson's lock of 4 threads (3.7 M events, least above 221,879)
	 * 200 units per event of the search's 257 */
	if (!q->witness_only &&
	    (r == AT_LEAST_OPEN || (r == AT_LEAST_REFUTED && (q->minimize || q->bound >= 0))))
		r = try_at_least(g, q, best, &least, AT_LEAST_WORK, 0);
	if (r != AT_LEAST_OPEN && r != AT_LEAST_REFUTED)
		return r;
	if (refuted_by_groups(g, q, best))
		return VSC_INCONSISTENT;
	cap_search(g->budget, best);
	if (!best->witness && !q->minimize && q->bound >= 0 &&
	    program_threads(g->p) <= BOUNDED_FIRST_THREADS) {
		/* the bound's answer is all we need: no search on g after it */
		if (g->stops.total)
			return by_rounds(g, q, best, least);
		r = engine_search(g, q->bound);
		if (r == VSC_CONSISTENT && (err = take_trail(g, best)))
			return err;
		return r;
	}
	if (!best->witness && q->minimize && q->bound < 0 && g->stops.total &&
	    program_threads(g->p) <= BOUNDED_FIRST_THREADS) {
		if ((r = least_by_rounds(g, q, best, &least)) != VSC_CONSISTENT)
			return r;
	} else if (!best->witness) { /* else: a witness (from saturation) is the upper bound */
		r = probe(g, ENGINE_UNBOUNDED, best);
		if (r != VSC_CONSISTENT)
			return r;
	}
	if (q->bound >= 0 && best->preemptions > q->bound) {
		r = probe(g, q->bound, best);
		if (r != VSC_CONSISTENT)
			return r;
	}
	return q->minimize ? minimize(g, best, least) : VSC_CONSISTENT;
}

/* --min stopped by a limit after a witness within the bound was found: the
 * least preemptions are between best->lower and the witness's. */
static int has_bounds(const struct query *q, const struct best *best)
{
	return q->minimize && best->witness && (q->bound < 0 || best->preemptions <= q->bound);
}

/* Values that identify writes, several writers: saturation first
 * (coherence.c), with the least preemptions proven at least `least` (the
 * hot variable's bound). COHERENCE_OPEN leaves a proven lower bound and
 * perhaps a witness in *open. */
static int try_coherence(const struct vsc_program *p, const struct query *q, struct budget *b,
			 struct vsc_result *res, struct coherence_open *open, long least)
{
	int r;

	budget_phase(b, "coherence saturation");
	r = coherence_solve(p, q, b, res, open);

	if (r == -ETIME) {
		res->verdict = VSC_UNKNOWN;
		/* proven so far, by saturation or before it */
		res->lower = open->least > least ? open->least : least;
		return COHERENCE_DECIDED;
	}
	return r;
}

/* What the stages of search_whole return besides 0 (decided: res is
 * filled) and a negative errno: the next stage must decide. */
#define SEARCH_ON 1

/* Whole threads in some order: first fit's witness (serial.c), else, with
 * one writer per variable, an order of the threads (thread_order.c, exact).
 * Returns 1 with the witness, or what thread_order_witness() returns when
 * first fit finds none. The exact answer is asked first: when there is no
 * order (most traces with one writer per variable) first fit cannot find
 * one either, and its passes over the threads (up to 4 an event) are
 * saved; when there is one, first fit still picks the witness. */
static int whole_threads_witness(const struct analysis *a, const struct vsc_program *p,
				 uint32_t **witness)
{
	int r = thread_order_witness(a, p, witness);

	if (r != 1 && r != THREAD_ORDER_NOT_APPLY)
		return r;
	free(*witness);
	r = serial_witness(a, p, witness);
	return r == 0 ? thread_order_witness(a, p, witness) : r;
}

/* Whole threads in some order: first fit, or (one writer per variable,
 * exactly) an order of the threads. Sets *least to 1 when there is
 * provably none (0 when it cannot say). */
static int try_whole_threads(const struct analysis *a, const struct vsc_program *p,
			     const struct query *q, struct vsc_result *res, long *least)
{
	int r = whole_threads_witness(a, p, &res->witness);

	if (r == 0 || r == THREAD_ORDER_NOT_APPLY) { /* first fit failed */
		if (r == 0 && q->bound == 0)         /* no order of whole threads */
			return 0;
		if (r == 0 && *least < 1)
			*least = 1; /* keeps what saturation proved */
		r = r == THREAD_ORDER_NOT_APPLY ? 0 : r;
	}
	if (r == 0)
		return SEARCH_ON;
	if (r < 0)
		return r;
	/* threads whole in some order: consistent, least 0 */
	res->verdict = VSC_CONSISTENT;
	res->witness_length = p->event_count;
	res->preemptions = res->lower = 0;
	return 0;
}

/* Several writers (writers: vsc_program_writers(p)): SAT decides no
 * preemption when that is the bound, and first under --min (the search is
 * weakest there on such programs); with many threads (sat_events_first)
 * by the order of events, which asks no bound first. */
static int try_sat(const struct vsc_program *p, size_t writers, const struct query *q,
		   struct budget *b, struct vsc_result *res, long *least)
{
	int r;

	if (writers <= 1)
		return SEARCH_ON;
	if ((q->bound == 0 || q->minimize) && sat_events_first(p)) {
		r = sat_decide_bounded(p, q, b, res, *least); /* no bound first, then the gaps */
		if (r != -E2BIG)
			return r;
		res->verdict = VSC_INCONSISTENT; /* too big to encode: as before */
	}
	if (q->bound == 0) {
		r = sat_decide_no_preemption(p, b, res);
		if (r != -E2BIG)
			return r;
		res->verdict = VSC_INCONSISTENT; /* too many threads to encode: search */
	}
	/* --min: the question without preemptions can only prove the least
	 * at least 1; when that is proven already (the hot variable's bound,
	 * no order of whole threads) it is skipped: on one variable written
	 * by 1,000 threads it took 25 s CPU and 2.8 GB for it */
	if (!q->minimize || *least >= 1)
		return SEARCH_ON;
	r = sat_decide_no_preemption(p, b, res);
	if (r == -ENOMEM || (!r && res->verdict != VSC_INCONSISTENT))
		return r;
	free(res->witness);
	res->witness = NULL;
	res->witness_length = 0;
	res->preemptions = -1;
	res->verdict = VSC_INCONSISTENT;
	if (!r && *least < 1)
		*least = 1; /* -p 0 fails; r: too many threads to encode, say */
	return SEARCH_ON;
}

/* The search's verdict r into res; the best witness goes with it. */
static void take_verdict(const struct vsc_program *p, const struct query *q, struct vsc_result *res,
			 struct best *best, int r)
{
	res->verdict = (enum vsc_verdict)r;
	if (r == VSC_UNKNOWN)
		res->lower = best->lower; /* proven, with a witness or without */
	if (r == VSC_CONSISTENT || (r == VSC_UNKNOWN && has_bounds(q, best))) {
		/* unknown: the best witness is the upper bound (--min) */
		res->witness = best->witness;
		res->witness_length = p->event_count;
		res->preemptions = best->preemptions;
		res->lower = r == VSC_CONSISTENT ? best->preemptions : best->lower;
		best->witness = NULL;
	}
}

/* Work (budget units per event) the search may take on the reads' first
 * ranges before the fixpoint of the forced orders is built after all. */
#define FIRST_RANGES_WORK 16UL

/* One search on the forced orders built as how asks (saturate.h). Returns
 * the verdict or -errno; *partial: the fixpoint was left out, so the search
 * had work (budget units, after what decide() runs once a program: on a
 * recorded Peterson's lock of 4 threads the tries at the least and the
 * source orders took 44 units per event, the search without a bound then
 * 8), and best->search_cap is set when that stopped it; a build without
 * FORCED_FIRST_RANGES would be stronger. */
static int search_with(const struct vsc_program *p, struct analysis *a, const struct query *q,
		       struct budget *b, struct vsc_result *res, struct best *best, long least,
		       int how, unsigned long work, int *partial)
{
	struct forced forced;
	struct engine g;
	unsigned long outer;
	int r;

	budget_phase(b, "forced orders");
	if (best->has_fixpoint && !(how & FORCED_FIRST_RANGES)) {
		forced = best->fixpoint; /* with_hint_run()'s, built as how asks */
		best->has_fixpoint = 0;
		r = 0;
	} else {
		r = forced_build(&forced, p, a, b, how);
	}
	if (r == -ETIME)
		return VSC_UNKNOWN;
	if (r < 0)
		return r;
	*partial = r == 0 && forced.partial;
	if (r == 0 && forced.refuted) {
		forced_free(&forced);
		return VSC_INCONSISTENT;
	}
	if ((r = engine_init(&g, p, a, r == 0 ? &forced : NULL, b))) {
		forced_free(&forced);
		return r;
	}
	budget_phase(b, "search");
	outer = b->work_cap; /* a cap of the caller's (search_then_sat) holds too */
	best->search_work = *partial ? work : 0;
	best->first_ranges = *partial;
	best->search_cap = 0;
	r = engine_rank_by_ts(&g);
	if (!r)
		r = decide(&g, q, best, least);
	b->work_cap = outer;
	best->search_work = 0;
	best->first_ranges = 0;
	res->nodes += g.nodes;
	res->steps += g.steps;
	engine_free(&g);
	forced_free(&forced);
	return r;
}

/* The search, with the lower bound of the forced orders. With a choice of
 * writes, first on the reads' first ranges (cheap: no fixpoint), which
 * decides most traces; the fixpoint (what refutes stale reads at once) only
 * when that search used FIRST_RANGES_WORK per event. Either verdict is
 * exact: the orders of both are true in every SC interleaving. */
static int search_engine(const struct vsc_program *p, struct analysis *a, const struct query *q,
			 struct budget *b, struct vsc_result *res, struct best *best, long least)
{
	int how = forced_how(q), partial = 0;
	unsigned long work = FIRST_RANGES_WORK * (p->event_count + 1);
	int r = search_with(p, a, q, b, res, best, least, how | FORCED_FIRST_RANGES, work,
			    &partial);

	if (r == FIXPOINT_READY ||
	    (r == VSC_UNKNOWN && partial && best->search_cap && b->steps >= best->search_cap))
		r = search_with(p, a, q, b, res, best, least, how, 0, &partial);
	if (r >= 0) {
		take_verdict(p, q, res, best, r);
		if (r == VSC_UNKNOWN && res->lower < least)
			res->lower = least; /* stopped before decide() took it in */
		r = 0;
	} else if (r == -ENOMEM) {
		keep_lower(res, best->lower > least ? best->lower : least);
	}
	return r;
}

/* Programs up to SAT_EVENTS events, or sat_events_first() (up to
 * SAT_EVENTS_MAX events with at least SAT_EVENTS_THREADS threads), with
 * several writers, go to SAT over the
 * order of events (sat_bound.c) when the search used
 * SEARCH_BEFORE_SAT_WORK: the paper's reductions (3-SAT, independent set)
 * are such programs, many short threads where the search branches at
 * every write. Measured beyond 1,500 events: 2-Writer reductions of 60
 * and 80 variables (2,000-2,700 events, 600-800 threads) without a bound
 * `unknown` at 20 s -> 0.05-0.2 s CPU; traces of 8 threads at 2,000-4,000
 * events as often lost as won (a 4,000-event one the search decides in
 * 5.9 s CPU was `unknown` at 30 s, a 2,000-event --min 2.65 -> 3.45 s). */
#define SAT_EVENTS 1500
#define SEARCH_BEFORE_SAT_WORK (1UL << 27) /* about 0.2 s of search */

static int sat_may_win(const struct vsc_program *p)
{
	return p->event_count <= SAT_EVENTS || sat_events_first(p);
}

/* Several writers (writers: vsc_program_writers(p)), a bound above 0 or
 * none or --min, and a program sat_may_win(): the search under a work cap (it
 * decides most such programs at once), then SAT on what it left open,
 * from the least the search proved; the search without the cap when SAT
 * cannot encode it. Else the search alone. */
static int search_then_sat(const struct vsc_program *p, size_t writers, struct analysis *a,
			   const struct query *q, struct budget *b, struct vsc_result *res,
			   struct best *best, long least)
{
	unsigned long outer = b->work_cap, cap = b->steps + SEARCH_BEFORE_SAT_WORK;
	int r;

	if (writers <= 1 || q->bound == 0 || !sat_may_win(p) || best->witness ||
	    (outer && outer <= cap))
		return search_engine(p, a, q, b, res, best, least);
	b->work_cap = cap;
	r = search_engine(p, a, q, b, res, best, least);
	b->work_cap = outer;
	if (r || res->verdict != VSC_UNKNOWN || b->steps < cap)
		return r; /* decided, or stopped by the deadline or memory */
	if (res->lower > least)
		least = res->lower; /* proven by the search, with or without a witness */
	budget_phase(b, "SAT over events");
	r = sat_decide_bounded(p, q, b, res, least);
	if (r != -E2BIG)
		return r;
	budget_phase(b, "search");
	return search_engine(p, a, q, b, res, best, least);
}

/* Done with the analysis of p: freed, or, for an inconsistent verdict on
 * the program vsc_check() was given with keep_for_explain, kept in res so
 * that the explanation (explain.c) does not make it again. */
static void analysis_done(struct analysis *a, const struct vsc_program *p, const struct query *q,
			  struct vsc_result *res)
{
	if (q->keep_analysis_of == p && res->verdict == VSC_INCONSISTENT && !res->analysis &&
	    (res->analysis = malloc(sizeof(*a)))) {
		*res->analysis = *a;
		res->analysis_of = p;
		return;
	}
	analysis_free(a);
}

/* A witness in hand above the least proven, and more than
 * POOL_SEARCH_THREADS threads (worker pools the run under a guessed
 * coherence order left open, coherence_guess.c): the search's states hold
 * a word per thread, so there it fills gigabytes within seconds, and it
 * answered none of 48 such pools of 100-3,000 threads in 15 s
 * (docs/solvers.md, "Worker pools"). Its memory is capped then; the
 * answer is `least: between` the two at the cap. From 64 threads: on
 * 2,025 questions about pools of 80-1,000 threads the search ran after
 * the bound on 96, and what it decided (7) it decided under the cap too
 * (docs/solvers.md, "The search's cap from 64 threads"). */
#define POOL_SEARCH_THREADS 64
#define POOL_SEARCH_BYTES ((size_t)256 << 20)

/* Analysis, then the search. best may hold a witness already (its count is
 * an upper bound); least: the least preemptions are known to be at least
 * this; writers: vsc_program_writers(p); spans: the spans of p's values
 * when the caller found them (NULL: the analysis does). */
static int search_whole(const struct vsc_program *p, size_t writers, const struct value_span *spans,
			const struct query *q, struct budget *b, struct vsc_result *res,
			struct best *best, long least)
{
	size_t memory_limit = b->memory_limit;
	struct analysis a;
	int r;

	budget_phase(b, "analysis");
	if ((r = analysis_build_spanned(&a, p, b, spans))) {
		if (r == -ENOMEM)
			keep_lower(res, least);
		if (r != -ETIME)
			return r;
		res->verdict = VSC_UNKNOWN;
		res->lower = least; /* proven before the analysis */
		return 0;
	}
	res->verdict = VSC_INCONSISTENT;
	budget_phase(b, "whole-thread orders");
	r = a.refuted ? 0 : try_whole_threads(&a, p, q, res, &least);
	budget_phase(b, "SAT");
	if (r == SEARCH_ON)
		r = try_sat(p, writers, q, b, res, &least);
	if (r == 0 && res->verdict == VSC_UNKNOWN)
		keep_lower(res, least); /* SAT stopped: the bounds proven before it stay */
	if (best->witness && program_threads(p) > POOL_SEARCH_THREADS &&
	    memory_limit > POOL_SEARCH_BYTES)
		b->memory_limit = POOL_SEARCH_BYTES;
	if (r == SEARCH_ON)
		r = search_then_sat(p, writers, &a, q, b, res, best, least);
	if (r == -ENOMEM)
		keep_lower(res, least);
	b->memory_limit = memory_limit;
	analysis_done(&a, p, q, res);
	return r;
}

/* With more threads than this, and a hint on every event, the order of the
 * hints is tried first (ts_replay.c): the search's state key and the
 * saturation's vectors grow with the threads, the replay does not. With
 * fewer, the search and saturation answer at once and choose the witness
 * (ranked by the hints too). */
#define TS_REPLAY_THREADS 64

enum use_coherence {
	COHERENCE_SKIP,  /* one writer per variable: the engine's own path */
	COHERENCE_FIRST, /* saturation first where it applies */
	COHERENCE_ONLY,  /* --solver coherence: EINVAL where it does not apply */
};

/* Runs that decide some programs in one pass, before saturation and
 * search: with more than TS_REPLAY_THREADS threads and hints on every
 * event, the order of the hints; then the unique run (one SC interleaving
 * at most: a token ring). 0 (decided: res is filled), SEARCH_ON or -errno. */
static int try_runs(const struct vsc_program *p, const struct query *q, struct budget *b,
		    struct vsc_result *res)
{
	int r = TS_REPLAY_OPEN;

	if (program_threads(p) > TS_REPLAY_THREADS) {
		budget_phase(b, "timestamp replay");
		r = ts_replay_solve(p, q, b, res);
	}
	if (r == TS_REPLAY_OPEN) {
		budget_phase(b, "unique run");
		r = unique_run_solve(p, q, b, res);
		if (r == UNIQUE_RUN_CHOICE)
			return SEARCH_ON;
	}
	if (r == -ETIME) {
		res->verdict = VSC_UNKNOWN;
		return 0;
	}
	return r;
}

/* No witness for one variable: the orders every SC interleaving must
 * have may refute it (hot_refute.c). 0 (answered: inconsistent, or
 * unknown at the limit), SEARCH_ON or -errno. */
static int refute_one_variable(const struct vsc_program *p, struct budget *b,
			       struct vsc_result *res)
{
	int r = hot_refute(p, b);

	if (r == HOT_REFUTED)
		res->verdict = VSC_INCONSISTENT;
	else if (r == -ETIME)
		res->verdict = VSC_UNKNOWN;
	else if (r == HOT_REFUTE_OPEN)
		return SEARCH_ON;
	return r == -ENOMEM ? r : 0;
}

/* One variable, several writers (hot_var.c): a witness from the writes
 * the reads see, when the order they draw has no cycle; else a
 * refutation (hot_refute.c), else those writes searched (hot_search.c). It answers when
 * it fits q; under --min it is the upper bound the search starts from.
 * The lower bound (hot_bound.c) answers a bound below it, and --min when
 * the witness meets it; else it is *least, where the search starts. */
static int try_hot_var(const struct vsc_program *p, size_t writers, const struct query *q,
		       struct budget *b, struct vsc_result *res, struct best *best, long *least)
{
	uint32_t *witness;
	long pre, lower = 0;
	int r;

	if (writers > 1 && (q->minimize || q->bound >= 0) && (lower = hot_lower_bound(p)) < 0)
		return (int)lower;
	if (q->bound >= 0 && lower > q->bound) {
		res->verdict = VSC_INCONSISTENT;
		return 0;
	}
	*least = lower;
	if (q->minimize)
		budget_least(b, lower);
	budget_phase(b, "one variable: the writes the reads see");
	r = writers > 1 ? hot_var_witness(p, b, &witness, &pre) : HOT_VAR_OPEN;
	if (r == HOT_VAR_OPEN && writers > 1) {
		budget_phase(b, "one variable: refutation");
		if ((r = refute_one_variable(p, b, res)) != SEARCH_ON) {
			if (!r && res->verdict == VSC_UNKNOWN)
				res->lower = lower;
			return r;
		}
		budget_phase(b, "one variable: search of the sources");
		r = hot_var_search(p, b, &witness, &pre); /* the sources searched */
		if (r == HOT_VAR_REFUTED) {
			res->verdict = VSC_INCONSISTENT;
			return 0;
		}
	}
	if (r == -ETIME) {
		res->verdict = VSC_UNKNOWN;
		res->lower = lower; /* hot_lower_bound()'s, proven */
	}
	if (r != HOT_VAR_FOUND)
		return r == HOT_VAR_OPEN ? SEARCH_ON : r == -ETIME ? 0 : r;
	if (q->minimize ? pre == lower : q->bound < 0 || pre <= q->bound) {
		res->verdict = VSC_CONSISTENT;
		res->witness = witness;
		res->witness_length = p->event_count;
		res->preemptions = res->lower = pre;
		return 0;
	}
	if (q->minimize) {
		best->witness = witness;
		best->preemptions = pre;
		best->lower = lower;
	} else {
		free(witness);
	}
	return SEARCH_ON;
}

/* --min stopped by a limit or in a step that cannot go on (SAT's question
 * without preemptions, saturation, the analysis) while best held a witness
 * (the hot variable's, saturation's, the lock stops'): its count is an
 * upper bound on the least, kept beside the lower bound proven (it was
 * dropped: `at least 5` where `between 5 and 160` was known). Verified
 * here, as every witness said. A lower bound that meets it makes it the
 * least. Returns 1 when res took it. */
static int keep_upper(const struct vsc_program *p, const struct query *q, struct vsc_result *res,
		      struct best *best)
{
	long c;

	if (!q->minimize || res->verdict != VSC_UNKNOWN)
		return 0;
	/* best's lower bound is proven whichever witness is kept (it was
	 * merged only with best's: a `between` weaker than known) */
	if (best->lower > 0 && res->lower < best->lower)
		res->lower = best->lower;
	/* res may hold a step's own witness already (SAT over the events
	 * under --min, stopped between its bounds, which did not start from
	 * best's): the one with fewer preemptions is kept */
	if (!best->witness ||
	    (res->witness && res->preemptions >= 0 && res->preemptions <= best->preemptions) ||
	    (q->bound >= 0 && best->preemptions > q->bound) ||
	    vsc_witness_verify(p, best->witness, p->event_count, &c, NULL, 0)) {
		/* the bounds meet: res's witness (verified) has the least */
		if (res->witness && res->preemptions >= 0 && res->lower >= res->preemptions &&
		    (q->bound < 0 || res->preemptions <= q->bound) &&
		    !vsc_witness_verify(p, res->witness, res->witness_length, &c, NULL, 0) &&
		    c == res->preemptions) {
			res->verdict = VSC_CONSISTENT;
			res->lower = c;
		}
		return 0;
	}
	free(res->witness);
	res->witness = best->witness;
	best->witness = NULL;
	res->witness_length = p->event_count;
	res->preemptions = c;
	if (res->lower < best->lower)
		res->lower = best->lower;
	if (res->lower < 0)
		res->lower = 0;
	if (res->lower >= c) {
		res->verdict = VSC_CONSISTENT;
		res->lower = c;
	}
	return 1;
}

/* Out of memory under --min with a witness in best: unknown between the
 * bounds (0) rather than the error, which keeps the lower bound alone. */
static int upper_through_memory(const struct vsc_program *p, const struct query *q,
				struct vsc_result *res, struct best *best, int r)
{
	if (r != -ENOMEM || !q->minimize || !best->witness)
		return r;
	free(res->witness);
	res->witness = NULL;
	res->verdict = VSC_UNKNOWN;
	return keep_upper(p, q, res, best) ? 0 : r;
}

/* writers: vsc_program_writers(p), which the caller knows (a pass over the
 * events each time it is asked), as it may know spans (search_whole()). */
static int solve_whole(const struct vsc_program *p, size_t writers, const struct value_span *spans,
		       const struct query *q, struct budget *b, struct vsc_result *res,
		       enum use_coherence coherence)
{
	struct coherence_open open = { 0, NULL, -1 };
	struct best best = { .preemptions = -1, .lock_least = -1, .hinted = -1 };
	long hot_least = 0;
	int r;

	if (coherence != COHERENCE_ONLY && (r = try_runs(p, q, b, res)) != SEARCH_ON)
		return r;
	if (coherence != COHERENCE_ONLY &&
	    (r = try_hot_var(p, writers, q, b, res, &best, &hot_least)) != SEARCH_ON) {
		if (r == -ENOMEM)
			keep_lower(res, hot_least);
		return r;
	}
	if (coherence != COHERENCE_SKIP) {
		r = try_coherence(p, q, b, res, &open, hot_least);
		if (r == COHERENCE_NOT_APPLY && coherence == COHERENCE_ONLY)
			return -EINVAL;
		if (r != COHERENCE_OPEN && r != COHERENCE_NOT_APPLY) {
			if (r == -ENOMEM)
				keep_lower(res, open.least > hot_least ? open.least : hot_least);
			r = upper_through_memory(p, q, res, &best, r);
			if (r == COHERENCE_DECIDED) /* stopped: unknown */
				keep_upper(p, q, res, &best);
			free(best.witness); /* the one try_hot_var() gave, unless kept */
			return r;
		}
		if (open.witness && (!best.witness || open.preemptions < best.preemptions)) {
			free(best.witness);
			best.witness = open.witness;
			best.preemptions = open.preemptions;
		} else {
			free(open.witness);
		}
	}
	r = search_whole(p, writers, spans, q, b, res, &best,
			 open.least > hot_least ? open.least : hot_least);
	if (r == -ENOMEM)
		keep_lower(res, best.lower); /* raised by the search, or what it started from */
	r = upper_through_memory(p, q, res, &best, r);
	if (r == 0)
		keep_upper(p, q, res, &best);
	free(best.witness);
	if (best.has_fixpoint) /* a limit stopped the search before it took it */
		forced_free(&best.fixpoint);
	return r;
}

/* One group of parts, as a whole program (parts.c decides the groups). */
static int solve_part(const struct vsc_program *gp, const struct query *q, struct budget *b,
		      struct vsc_result *res)
{
	size_t writers = vsc_program_writers(gp);

	return solve_whole(gp, writers, NULL, q, b, res,
			   writers > 1 ? COHERENCE_FIRST : COHERENCE_SKIP);
}

static int auto_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		      struct vsc_result *res)
{
	struct reduction rd;
	int r;

	budget_phase(b, "greedy run");
	r = greedy_run_solve(p, q, b, res);
	if (r != GREEDY_RUN_OPEN)
		return r == -ETIME ? (res->verdict = VSC_UNKNOWN, 0) : r;
	/* the run reads packed events; the rest of the way, struct vsc_event */
	r = program_unpack(p);
	if (r)
		return r;
	budget_phase(b, "reductions");
	r = reduce_plan(&rd, p);

	if (r)
		return r;
	res->spins = rd.spins;
	res->dropped = rd.dropped;
	res->parts = rd.parts > 1 ? rd.parts : 0;
	if (!reduce_worth_it(&rd, p)) {
		size_t writers = rd.writers;
		struct value_span *spans = rd.spans;
		rd.spans = NULL;
		reduce_free(&rd);
		res->spins = res->dropped = 0;
		res->parts = 0;
		r = solve_whole(p, writers, spans, q, b, res,
				writers > 1 ? COHERENCE_FIRST : COHERENCE_SKIP);
		free(spans);
		return r;
	}
	if (rd.refuted) {
		res->verdict = VSC_INCONSISTENT;
		r = 0;
	} else {
		r = parts_solve(p, &rd, q, b, solve_part, res);
	}
	reduce_free(&rd);
	return r;
}

const struct solver auto_solver = { "auto", auto_solve };

/* Saturation alone where it applies (values identify writes), the search
 * of auto for what it leaves open; EINVAL where some read has a choice of
 * writes. No reductions, so the saturation sees every program whole. */
static int coherence_only(const struct vsc_program *p, const struct query *q, struct budget *b,
			  struct vsc_result *res)
{
	return solve_whole(p, vsc_program_writers(p), NULL, q, b, res, COHERENCE_ONLY);
}

const struct solver coherence_solver = { "coherence", coherence_only };
