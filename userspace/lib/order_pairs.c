/* SPDX-License-Identifier: MIT */
/* The order of events as a variable per pair (encode_events.h), for SC
 * with any number of preemptions:
 *
 *  - o(a,b) for events a < b of different threads: a comes first; two
 *    events of one thread are in program order (fixed literals);
 *  - o(a+1,b) -> o(a,b) for consecutive a, a+1 of one thread and every b
 *    of another: with program order this makes every 3-cycle through two
 *    events of one thread impossible (chained, it is transitivity through
 *    any two events of one thread); 3-cycles through three threads are
 *    forbidden lazily (lazy_order.c), so a model read back is a total
 *    order that keeps program order. */
#include <errno.h>
#include <stdlib.h>

#include "encode_events.h"

int pair_lit(const void *ctx, uint32_t a, uint32_t b)
{
	const struct pair_order *o = ctx;
	const struct event_encoding *e = o->e;

	if (e->thread[a] == e->thread[b])
		return a < b ? LIT_TRUE : LIT_FALSE;
	if (a > b)
		return -pair_lit(ctx, b, a);
	return (int)(o->base[a] + (b - e->end[a]) + 1);
}

int pair_order_init(struct pair_order *o, struct event_encoding *e, struct budget *b)
{
	uint64_t pairs = 0;
	int err;

	o->e = e;
	if (!(o->base = malloc((e->n + 1) * sizeof(*o->base))))
		return -ENOMEM;
	for (uint32_t a = 0; a < e->n; a++) {
		o->base[a] = pairs;
		pairs += e->n - e->end[a];
	}
	/* the solver's variables and the model's n x n tournament */
	if ((err = events_reserve(e, pairs + (uint64_t)e->n * e->n / SAT_BYTES_PER_VAR)))
		return err;
	e->nvars = (int)pairs;
	e->order = pair_lit;
	e->order_ctx = o;
	sat_backend_reserve(e->s, e->nvars);
	for (uint32_t a = 0; a + 1 < e->n; a++) {
		if (a + 1 == e->end[a])
			continue;
		if (budget_spend(b, e->n))
			return -ETIME;
		for (uint32_t c = 0; c < e->n; c++)
			if (e->thread[c] != e->thread[a])
				event_clause2(e, -pair_lit(o, a + 1, c), pair_lit(o, a, c));
	}
	return 0;
}

void pair_order_free(struct pair_order *o)
{
	free(o->base);
	o->base = NULL;
}
