/* SPDX-License-Identifier: MIT */
/* Coherence chains: which of the witness's coherence steps every SC
 * interleaving keeps, without a vector per event (coherence_guess.h;
 * docs/solvers.md, "Coherence chains along the witness").
 *
 * The witness is an SC interleaving, so each variable's writes in its
 * order are one coherence order; call p the write of x just before w in
 * it. Every order true in every SC interleaving holds in the witness, so
 * a path of such orders from p to some event lies between them there:
 * proving p < w needs a search over the witness's window from p on, not
 * over the program. p < w holds in every SC interleaving when a path of
 * proven orders leads from p to w, or to a read r of w (rule A of
 * coherence.c: p < r and r sees w, so p is before w). Then each reader of
 * p other than w is before w (rule B: it sees p, and w overwrites p
 * later). The orders searched are program order, sources, each read of
 * the initial value before its variable's first write in the witness (it
 * is before every write), and the proven steps with their readers. Each
 * proof only adds orders true in every SC interleaving, so proving fewer
 * (a cap on the work, the rounds) only weakens the bound that uses them.
 * Rounds repeat until one proves nothing more. */
#include "coherence_guess.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN_ROUNDS 64         /* rounds of proofs, at most */
#define CHAIN_WORK_PER_EVENT 64 /* events the searches visit, per event */
#define CHAIN_CHUNK 65536       /* visits between looks at the budget */

struct prover {
	const struct coh_sources *s;
	struct coh_chains *ch;
	const uint32_t *roff, *rlist; /* each write's readers */
	uint32_t *wpos;               /* per flat event: its place in the witness */
	uint32_t *thread;             /* per flat event: its thread */
	uint32_t *stamp;              /* per flat event: the search that last visited it */
	uint32_t *stack;
	uint32_t epoch, depth, limit; /* the search: its number, stack height, last place */
	uint64_t work, cap;
	unsigned long unspent;
};

static const struct vsc_event *event_of(const struct coh_sources *s, uint32_t t, uint32_t f)
{
	return &s->p->threads[t].events[f - s->base[t]];
}

static int proven(const struct coh_chains *ch, uint32_t w)
{
	return w != COH_NONE && (ch->proven[w >> 6] >> (w & 63) & 1);
}

void coh_chains_successors(const struct coh_chains *ch, const uint32_t *roff, const uint32_t *rlist,
			   uint32_t f, uint32_t t, void (*visit)(void *ctx, uint32_t to), void *ctx)
{
	const struct coh_sources *s = ch->s;
	const struct vsc_event *e = event_of(s, t, f);
	uint32_t src = s->rf[f], next;

	if (f + 1 < s->base[t + 1])
		visit(ctx, f + 1);
	if (e->kind != VSC_READ) {
		for (uint32_t j = roff[f]; j < roff[f + 1]; j++)
			visit(ctx, rlist[j]);
		if (proven(ch, ch->conext[f]))
			visit(ctx, ch->conext[f]);
	}
	if (src == COH_INIT && ch->cofirst[e->var] != COH_NONE && ch->cofirst[e->var] != f)
		visit(ctx, ch->cofirst[e->var]);
	else if (src < COH_INIT && (next = ch->conext[src]) != f && proven(ch, next))
		visit(ctx, next);
}

/* ---- the witness's coherence order -------------------------------------- */

static void order_of_witness(struct prover *pv, const uint32_t *steps, uint32_t *pos)
{
	const struct coh_sources *s = pv->s;
	struct coh_chains *ch = pv->ch;
	uint32_t *last = ch->cofirst + s->nvars; /* per variable: its latest write so far */

	memset(pos, 0, (size_t)s->k * sizeof(uint32_t));
	for (uint32_t x = 0; x < s->nvars; x++)
		ch->cofirst[x] = last[x] = COH_NONE;
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t t = steps[i], f = s->base[t] + pos[t]++;
		const struct vsc_event *e = event_of(s, t, f);
		pv->wpos[f] = i;
		pv->thread[f] = t;
		ch->conext[f] = ch->coprev[f] = COH_NONE;
		if (e->kind == VSC_READ)
			continue;
		if (last[e->var] == COH_NONE)
			ch->cofirst[e->var] = f;
		else
			ch->conext[last[e->var]] = f;
		ch->coprev[f] = last[e->var];
		last[e->var] = f;
	}
}

/* ---- one proof: a search from p over the witness's window --------------- */

