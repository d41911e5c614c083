/* SPDX-License-Identifier: MIT */
/* The groups of a reduced program, decided one by one or by several
 * threads at once. How many cannot change the answer: every group is asked
 * the same question whatever the others answer (with a bound and several
 * groups, its least preemptions within the whole bound), and the answers
 * are folded in group order, stopping where a run one by one stops (not at
 * a group out of memory: a later one may still refute the whole). Groups
 * past that point are not started, or told to stop through the budgets'
 * share, and what they answer is never read. Why this is exact:
 * docs/solvers.md, "Reductions" (3) and "Parts at once". */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "parts.h"

#define PART_PENDING 100 /* not a verdict: no answer (yet) */

struct part_answer {
	int r;         /* verdict, -errno or PART_PENDING */
	long pre, low; /* its witness's preemptions and its proven least; -1: none */
	uint64_t nodes, steps;
};

/* The answers of groups 0, 1, ... taken in that order. */
struct fold {
	long used, lower; /* sums of the witnesses' preemptions and of the least */
	int unknown, bounded;
	uint64_t out_of_memory; /* groups taken in whose memory ran out */
	int r;                  /* PART_PENDING while open, then the verdict or -errno */
	uint32_t next;          /* the next group to take in */
	uint64_t nodes, steps;
};

/* What the threads deciding the groups share. */
struct parts_run {
	const struct vsc_program *p;
	struct reduction *rd;
	struct query gq; /* what every group is asked */
	part_solve_fn solve;
	const struct budget *parent;
	struct budget_share share;
	struct part_answer *ans; /* per group */
	uint64_t *offset;        /* per group: where its witness starts in kept */
	uint32_t *kept;          /* the groups' witnesses, as original threads */
	uint32_t *order;         /* the groups in the order they are taken */
	pthread_mutex_t lock;    /* taken, fold, ans */
	uint32_t taken;          /* of order */
	struct fold fold;
};

/* What a group is asked: with several groups a bound is shared, so each
 * needs its least preemptions (within the whole bound: a group never
 * waits for what the others used). */
static struct query group_query(const struct query *q, uint32_t groups)
{
	struct query gq = *q;

	gq.want_witness = 1;
	if (groups > 1 && q->bound >= 0)
		gq.minimize = 1;
	return gq;
}

/* Take group g's answer in; f->r is set where the fold stops. A group
 * out of memory does not stop it: its answer is unknown (with the bound it
 * proved before), and a later group may still settle the whole, which is
 * inconsistent when any group is (or their least add up past the bound);
 * else the whole is out of memory (take_answer). */
static void fold_in(struct fold *f, const struct query *q, const struct part_answer *a)
{
	f->nodes += a->nodes;
	f->steps += a->steps;
	f->next++;
	if (a->r == -ENOMEM) {
		f->out_of_memory++;
		f->bounded = 0;                      /* no witness */
		f->lower += a->low > 0 ? a->low : 0; /* proven before its memory ran out */
		if (q->bound >= 0 && f->lower > q->bound)
			f->r = VSC_INCONSISTENT;
		return;
	}
	if (a->r < 0 || a->r == VSC_INCONSISTENT) {
		f->r = a->r;
		return;
	}
	f->unknown |= a->r == VSC_UNKNOWN;
	f->bounded &= a->pre >= 0; /* a witness: unknown ones have one with bounds only */
	f->used += a->pre > 0 ? a->pre : 0;
	f->lower += a->low > 0 ? a->low : 0;
	if (q->bound >= 0 && f->lower > q->bound)
		f->r = VSC_INCONSISTENT; /* the groups' least add up past the bound */
}

/* Groups from `from` on can no longer change the answer. */
static void cancel_from(struct parts_run *run, uint32_t from)
{
	if (from < atomic_load(&run->share.cancel_from))
		atomic_store(&run->share.cancel_from, from);
}

/* Fold the answers in as far as they are in (with run->lock held). */
static void fold_ready(struct parts_run *run)
{
	struct fold *f = &run->fold;

	while (f->r == PART_PENDING && f->next < run->rd->ngroups &&
	       run->ans[f->next].r != PART_PENDING)
		fold_in(f, &run->gq, &run->ans[f->next]);
	if (f->r != PART_PENDING)
		cancel_from(run, f->next);
}

