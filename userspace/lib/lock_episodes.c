/* SPDX-License-Identifier: MIT */
/* The stops readers of a lock force on its holders (lock_stops.c says why
 * they add to the own stops): the costly places of the line of holds and
 * gaps, each thread's episodes between its holds, the least costly places
 * an episode's reads can be put at, and the episodes with disjoint ranges
 * that count the most. */
#include "lock_stops_int.h"
#include "own_stops.h"

#include <stdlib.h>
#include <string.h>

/* An episode whose reads need more dynamic-program cells than this is
 * counted by its reads of each value against the free places instead (a
 * weaker count, also sound: its reads of B take distinct holds, its reads
 * of A distinct gaps). */
#define DP_CELLS_MAX (1UL << 24)
#define NO_COST UINT32_MAX

static int by_right(const void *x, const void *y)
{
	const struct own_interval *a = x, *b = y;

	if (a->right != b->right)
		return a->right < b->right ? -1 : 1;
	return a->left > b->left ? -1 : a->left < b->left; /* wider last */
}

/* Keep the intervals of iv (n) that hold no other one: sorted by right
 * end, an interval holds an earlier one iff some earlier left end is at
 * least its own. Returns how many are kept, in place, by increasing left
 * and right ends. */
static uint32_t minimal_intervals(struct own_interval *iv, uint32_t n)
{
	uint32_t kept = 0, most_left = 0;

	qsort(iv, n, sizeof(*iv), by_right);
	for (uint32_t i = 0; i < n; i++) {
		if (kept && most_left >= iv[i].left)
			continue;
		most_left = iv[i].left > most_left ? iv[i].left : most_left;
		iv[kept++] = iv[i];
	}
	return kept;
}

/* Does thread t hold the lock at its position i (after its take, before
 * its give)? The hold's number (from 1), or 0. */
