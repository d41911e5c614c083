/* SPDX-License-Identifier: MIT */
/* Stops a spin lock forces on its holders (lock_stops.h).
 *
 * A lock is a variable x with a known initial value A whose writes are
 * all RMWs, each a take (reads A, writes B) or a give (reads B, writes A),
 * taking and giving in turn in every thread, a take first; its plain reads
 * read A or B. In every SC interleaving the writes of x then go take, give,
 * take, give..., each give by the thread of the take before it (by
 * induction: after a take x holds B, so the next write reads B, a give,
 * by a thread whose last write of x is a take, and only the thread of the
 * latest take is one). So each take and its give bound a hold, a span of
 * time in which x holds B and no other thread writes x; holds are
 * disjoint, and x holds A between them.
 *
 * A clock is a variable c with a known initial value whose writes are all
 * RMWs writing values nobody else writes (nor the initial one): each RMW
 * reads the write just before it, so the writes of c come in one chain
 * whatever the interleaving; its phase numbers them. When every hold
 * contains an RMW of c (between its take and give in the holder's program
 * order), holds come in the order of those phases: two disjoint spans of
 * time, each around one of two writes that come in a known order. Number
 * the holds 1..N in that order and the gaps 0..N (gap g between hold g and
 * hold g + 1): on one line, gap g at 2g and hold k at 2k - 1.
 *
 * A thread t's plain reads of x that differ from what x held for t after
 * its last access (A at first) see another thread's write: a read of B is
 * inside a hold of another thread, a read of A inside a gap (t holds
 * nothing then: a read of A in t's own hold has no SC interleaving). Those
 * of t between its holds J and J' (0 and N + 1 at the ends) lie at
 * increasing places of the line within 2J .. 2J' - 2, one each (two
 * consecutive ones read different values). A reader in hold k makes its
 * holder h stop at one of h's cut points take + 1 .. give (h has its give
 * left); a reader in gap g whose holds g and g + 1 are both h's makes h
 * stop in give + 1 .. next take. Call such a place costly when that span of
 * cut points meets none of h's minimal own intervals (own_stops.h; an
 * interval holding another is stabbed whenever that one is).
 *
 * Why it adds: take episodes with pairwise disjoint ranges of costly places
 * and in each the least number of costly places its reads can be put at
 * (a small dynamic program along the line). In any SC interleaving they
 * use that many distinct costly places, each making its holder stop at a
 * cut point that stabs none of the holder's minimal intervals, and
 * distinct places of one holder have disjoint spans: so each holder h
 * stops at least stab(h's own intervals) times outside those places plus
 * once in each, and the sum over the holders is the own stops' total plus
 * the episodes' counts. The episodes are chosen by weighted interval
 * scheduling.
 *
 * A recording attached to a running process knows no initial value
 * (`init x ?`): lock_init.c pins the lock's and the clock's where every
 * SC interleaving must start from one value, and a hold cut at the end of
 * the recording is the last one (order_holds()). A lock held at the
 * attach, when the waiters pin x's initial value to the taken one
 * (lock_init.c), has its holder's hold from the start first on the line,
 * never costly (lock_values(), lock_episodes.c); otherwise it gets a
 * witness only (lock_held.c). */
#include "lock_stops.h"
#include "lock_held.h"
#include "lock_init.h"
#include "lock_stops_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Locks and clocks tried per program: each try is a pass over the events. */
#define CANDIDATES_MAX 4