static int take(struct parts_run *run, uint32_t *g)
{
	int found = 0;

	pthread_mutex_lock(&run->lock);
	while (!found && run->taken < run->rd->ngroups) {
		*g = run->order[run->taken++];
		found = *g < atomic_load(&run->share.cancel_from);
	}
	pthread_mutex_unlock(&run->lock);
	return found;
}

/* Decide group g; on a witness, write it (original threads) at its place
 * in run->kept. Returns the group's verdict or -errno. */
static int solve_group(struct parts_run *run, uint32_t g, struct budget *b, struct part_answer *a)
{
	struct vsc_result part = { .preemptions = -1, .lower = -1 };
	uint32_t *kept = run->kept + run->offset[g], *map;
	struct vsc_program *gp;
	int err = reduce_group_program(run->rd, run->p, g, &gp, &map);

	if (err)
		return err;
	err = run->solve(gp, &run->gq, b, &part);
	a->nodes = part.nodes;
	a->steps = part.steps;
	if (!err && part.witness) { /* consistent, or unknown with bounds */
		for (size_t i = 0; i < part.witness_length; i++)
			kept[i] = map[part.witness[i]];
		a->pre = part.preemptions;
	}
	if ((!err && (part.witness || part.verdict == VSC_UNKNOWN)) ||
	    (err == -ENOMEM && run->gq.minimize))
		a->low = part.lower; /* proven with or without a witness, or before
				      * the memory ran out (solve keeps only that) */
	free(part.witness);
	free(map);
	vsc_program_free(gp);
	return err ? err : (int)part.verdict;
}

static void *worker(void *arg)
{
	struct parts_run *run = arg;
	uint32_t g;

	while (take(run, &g)) {
		struct part_answer a = { PART_PENDING, -1, -1, 0, 0 };
		struct budget b;
		budget_for_part(&b, run->parent, &run->share, g);
		a.r = solve_group(run, g, &b, &a);
		budget_part_done(&b);
		pthread_mutex_lock(&run->lock);
		run->ans[g] = a;
		if ((a.r < 0 && a.r != -ENOMEM) || a.r == VSC_INCONSISTENT)
			cancel_from(run, g + 1); /* a run one by one stops here or before */
		fold_ready(run);
		pthread_mutex_unlock(&run->lock);
	}
	return NULL;
}

/* The calling thread and up to jobs - 1 more take groups until none is
 * left; fewer when threads cannot be started. */