static uint32_t hold_at(const struct line *ln, uint32_t t, uint32_t i)
{
	uint32_t lo = ln->index_off[t], hi = ln->index_off[t + 1];
	const struct hold *h;

	while (lo < hi) { /* the first hold of t taken at i or later */
		uint32_t mid = lo + (hi - lo) / 2;
		if (ln->l->holds[ln->index[mid] - 1].take < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ln->index_off[t] && lo < ln->index_off[t + 1] &&
	    held_from_start(ln->l, &ln->l->holds[ln->index[lo] - 1]))
		lo++; /* its take stands before event 0 */
	if (lo == ln->index_off[t])
		return 0;
	h = &ln->l->holds[ln->index[lo - 1] - 1];
	return h->give == NO_PLACE || i < h->give ? ln->index[lo - 1] : 0;
}

/* Per variable: 1 when each of its writes, in every thread, lies inside a
 * hold of that thread (the lock itself is not). NULL when memory runs out. */
static uint8_t *guarded_vars(const struct line *ln)
{
	const struct vsc_program *p = ln->s->p;
	const struct analysis *a = ln->s->a;
	uint8_t *guarded = malloc(a->nvars ? a->nvars : 1);

	if (!guarded)
		return NULL;
	memset(guarded, 1, a->nvars ? a->nvars : 1);
	guarded[ln->l->x] = 0;
	for (uint32_t t = 0; t < a->k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t x = p->threads[t].events[i].var;
			if (a->pairs[t][i].write != PAIR_NONE && guarded[x] && !hold_at(ln, t, i))
				guarded[x] = 0;
		}
	return guarded;
}

/* Narrow thread t's interval iv of a read of a guarded variable (lock
 * stops, "guarded variables" in lock_stops.c): the write it waits for lies
 * in another thread's hold, so between t's holds around it. */
static void narrow_guarded(const struct line *ln, uint32_t t, struct own_interval *iv)
{
	uint32_t read_hold = hold_at(ln, t, iv->right), access_hold = hold_at(ln, t, iv->left - 1);
	const struct hold *h;

	if (read_hold && (read_hold == access_hold || (read_hold == 1 && ln->l->holder == t)))
		return; /* no SC interleaving: any bound holds, keep it as it is */
	if (read_hold)
		iv->right = ln->l->holds[read_hold - 1].take;
	if (access_hold && (h = &ln->l->holds[access_hold - 1])->give != NO_PLACE &&
	    h->give < iv->right)
		iv->left = h->give + 1;
}

/* The stops of minimal intervals (by increasing left and right ends): the
 * greedy from the left, a point at the right end of each not yet stabbed. */
static uint32_t stab_minimal(const struct own_interval *iv, uint32_t n)
{
	uint32_t points = 0, at = 0;

	for (uint32_t i = 0; i < n; i++)
		if (!points || iv[i].left > at)
			points++, at = iv[i].right;
	return points;
}

static int own_build(struct line *ln)
{
	const struct vsc_program *p = ln->s->p;
	const struct analysis *a = ln->s->a;
	size_t vv = a->nvars ? a->nvars : 1;
	uint32_t *last_pair = malloc(2 * vv * sizeof(uint32_t)), used = 0;
	uint8_t *guarded = guarded_vars(ln);

	ln->own_off = malloc(((size_t)a->k + 1) * sizeof(uint32_t));
	ln->own = malloc((p->event_count + 1) * sizeof(*ln->own));
	if (!last_pair || !guarded || !ln->own_off || !ln->own) {
		free(last_pair);
		free(guarded);
		return -1;
	}
	for (size_t x = 0; x < vv; x++)
		last_pair[x] = PAIR_NONE;
	ln->own_stops = 0;
	for (uint32_t t = 0; t < a->k; t++) {
		struct own_interval *iv = ln->own + used;
		uint32_t n = own_stops_intervals(p, a, t, last_pair, last_pair + vv, iv);
		for (uint32_t q = 0; q < n; q++)
			if (guarded[p->threads[t].events[iv[q].right].var])
				narrow_guarded(ln, t, &iv[q]);
		ln->own_off[t] = used;
		n = minimal_intervals(iv, n);
		ln->own_stops += stab_minimal(iv, n);
		used += n;
	}
	ln->own_off[a->k] = used;
	free(last_pair);
	free(guarded);
	return 0;
}

/* Do thread t's cut points left .. right meet none of its minimal own
 * intervals? */
static int meets_no_own(const struct line *ln, uint32_t t, uint32_t left, uint32_t right)
{
	uint32_t lo = ln->own_off[t], hi = ln->own_off[t + 1];

	while (lo < hi) { /* the first interval ending at left or later */
		uint32_t mid = lo + (hi - lo) / 2;
		if (ln->own[mid].right < left)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == ln->own_off[t + 1] || ln->own[lo].left > right;
}

/* Costly places: hold k at 2k - 1 when its holder has its give left and
 * that span meets no minimal own interval; gap g at 2g when holds g and
 * g + 1 are one thread's and the span between them meets none. */
static void mark_costly(struct line *ln)
{
	const struct lock *l = ln->l;

	memset(ln->costly, 0, ln->places);
	for (uint32_t k = 1; k <= l->n; k++) {
		const struct hold *h = &l->holds[k - 1], *after = k < l->n ? h + 1 : NULL;
		if (h->give == NO_PLACE)
			continue;
		/* held from the start: its holder may not have begun (cut point 0) */
		ln->costly[2 * k - 1] =
			!held_from_start(l, h) && meets_no_own(ln, h->thread, h->take + 1, h->give);
		if (after && after->thread == h->thread)
			ln->costly[2 * k] = meets_no_own(ln, h->thread, h->give + 1, after->take);
	}
	ln->costly_before[0] = 0;
	for (uint32_t q = 0; q < ln->places; q++)
		ln->costly_before[q + 1] = ln->costly_before[q] + ln->costly[q];
}

/* Each thread's holds' numbers (from 1) in program order. Returns 0, or -1
 * when the clock's order contradicts a thread's (no SC interleaving). */
static int index_holds(struct line *ln)
{
	const struct lock *l = ln->l;
	uint32_t k = ln->s->a->k;

	memset(ln->index_off, 0, ((size_t)k + 1) * sizeof(uint32_t));
	for (uint32_t h = 0; h < l->n; h++)
		ln->index_off[l->holds[h].thread + 1]++;
	for (uint32_t t = 0; t < k; t++)
		ln->index_off[t + 1] += ln->index_off[t];
	for (uint32_t h = 0; h < l->n; h++) /* index_off[t]: t's next slot */
		ln->index[ln->index_off[l->holds[h].thread]++] = h + 1;
	memmove(ln->index_off + 1, ln->index_off, (size_t)k * sizeof(uint32_t));
	ln->index_off[0] = 0;
	for (uint32_t t = 0; t < k; t++)
		for (uint32_t at = ln->index_off[t] + 1; at < ln->index_off[t + 1]; at++)
			if (l->holds[ln->index[at - 1] - 1].take > l->holds[ln->index[at] - 1].take)
				return -1;
	return 0;
}

/* Costly places among lo .. hi of the parity of place `hold` (1: holds). */
static uint32_t costly_of(const struct line *ln, uint32_t lo, uint32_t hi, int hold)
{
	uint32_t n = 0;

	for (uint32_t q = lo + ((lo & 1) != (uint32_t)hold); q <= hi; q += 2)
		n += ln->costly[q];
	return n;
}

/* The weaker count of DP_CELLS_MAX: reads of B need distinct holds of
 * lo .. hi, reads of A distinct gaps; those beyond the free ones cost. */
static uint32_t count_by_value(const struct line *ln, uint32_t m, uint32_t lo, uint32_t hi)
{
	uint32_t need[2] = { 0, 0 }, w = 0;

	for (uint32_t i = 0; i < m; i++)
		need[ln->reads[i]]++;
	for (int hold = 0; hold < 2; hold++) {
		uint32_t places = (hi - lo + 2 - (uint32_t)((lo & 1) != (uint32_t)hold)) / 2;
		uint32_t free_places = places - costly_of(ln, lo, hi, hold);
		w += need[hold] > free_places ? need[hold] - free_places : 0;
	}
	return w;
}

/* The least costly places m reads (ln->reads) can take at increasing
 * places of lo .. hi, each of its parity; 0 when they cannot (then there
 * is no SC interleaving, and any bound holds). */
static uint32_t least_costly(struct line *ln, uint32_t m, uint32_t lo, uint32_t hi)
{
	uint32_t width = hi - lo + 1, best = NO_COST;

	if ((uint64_t)m * width > DP_CELLS_MAX)
		return count_by_value(ln, m, lo, hi);
	for (uint32_t q = 0; q < width; q++)
		ln->row[q] = ((lo + q) & 1) == ln->reads[0] ? ln->costly[lo + q] : NO_COST;
	for (uint32_t i = 1; i < m; i++) {
		uint32_t before = NO_COST, *swap;
		for (uint32_t q = 0; q < width; q++) {
			int fits = ((lo + q) & 1) == ln->reads[i] && before != NO_COST;
			ln->next_row[q] = fits ? before + ln->costly[lo + q] : NO_COST;
			if (ln->row[q] < before)
				before = ln->row[q];
		}
		swap = ln->row;
		ln->row = ln->next_row;
		ln->next_row = swap;
	}
	for (uint32_t q = 0; q < width; q++)
		if (ln->row[q] < best)
			best = ln->row[q];
	return best == NO_COST ? 0 : best;
}

/* The place of the costly place numbered c (from 0). */
static uint32_t nth_costly(const struct line *ln, uint32_t c)
{
	uint32_t lo = 0, hi = ln->places - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ln->costly_before[mid + 1] > c)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The episode of m reads between holds j and j2 (0 and n + 1 at the ends). */
static void add_episode(struct line *ln, uint32_t t, uint32_t m, uint32_t j, uint32_t j2)
{
	(void)t;
	uint32_t lo = lock_first_place(ln->l, j), hi = j2 > ln->l->n ? 2 * ln->l->n : 2 * j2 - 2, w;
	uint32_t first = ln->costly_before[lo], end;

	if (!m || lo > hi || (end = ln->costly_before[hi + 1]) == first || ln->stopped)
		return;
	if (lock_spend(ln->b, (unsigned long)m * (hi - lo + 1) / 16 + 1)) {
		ln->stopped = 1;
		return;
	}
	if (!(w = least_costly(ln, m, lo, hi)))
		return;
	ln->episodes[ln->nepisodes++] =
		(struct episode){ nth_costly(ln, first), nth_costly(ln, end - 1), w };
}

int lock_walk_episodes(struct line *ln, uint32_t t, episode_fn *on_episode)
{
	const struct vsc_thread *th = &ln->s->p->threads[t];
	const struct lock *l = ln->l;
	uint32_t m = 0, j = 0, held = l->free, next = ln->index_off[t];
	int holding = 0;

	if (l->holder == t) { /* in its first hold from the start */
		j = ln->index[next++];
		holding = 1;
		held = l->taken;
	} else if (l->holder != NO_PLACE) {
		held = PAIR_NONE; /* its first read may see B at the start or A later */
	}

	for (uint32_t i = 0; i < th->length; i++) {
		const struct event_pairs *ep = &ln->s->a->pairs[t][i];
		if (th->events[i].var != l->x)
			continue;
		if (ep->write != PAIR_NONE && !holding) { /* a take: the episode ends */
			on_episode(ln, t, m, j, ln->index[next]);
			j = ln->index[next++];
			m = 0;
		}
		if (ep->write != PAIR_NONE) {
			holding = !holding;
			held = ep->write;
		} else if (ep->read != held) {
			if (holding)
				return -1;
			ln->read_at[m] = i;
			ln->reads[m++] = ep->read == l->taken;
			held = ep->read;
		}
	}
	on_episode(ln, t, m, j, l->n + 1);
	return 0;
}

static int by_last(const void *x, const void *y)
{
	const struct episode *a = x, *b = y;

	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* The most weight of episodes with pairwise disjoint ranges (weighted
 * interval scheduling). total: episodes + 1 words of scratch. */
static uint64_t disjoint_weight(struct line *ln, uint64_t *total)
{
	struct episode *e = ln->episodes;
	uint32_t n = ln->nepisodes;

	qsort(e, n, sizeof(*e), by_last);
	total[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t lo = 0, hi = i; /* episodes ending before e[i] starts */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (e[mid].hi < e[i].lo)
				lo = mid + 1;
			else
				hi = mid;
		}
		total[i + 1] = total[i];
		if (total[lo] + e[i].weight > total[i + 1])
			total[i + 1] = total[lo] + e[i].weight;
	}
	return total[n];
}

static void keep_better(struct lock_stops *found, uint32_t *witness, long count)
{
	if (witness && (found->preemptions < 0 || count < found->preemptions)) {
		free(found->witness);
		found->witness = witness;
		found->preemptions = count;
	} else {
		free(witness);
	}
}

static void line_free(struct line *ln)
{
	free(ln->costly);
	free(ln->costly_before);
	free(ln->own_off);
	free(ln->own);
	free(ln->index_off);
	free(ln->index);
	free(ln->row);
	free(ln->next_row);
	free(ln->reads);
	free(ln->read_at);
	free(ln->episodes);
}

static int line_alloc(struct line *ln)
{
	size_t places = ln->places, k = ln->s->a->k, n = ln->l->n;
	size_t events = ln->s->p->event_count + 1;

	ln->costly = malloc(places);
	ln->costly_before = malloc((places + 1) * sizeof(uint32_t));
	ln->index_off = malloc((k + 1) * sizeof(uint32_t));
	ln->index = malloc((n + 1) * sizeof(uint32_t));
	ln->row = malloc(places * sizeof(uint32_t));
	ln->next_row = malloc(places * sizeof(uint32_t));
	ln->reads = malloc(events);
	ln->read_at = malloc(events * sizeof(uint32_t));
	ln->episodes = malloc((n + k + 1) * sizeof(*ln->episodes));
	if (!ln->costly || !ln->costly_before || !ln->index_off || !ln->index || !ln->row ||
	    !ln->next_row || !ln->reads || !ln->read_at || !ln->episodes)
		return -1;
	return 0;
}

void lock_episodes(const struct lock_scratch *s, const struct lock *l, struct budget *b,
		   struct lock_stops *found)
{
	struct line ln = { .s = s, .l = l, .places = 2 * l->n + 1, .b = b };
	uint64_t *total = NULL, extra = 0;
	long count = -1;
	int ok = !line_alloc(&ln) && !index_holds(&ln) && !own_build(&ln);

	if (ok) {
		mark_costly(&ln);
		for (uint32_t t = 0; t < s->a->k && ok; t++)
			ok = !lock_walk_episodes(&ln, t, add_episode) && !ln.stopped &&
			     !lock_spend(b, s->p->threads[t].length);
	}
	if (ok && (total = malloc(((size_t)ln.nepisodes + 1) * sizeof(uint64_t))))
		extra = disjoint_weight(&ln, total);
	free(total);
	if (ok && !ln.stopped && ln.own_stops + extra > found->own + found->extra) {
		found->own = ln.own_stops;
		found->extra = extra;
		free(found->narrowed);
		free(found->narrowed_off);
		found->narrowed = ln.own;
		found->narrowed_off = ln.own_off;
		ln.own = NULL;
		ln.own_off = NULL;
	}
	if (ok && !ln.stopped) {
		uint32_t *witness = lock_witness(&ln, &count);
		keep_better(found, witness, count);
	}
	line_free(&ln);
}
