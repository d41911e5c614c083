/* SPDX-License-Identifier: MIT */
/* With reads-from known, a program is SC iff some coherence order co (a
 * total order of each variable's writes) makes po + rf + co + fr acyclic,
 * where fr sends each read to the write after its source in co (a read of
 * the initial value: to the first write). Once co is fixed that graph has
 * a linear number of edges, and every topological order of it is an SC
 * interleaving: each read runs after its source and before the next write
 * of its variable, so it sees its source. Choosing co is the hard part
 * (NP-complete in general); the saturation of coherence.c leaves much of
 * it open on worker pools, and its vectors grow with the threads.
 *
 * Counters, sequence numbers and fresh ids grow in the order they are
 * written, so the values themselves are the guess tried here: each
 * variable's writes by ascending value, then by descending value. A cycle
 * under a guess says nothing about the program (another co may work); an
 * order found is a witness whatever the guess was. The run is Kahn's
 * algorithm over that graph: the running thread goes on while its next
 * event has no edge from another thread's event not yet run; at a switch,
 * a thread that can run to its end (none of its events waits on another
 * thread) is taken first: that never costs a preemption another order
 * would save. When none can, whichever thread runs next stops unfinished
 * (a preemption), so each ready thread is tried: it runs as far as it
 * can, then every thread that can then run to its end does, and the one
 * after which most events ran (the longest stretch without another
 * preemption) is taken. Those trials are undone edge by edge and cost at
 * most TRIAL_WORK_PER_EVENT events per event in all; the run is linear in
 * events besides (plus sorting each variable's writes), a few words per
 * event. */
#include "coherence_guess.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/util/sorted.h"

#define GUESS_CHUNK 4096        /* events run between looks at the budget */
#define CYCLE_FLAG 0x80000000u  /* indeg: an edge against program order */
#define MAX_SCAN 4096           /* events looked ahead per candidate */
#define TRIAL_WORK_PER_EVENT 64 /* events looked at by the trials, per event */
#define FEW_CANDIDATES 64       /* ready threads compared once that is spent */
#define CASCADE_EVENTS 4096     /* events a trial runs, at most (and threads:) */
#define CASCADE_THREADS 1024

struct guess {
	const struct coh_sources *s;
	uint32_t *conext;  /* per flat event: the next write of its variable in co, COH_NONE */
	uint32_t *cofirst; /* per variable: its first write in co, COH_NONE */
	uint32_t *roff;    /* per flat event + 1: its readers, rlist[roff[f], roff[f + 1]) */
	uint32_t *rlist;
	uint32_t *indeg; /* per flat event: edges from other threads' events not run */
	/* floating writes: plain writes nobody reads, outside co (see floats()) */
	bool floating;
	uint32_t *busy;   /* per variable: readers of its latest write (or initial value) to run */
	uint32_t *parked; /* per variable: a thread waiting at a floating write of it, COH_NONE */
	uint32_t *park_next; /* per thread: the next one parked on the same variable */
	/* the run */
	uint32_t *pos;     /* per thread: events run */
	uint32_t *blocked; /* per thread: its events with indeg != 0 */
	uint32_t *finish;  /* threads that became able to run to their end */
	uint32_t nfinish;
	uint32_t *ready; /* threads whose next event may run (some stale) */
	uint32_t nready;
	uint8_t *in_ready;
	/* a trial: threads it let run to their end, and what it ran */
	uint32_t *freed, nfreed;
	uint32_t trial_thread[CASCADE_THREADS], trial_from[CASCADE_THREADS], ntrial;
	uint64_t trial_work; /* events looked at by free_run() and the trials */
	uint64_t trial_cap;
};

static const struct vsc_event *event_at(const struct coh_sources *s, uint32_t t, uint32_t f)
{
	return &s->p->threads[t].events[f - s->base[t]];
}

static uint32_t thread_of(const struct coh_sources *s, uint32_t f)
{
	return last_at_most(s->base, 0, s->k, f);
}

/* ---- the guessed coherence order --------------------------------------- */

/* A plain write nobody reads floats (when g->floating): it stays out of
 * co and runs whenever its variable's latest write has no reader left to
 * run. Then no read's source is overwritten before it, and the write
 * itself holds nobody up. */
static bool floats(const struct guess *g, uint32_t t, uint32_t f)
{
	return g->floating && g->roff[f] == g->roff[f + 1] &&
	       event_at(g->s, t, f)->kind == VSC_WRITE;
}

struct keyed {
	int64_t value;
	uint32_t flat;
};

