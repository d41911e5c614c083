/* SPDX-License-Identifier: MIT */
/* An SC interleaving along the line of a lock's holds and gaps
 * (lock_stops.c): an upper bound to meet the lower one.
 *
 * Each episode's reads are put at places of the line, the episodes by
 * where their ranges start, each read at the
 * first place of its value after the previous one that costs nothing (not
 * costly, or costly and already taken by another episode: its holder stops
 * there anyway) while the reads left still fit, else at the first place.
 * Then the threads run place by place: at hold k its holder up to just
 * before its give (a hold never given: to its end), the readers put there
 * up to their reads, the give; at a gap the readers put there, the next hold's holder last (its
 * take follows at once); at the end what is left of each thread. Nothing
 * here is trusted: the interleaving is verified before it is kept. */
#include "lock_stops_int.h"

#include <stdlib.h>
#include <string.h>

/* put_latest()'s table: an episode with more cells is put the old way */
#define PLACING_CELLS_MAX (1UL << 22)
#define NO_COST UINT32_MAX

/* The first place of parity `hold` in from .. to that costs nothing, else
 * the first of that parity; NO_PLACE when there is none. */
static uint32_t cheapest_first(const struct line *ln, uint32_t from, uint32_t to, int hold)
{
	uint32_t q = from + ((from & 1) != (uint32_t)hold);

	for (uint32_t at = q; at <= to; at += 2)
		if (!ln->costly[at] || ln->used[at])
			return at;
	return q <= to ? q : NO_PLACE;
}

/* An episode kept for placing: its reads are at `first` in the line's
 * kept arrays. */
struct kept {
	uint32_t t, m, lo, hi;
	size_t first;
	int taken_after; /* the episode ends at a take of t's */
};

struct placing {
	struct kept *episodes;
	size_t n, reads; /* episodes and reads kept */
	uint8_t *value;  /* per read kept: 1 for B */
	uint32_t *at;    /* per read kept: its position in its thread */
};

static struct placing *placing_of(const struct line *ln)
{
	return (struct placing *)ln->placing;
}

static void keep_episode(struct line *ln, uint32_t t, uint32_t m, uint32_t j, uint32_t j2)
{
	struct placing *pl = placing_of(ln);
	uint32_t lo = lock_first_place(ln->l, j), hi = j2 > ln->l->n ? 2 * ln->l->n : 2 * j2 - 2;

	if (!m)
		return;
	if (lo > hi) {
		ln->stopped = 1;
		return;
	}
	pl->episodes[pl->n++] = (struct kept){ t, m, lo, hi, pl->reads, j2 <= ln->l->n };
	memcpy(pl->value + pl->reads, ln->reads, m);
	memcpy(pl->at + pl->reads, ln->read_at, m * sizeof(uint32_t));
	pl->reads += m;
}

/* The old way, for episodes too long for put_latest()'s table: each read
 * at the first place of its value that costs nothing. */
static void put_first(struct line *ln, const struct kept *e)
{
	const struct placing *pl = placing_of(ln);
	uint32_t from = e->lo;

	for (uint32_t i = 0; i < e->m; i++) {
		int value = pl->value[e->first + i];
		uint32_t q = e->hi - e->lo + 1 < e->m - i
				     ? NO_PLACE
				     : cheapest_first(ln, from, e->hi - (e->m - 1 - i), value);
		/* a last read of A just before t's take: the take follows at once */
		if (i + 1 == e->m && !value && e->taken_after && q != NO_PLACE)
			q = e->hi;
		if (q == NO_PLACE) {
			ln->stopped = 1;
			return;
		}
		ln->place[ln->base[e->t] + pl->at[e->first + i]] = q;
		ln->used[q] = 1;
		from = q + 1;
	}
}

/* What putting read i of e at place q costs (a costly place no episode
 * took yet), NO_COST when its value does not go there. */
static uint32_t place_cost(const struct line *ln, const struct kept *e, uint32_t i, uint32_t q)
{
	const struct placing *pl = placing_of(ln);
	int value = pl->value[e->first + i];

	if ((q & 1) != (uint32_t)value)
		return NO_COST;
	/* a last read of A just before t's take: the take follows at once */
	if (i + 1 == e->m && !value && e->taken_after && q != e->hi)
		return NO_COST;
	return ln->costly[q] && !ln->used[q];
}

/* e's reads at the fewest costly places no episode took yet, and of those
 * placings the latest (read by read from the last): with the episodes
 * taken by where their ranges end, a costly place taken late is there for
 * the most episodes still to come (the greedy that stabs intervals).
 * cost: m x width cells. */
