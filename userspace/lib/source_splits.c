/* SPDX-License-Identifier: MIT */
/* Splits on the write a read sees, after the rows of source_orders.c.
 *
 * A row keeps, per thread w, one number: how many of w's first events
 * precede the event. For a read that needs another thread's write, the
 * rows take the earliest write each thread could give it; where in that
 * thread's history the read falls (after which of its writes of the value,
 * before the next write of the variable) a row cannot say. A split says
 * it, one case per candidate write:
 *
 *   the read t[i] of (x, v), t's previous access of x at j, sees the write
 *   of thread w at a: then it follows w's event a (row(t[i])[w] > a),
 *   precedes w's next write of x after a, b (row(w[b])[t] > i: it is a
 *   later write of x, which the source as the last write before the read
 *   must precede), and t's event j precedes a (row(w[a])[t] > j: the rows'
 *   source rule says why the source follows event j).
 *
 * The candidates are every other thread's writes of (x, v) from the rows'
 * first candidate of that thread on (sources_first_candidate(): earlier
 * ones are known not to be the last write before the read) while it is not
 * known to follow the read: in every SC interleaving the read sees one of
 * them, so the cases cover every SC interleaving. Each case's facts are
 * added to the rows, and the rows' rounds run to their fixpoint under
 * them; a contradiction there means no SC interleaving has that case. No
 * case left: no SC interleaving at all. Otherwise an order that holds in
 * every case left holds in every SC interleaving, so the rows become the
 * meet (the least, entry by entry) of the cases' rows. Passes over the
 * reads repeat while rows grow.
 *
 * Each case's rounds are the rows' rounds, sound on their own; stopping
 * them early (a limit) keeps rows that are still true. Only reads with at
 * most SPLIT_CASES_MAX cases are split: a case costs the rounds over every
 * event, and the meet of many cases says little. */
#include "source_orders.h"
#include "source_orders_int.h"
#include "userspace/util/sorted.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SPLIT_CASES_MAX 16
#define CASE_FACTS 3

/* One fact of a case: row(thread's event pos)[w] >= at_least (0: none). */
struct fact {
	uint32_t thread, pos, w, at_least;
};

struct split_case {
	struct fact facts[CASE_FACTS];
};

struct splits {
	uint32_t *before, *meet; /* rows before the split, the meet of the cases left */
	size_t words;
	uint32_t *last_pos, *last_pair; /* per variable: the thread's last access (the
					 * rounds inside a case use the rows' own) */
	struct split_case cases[SPLIT_CASES_MAX];
	uint32_t n;
};

/* Rows from sp->before with the case's facts, to their fixpoint. */
static int try_case(struct sources *s, struct splits *sp, const struct split_case *c,
		    struct budget *b)
{
	memcpy(s->rows, sp->before, sp->words * sizeof(uint32_t));
	for (int f = 0; f < CASE_FACTS; f++) {
		const struct fact *at = &c->facts[f];
		uint32_t *row = row_of(s, at->thread, at->pos);
		if (row[at->w] < at->at_least)
			row[at->w] = at->at_least;
	}
	return sources_fixpoint(s, b);
}

/* Try the cases of sp; rows become the meet of those left. Returns
 * SOURCE_ORDERS_REFUTED (none left), 0 (*grew when rows grew), or -ETIME
 * (rows as before the split). */
static int split_cases(struct sources *s, struct splits *sp, struct budget *b, int *grew)
{
	uint32_t left = 0;

	memcpy(sp->before, s->rows, sp->words * sizeof(uint32_t));
	for (uint32_t c = 0; c < sp->n; c++) {
		int r = try_case(s, sp, &sp->cases[c], b);
		if (r == -ETIME) {
			memcpy(s->rows, sp->before, sp->words * sizeof(uint32_t));
			return r;
		}
		if (r)
			continue; /* refuted: no SC interleaving has this case */
		if (!left++)
			memcpy(sp->meet, s->rows, sp->words * sizeof(uint32_t));
		else
			for (size_t z = 0; z < sp->words; z++)
				if (s->rows[z] < sp->meet[z])
					sp->meet[z] = s->rows[z];
	}
	if (!left)
		return SOURCE_ORDERS_REFUTED;
	memcpy(s->rows, sp->meet, sp->words * sizeof(uint32_t));
	if (memcmp(s->rows, sp->before, sp->words * sizeof(uint32_t)))
		*grew = 1;
	return 0;
}

/* The case "the read t[i] sees w's write at a" (after t's event j, NO_POS:
 * none; next: w's next write of x, NO_POS: none) into sp. Returns 0 when
 * sp is full. */