static int by_value(const void *a, const void *b)
{
	int64_t x = ((const struct keyed *)a)->value, y = ((const struct keyed *)b)->value;

	return x < y ? -1 : x > y;
}

/* Each variable's writes, grouped by variable (flat order within):
 * wl[woff[x], woff[x + 1]). Returns the largest group, or -ENOMEM. */
static long group_by_variable(const struct coh_sources *s, uint32_t *woff, uint32_t **wl)
{
	long most = 0;

	memset(woff, 0, ((size_t)s->nvars + 2) * sizeof(uint32_t));
	for (uint32_t t = 0; t < s->k; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length; i++)
			if (s->p->threads[t].events[i].kind != VSC_READ)
				woff[s->p->threads[t].events[i].var + 2]++;
	for (uint32_t x = 0; x < s->nvars; x++) {
		most = woff[x + 2] > most ? woff[x + 2] : most;
		woff[x + 2] += woff[x + 1];
	}
	*wl = malloc(((size_t)woff[s->nvars + 1] + 1) * sizeof(uint32_t));
	if (!*wl)
		return -ENOMEM;
	for (uint32_t t = 0; t < s->k; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length; i++) {
			const struct vsc_event *e = &s->p->threads[t].events[i];
			if (e->kind != VSC_READ)
				(*wl)[woff[e->var + 1]++] = s->base[t] + i;
		}
	return most;
}

/* conext and cofirst: each variable's writes by value, ascending or not. */
static int order_by_value(struct guess *g, bool ascending)
{
	const struct coh_sources *s = g->s;
	uint32_t *woff = malloc(((size_t)s->nvars + 2) * sizeof(uint32_t)), *wl = NULL;
	long most = woff ? group_by_variable(s, woff, &wl) : -ENOMEM;
	struct keyed *kv = most >= 0 ? malloc(((size_t)most + 1) * sizeof(*kv)) : NULL;

	if (kv) {
		for (uint32_t x = 0; x < s->nvars; x++) {
			uint32_t m = woff[x + 1] - woff[x], prev = COH_NONE;
			uint32_t kept = 0;
			for (uint32_t j = 0; j < m; j++) {
				uint32_t f = wl[woff[x] + j], t = thread_of(s, f);
				const struct vsc_event *e = event_at(s, t, f);
				g->conext[f] = COH_NONE;
				if (!floats(g, t, f))
					kv[kept++] = (struct keyed){
						e->kind == VSC_RMW ? e->new_value : e->value, f
					};
			}
			m = kept;
			qsort(kv, m, sizeof(*kv), by_value);
			g->cofirst[x] = COH_NONE;
			for (uint32_t j = 0; j < m; j++) {
				uint32_t f = kv[ascending ? j : m - 1 - j].flat;
				if (prev == COH_NONE)
					g->cofirst[x] = f;
				else
					g->conext[prev] = f;
				prev = f;
			}
			if (prev != COH_NONE)
				g->conext[prev] = COH_NONE;
		}
	}
	free(woff);
	free(wl);
	free(kv);
	return kv ? 0 : -ENOMEM;
}

/* ---- the graph: edges from other threads into each event --------------- */

int coh_list_readers(const struct coh_sources *s, uint32_t *roff, uint32_t **rlist)
{
	memset(roff, 0, ((size_t)s->n + 2) * sizeof(uint32_t));
	for (uint32_t f = 0; f < s->n; f++)
		if (s->rf[f] < COH_INIT)
			roff[s->rf[f] + 2]++;
	for (uint32_t f = 0; f < s->n; f++)
		roff[f + 2] += roff[f + 1];
	*rlist = malloc(((size_t)roff[s->n + 1] + 1) * sizeof(uint32_t));
	if (!*rlist)
		return -ENOMEM;
	for (uint32_t f = 0; f < s->n; f++)
		if (s->rf[f] < COH_INIT)
			(*rlist)[roff[s->rf[f] + 1]++] = f;
	return 0;
}

enum edge_mode {
	EDGE_COUNT,   /* into indeg */
	EDGE_RELEASE, /* f ran: out of indeg, and wake the threads it frees */
	EDGE_TRY,     /* f runs on trial: out of indeg, nobody woken */
	EDGE_UNDO,    /* the trial is over: back into indeg */
};

/* Wake thread tt, whose event `to` has no edge left into it. */
static void wake(struct guess *g, uint32_t tt, uint32_t to)
{
	if (--g->blocked[tt] == 0) /* every event left of tt may run */
		g->finish[g->nfinish++] = tt;
	if (to == g->s->base[tt] + g->pos[tt] && !g->in_ready[tt]) {
		g->in_ready[tt] = 1;
		g->ready[g->nready++] = tt;
	}
}