static void put_latest(struct line *ln, const struct kept *e, uint32_t *cost)
{
	uint32_t width = e->hi - e->lo + 1, best = NO_COST, q = NO_PLACE;

	for (uint32_t i = 0; i < e->m; i++) {
		uint32_t before = NO_COST, *row = cost + (size_t)i * width, *above = row - width;
		for (uint32_t at = 0; at < width; at++) {
			uint32_t c = place_cost(ln, e, i, e->lo + at);
			uint32_t prior = i ? before : 0;
			row[at] = c == NO_COST || prior == NO_COST ? NO_COST : prior + c;
			if (i && above[at] < before) /* the least of the row above before at + 1 */
				before = above[at];
		}
	}
	for (uint32_t at = width; at-- > 0;)
		if (cost[(size_t)(e->m - 1) * width + at] < best)
			best = cost[(size_t)(e->m - 1) * width + at], q = at;
	for (uint32_t i = e->m; q != NO_PLACE && i-- > 0;) {
		const uint32_t *above = cost + (size_t)i * width - width;
		uint32_t spent = place_cost(ln, e, i, e->lo + q), next = NO_PLACE;
		ln->place[ln->base[e->t] + placing_of(ln)->at[e->first + i]] = e->lo + q;
		ln->used[e->lo + q] = 1;
		best -= spent;
		for (uint32_t at = q; i && at-- > 0;) /* the latest place before q that fits */
			if (above[at] == best) {
				next = at;
				break;
			}
		if (!i)
			return;
		q = next;
	}
	ln->stopped = 1;
}

static void put_episode(struct line *ln, const struct kept *e, uint32_t *cost)
{
	if (lock_spend(ln->b, (unsigned long)e->m * (e->hi - e->lo + 1) / 16 + 1)) {
		ln->stopped = 1;
		return;
	}
	if (cost && (uint64_t)e->m * (e->hi - e->lo + 1) <= PLACING_CELLS_MAX)
		put_latest(ln, e, cost);
	else
		put_first(ln, e);
}

static int by_end(const void *x, const void *y)
{
	const struct kept *a = x, *b = y;

	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Every thread's episodes, then placed by where their ranges end (so
 * that the costly places one takes late are there for the ones that
 * overlap it). */
static void put_episodes(struct line *ln)
{
	size_t events = ln->s->p->event_count + 1;
	struct placing pl = { malloc((events + ln->s->a->k) * sizeof(struct kept)), 0, 0,
			      malloc(events), malloc(events * sizeof(uint32_t)) };
	uint32_t *cost = malloc(PLACING_CELLS_MAX * sizeof(uint32_t)); /* NULL: put_first() */

	ln->placing = &pl;
	ln->stopped = !pl.episodes || !pl.value || !pl.at;
	for (uint32_t t = 0; t < ln->s->a->k && !ln->stopped; t++)
		if (lock_walk_episodes(ln, t, keep_episode))
			ln->stopped = 1;
	if (!ln->stopped)
		qsort(pl.episodes, pl.n, sizeof(*pl.episodes), by_end);
	for (size_t i = 0; i < pl.n && !ln->stopped; i++)
		put_episode(ln, &pl.episodes[i], cost);
	free(cost);
	free(pl.episodes);
	free(pl.value);
	free(pl.at);
	ln->placing = NULL;
}

struct run {
	const struct vsc_program *p;
	uint32_t *pos, *witness;
	size_t n;
};

/* Thread t runs up to its event `last` (inclusive). */
static void run_to(struct run *r, uint32_t t, uint32_t last)
{
	while (r->pos[t] <= last && r->pos[t] < r->p->threads[t].length) {
		r->witness[r->n++] = t;
		r->pos[t]++;
	}
}

/* Readers of each place (flat events, CSR by place), the next holder's
 * read of a gap last. */
static int readers_by_place(const struct line *ln, uint32_t **off, uint32_t **ev)
{
	size_t events = ln->s->p->event_count;

	*off = calloc((size_t)ln->places + 2, sizeof(uint32_t));
	*ev = malloc((events + 1) * sizeof(uint32_t));
	if (!*off || !*ev)
		return -1;
	for (size_t e = 0; e < events; e++)
		if (ln->place[e] != NO_PLACE)
			(*off)[ln->place[e] + 2]++;
	for (uint32_t q = 0; q < ln->places; q++)
		(*off)[q + 2] += (*off)[q + 1];
	for (size_t e = 0; e < events; e++)
		if (ln->place[e] != NO_PLACE)
			(*ev)[(*off)[ln->place[e] + 1]++] = (uint32_t)e;
	return 0;
}

