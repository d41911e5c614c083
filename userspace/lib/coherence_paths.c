/* SPDX-License-Identifier: MIT */
/* A lower bound on the preemptions, for programs whose values identify
 * writes, without a vector of every thread per event (coherence_guess.h;
 * docs/solvers.md, "Worker pools: a coherence order from the values").
 *
 * Orders every SC interleaving keeps: program order, each read after its
 * source, and, for a read r of x from another thread's write w whose
 * thread's previous access a of x left it holding something other than w
 * (a write other than w, or a read of another source): a before w. (If a
 * is a write, a < r and rule A of coherence.c put a before w in co; if a
 * reads w' != w, then w' < a < r puts w' before w in co, and rule B for a
 * puts a before w.)
 *
 * The charge of thread u is the lower bound of coherence.c restricted to
 * u: for each event e of u, the most events of u that must precede some
 * event of another thread that must precede e; then u stops, unfinished,
 * after one of its events a - 1 .. e - 1, and ranges that do not overlap
 * hold different stops. A thread the witness never switches away from
 * unfinished has no stop there, so its charge is 0: only the witness's
 * preempted threads are looked at, one pass each in the witness's order
 * (a topological order of every order above, as of any order true in
 * every SC interleaving), with one number per event (how many of u's
 * events precede it). The sum over threads bounds every SC interleaving.
 *
 * Before that, coherence_chains.c proves which steps of the witness's
 * coherence order every SC interleaving keeps; the orders they bring
 * (a write before the next, each reader of a write before the next
 * write) are sent along in the same pass. */
#include "coherence_guess.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHARGED 64        /* preempted threads charged; fewer only weaken the bound */
#define MAX_EXTRA_PER_EVENT 4 /* orders kept, per event; fewer only weaken the bound */
#define MAX_WHOLE_TRIES 4     /* preempted threads charged nothing tried whole */
#define MAX_BLOCKS 8192       /* threads in one such try: 8 MB a bit matrix, four of them */

struct paths {
	const struct coh_sources *s;
	uint32_t
		*eoff; /* per flat event + 1: its extra predecessors, elist[eoff[f], eoff[f + 1]) */
	uint32_t *elist;
	uint32_t *roff, *rlist; /* each write's readers (coh_list_readers) */
	uint32_t *held_by;      /* per variable: the thread's last access of it, COH_NONE */
	bool rule_b;            /* list rule B's orders too */
	uint32_t *val;          /* per flat event: events of u that precede it or are it */
	uint32_t *last;         /* per thread: val of its last event passed */
	uint32_t *pos;          /* per thread: events passed */
	struct coh_chains ch;   /* the witness's coherence steps proven */
	uint32_t *inval;        /* per flat event: the most val sent to it along ch's orders */
	uint32_t sent;          /* what send() sends, to events outside [skip_lo, skip_hi) */
	uint32_t skip_lo, skip_hi;
};

/* What x holds for a thread after its access f: f itself when it writes,
 * else the source f read. */
static uint32_t held(const struct coh_sources *s, uint32_t t, uint32_t f)
{
	const struct vsc_event *e = &s->p->threads[t].events[f - s->base[t]];

	return e->kind == VSC_READ ? s->rf[f] : f;
}

/* Count (fill 0) or list (fill 1) the predecessor a of `to`. */
static void extra(struct paths *ps, uint32_t a, uint32_t to, int fill)
{
	if (fill)
		ps->elist[ps->eoff[to + 1]++] = a;
	else
		ps->eoff[to + 2]++;
}

/* Access f of thread t, whose previous access of the variable is a
 * (COH_NONE: none): the orders it brings. A read of another thread's
 * write w, when a held something else: a before w. A write, when a held
 * a write h: every other thread's reader of h before f (rule B: h < f). */
