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
 *  - when every thread that writes x writes it first by an RMW: the first
 *    write of x in an interleaving is some thread a's first write of x, an
 *    RMW that reads what x holds, v, as nothing wrote x before it; and a's
 *    reads of x before it read v too. So v is the value read by the first
 *    write of a thread whose earlier reads of x all read that value: when
 *    one value A is the only such, v = A (when there is none, no
 *    interleaving has the program, and v is taken as the first writes'
 *    value when they agree, as any is right then).
 *
 * The spin lock's counter meets the first (its first increment reads the
 * value it held at the attach, which nobody writes after), its lock word
 * the second: when no thread held the lock at the attach each thread's
 * first write of it is a take, reading the free value; when one did, its
 * first write is a give, reading the taken value B, and a thread that
 * waited at the attach read B before its take, so it cannot write first:
 * when every waiter did, v = B.
 *
 * A third fact pins a toggle: when every write of x is an RMW that reads
 * P and writes Q or reads Q and writes P, each write flips x, so those
 * reading P and those reading Q alternate, the first reading v: the ones
 * reading v are as many as the others or one more. When those reading P
 * are one more, v = P (the lock word, when the holder at the attach gives
 * once more than the others take: nobody is cut inside a hold at the end). */
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

/* Per variable scratch of pin_pass(): the thread (+ 1) seen last writing
 * or reading it, and what that thread's reads of it before its first write
 * read (PAIR_NONE: none, CONFLICT: two values). */
struct pin_scratch {
	uint32_t *thread, *before;
	uint8_t *wrote;
};

/* Thread t's event on x, ep, in pin_pass(): first[x] the pair every
 * thread's first write of x reads (CONFLICT for two, or a first write
 * that is no RMW), can_first[x] that of the first writes whose thread's
 * earlier reads of x all read it. */
static void pin_event(struct pin_scratch *s, const struct event_pairs *ep, uint32_t t, uint32_t x,
		      uint32_t *first, uint32_t *can_first)
{
	if (s->thread[x] != t + 1) {
		s->thread[x] = t + 1;
		s->before[x] = PAIR_NONE;
		s->wrote[x] = 0;
	}
	if (s->wrote[x])
		return;
	if (ep->write == PAIR_NONE) {
		note(&s->before[x], ep->read);
		return;
	}
	s->wrote[x] = 1;
	note(&first[x], ep->read == PAIR_NONE ? CONFLICT : ep->read);
	if (ep->read == PAIR_NONE)
		can_first[x] = CONFLICT; /* a plain write may be the first */
	else if (can_first[x] != CONFLICT &&
		 (s->before[x] == PAIR_NONE || s->before[x] == ep->read))
		note(&can_first[x], ep->read);
}

/* Per variable: unwritten[x] the pair of x some read sees that no write
 * writes, first[x] and can_first[x] as pin_event() says. One pass. */
static int pin_pass(const struct vsc_program *p, const struct analysis *a, uint32_t *unwritten,
		    uint32_t *first, uint32_t *can_first)
{
	size_t vv = a->nvars ? a->nvars : 1;
	struct pin_scratch s = { calloc(vv, sizeof(uint32_t)), malloc(vv * sizeof(uint32_t)),
				 malloc(vv) };

	for (uint32_t t = 0; t < a->k && s.thread && s.before && s.wrote; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			uint32_t x = p->threads[t].events[i].var;
			if (ep->read != PAIR_NONE && !a->writes_of[ep->read])
				note(&unwritten[x], ep->read);
			pin_event(&s, ep, t, x, first, can_first);
		}
	int ok = s.thread && s.before && s.wrote;
	free(s.thread);
	free(s.before);
	free(s.wrote);
	return ok ? 0 : -1;
}

/* x's initial pair from what pin_pass() saw: the known one, else the
 * unwritten value read, else the one value a first write can read, else
 * the first writes' (PAIR_NONE: none). */
static uint32_t pinned(const struct analysis *a, uint32_t x, uint32_t unwritten, uint32_t first,
		       uint32_t can_first)
{
	if (a->init[x] != VALUE_UNDECIDED)
		return a->init[x] == VALUE_NONE ? PAIR_NONE : a->init[x];
	if (unwritten != PAIR_NONE && unwritten != CONFLICT)
		return unwritten;
	if (can_first != PAIR_NONE && can_first != CONFLICT)
		return can_first;
	return first == CONFLICT || can_first == CONFLICT ? PAIR_NONE : first;
}

/* The toggles' initial pairs (the third fact) into init[x] for each
 * `init x ?` left PAIR_NONE. Returns 0, or -1 when memory runs out. */
static int pin_toggles(const struct vsc_program *p, const struct analysis *a, uint32_t *init)
{
	size_t vv = a->nvars ? a->nvars : 1;
	uint32_t *from = malloc(vv * sizeof(uint32_t)), *to = malloc(vv * sizeof(uint32_t));
	int64_t *more = calloc(vv, sizeof(int64_t)); /* RMWs from `from` less those to it */

	for (uint32_t x = 0; from && to && more && x < a->nvars; x++)
		from[x] = to[x] = PAIR_NONE;
	for (uint32_t t = 0; from && to && more && t < a->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			uint32_t x = p->threads[t].events[i].var;
			if (ep->write == PAIR_NONE || from[x] == CONFLICT)
				continue;
			if (from[x] == PAIR_NONE && ep->read != PAIR_NONE) {
				from[x] = ep->read;
				to[x] = ep->write;
			}
			if (ep->read == from[x] && ep->write == to[x])
				more[x]++;
			else if (ep->read == to[x] && ep->write == from[x])
				more[x]--;
			else
				from[x] = CONFLICT; /* a plain write, or another value */
		}
	for (uint32_t x = 0; from && to && more && x < a->nvars; x++)
		if (init[x] == PAIR_NONE && a->init[x] == VALUE_UNDECIDED && from[x] != CONFLICT &&
		    (more[x] == 1 || more[x] == -1))
			init[x] = more[x] == 1 ? from[x] : to[x];
	int ok = from && to && more;
	free(from);
	free(to);
	free(more);
	return ok ? 0 : -1;
}

uint32_t *lock_inits(const struct vsc_program *p, const struct analysis *a)
{
	size_t vv = a->nvars ? a->nvars : 1;
	uint32_t *init = malloc(vv * sizeof(uint32_t)), *first = malloc(vv * sizeof(uint32_t));
	uint32_t *can_first = malloc(vv * sizeof(uint32_t));
	int ok = init && first && can_first;

	for (uint32_t x = 0; ok && x < a->nvars; x++)
		init[x] = first[x] = can_first[x] = PAIR_NONE;
	ok = ok && !pin_pass(p, a, init, first, can_first);
	for (uint32_t x = 0; ok && x < a->nvars; x++)
		init[x] = pinned(a, x, init[x], first[x], can_first[x]);
	ok = ok && !pin_toggles(p, a, init);
	if (!ok) {
		free(init);
		init = NULL;
	}
	free(first);
	free(can_first);
	return init;
}
