/* SPDX-License-Identifier: MIT */
/* Fewer preemptions in a witness by joining a thread's pieces
 * (coherence_guess.h; docs/solvers.md, "Witness repair: joining a
 * preempted thread's pieces").
 *
 * The witness fixes each variable's coherence order (its writes in the
 * order they run), and every topological order of po + rf + co + fr under
 * that order is an SC interleaving with the same reads. Where it switches
 * away from thread u, u's piece F1 ends, other threads' events W follow,
 * then u's next piece F2. Let B be the events of W that F2 needs
 * (ancestors in the graph, within W) and D those that need F1
 * (descendants, within W). When none is in both, W's events of B, then
 * F1 F2, then the rest of W (each part in its order) is again a
 * topological order: B needs nothing of F1, the rest of W nothing of F2
 * (they came before it), and a thread's events in B come before its
 * events outside B (B is closed under program order backwards). That
 * joins F1 and F2, but may split threads with events on both sides of B;
 * the new order is kept only when it has fewer preemptions, and only
 * after a replay of memory finds every read seeing its source. */
#include "coherence_guess.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/util/sorted.h"

#define REPAIR_TRIES_PER_PREEMPTION 4 /* joins tried, per preemption of the witness */
#define REPAIR_WORK_PER_EVENT 256     /* events visited by the tries, per event */

struct repair {
	const struct coh_sources *s;
	uint32_t *steps;           /* the witness (thread per step) */
	uint32_t *flat, *place;    /* per step: its event; per event: its step */
	uint32_t *conext, *coprev; /* per event: the next/previous write of its variable */
	uint32_t *cofirst;         /* per variable: its first write in the witness */
	uint32_t *roff, *rlist;    /* each write's readers */
	uint32_t *ioff, *ilist;    /* each variable's readers of the initial value */
	uint32_t *in_b, *in_d;     /* per event: the try that put it in B / D */
	uint32_t *stack, *out, *pos;
	uint32_t epoch, lo, hi; /* the try's number, W = steps [lo, hi) */
	uint32_t depth;         /* of stack */
	bool blocked;           /* outside_b() saw an event of W outside B */
	uint64_t work, cap;
};

static const struct vsc_event *event_of(const struct repair *rp, uint32_t f)
{
	uint32_t t = rp->steps[rp->place[f]];

	return &rp->s->p->threads[t].events[f - rp->s->base[t]];
}

/* flat and place of the witness as it is now. */
static void place_events(struct repair *rp)
{
	const struct coh_sources *s = rp->s;

	memset(rp->pos, 0, (size_t)s->k * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t t = rp->steps[i], f = s->base[t] + rp->pos[t]++;
		rp->flat[i] = f;
		rp->place[f] = i;
	}
}

/* The witness's coherence order (it stays the same: every order kept is a
 * topological order of the same graph) and the readers of the initial
 * values, by variable. */
static int coherence_of_witness(struct repair *rp)
{
	const struct coh_sources *s = rp->s;
	uint32_t *last = rp->pos; /* per variable: the last write so far */

	for (uint32_t x = 0; x < s->nvars; x++)
		rp->cofirst[x] = last[x] = COH_NONE;
	memset(rp->ioff, 0, ((size_t)s->nvars + 2) * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t f = rp->flat[i];
		const struct vsc_event *e = event_of(rp, f);
		if (s->rf[f] == COH_INIT)
			rp->ioff[e->var + 2]++;
		if (e->kind == VSC_READ)
			continue;
		rp->coprev[f] = last[e->var];
		rp->conext[f] = COH_NONE;
		if (last[e->var] == COH_NONE)
			rp->cofirst[e->var] = f;
		else
			rp->conext[last[e->var]] = f;
		last[e->var] = f;
	}
	for (uint32_t x = 0; x < s->nvars; x++)
		rp->ioff[x + 2] += rp->ioff[x + 1];
	rp->ilist = malloc(((size_t)rp->ioff[s->nvars + 1] + 1) * sizeof(uint32_t));
	if (!rp->ilist)
		return -ENOMEM;
	for (uint32_t f = 0; f < s->n; f++)
		if (s->rf[f] == COH_INIT)
			rp->ilist[rp->ioff[event_of(rp, f)->var + 1]++] = f;
	return 0;
}

static bool in_window(const struct repair *rp, uint32_t f)
{
	return f < COH_INIT && rp->place[f] >= rp->lo && rp->place[f] < rp->hi;
}

/* f joins B (this try) when it lies in W. */
static void reach_b(struct repair *rp, uint32_t f)
{
	if (in_window(rp, f) && rp->in_b[f] != rp->epoch) {
		rp->in_b[f] = rp->epoch;
		rp->stack[rp->depth++] = f;
	}
}

static void reach_d(struct repair *rp, uint32_t f)
{
	if (in_window(rp, f) && rp->in_d[f] != rp->epoch) {
		rp->in_d[f] = rp->epoch;
		rp->stack[rp->depth++] = f;
	}
}