/* A trial freed an event of thread tt: does that let tt finish? */
static void tried(struct guess *g, uint32_t tt)
{
	if (--g->blocked[tt] == 0)
		g->freed[g->nfreed++] = tt;
}

/* An edge from f (thread tf) to `to`, as mode says. Program order implies
 * an edge forward in one thread; one backward closes a cycle, and its
 * target never runs. */
static void edge(struct guess *g, uint32_t f, uint32_t tf, uint32_t to, enum edge_mode mode)
{
	if (to == COH_NONE || to == f)
		return;
	if (to >= g->s->base[tf] && to < g->s->base[tf + 1]) {
		if (to < f && mode == EDGE_COUNT)
			g->indeg[to] |= CYCLE_FLAG;
		return;
	}
	if (mode == EDGE_COUNT || mode == EDGE_UNDO) {
		if (mode == EDGE_UNDO && g->indeg[to] == 0)
			g->blocked[thread_of(g->s, to)]++;
		g->indeg[to]++;
	} else if (--g->indeg[to] != 0) {
		return;
	} else if (mode == EDGE_RELEASE) {
		wake(g, thread_of(g->s, to), to);
	} else {
		tried(g, thread_of(g->s, to));
	}
}

/* The edges out of f (thread tf): co and rf when it writes, fr when it
 * reads (to the write after its source, or the first write). */
static void edges_from(struct guess *g, uint32_t f, uint32_t tf, enum edge_mode mode)
{
	const struct coh_sources *s = g->s;
	uint32_t src = s->rf[f];

	if (event_at(s, tf, f)->kind != VSC_READ) {
		edge(g, f, tf, g->conext[f], mode);
		for (uint32_t j = g->roff[f]; j < g->roff[f + 1]; j++)
			edge(g, f, tf, g->rlist[j], mode);
	}
	if (src == COH_INIT)
		edge(g, f, tf, g->cofirst[event_at(s, tf, f)->var], mode);
	else if (src != COH_NONE)
		edge(g, f, tf, g->conext[src], mode);
}

static void count_edges(struct guess *g)
{
	const struct coh_sources *s = g->s;

	memset(g->indeg, 0, (size_t)s->n * sizeof(uint32_t));
	memset(g->blocked, 0, (size_t)s->k * sizeof(uint32_t));
	for (uint32_t t = 0; t < s->k; t++)
		for (uint32_t f = s->base[t]; f < s->base[t + 1]; f++)
			edges_from(g, f, t, EDGE_COUNT);
	for (uint32_t t = 0; t < s->k; t++)
		for (uint32_t f = s->base[t]; f < s->base[t + 1]; f++)
			g->blocked[t] += g->indeg[f] != 0;
	for (uint32_t x = 0; x < s->nvars; x++)
		g->busy[x] = 0, g->parked[x] = COH_NONE;
	for (uint32_t t = 0; t < s->k; t++)
		for (uint32_t f = s->base[t]; f < s->base[t + 1]; f++)
			if (s->rf[f] == COH_INIT)
				g->busy[event_at(s, t, f)->var]++;
}

/* ---- the run ------------------------------------------------------------ */

static uint32_t length_of(const struct guess *g, uint32_t t)
{
	return g->s->base[t + 1] - g->s->base[t];
}

/* May event f of thread t run now, as far as the orders go (indeg) and,
 * for a floating write, its variable? */
static bool may_run(const struct guess *g, uint32_t t, uint32_t f)
{
	return g->indeg[f] == 0 && !(floats(g, t, f) && g->busy[event_at(g->s, t, f)->var] != 0);
}

static bool can_go_on(const struct guess *g, uint32_t t)
{
	return g->pos[t] < length_of(g, t) && may_run(g, t, g->s->base[t] + g->pos[t]);
}

/* t's next event waits on its variable only (a floating write): t waits
 * in that variable's list until the variable's readers have run. */
static void park(struct guess *g, uint32_t t)
{
	uint32_t f = g->s->base[t] + g->pos[t], x;

	if (g->pos[t] >= length_of(g, t) || g->in_ready[t] || g->indeg[f] != 0 || may_run(g, t, f))
		return;
	x = event_at(g->s, t, f)->var;
	g->in_ready[t] = 2;
	g->park_next[t] = g->parked[x];
	g->parked[x] = t;
}