static int by_key(const void *x, const void *y)
{
	const struct hold *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

/* Writes of each variable: *rmw how many are RMWs, *plain how many are not. */
static int count_writes(const struct vsc_program *p, const struct analysis *a, uint32_t **rmw,
			uint32_t **plain)
{
	size_t vv = a->nvars ? a->nvars : 1;

	*rmw = calloc(vv, sizeof(uint32_t));
	*plain = calloc(vv, sizeof(uint32_t));
	if (!*rmw || !*plain)
		return -ENOMEM;
	for (uint32_t t = 0; t < a->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			uint32_t x = p->threads[t].events[i].var;
			if (ep->write != PAIR_NONE)
				(ep->read != PAIR_NONE ? *rmw : *plain)[x]++;
		}
	return 0;
}

/* Number the writes of c along its chain from its initial pair at into
 * phase[] (per pair written, from 1); next[] is per-pair scratch, NO_PLACE
 * on entry and on return. Returns 1 when c is a clock. */
static int clock_phases(const struct vsc_program *p, const struct analysis *a, uint32_t c,
			uint32_t at, uint32_t rmws, uint32_t *next, uint32_t *phase)
{
	uint32_t n = 0;
	int ok = a->writes_of[at] == 0;

	for (uint32_t t = 0; t < a->k && ok; t++)
		for (uint32_t i = 0; i < p->threads[t].length && ok; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			if (p->threads[t].events[i].var != c || ep->write == PAIR_NONE)
				continue;
			ok = next[ep->read] == NO_PLACE && a->writes_of[ep->write] == 1;
			next[ep->read] = ep->write;
		}
	while (ok && next[at] != NO_PLACE && n < rmws) {
		at = next[at];
		phase[at] = ++n;
	}
	for (uint32_t t = 0; t < a->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++)
			if (p->threads[t].events[i].var == c && a->pairs[t][i].write != PAIR_NONE)
				next[a->pairs[t][i].read] = NO_PLACE;
	return ok && n == rmws;
}

/* Thread t's holds of lock x into l->holds, keyed by the phase of the
 * first RMW of c inside (phase: per pair of c). Returns 1, or 0 when x is
 * not a lock taken in turn or a hold has no RMW of c. */
static int thread_holds(struct lock *l, const struct vsc_program *p, const struct analysis *a,
			uint32_t t, uint32_t c, const uint32_t *phase)
{
	const struct vsc_thread *th = &p->threads[t];
	struct hold *open = NULL;

	if (t == l->holder) { /* held at the start: the first hold (key 0) */
		open = &l->holds[l->n++];
		*open = (struct hold){ 0, t, 0, NO_PLACE };
	}

	for (uint32_t i = 0; i < th->length; i++) {
		const struct event_pairs *ep = &a->pairs[t][i];
		uint32_t v = th->events[i].var;
		if (v == c && open && open->key == NO_PLACE && ep->write != PAIR_NONE &&
		    ep->read != PAIR_NONE)
			open->key = phase[ep->write];
		if (v != l->x)
			continue;
		if (ep->write == PAIR_NONE) { /* a plain read: A or B */
			if (ep->read != l->free && ep->read != l->taken)
				return 0;
		} else if (!open && ep->read == l->free && ep->write == l->taken) {
			open = &l->holds[l->n++];
			*open = (struct hold){ NO_PLACE, t, i, NO_PLACE };
		} else if (open && ep->read == l->taken && ep->write == l->free) {
			if (open->key == NO_PLACE)
				return 0;
			open->give = i;
			open = NULL;
		} else {
			return 0;
		}
	}
	if (open && open->key == NO_PLACE)
		open->key = LAST_KEY; /* see order_holds() */
	return 1;
}

/* The holds of lock x in the order the clock gives them. Returns 1, or 0
 * when x is not a lock with that clock. A hold never given with no RMW of
 * the clock (a recording cut inside it) is the last one: in every SC
 * interleaving the write of x after its take would be a give by its
 * holder, who has none, so that take is the last write of x. Two such:
 * not a lock with that clock (no interleaving has both). */
static int order_holds(struct lock *l, const struct vsc_program *p, const struct analysis *a,
		       uint32_t c, const uint32_t *phase)
{
	uint32_t last = 0;

	l->n = 0;
	for (uint32_t t = 0; t < a->k; t++)
		if (!thread_holds(l, p, a, t, c, phase))
			return 0;
	for (uint32_t k = 0; k < l->n; k++)
		last += l->holds[k].key == LAST_KEY;
	if (last > 1)
		return 0;
	qsort(l->holds, l->n, sizeof(*l->holds), by_key);
	return 1;
}

/* l's free and taken values and its holder at the start from x's initial
 * pair v and each thread's first write of x: every one reading v, v is
 * free and the first write's value taken; one reading v (a give) and the
 * others not, v is taken and that thread held x at the start. Returns 1,
 * or 0 when neither. */
static int lock_values(const struct vsc_program *p, const struct analysis *a, uint32_t v,
		       struct lock *l)
{
	uint32_t at_v = 0, writers = 0, other = PAIR_NONE;

	l->free = v;
	l->taken = PAIR_NONE;
	l->holder = NO_PLACE;
	for (uint32_t t = 0; t < a->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct event_pairs *ep = &a->pairs[t][i];
			if (p->threads[t].events[i].var != l->x || ep->write == PAIR_NONE)
				continue;
			writers++;
			if (ep->read == v) {
				at_v++;
				l->holder = t;
				other = ep->write;
			}
			if (l->taken == PAIR_NONE)
				l->taken = ep->write;
			break;
		}
	if (at_v == writers)
		l->holder = NO_PLACE; /* all take first: v is free */
	else if (at_v == 1) {
		l->free = other; /* one gives first: v is taken, that thread held x */
		l->taken = v;
	} else
		return 0;
	return l->taken != PAIR_NONE && l->taken != l->free;
}

/* Lock x with the first clock that orders its holds: its extra stops and
 * witness into found when better. */
static void lock_extra(struct lock_scratch *s, uint32_t x, struct budget *b,
		       struct lock_stops *found)
{
	const struct analysis *a = s->a;
	struct lock l = { .x = x, .holds = s->holds };
	uint32_t tried = 0;

	if (!lock_values(s->p, a, s->init[x], &l))
		return;
	for (uint32_t c = 0; c < a->nvars && tried < CANDIDATES_MAX; c++) {
		if (c == x || !s->rmw[c] || s->plain[c] || s->init[c] == PAIR_NONE)
			continue;
		tried++;
		if (!clock_phases(s->p, a, c, s->init[c], s->rmw[c], s->next, s->phase))
			continue;
		if (order_holds(&l, s->p, a, c, s->phase)) {
			lock_episodes(s, &l, b, found);
			return;
		}
		if (lock_spend(b, s->p->event_count))
			return;
	}
}

static void scratch_free(struct lock_scratch *s)
{
	free(s->rmw);
	free(s->plain);
	free(s->next);
	free(s->phase);
	free(s->holds);
	free(s->init);
}

void lock_stops_free(struct lock_stops *found)
{
	free(found->witness);
	free(found->narrowed);
	free(found->narrowed_off);
	found->witness = NULL;
	found->narrowed = NULL;
	found->narrowed_off = NULL;
	found->preemptions = -1;
	found->own = found->extra = 0;
}

void lock_stops_find(struct lock_stops *found, const struct vsc_program *p,
		     const struct analysis *a, struct budget *b)
{
	struct lock_scratch s = { p, a, NULL, NULL, NULL, NULL, NULL, NULL };
	size_t pairs = a->npairs ? a->npairs : 1;
	uint32_t tried = 0, held[CANDIDATES_MAX], nheld = 0;

	*found = (struct lock_stops){ 0, 0, NULL, NULL, NULL, -1 };
	if (a->k < 2 || a->refuted || count_writes(p, a, &s.rmw, &s.plain) ||
	    !(s.init = lock_inits(p, a)) || !(s.next = malloc(pairs * sizeof(uint32_t))) ||
	    !(s.phase = malloc(pairs * sizeof(uint32_t))) ||
	    !(s.holds = malloc((p->event_count + 1) * sizeof(*s.holds)))) {
		scratch_free(&s);
		return;
	}
	for (size_t q = 0; q < pairs; q++)
		s.next[q] = s.phase[q] = NO_PLACE;
	for (uint32_t x = 0; x < a->nvars && tried < CANDIDATES_MAX; x++) {
		if (!s.rmw[x] || s.plain[x] || a->writers[x] < 2)
			continue;
		if (s.init[x] != PAIR_NONE) {
			lock_extra(&s, x, b, found);
			tried++;
		}
		if (a->init[x] == VALUE_UNDECIDED && nheld < CANDIDATES_MAX)
			held[nheld++] = x; /* perhaps held at the start (lock_held.c) */
	}
	scratch_free(&s);
	for (uint32_t i = 0; i < nheld && !found->witness; i++)
		lock_held_witness(found, p, a, held[i], b);
}