/* f in W but not in B: then what needs f cannot join B. */
static void outside_b(struct repair *rp, uint32_t f)
{
	if (in_window(rp, f) && rp->in_b[f] != rp->epoch)
		rp->blocked = true;
}

typedef void (*visit_fn)(struct repair *rp, uint32_t f);

static void visit_list(struct repair *rp, visit_fn visit, const uint32_t *off, const uint32_t *list,
		       uint32_t of)
{
	for (uint32_t j = off[of]; j < off[of + 1]; j++)
		visit(rp, list[j]);
}

/* What f needs: program order, its source, the write before it in co and
 * that write's readers (or the initial value's, for the first write). */
static void predecessors(struct repair *rp, uint32_t f, visit_fn visit)
{
	const struct vsc_event *e = event_of(rp, f);
	uint32_t t = rp->steps[rp->place[f]];

	if (f > rp->s->base[t])
		visit(rp, f - 1);
	visit(rp, rp->s->rf[f]);
	if (e->kind == VSC_READ)
		return;
	if (rp->coprev[f] != COH_NONE) {
		visit(rp, rp->coprev[f]);
		visit_list(rp, visit, rp->roff, rp->rlist, rp->coprev[f]);
	} else {
		visit_list(rp, visit, rp->ioff, rp->ilist, e->var);
	}
}

/* What needs f: program order, the next write in co and f's readers,
 * and for a read the write after its source. */
static void successors(struct repair *rp, uint32_t f, visit_fn visit)
{
	const struct vsc_event *e = event_of(rp, f);
	uint32_t t = rp->steps[rp->place[f]], w = rp->s->rf[f];

	if (f + 1 < rp->s->base[t + 1])
		visit(rp, f + 1);
	if (e->kind != VSC_READ) {
		visit(rp, rp->conext[f]);
		visit_list(rp, visit, rp->roff, rp->rlist, f);
	}
	if (e->kind != VSC_WRITE && w == COH_INIT)
		visit(rp, rp->cofirst[e->var]);
	else if (e->kind != VSC_WRITE && w < COH_INIT)
		visit(rp, rp->conext[w]);
}

/* The closure from the events at steps [from, to) by expand; false when
 * the work cap is reached. */
static bool close_over(struct repair *rp, uint32_t from, uint32_t to,
		       void (*expand)(struct repair *, uint32_t, visit_fn), visit_fn reach)
{
	rp->depth = 0;
	for (uint32_t i = from; i < to; i++)
		expand(rp, rp->flat[i], reach);
	while (rp->depth > 0) {
		if (++rp->work > rp->cap)
			return false;
		expand(rp, rp->stack[--rp->depth], reach);
	}
	rp->work += to - from;
	return rp->work <= rp->cap;
}

static long preemptions_of(const struct coh_sources *s, const uint32_t *steps, uint32_t *pos)
{
	long pre = 0;

	memset(pos, 0, (size_t)s->k * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t t = steps[i];
		pos[t]++;
		pre += i + 1 < s->n && steps[i + 1] != t && pos[t] < s->base[t + 1] - s->base[t];
	}
	return pre;
}

/* Does every read of out see its source? (pos: scratch, nvars words.) */
static bool replays(const struct repair *rp, const uint32_t *out)
{
	const struct coh_sources *s = rp->s;
	uint32_t *mem = rp->stack, *at = rp->pos; /* per variable; per thread */

	for (uint32_t x = 0; x < s->nvars; x++)
		mem[x] = COH_INIT;
	memset(at, 0, (size_t)s->k * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t t = out[i], f = s->base[t] + at[t]++;
		const struct vsc_event *e = &s->p->threads[t].events[f - s->base[t]];
		if (e->kind != VSC_WRITE && s->rf[f] != mem[e->var])
			return false;
		if (e->kind != VSC_READ)
			mem[e->var] = f;
	}
	return true;
}

/* A thread's events in W just after its events in B join B when they
 * need nothing outside B and F1 does not reach them: the move then does
 * not split that thread. */
static void extend_b(struct repair *rp)
{
	for (uint32_t j = rp->lo; j < rp->hi; j++) {
		uint32_t f = rp->flat[j], t = rp->steps[j];
		if (rp->in_b[f] == rp->epoch || rp->in_d[f] == rp->epoch || f == rp->s->base[t] ||
		    rp->in_b[f - 1] != rp->epoch)
			continue;
		rp->blocked = false;
		predecessors(rp, f, outside_b);
		rp->work++;
		if (!rp->blocked)
			rp->in_b[f] = rp->epoch;
	}
}

/* Join u's piece ending at step i - 1 with its next piece; 1 when the
 * witness got fewer preemptions (steps rewritten), 0 when not, -ETIME
 * when the work cap is reached. */