static uint32_t thread_of(const struct line *ln, uint32_t e)
{
	uint32_t lo = 0, hi = ln->s->a->k - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (ln->base[mid] <= e)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Thread t runs up to its event `at` and its reads of x right after it
 * that read `pair` (which the same place serves). */
static void run_with_reads(const struct line *ln, struct run *r, uint32_t t, uint32_t at,
			   uint32_t pair)
{
	const struct event_pairs *pairs = ln->s->a->pairs[t];
	const struct vsc_thread *th = &r->p->threads[t];
	uint32_t end = at;

	while (end + 1 < th->length && th->events[end + 1].var == ln->l->x &&
	       pairs[end + 1].write == PAIR_NONE && pairs[end + 1].read == pair)
		end++;
	run_to(r, t, end);
}

static void run_reader(const struct line *ln, struct run *r, uint32_t t, uint32_t at)
{
	run_with_reads(ln, r, t, at, ln->s->a->pairs[t][at].read);
}

/* The readers of place q run up to their reads; `last` (a thread, or
 * NO_PLACE) after the others. */
static void run_readers(const struct line *ln, struct run *r, const uint32_t *off,
			const uint32_t *ev, uint32_t q, uint32_t last)
{
	uint32_t late = NO_PLACE;

	for (uint32_t at = off[q]; at < off[q + 1]; at++) {
		uint32_t t = thread_of(ln, ev[at]);
		if (t == last)
			late = ev[at];
		else
			run_reader(ln, r, t, (uint32_t)(ev[at] - ln->base[t]));
	}
	if (late != NO_PLACE)
		run_reader(ln, r, last, (uint32_t)(late - ln->base[last]));
}

/* Thread t's reads of x seeing A it begins with, when a read of B comes
 * next: they see the initial A, at the start (left to run with t's next
 * read, they would run inside that read's hold). Before a take they run
 * with it, as before. */
static void run_first_reads(const struct line *ln, struct run *r, uint32_t t)
{
	const struct event_pairs *pairs = ln->s->a->pairs[t];
	const struct vsc_thread *th = &r->p->threads[t];
	uint32_t end = 0;

	while (end < th->length && th->events[end].var == ln->l->x &&
	       pairs[end].write == PAIR_NONE && pairs[end].read == ln->l->free)
		end++;
	if (end && end < th->length && th->events[end].var == ln->l->x &&
	    pairs[end].write == PAIR_NONE)
		run_to(r, t, end - 1);
}

/* Hold q of the line: its holder up to just before its give (to its end
 * when it never gives) and the readers put there, then the give. */
static void run_hold(const struct line *ln, struct run *r, const uint32_t *off, const uint32_t *ev,
		     uint32_t q)
{
	const struct hold *h = &ln->l->holds[q / 2];
	uint32_t before_give = h->give != NO_PLACE ? h->give - 1 : UINT32_MAX - 1;

	if (held_from_start(ln->l, h)) { /* the readers before its holder begins */
		run_readers(ln, r, off, ev, q, NO_PLACE);
		run_to(r, h->thread, before_give);
	} else { /* the readers come just before the give, or after the last */
		run_to(r, h->thread, before_give);
		run_readers(ln, r, off, ev, q, NO_PLACE);
	}
	if (h->give != NO_PLACE)
		run_with_reads(ln, r, h->thread, h->give, ln->l->free);
}

static void run_line(const struct line *ln, struct run *r, const uint32_t *off, const uint32_t *ev)
{
	const struct lock *l = ln->l;

	for (uint32_t t = 0; t < ln->s->a->k && l->holder == NO_PLACE; t++)
		run_first_reads(ln, r, t); /* held at the start, x is not A then */

	for (uint32_t q = 0; q < ln->places; q++)
		if (q & 1)
			run_hold(ln, r, off, ev, q);
		else
			run_readers(ln, r, off, ev, q,
				    q / 2 < l->n ? l->holds[q / 2].thread : NO_PLACE);
	for (uint32_t t = 0; t < ln->s->a->k; t++)
		run_to(r, t, UINT32_MAX - 1);
}

static uint32_t *interleave(struct line *ln)
{
	const struct vsc_program *p = ln->s->p;
	struct run r = { p, calloc(ln->s->a->k, sizeof(uint32_t)),
			 malloc((p->event_count + 1) * sizeof(uint32_t)), 0 };
	uint32_t *off = NULL, *ev = NULL;

	if (r.pos && r.witness && !readers_by_place(ln, &off, &ev))
		run_line(ln, &r, off, ev);
	free(off);
	free(ev);
	free(r.pos);
	if (r.n != p->event_count) {
		free(r.witness);
		return NULL;
	}
	return r.witness;
}

static int witness_alloc(struct line *ln)
{
	const struct vsc_program *p = ln->s->p;
	size_t at = 0;

	ln->base = malloc(((size_t)ln->s->a->k + 1) * sizeof(size_t));
	ln->place = malloc((p->event_count + 1) * sizeof(uint32_t));
	ln->used = calloc(ln->places, 1);
	if (!ln->base || !ln->place || !ln->used)
		return -1;
	for (uint32_t t = 0; t < ln->s->a->k; t++) {
		ln->base[t] = at;
		at += p->threads[t].length;
	}
	for (size_t e = 0; e < p->event_count; e++)
		ln->place[e] = NO_PLACE;
	return 0;
}

uint32_t *lock_witness(struct line *ln, long *preemptions)
{
	uint32_t *witness = NULL;

	if (witness_alloc(ln))
		ln->stopped = 1;
	else
		put_episodes(ln);
	if (!ln->stopped && (witness = interleave(ln)) &&
	    vsc_witness_verify(ln->s->p, witness, ln->s->p->event_count, preemptions, NULL, 0)) {
		free(witness);
		witness = NULL;
	}
	free(ln->base);
	free(ln->place);
	free(ln->used);
	ln->base = NULL;
	ln->place = NULL;
	ln->used = NULL;
	return witness;
}