static void orders_of(struct paths *ps, uint32_t t, uint32_t f, uint32_t a, int fill)
{
	const struct coh_sources *s = ps->s;
	uint32_t w = s->rf[f], h;

	if (a == COH_NONE)
		return;
	h = held(s, t, a);
	if (w < COH_INIT && (w < s->base[t] || w >= s->base[t + 1]) && h != w)
		extra(ps, a, w, fill);
	if (!ps->rule_b || h >= COH_INIT ||
	    s->p->threads[t].events[f - s->base[t]].kind == VSC_READ)
		return;
	for (uint32_t j = ps->roff[h]; j < ps->roff[h + 1]; j++) {
		uint32_t r = ps->rlist[j];
		if (r < s->base[t] || r >= s->base[t + 1])
			extra(ps, r, f, fill);
	}
}

/* Every access with the thread's previous access of its variable. */
static void scan_accesses(struct paths *ps, int fill)
{
	const struct coh_sources *s = ps->s;

	for (uint32_t t = 0; t < s->k; t++) {
		const struct vsc_event *ev = s->p->threads[t].events;
		for (uint32_t f = s->base[t]; f < s->base[t + 1]; f++) {
			uint32_t x = ev[f - s->base[t]].var;
			orders_of(ps, t, f, ps->held_by[x], fill);
			ps->held_by[x] = f;
		}
		for (uint32_t f = s->base[t]; f < s->base[t + 1]; f++)
			ps->held_by[ev[f - s->base[t]].var] = COH_NONE;
	}
}

/* eoff counted; false when rule B's edges are too many to keep. */
static bool count_extra(struct paths *ps)
{
	uint32_t n = ps->s->n;

	memset(ps->eoff, 0, ((size_t)n + 2) * sizeof(uint32_t));
	scan_accesses(ps, 0);
	for (uint32_t f = 0; f < n; f++) {
		if (ps->eoff[f + 2] > MAX_EXTRA_PER_EVENT * (uint64_t)n - ps->eoff[f + 1])
			return false;
		ps->eoff[f + 2] += ps->eoff[f + 1];
	}
	return true;
}

static int list_extra(struct paths *ps)
{
	for (uint32_t x = 0; x < ps->s->nvars; x++)
		ps->held_by[x] = COH_NONE;
	ps->rule_b = true;
	if (!count_extra(ps)) {
		ps->rule_b = false; /* the first kind alone: at most one per read */
		count_extra(ps);
	}
	ps->elist = malloc(((size_t)ps->eoff[ps->s->n + 1] + 1) * sizeof(uint32_t));
	if (!ps->elist)
		return -ENOMEM;
	scan_accesses(ps, 1);
	return 0;
}

/* The most val over f's predecessors (its source and its extra
 * predecessors) outside thread skip (COH_NONE: all of them). */
static uint32_t from_preds(const struct paths *ps, uint32_t f, uint32_t skip)
{
	const struct coh_sources *s = ps->s;
	uint32_t most = 0, w = s->rf[f], lo = 0, hi = 0;

	if (skip != COH_NONE) {
		lo = s->base[skip];
		hi = s->base[skip + 1];
	}
	if (w < COH_INIT && (w < lo || w >= hi))
		most = ps->val[w];
	for (uint32_t j = ps->eoff[f]; j < ps->eoff[f + 1]; j++) {
		uint32_t a = ps->elist[j];
		if ((a < lo || a >= hi) && ps->val[a] > most)
			most = ps->val[a];
	}
	return most;
}

static void send(void *ctx, uint32_t to)
{
	struct paths *ps = ctx;

	if ((to < ps->skip_lo || to >= ps->skip_hi) && ps->sent > ps->inval[to])
		ps->inval[to] = ps->sent;
}

/* Stops of thread u, in one pass over steps: each event takes the most
 * val of its predecessors (pulled from the listed ones, sent along the
 * chains' orders), u's own ones only through another thread. */