static int try_join(struct repair *rp, uint32_t i, long *pre)
{
	const struct coh_sources *s = rp->s;
	uint32_t u = rp->steps[i - 1], a1 = i, a2, b2, o = 0;
	long got;

	while (a1 > 0 && rp->steps[a1 - 1] == u)
		a1--;
	a2 = rp->place[rp->flat[i - 1] + 1];
	for (b2 = a2; b2 < s->n && rp->steps[b2] == u; b2++)
		;
	rp->epoch++;
	rp->lo = i;
	rp->hi = a2;
	if (!close_over(rp, a2, b2, predecessors, reach_b) ||
	    !close_over(rp, a1, i, successors, reach_d))
		return -ETIME;
	for (uint32_t j = i; j < a2; j++)
		if (rp->in_b[rp->flat[j]] == rp->epoch && rp->in_d[rp->flat[j]] == rp->epoch)
			return 0; /* F1 reaches F2 through W: u stops here in every order */
	extend_b(rp);
	memcpy(rp->out, rp->steps, a1 * sizeof(uint32_t));
	o = a1;
	for (uint32_t j = i; j < a2; j++)
		if (rp->in_b[rp->flat[j]] == rp->epoch)
			rp->out[o++] = rp->steps[j];
	for (uint32_t j = a1; j < i; j++)
		rp->out[o++] = u;
	for (uint32_t j = a2; j < b2; j++)
		rp->out[o++] = u;
	for (uint32_t j = i; j < a2; j++)
		if (rp->in_b[rp->flat[j]] != rp->epoch)
			rp->out[o++] = rp->steps[j];
	memcpy(rp->out + o, rp->steps + b2, (s->n - b2) * sizeof(uint32_t));
	rp->work += s->n;
	got = preemptions_of(s, rp->out, rp->pos);
	if (got >= *pre || !replays(rp, rp->out))
		return 0;
	memcpy(rp->steps, rp->out, (size_t)s->n * sizeof(uint32_t));
	*pre = got;
	place_events(rp);
	return 1;
}

/* Rounds over the witness's switches away from unfinished threads (after
 * a join, on from where it was: the steps before it did not move) until
 * a round joins nothing, or the tries or the work run out. */
static void repair_rounds(struct repair *rp, long *pre, struct budget *b)
{
	const struct coh_sources *s = rp->s;
	long tries = REPAIR_TRIES_PER_PREEMPTION * *pre;
	bool joined = true;

	while (joined && tries > 0) {
		joined = false;
		for (uint32_t i = 1; i < s->n && tries > 0; i++) {
			uint32_t f = rp->flat[i - 1], t = rp->steps[i - 1];
			uint64_t before = rp->work;
			int r;
			if (rp->steps[i] == t || f + 1 == s->base[t + 1])
				continue;
			tries--;
			r = try_join(rp, i, pre);
			if (r < 0 || budget_spend(b, (unsigned long)(rp->work - before)))
				return; /* what was joined so far stays */
			joined |= r == 1;
		}
	}
}

static void repair_free(struct repair *rp)
{
	free(rp->flat);
	free(rp->place);
	free(rp->conext);
	free(rp->coprev);
	free(rp->cofirst);
	free(rp->roff);
	free(rp->rlist);
	free(rp->ioff);
	free(rp->ilist);
	free(rp->in_b);
	free(rp->in_d);
	free(rp->stack);
	free(rp->out);
	free(rp->pos);
}

int coh_repair_witness(const struct coh_sources *s, uint32_t *steps, long *pre, struct budget *b)
{
	struct repair rp = { .s = s, .steps = steps };
	size_t n1 = (size_t)s->n + 1, big = n1 > s->nvars + 1u ? n1 : s->nvars + 1u;
	int r = -ENOMEM;

	rp.flat = malloc(n1 * sizeof(uint32_t));
	rp.place = malloc(n1 * sizeof(uint32_t));
	rp.conext = malloc(n1 * sizeof(uint32_t));
	rp.coprev = malloc(n1 * sizeof(uint32_t));
	rp.cofirst = malloc(((size_t)s->nvars + 1) * sizeof(uint32_t));
	rp.roff = malloc(((size_t)s->n + 2) * sizeof(uint32_t));
	rp.ioff = malloc(((size_t)s->nvars + 2) * sizeof(uint32_t));
	rp.in_b = calloc(n1, sizeof(uint32_t));
	rp.in_d = calloc(n1, sizeof(uint32_t));
	rp.stack = malloc(big * sizeof(uint32_t));
	rp.out = malloc(n1 * sizeof(uint32_t));
	rp.pos = malloc((big > s->k + 1u ? big : s->k + 1u) * sizeof(uint32_t));
	rp.cap = (uint64_t)REPAIR_WORK_PER_EVENT * s->n;
	if (rp.flat && rp.place && rp.conext && rp.coprev && rp.cofirst && rp.roff && rp.ioff &&
	    rp.in_b && rp.in_d && rp.stack && rp.out && rp.pos &&
	    coh_list_readers(s, rp.roff, &rp.rlist) == 0) {
		place_events(&rp);
		r = coherence_of_witness(&rp);
	}
	if (r == 0)
		repair_rounds(&rp, pre, b);

	repair_free(&rp);
	return r;
}