static void run_workers(struct parts_run *run, uint32_t jobs)
{
	pthread_t *threads = jobs > 1 ? calloc(jobs, sizeof(*threads)) : NULL;
	uint32_t started = 0;

	while (threads && started + 1 < jobs &&
	       pthread_create(&threads[started], NULL, worker, run) == 0)
		started++;
	worker(run);
	for (uint32_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
}

struct sized_group {
	uint64_t size;
	uint32_t g;
};

static int larger_first(const void *a, const void *b)
{
	const struct sized_group *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

/* One by one: in group order, so that a group that settles the answer
 * spares the ones after it. At once: the largest first, so that the last
 * to finish is a small one. */
static int plan_order(struct parts_run *run, uint32_t jobs)
{
	uint32_t n = run->rd->ngroups;
	struct sized_group *s = jobs > 1 ? malloc(((size_t)n + 1) * sizeof(*s)) : NULL;
	uint64_t at = 0;

	if (jobs > 1 && !s)
		return -ENOMEM;
	for (uint32_t g = 0; g < n; g++) {
		run->order[g] = g;
		run->offset[g] = at;
		at += run->rd->group_kept[g];
		if (s)
			s[g] = (struct sized_group){ run->rd->group_kept[g], g };
	}
	if (s) {
		qsort(s, n, sizeof(*s), larger_first);
		for (uint32_t i = 0; i < n; i++)
			run->order[i] = s[i].g;
	}
	free(s);
	return 0;
}

/* -p N (no --min) over several groups, some stopped by a limit with a
 * witness each (unknown between the bounds): the witnesses together fit
 * the bound, whatever the least of each. */
static int within_bound(const struct query *q, const struct fold *f)
{
	return !q->minimize && q->bound >= 0 && f->used <= q->bound;
}

/* The joined witness of within_bound() groups: -p N's answer when it is
 * an SC interleaving of the whole program within the bound (verified
 * here: the groups' answers were not); else unknown as before, without
 * it. */
static int bounded_answer(const struct vsc_program *p, const struct query *q,
			  struct vsc_result *res)
{
	long c;

	if (!vsc_witness_verify(p, res->witness, p->event_count, &c, NULL, 0) && c <= q->bound) {
		res->verdict = VSC_CONSISTENT;
		res->preemptions = c;
		return 0;
	}
	free(res->witness);
	res->witness = NULL;
	res->witness_length = 0;
	res->preemptions = -1;
	return 0;
}

/* The folded answer into res; the groups' witnesses, expanded, with it. */
static int take_answer(const struct vsc_program *p, struct parts_run *run, const struct query *q,
		       struct vsc_result *res)
{
	struct fold *f = &run->fold;
	int r = 0;

	res->nodes += f->nodes;
	res->steps += f->steps;
	res->parts_out_of_memory = f->out_of_memory;
	if (f->r == PART_PENDING)
		f->r = f->out_of_memory ? -ENOMEM : f->unknown ? VSC_UNKNOWN : VSC_CONSISTENT;
	if (f->r < 0) {
		if (f->r == -ENOMEM && q->minimize)
			res->lower = f->lower; /* the groups' proven least still add up */
		return f->r;
	}
	res->verdict = (enum vsc_verdict)f->r;
	if (f->r == VSC_CONSISTENT ||
	    (f->r == VSC_UNKNOWN && f->bounded && (q->minimize || within_bound(q, f)))) {
		res->witness = malloc((p->event_count + 1) * sizeof(uint32_t));
		r = res->witness ? reduce_expand(run->rd, p, run->kept, res->witness) : -ENOMEM;
		res->witness_length = p->event_count;
		if (!r && !q->minimize && f->r == VSC_UNKNOWN)
			return bounded_answer(p, q, res); /* it counts them, verifying */
		if (!r)
			res->preemptions = count_preemptions(p, res->witness, p->event_count);
		res->lower = f->r == VSC_CONSISTENT ? res->preemptions : f->lower;
	} else if (f->r == VSC_UNKNOWN && q->minimize) {
		res->lower = f->lower; /* no witness: the groups' proven least still add up */
	}
	return r;
}

static void run_free(struct parts_run *run)
{
	free(run->ans);
	free(run->offset);
	free(run->kept);
	free(run->order);
}

int parts_solve(const struct vsc_program *p, struct reduction *rd, const struct query *q,
		struct budget *b, part_solve_fn solve, struct vsc_result *res)
{
	struct parts_run run = { .p = p, .rd = rd, .solve = solve, .parent = b };
	uint32_t n = rd->ngroups, jobs = q->jobs < n ? q->jobs : n;
	int r;

	res->verdict = VSC_INCONSISTENT;
	run.gq = group_query(q, n);
	run.fold = (struct fold){ .bounded = 1, .r = PART_PENDING };
	run.ans = malloc(((size_t)n + 1) * sizeof(*run.ans));
	run.offset = malloc(((size_t)n + 1) * sizeof(*run.offset));
	run.kept = malloc((rd->kept + 1) * sizeof(*run.kept));
	run.order = malloc(((size_t)n + 1) * sizeof(*run.order));
	if (!run.ans || !run.offset || !run.kept || !run.order) {
		run_free(&run);
		return -ENOMEM;
	}
	for (uint32_t g = 0; g < n; g++)
		run.ans[g].r = PART_PENDING;
	if ((r = plan_order(&run, jobs)) || (r = budget_share_init(&run.share, b, n))) {
		run_free(&run);
		return r;
	}
	if (!(r = -pthread_mutex_init(&run.lock, NULL))) {
		run_workers(&run, jobs);
		pthread_mutex_destroy(&run.lock);
		r = take_answer(p, &run, q, res);
	}
	budget_share_destroy(&run.share);
	run_free(&run);
	return r;
}