static long charge_of(struct paths *ps, const uint32_t *steps, uint32_t u)
{
	const struct coh_sources *s = ps->s;
	uint32_t a = 0, free_from = 0;
	long stops = 0;

	memset(ps->last, 0, (size_t)s->k * sizeof(uint32_t));
	memset(ps->pos, 0, (size_t)s->k * sizeof(uint32_t));
	memset(ps->inval, 0, (size_t)s->n * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t t = steps[i], ie = ps->pos[t]++, f = s->base[t] + ie, v;
		v = from_preds(ps, f, t == u ? u : COH_NONE);
		v = ps->inval[f] > v ? ps->inval[f] : v;
		if (t != u) {
			ps->val[f] = ps->last[t] = v > ps->last[t] ? v : ps->last[t];
		} else {
			a = v > a ? v : a; /* through another thread */
			/* a range [a - 1, ie - 1] none stabs yet */
			if (a >= 1 && a - 1 >= free_from) {
				stops++;
				free_from = ie;
			}
			ps->val[f] = ie + 1;
		}
		if (ps->val[f] > 0) {
			ps->sent = ps->val[f];
			ps->skip_lo = t == u ? s->base[u] : 0;
			ps->skip_hi = t == u ? s->base[u + 1] : 0;
			coh_chains_successors(&ps->ch, ps->roff, ps->rlist, f, t, send, ps);
		}
	}
	return stops;
}

uint32_t coh_preempted_threads(const struct coh_sources *s, const uint32_t *steps, uint32_t *pos,
			       uint32_t *out, uint32_t most)
{
	uint32_t m = 0;

	memset(pos, 0, (size_t)s->k * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t t = steps[i], j = 0;
		pos[t]++;
		if (i + 1 == s->n || steps[i + 1] == t || pos[t] == s->base[t + 1] - s->base[t])
			continue;
		while (j < m && out[j] != t)
			j++;
		if (j == m && m < most)
			out[m++] = t;
	}
	return m;
}

/* With the charges summing to L, the threads charged nothing run whole in
 * an interleaving of L preemptions (coherence_blocks.c); each preempted
 * thread charged nothing is tried, with the threads around its span in the
 * witness (coherence_window.c): 1 when they cannot, so the least is above L.
 * charged[0, m) with stops[0, m). */
static long beyond_charges(const struct coh_sources *s, const uint32_t *steps,
			   const uint32_t *charged, const long *stops, uint32_t m, struct budget *b)
{
	uint32_t kept[MAX_CHARGED], nkept = 0, tries = 0;

	for (uint32_t j = 0; j < m; j++)
		if (stops[j] > 0)
			kept[nkept++] = charged[j];
	for (uint32_t j = 0; j < m && tries < MAX_WHOLE_TRIES; j++) {
		if (stops[j] > 0)
			continue;
		tries++;
		if (coh_whole_around(s, steps, charged[j], kept, nkept, MAX_BLOCKS, b) == 1)
			return 1;
	}
	return 0;
}

long coherence_path_bound(const struct coh_sources *s, const uint32_t *steps, struct budget *b)
{
	struct paths ps = { .s = s };
	uint32_t charged[MAX_CHARGED], m;
	long stops[MAX_CHARGED], total = -ENOMEM;

	ps.ch = (struct coh_chains){ .s = s };
	ps.eoff = malloc(((size_t)s->n + 2) * sizeof(uint32_t));
	ps.held_by = malloc(((size_t)s->nvars + 1) * sizeof(uint32_t));
	ps.val = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	ps.last = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	ps.pos = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	ps.roff = malloc(((size_t)s->n + 2) * sizeof(uint32_t));
	ps.inval = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	if (ps.eoff && ps.held_by && ps.val && ps.last && ps.pos && ps.roff && ps.inval &&
	    coh_list_readers(s, ps.roff, &ps.rlist) == 0 && list_extra(&ps) == 0)
		total = coh_chains_prove(s, steps, ps.roff, ps.rlist, b, &ps.ch);
	if (total == 0) {
		m = coh_preempted_threads(s, steps, ps.pos, charged, MAX_CHARGED);
		for (uint32_t j = 0; j < m && total >= 0; j++) {
			stops[j] = budget_spend(b, 2 * (unsigned long)s->n)
					   ? -ETIME
					   : charge_of(&ps, steps, charged[j]);
			total = stops[j] < 0 ? stops[j] : total + stops[j];
		}
		if (total >= 0)
			total += beyond_charges(s, steps, charged, stops, m, b);
	}
	coh_chains_free(&ps.ch);
	free(ps.inval);
	free(ps.roff);
	free(ps.rlist);
	free(ps.eoff);
	free(ps.elist);
	free(ps.held_by);
	free(ps.val);
	free(ps.last);
	free(ps.pos);
	return total;
}