/* Event f of thread t ran: what its variable's latest write waits for. */
static void note_ran(struct guess *g, uint32_t t, uint32_t f)
{
	const struct vsc_event *e = event_at(g->s, t, f);
	uint32_t x = e->var;

	if (e->kind != VSC_WRITE && g->s->rf[f] != COH_NONE)
		g->busy[x]--; /* a read of the latest write (it cannot run otherwise) */
	if (e->kind != VSC_READ)
		g->busy[x] = g->roff[f + 1] - g->roff[f];
	while (g->busy[x] == 0 && g->parked[x] != COH_NONE) {
		uint32_t u = g->parked[x];
		g->parked[x] = g->park_next[u];
		g->in_ready[u] = 1;
		g->ready[g->nready++] = u;
	}
}

/* Events t can run from its position before one waits (at most MAX_SCAN). */
static uint32_t free_run(const struct guess *g, uint32_t t)
{
	uint32_t i = g->pos[t], end = length_of(g, t);

	end = end - i > MAX_SCAN ? i + MAX_SCAN : end;
	while (i < end && may_run(g, t, g->s->base[t] + i))
		i++;
	return i - g->pos[t];
}

/* Thread t runs its next len events on trial. */
static void try_events(struct guess *g, uint32_t t, uint32_t len)
{
	uint32_t f0 = g->s->base[t] + g->pos[t];

	for (uint32_t f = f0; f < f0 + len; f++)
		edges_from(g, f, t, EDGE_TRY);
	g->trial_thread[g->ntrial] = t;
	g->trial_from[g->ntrial++] = g->pos[t];
	g->pos[t] += len;
}

/* How many events run if t runs its next len events and then each thread
 * that can run to its end does (what the run would do before its next
 * forced switch), up to CASCADE_EVENTS; all undone after. */
static uint32_t cascade(struct guess *g, uint32_t t, uint32_t len)
{
	uint32_t ran = len;

	g->nfreed = g->ntrial = 0;
	try_events(g, t, len);
	while (g->nfreed > 0 && ran < CASCADE_EVENTS && g->ntrial < CASCADE_THREADS) {
		uint32_t u = g->freed[--g->nfreed], left = length_of(g, u) - g->pos[u];
		if (left > 0 && g->blocked[u] == 0) {
			try_events(g, u, left);
			ran += left;
		}
	}
	while (g->ntrial > 0) {
		uint32_t u = g->trial_thread[--g->ntrial], from = g->trial_from[g->ntrial];
		for (uint32_t f = g->s->base[u] + from; f < g->s->base[u] + g->pos[u]; f++)
			edges_from(g, f, u, EDGE_UNDO);
		g->pos[u] = from;
	}
	return ran;
}

/* The thread to run next: one that can run to its end; else the ready
 * thread after whose trial (cascade()) most events ran, the longer own
 * run first. Every ready thread is tried (the right one is often one of
 * thousands of readers) until the trials have cost TRIAL_WORK_PER_EVENT
 * per event; then FEW_CANDIDATES of them. COH_NONE: stuck (-ETIME in
 * *err when the budget ran out). */
static uint32_t pick(struct guess *g, struct budget *b, int *err)
{
	uint32_t best = COH_NONE, seen = 0, at = 0, most = UINT32_MAX;
	uint64_t best_score = 0, before = g->trial_work;

	while (g->nfinish > 0) {
		uint32_t t = g->finish[--g->nfinish];
		if (g->blocked[t] == 0 && can_go_on(g, t))
			return t;
		park(g, t); /* it comes back when its variable is free */
	}
	if (g->trial_work > g->trial_cap)
		most = FEW_CANDIDATES;
	for (uint32_t i = g->nready; i-- > 0 && seen < most;) {
		uint32_t t = g->ready[i], len, ran;
		uint64_t score;
		if (!can_go_on(g, t)) { /* stale: it comes back when it can */
			g->in_ready[t] = 0;
			if (at == --g->nready)
				at = i; /* the best so far moves into the hole */
			g->ready[i] = g->ready[g->nready];
			park(g, t);
			continue;
		}
		seen++;
		len = free_run(g, t);
		ran = cascade(g, t, len);
		g->trial_work += 2 * (uint64_t)ran + 1;
		score = ((uint64_t)ran << 32) + len;
		if (score > best_score) {
			best = t;
			best_score = score;
			at = i;
		}
	}
	if (budget_spend(b, (unsigned long)(g->trial_work - before))) {
		*err = -ETIME;
		return COH_NONE;
	}
	if (best != COH_NONE) {
		g->in_ready[best] = 0;
		g->ready[at] = g->ready[--g->nready];
	}
	return best;
}