static void push_if_new(void *ctx, uint32_t to)
{
	struct prover *pv = ctx;

	if (pv->wpos[to] <= pv->limit && pv->stamp[to] != pv->epoch) {
		pv->stamp[to] = pv->epoch;
		pv->stack[pv->depth++] = to;
	}
}

static void next_epoch(struct prover *pv)
{
	if (++pv->epoch == 0) {
		memset(pv->stamp, 0, (size_t)pv->s->n * sizeof(uint32_t));
		pv->epoch = 1;
	}
}

/* Does a path of proven orders lead from p to w or to a read of w? */
static int reaches(struct prover *pv, uint32_t p, uint32_t w)
{
	const struct coh_sources *s = pv->s;
	uint32_t top, t = pv->thread[w];

	/* program order, or w an RMW that reads p */
	if ((p >= s->base[t] && p < s->base[t + 1]) || s->rf[w] == p)
		return 1;
	pv->limit = pv->wpos[w];
	for (uint32_t j = pv->roff[w]; j < pv->roff[w + 1]; j++)
		if (pv->wpos[pv->rlist[j]] > pv->limit)
			pv->limit = pv->wpos[pv->rlist[j]];
	next_epoch(pv);
	pv->stamp[p] = pv->epoch;
	pv->stack[0] = p;
	pv->depth = 1;
	while ((top = pv->depth) > 0) {
		uint32_t y = pv->stack[top - 1];
		pv->depth = top - 1;
		if (y == w || (y != p && s->rf[y] == w))
			return 1;
		if (++pv->work > pv->cap)
			return 0;
		coh_chains_successors(pv->ch, pv->roff, pv->rlist, y, pv->thread[y], push_if_new,
				      pv);
	}
	return 0;
}

/* One round over the witness's unproven steps, in its order (a step
 * proven early helps the later ones). The number proven, or -ETIME. */
static long prove_round(struct prover *pv, const uint32_t *steps, uint32_t *pos, struct budget *b)
{
	const struct coh_sources *s = pv->s;
	long found = 0;

	memset(pos, 0, (size_t)s->k * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->n && pv->work <= pv->cap; i++) {
		uint32_t t = steps[i], w = s->base[t] + pos[t]++, p = pv->ch->coprev[w];
		uint64_t before = pv->work;
		if (p == COH_NONE || proven(pv->ch, w))
			continue;
		if (reaches(pv, p, w)) {
			pv->ch->proven[w >> 6] |= 1ull << (w & 63);
			found++;
		}
		pv->unspent += (unsigned long)(pv->work - before) + 1;
		if (pv->unspent >= CHAIN_CHUNK) {
			if (budget_spend(b, pv->unspent))
				return -ETIME;
			pv->unspent = 0;
		}
	}
	return found;
}

int coh_chains_prove(const struct coh_sources *s, const uint32_t *steps, const uint32_t *roff,
		     const uint32_t *rlist, struct budget *b, struct coh_chains *ch)
{
	struct prover pv = { .s = s, .ch = ch, .roff = roff, .rlist = rlist, .epoch = 0 };
	uint32_t *pos = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	long found = 1;
	int r = -ENOMEM;

	*ch = (struct coh_chains){ .s = s };
	ch->conext = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	ch->coprev = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	ch->cofirst = malloc((2 * (size_t)s->nvars + 1) * sizeof(uint32_t));
	ch->proven = calloc(((size_t)s->n >> 6) + 1, sizeof(uint64_t));
	pv.wpos = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	pv.thread = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	pv.stamp = calloc((size_t)s->n + 1, sizeof(uint32_t));
	pv.stack = malloc(((size_t)s->n + 1) * sizeof(uint32_t));
	if (pos && ch->conext && ch->coprev && ch->cofirst && ch->proven && pv.wpos && pv.thread &&
	    pv.stamp && pv.stack) {
		pv.cap = (uint64_t)CHAIN_WORK_PER_EVENT * s->n;
		order_of_witness(&pv, steps, pos);
		for (unsigned round = 0; found > 0 && round < CHAIN_ROUNDS; round++)
			found = prove_round(&pv, steps, pos, b);
		r = found < 0 ? (int)found : 0;
	}
	free(pos);
	free(pv.wpos);
	free(pv.thread);
	free(pv.stamp);
	free(pv.stack);
	if (r < 0)
		coh_chains_free(ch);
	return r;
}

void coh_chains_free(struct coh_chains *ch)
{
	free(ch->conext);
	free(ch->coprev);
	free(ch->cofirst);
	free(ch->proven);
	ch->conext = ch->coprev = ch->cofirst = NULL;
	ch->proven = NULL;
}
