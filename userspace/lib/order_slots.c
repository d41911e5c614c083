/* SPDX-License-Identifier: MIT */
/* The order of events as slots (encode_events.h): L slots in a row, each
 * holding at most one run of one thread; r(a) is event a's slot (unary:
 * "r(a) > j" for j = 1..L-1). The order is by slot, then program order:
 *
 *  - r grows along each thread (program order);
 *  - own(j,i): event a of thread i in slot j makes slot j thread i's, and
 *    at most one thread owns a slot, so two threads never share one and
 *    "a comes before b" (other threads) is r(a) < r(b): a pair variable
 *    made for each pair that the reads-from clauses ask, both ways;
 *  - no thread owns two slots in a row (they would be one run), and
 *    lim(j) (slot j may hold events) goes down the slots, so assuming
 *    not lim(T + k + 1) leaves T + k slots (T threads with events).
 *
 * Why that bounds the preemptions: a preemption ends a run early, each
 * thread's last run ends without one, so an interleaving with k
 * preemptions has T + k runs: one per slot satisfies every clause. A model
 * read back (slot by slot) switches threads only between slots, so it has
 * at most (slots used) - T preemptions. No transitivity to add: the slots
 * are numbers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode_events.h"

/* "r(a) > j" (fixed at both ends: every event has a slot in 1..L). */
static int above(const struct slot_order *o, uint32_t a, uint32_t j)
{
	if (j == 0)
		return LIT_TRUE;
	if (j >= o->slots)
		return LIT_FALSE;
	return o->rbase + (int)((uint64_t)a * (o->slots - 1) + j);
}

static int own(const struct slot_order *o, uint32_t j, uint32_t i)
{
	return o->ownbase + (int)((uint64_t)(j - 1) * o->e->threads + i + 1);
}

static int ladder(const struct slot_order *o, uint32_t j, uint32_t i)
{
	return o->ladderbase + (int)((uint64_t)(j - 1) * o->e->threads + i + 1);
}

static int lim(const struct slot_order *o, uint32_t j)
{
	return j > o->slots ? LIT_FALSE : o->limbase + (int)j;
}

/* A new pair variable: row's slot before col's, or col's before row's. */
static int new_pair(void *ctx, uint32_t row, uint32_t col)
{
	struct slot_order *o = ctx;
	struct event_encoding *e = o->e;
	int v = ++e->nvars;

	for (uint32_t j = 1; j <= o->slots; j++) {
		event_clause3(e, -v, -above(o, row, j - 1), above(o, col, j));
		event_clause3(e, v, -above(o, col, j - 1), above(o, row, j));
	}
	return v;
}

/* a before b, for a and b of one variable, one of them a write. */
static int slot_lit(const void *ctx, uint32_t a, uint32_t b)
{
	struct slot_order *o = (struct slot_order *)ctx;

	return pair_rows_lit(&o->rows, o->e, a, b, new_pair, o);
}

/* Slots grow along each thread, each event's slot is its thread's. 0, or
 * -ETIME. */
static int encode_event_slots(struct slot_order *o, struct budget *b)
{
	struct event_encoding *e = o->e;

	for (uint32_t a = 0; a < e->n; a++) {
		uint32_t i = o->index[e->thread[a]];
		if (budget_spend(b, 4UL * o->slots))
			return -ETIME;
		for (uint32_t j = 1; j <= o->slots; j++) {
			if (j >= 2 && j < o->slots)
				event_clause2(e, -above(o, a, j), above(o, a, j - 1));
			if (a + 1 < e->end[a] && j < o->slots)
				event_clause2(e, -above(o, a, j), above(o, a + 1, j));
			event_clause3(e, -above(o, a, j - 1), above(o, a, j), own(o, j, i));
		}
		if (a + 1 == e->end[a]) /* the thread's last event: its slot may be used */
			for (uint32_t j = 1; j < o->slots; j++)
				event_clause2(e, -above(o, a, j), lim(o, j + 1));
	}
	return 0;
}

/* At most one owner per slot (a ladder), not the same in two slots in a
 * row, and lim down the slots. */
static void encode_owners(struct slot_order *o)
{
	struct event_encoding *e = o->e;

	for (uint32_t j = 1; j <= o->slots; j++) {
		for (uint32_t i = 0; i < e->threads; i++) {
			event_clause2(e, -own(o, j, i), ladder(o, j, i));
			if (i > 0) {
				event_clause2(e, -ladder(o, j, i - 1), ladder(o, j, i));
				event_clause2(e, -own(o, j, i), -ladder(o, j, i - 1));
			}
			if (j < o->slots)
				event_clause2(e, -own(o, j, i), -own(o, j + 1, i));
		}
		if (j >= 2)
			event_clause2(e, -lim(o, j), lim(o, j - 1));
	}
}

int slot_order_init(struct slot_order *o, struct event_encoding *e, uint32_t slots,
		    struct budget *b)
{
	uint32_t k = program_threads(e->p), i = 0;
	uint64_t vars = (uint64_t)e->n * (slots - 1) + 2ULL * slots * e->threads + slots;
	int err;

	*o = (struct slot_order){ .e = e, .slots = slots };
	if ((err = events_reserve(e, vars)))
		return err;
	if (!(o->index = malloc((k + 1) * sizeof(*o->index))))
		return -ENOMEM;
	for (uint32_t t = 0; t < k; t++)
		o->index[t] = e->p->threads[t].length ? i++ : NONE;
	o->rbase = e->nvars;
	o->ownbase = o->rbase + (int)((uint64_t)e->n * (slots - 1));
	o->ladderbase = o->ownbase + (int)((uint64_t)slots * e->threads);
	o->limbase = o->ladderbase + (int)((uint64_t)slots * e->threads);
	e->nvars = o->limbase + (int)slots;
	e->order = slot_lit;
	e->order_ctx = o;
	sat_backend_reserve(e->s, e->nvars);
	if ((err = pair_rows_init(&o->rows, e)))
		return err;
	if (budget_spend(b, (unsigned long)vars))
		return -ETIME;
	if ((err = encode_event_slots(o, b)))
		return err;
	encode_owners(o);
	return 0;
}

void slot_order_free(struct slot_order *o)
{
	free(o->index);
	pair_rows_free(&o->rows);
	memset(o, 0, sizeof(*o));
}

int slot_limit(const struct slot_order *o, uint32_t k)
{
	return -lim(o, o->e->threads + k + 1);
}

/* Slot by slot, each slot's events in program order (counting sort). */
int slot_witness(const struct slot_order *o, uint32_t *threads)
{
	const struct event_encoding *e = o->e;
	uint32_t *first = calloc(o->slots + 2, sizeof(*first));
	uint32_t *slot = malloc((e->n + 1) * sizeof(*slot));

	if (!first || !slot) {
		free(first);
		free(slot);
		return -ENOMEM;
	}
	for (uint32_t a = 0; a < e->n; a++) {
		uint32_t j = 1;
		while (j < o->slots && sat_backend_true(e->s, above(o, a, j)))
			j++;
		slot[a] = j;
		first[j + 1]++;
	}
	for (uint32_t j = 1; j <= o->slots; j++)
		first[j + 1] += first[j];
	for (uint32_t a = 0; a < e->n; a++)
		threads[first[slot[a]]++] = e->thread[a];
	free(first);
	free(slot);
	return 0;
}