static void seed_queues(struct guess *g)
{
	g->nfinish = g->nready = 0;
	memset(g->pos, 0, (size_t)g->s->k * sizeof(uint32_t));
	memset(g->in_ready, 0, g->s->k);
	for (uint32_t t = g->s->k; t-- > 0;) {
		if (length_of(g, t) == 0)
			continue;
		if (g->blocked[t] == 0)
			g->finish[g->nfinish++] = t;
		if (can_go_on(g, t)) {
			g->in_ready[t] = 1;
			g->ready[g->nready++] = t;
		} else {
			park(g, t);
		}
	}
}

/* 1: every event ran (steps, *pre), 0: stuck or `worse` preemptions
 * reached (a better run is known), -ETIME. */
static int run(struct guess *g, struct budget *b, long worse, uint32_t *steps, long *pre)
{
	uint32_t cur = COH_NONE, done = 0, since = 0;
	int err = 0;

	count_edges(g);
	g->trial_work = 0;
	g->trial_cap = (uint64_t)TRIAL_WORK_PER_EVENT * g->s->n + (1u << 20);
	seed_queues(g);
	*pre = 0;
	while (done < g->s->n) {
		if (cur != COH_NONE && g->pos[cur] < length_of(g, cur) && ++*pre >= worse)
			return 0; /* switched away from a thread with events left */
		if ((cur = pick(g, b, &err)) == COH_NONE)
			return err;
		while (can_go_on(g, cur)) {
			uint32_t f = g->s->base[cur] + g->pos[cur]++;
			edges_from(g, f, cur, EDGE_RELEASE);
			note_ran(g, cur, f);
			steps[done++] = cur;
			if (++since == GUESS_CHUNK) {
				since = 0;
				if (budget_spend(b, GUESS_CHUNK))
					return -ETIME;
			}
		}
		park(g, cur);
	}
	return 1;
}

static void guess_free(struct guess *g)
{
	free(g->conext);
	free(g->cofirst);
	free(g->roff);
	free(g->rlist);
	free(g->indeg);
	free(g->pos);
	free(g->blocked);
	free(g->finish);
	free(g->ready);
	free(g->in_ready);
	free(g->freed);
	free(g->busy);
	free(g->parked);
	free(g->park_next);
}

/* The runs in turn: ascending values, then the same with floating writes,
 * then both descending; each run after the first only while the best so
 * far (in steps, *pre) has more than `enough` preemptions. */
static int best_run(struct guess *g, struct budget *b, long enough, uint32_t *steps, long *pre)
{
	uint32_t *other = NULL;
	long got = -1;
	int found = 0, r = 0;

	for (int variant = 0; variant < 4 && r >= 0 && !(found && *pre <= enough); variant++) {
		uint32_t *into = found ? other : steps;
		if (found && !other && !(into = other = malloc(((size_t)g->s->n + 1) * 4)))
			return -ENOMEM;
		g->floating = variant & 1;
		r = order_by_value(g, variant < 2);
		if (r == 0)
			r = run(g, b, found ? *pre : LONG_MAX, into, &got);
		if (r == 1 && (!found || got < *pre)) {
			if (found)
				memcpy(steps, other, (size_t)g->s->n * sizeof(uint32_t));
			*pre = got;
			found = 1;
		}
	}
	free(other);
	return r < 0 ? r : found;
}

int coherence_guess_run(const struct coh_sources *s, struct budget *b, long enough, uint32_t *steps,
			long *pre)
{
	struct guess g = { .s = s };
	int r = -ENOMEM;

	g.conext = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	g.cofirst = malloc(((size_t)s->nvars + 1) * sizeof(uint32_t));
	g.roff = malloc(((size_t)s->n + 2) * sizeof(uint32_t));
	g.indeg = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	g.pos = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	g.blocked = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	g.finish = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	g.ready = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	g.in_ready = malloc((size_t)s->k + 1);
	g.freed = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	g.busy = malloc(((size_t)s->nvars + 1) * sizeof(uint32_t));
	g.parked = malloc(((size_t)s->nvars + 1) * sizeof(uint32_t));
	g.park_next = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	if (g.conext && g.cofirst && g.roff && g.indeg && g.pos && g.blocked && g.finish &&
	    g.ready && g.in_ready && g.freed && g.busy && g.parked && g.park_next)
		r = coh_list_readers(s, g.roff, &g.rlist);
	if (r == 0)
		r = best_run(&g, b, enough, steps, pre);
	guess_free(&g);
	if (r == 1 && *pre > enough)
		coh_repair_witness(s, steps, pre, b); /* out of memory: the witness as it was */
	return r;
}