static int add_case(struct splits *sp, uint32_t t, uint32_t i, uint32_t j, uint32_t w, uint32_t a,
		    uint32_t next)
{
	struct split_case *c = &sp->cases[sp->n];

	if (sp->n == SPLIT_CASES_MAX)
		return 0;
	memset(c, 0, sizeof(*c));
	c->facts[0] = (struct fact){ t, i, w, a + 1 };
	if (j != NO_POS)
		c->facts[1] = (struct fact){ w, a, t, j + 1 };
	if (next != NO_POS)
		c->facts[2] = (struct fact){ w, next, t, i + 1 };
	sp->n++;
	return 1;
}

/* The cases of the read t[i] of pair (variable x), t's previous access of
 * x at j, into sp. Returns 0 when there are more than SPLIT_CASES_MAX. */
static int source_cases(struct sources *s, struct splits *sp, uint32_t t, uint32_t i, uint32_t x,
			uint32_t pair, uint32_t j)
{
	const struct write_runs *bp = &s->by_pair, *bv = &s->by_var;
	uint32_t v0 = bv->first_run[x], v1 = bv->first_run[x + 1];

	sp->n = 0;
	sources_forced_writes(s, t, row_of(s, t, i), v0, v1);
	for (uint32_t run = bp->first_run[pair]; run < bp->first_run[pair + 1]; run++) {
		uint32_t w = bp->run_thread[run], end = bp->run_start[run + 1], g, at;
		uint32_t a0 = w == t ? NO_POS : sources_first_candidate(s, run, w, t, i, j, v0, v1);
		if (a0 == NO_POS)
			continue;
		g = sources_var_run(s, x, w);
		at = first_at_least(bp->pos, bp->run_start[run], end, a0);
		for (; at < end && row_of(s, w, bp->pos[at])[t] <= i; at++)
			if (!add_case(sp, t, i, j, w, bp->pos[at],
				      sources_first_from(bv, g, bp->pos[at] + 1)))
				return 0;
	}
	return 1;
}

/* One pass of splits over every read that needs another thread's write.
 * Returns as split_cases(). */
static int split_pass(struct sources *s, struct splits *sp, struct budget *b, int *grew)
{
	int r = 0;

	for (uint32_t t = 0; t < s->k && !r; t++) {
		const struct vsc_thread *th = &s->p->threads[t];
		for (uint32_t i = 0; i < th->length && !r; i++) {
			const struct event_pairs *ep = &s->a->pairs[t][i];
			uint32_t x = th->events[i].var, before = sp->last_pair[x];
			uint32_t j = before != PAIR_NONE ? sp->last_pos[x] : NO_POS;
			if (ep->read != PAIR_NONE &&
			    sources_needs_source_after(s, x, ep->read, before) &&
			    source_cases(s, sp, t, i, x, ep->read, j) && sp->n > 1)
				r = split_cases(s, sp, b, grew);
			sp->last_pair[x] = ep->write != PAIR_NONE ? ep->write : ep->read;
			sp->last_pos[x] = i;
		}
		for (uint32_t i = 0; i < th->length; i++)
			sp->last_pair[th->events[i].var] = PAIR_NONE;
	}
	return r;
}

static int splits_init(struct splits *sp, const struct sources *s)
{
	size_t words = sp->words ? sp->words : 1, vars = s->a->nvars ? s->a->nvars : 1;

	sp->before = malloc(words * sizeof(uint32_t));
	sp->meet = malloc(words * sizeof(uint32_t));
	sp->last_pos = malloc(2 * vars * sizeof(uint32_t));
	if (!sp->before || !sp->meet || !sp->last_pos)
		return -ENOMEM;
	sp->last_pair = sp->last_pos + vars;
	for (size_t x = 0; x < vars; x++)
		sp->last_pair[x] = PAIR_NONE;
	return 0;
}

int sources_split(struct sources *s, struct budget *b, unsigned long rows_work)
{
	struct splits sp = { .words = s->p->event_count * s->k };
	unsigned long cap = b ? b->work_cap : 0;
	int r = 0, grew = 1;

	/* two more copies of the rows, within the memory limit */
	if (b && 3 * sp.words * sizeof(uint32_t) > b->memory_limit)
		return 0;
	if (splits_init(&sp, s) == 0) {
		if (b) { /* the splits' share of the work: a multiple of the rows' */
			unsigned long mine = b->steps + SPLIT_WORK_PER_ROUNDS * (rows_work + 1);
			b->work_cap = cap && cap < mine ? cap : mine;
		}
		for (int pass = 0; pass < ROUNDS_MAX && grew && !r; pass++) {
			grew = 0;
			r = split_pass(s, &sp, b, &grew);
		}
		if (b)
			b->work_cap = cap;
	}
	free(sp.before);
	free(sp.meet);
	free(sp.last_pos);
	return r;
}
