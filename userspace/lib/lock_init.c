/* SPDX-License-Identifier: MIT */
/* The initial value `init x ?` must have, for the lock stops (lock_init.h).
 *
 * A recording attached to a running process (`vsc record -p`) knows no
 * initial value: every variable is `init x ?`, one value v nobody saw
 * written. The lock stops need the lock's free value and the clock's
 * first value; two facts pin v exactly, in every SC interleaving:
 *
 *  - a read (plain, or an RMW's old value) of a value that no write of x
 *    writes sees no write: it sees v, so v is that value (two such reads
 *    of different values: no interleaving, and none is pinned);
 *  - when every thread that writes x writes it first by an RMW, and all
 *    those RMWs read one value A: the first write of x in an interleaving
 *    is some thread's first write of x, an RMW that reads what x holds,
 *    v, as nothing wrote x before it; so v = A.
 *
 * The spin lock's counter meets the first (its first increment reads the
 * value it held at the attach, which nobody writes after), its lock word
 * the second when no thread held the lock at the attach (each thread's
 * first write of it is a take, reading the free value). */
#include "lock_init.h"

#include <stdlib.h>

/* Two different pairs seen where one is asked for. */
#define CONFLICT (PAIR_NONE - 1)

static void note(uint32_t *seen, uint32_t pair)
{
	if (*seen == PAIR_NONE)
		*seen = pair;
	else if (*seen != pair)
		*seen = CONFLICT;
}

/* Per variable: unwritten[x] the pair of x some read sees that no write
 * writes, first[x] the pair the threads' first writes of x read (CONFLICT
 * for two, or for a first write that is no RMW). One pass; written[x] is
 * the last thread (+ 1) seen writing x. */
static void pin_pass(const struct vsc_program *p, const struct analysis *a, uint32_t *unwritten,
		     uint32_t *first, uint32_t *written)
{
	for (uint32_t t = 0; t < a->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			uint32_t x = p->threads[t].events[i].var;
			if (ep->read != PAIR_NONE && !a->writes_of[ep->read])
				note(&unwritten[x], ep->read);
			if (ep->write == PAIR_NONE || written[x] == t + 1)
				continue;
			written[x] = t + 1;
			note(&first[x], ep->read == PAIR_NONE ? CONFLICT : ep->read);
		}
}

/* x's initial pair from what pin_pass() saw: the known one, else the
 * unwritten value read, else the first writes' (PAIR_NONE: none). */
static uint32_t pinned(const struct analysis *a, uint32_t x, uint32_t unwritten, uint32_t first)
{
	if (a->init[x] != VALUE_UNDECIDED)
		return a->init[x] == VALUE_NONE ? PAIR_NONE : a->init[x];
	if (unwritten != PAIR_NONE && unwritten != CONFLICT)
		return unwritten;
	return first == CONFLICT ? PAIR_NONE : first;
}

uint32_t *lock_inits(const struct vsc_program *p, const struct analysis *a)
{
	size_t vv = a->nvars ? a->nvars : 1;
	uint32_t *init = malloc(vv * sizeof(uint32_t)), *first = malloc(vv * sizeof(uint32_t));
	uint32_t *written = calloc(vv, sizeof(uint32_t));

	if (init && first && written) {
		for (uint32_t x = 0; x < a->nvars; x++)
			init[x] = first[x] = PAIR_NONE;
		pin_pass(p, a, init, first, written);
		for (uint32_t x = 0; x < a->nvars; x++)
			init[x] = pinned(a, x, init[x], first[x]);
	} else {
		free(init);
		init = NULL;
	}
	free(first);
	free(written);
	return init;
}
