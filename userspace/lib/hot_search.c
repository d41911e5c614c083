/* SPDX-License-Identifier: MIT */
/* One variable, no RMW: the writes the reads see, searched rather than
 * guessed (docs/solvers.md, "One hot variable": the search of sources).
 * hot_var.c gives each read the write of its value nearest by the hints
 * and gives up at the first read whose every candidate closes a cycle of
 * the blocks' graph; without recorded times the hints are the events'
 * places and that happens. Here the choice is a search with
 * conflict-directed backjumping (Prosser's CBJ):
 *
 *  - the reads to choose for are the open ones (hot_var.c step 2: a read
 *    of the value its thread's previous event left sees that event's
 *    write, which loses nothing); each may see any other thread's write of
 *    its value, and a thread's first event the initial value when that
 *    may be its value (`init x ?`: one value for all such reads);
 *  - each thread's reads are chosen in program order; the next level
 *    takes the thread whose next read has the fewest candidates that fit
 *    now (none: it fails at once, near its cause; one: forced), else the
 *    one that lags most in the order;
 *  - a read's source x draws the edges own -> x, before -> x -> next (its
 *    thread's last write, the blocks of its nearest chosen events around
 *    it), labelled with the read's level and the level that chose the
 *    other end; an edge that closes a cycle is refused, and the labels on
 *    the cycle's path are why: the conflict;
 *  - a read with no candidate left jumps back to the deepest level of
 *    its conflicts, which takes them over; with none, no choice of the
 *    levels above can help: no SC interleaving.
 *
 * Every choice that leaves the graph acyclic is an SC interleaving (the
 * blocks, hot_var.c), and every SC interleaving gives such a choice: so
 * when the search ends with no candidate left, there is none. */
#include "hot_var.h"

#include "dyn_order.h"
#include "hot_var_int.h"
#include "least_path.h"
#include "writes_by_value.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Writes of a read's value at most (the search does not run past it). */
#define SEARCH_CANDIDATES 64
/* Threads at most (each level looks at every thread's next read). */
#define SEARCH_THREADS 64
/* Work (graph visits, events walked) per event at most. */
#define SEARCH_WORK 4096UL
/* and past a floor that lets small programs search to the end */
#define SEARCH_WORK_FLOOR (1UL << 20)
/* Without hints, first passes that try only a read's NEAR nearest writes
 * (by closeness alone), each at most NEAR_WORK per event: a witness they
 * find is a witness, a failure concludes nothing. */
#define NEAR_WORK 256UL
static const uint32_t near_passes[] = { 3, 4, 6 };

struct level {
	uint32_t g;            /* the read it chooses for */
	uint32_t thread;       /* g's */
	uint32_t first, count; /* its candidates: cand[first, first + count) */
	uint32_t tried;
	uint32_t edges;             /* the graph's edges before it chose */
	uint32_t joined_end;        /* events g .. joined_end - 1 see its choice */
	uint32_t *cs, cs_n, cs_cap; /* its conflicts: levels above it */
	int fixed_init;             /* it fixed the initial value (`init x ?`) */
};

struct search {
	struct hot *h;
	struct dyn_order d;
	struct writes_by_value w;
	struct least_path lp;
	uint32_t *open; /* the reads to choose for, by thread, then place */
	uint32_t n_open;
	uint32_t *open_first; /* per thread + 1: its first in open */
	uint32_t *chosen;     /* per thread: its reads in open that have a level */
	struct level *lv;
	uint32_t *cand;
	size_t cand_n, cand_cap;
	uint32_t *level_of; /* per event: the level that chose its block, NONE */
	/* per edge of d: the level that drew it and the level that chose its
	 * other end (before or next), NONE: the edge holds without them */
	uint32_t *edge_level, *edge_other;
	uint32_t edge_cap;
	uint32_t *stamp; /* per level: last merge that saw it */
	uint32_t merges;
	uint32_t init_level; /* the level that fixed the initial value, NONE */
	int64_t init_value;
	unsigned long walked;
	/* The writes a choice may use, by thread in program order: chain[
	 * chain_first[t], chain_first[t + 1]); chain_at: per node, its index
	 * there (NONE: unused). pulled: per thread, its first not placed yet
	 * below HIGH; next_place: the next place below HIGH. */
	uint32_t *chain, *chain_first, *chain_at, *pulled;
	uint32_t next_place;
	uint32_t near_only;     /* nonzero: each read tries its nearest so many */
	unsigned long work_cap; /* work at which the search stops (open) */
	size_t cs_bytes;        /* the levels' conflicts' room */
};

static const struct vsc_event *event_of(const struct hot *h, uint32_t g, uint32_t *t, uint32_t *i)
{
	*t = hot_thread_of(h, g);
	*i = (uint32_t)(g - h->base[*t]);
	return event_at(h, *t, *i);
}

/* c into level l's conflicts, once. 0 or -ENOMEM. */
static int conflict_add(struct search *s, struct level *l, uint32_t c)
{
	if (c == NONE || s->stamp[c] == s->merges)
		return 0;
	s->stamp[c] = s->merges;
	if (l->cs_n == l->cs_cap) {
		uint32_t cap = l->cs_cap ? 2 * l->cs_cap : 8,
			 *cs = realloc(l->cs, cap * sizeof(*cs));
		if (!cs)
			return -ENOMEM;
		l->cs = cs;
		s->cs_bytes += (cap - l->cs_cap) * sizeof(*cs);
		l->cs_cap = cap;
	}
	l->cs[l->cs_n++] = c;
	return 0;
}

/* Starts a merge into level l: what it holds is marked seen. After 2^32
 * merges an old stamp could equal the new count and drop a level from a
 * conflict (an unsound backjump), so the stamps start over at the wrap. */
static void merge_begin(struct search *s, struct level *l)
{
	if (++s->merges == 0) {
		memset(s->stamp, 0, (s->n_open ? (size_t)s->n_open : 1) * sizeof(*s->stamp));
		s->merges = 1;
	}
	for (uint32_t j = 0; j < l->cs_n; j++)
		s->stamp[l->cs[j]] = s->merges;
}

struct rank_of {
	const struct search *s;
	uint32_t self;
};

/* An edge's rank: the deeper of the levels it owes to (self and NONE do
 * not count), plus one; 0: none. */
static uint32_t edge_rank(uint32_t e, const void *ctx)
{
	const struct rank_of *k = ctx;
	uint32_t at = k->s->edge_level[e], other = k->s->edge_other[e], r = 0;

	if (at != NONE && at != k->self)
		r = at + 1;
	if (other != NONE && other != k->self && other + 1 > r)
		r = other + 1;
	return r;
}

/* The levels whose edges make the path from b to a that refused a -> b,
 * into level l's conflicts (the edge of level `self` left out): of all
 * such paths, the one whose deepest level is least, so that the search
 * jumps back as far as the graph allows (the path the order's search
 * happened to find runs through the latest levels, and the jumps stayed
 * among them). 0, -ENOMEM or -EDEADLK. */
static int conflict_path(struct search *s, struct level *l, uint32_t self, uint32_t a, uint32_t b)
{
	struct rank_of k = { s, self };
	int r = least_path_find(&s->lp, &s->d, a, b, edge_rank, &k);

	/* The order refused a -> b, so b reaches a; no path found would break
	 * that invariant. A conflict without its path's levels would make the
	 * backjump skip a level that can still change things (an unsound
	 * "refuted"), so the search ends open instead. */
	if (r)
		return r < 0 ? r : -EDEADLK;
	for (uint32_t x = a; x != b;) {
		uint32_t e = s->lp.via[x], at = s->edge_level[e], other = s->edge_other[e];
		if ((at != self && conflict_add(s, l, at)) ||
		    (other != self && conflict_add(s, l, other)))
			return -ENOMEM;
		x = s->d.edge_from[e];
		s->walked++;
	}
	return 0;
}

/* Room for the label of one more edge. 0 or -ENOMEM. */
static int label_room(struct search *s)
{
	if (s->d.edges < s->edge_cap)
		return 0;
	uint32_t cap = s->edge_cap ? 2 * s->edge_cap : 1024, *e, *o;
	if (!(e = realloc(s->edge_level, cap * sizeof(*e))))
		return -ENOMEM;
	s->edge_level = e;
	if (!(o = realloc(s->edge_other, cap * sizeof(*o))))
		return -ENOMEM;
	s->edge_other = o;
	s->edge_cap = cap;
	return 0;
}

/* Places at HIGH and above: writes that no choice has drawn an edge to or
 * from yet (nor to a later write of their thread), in the order of their
 * keys; they have no edge but their thread's, so they reach only their
 * thread's later writes. */
#define HIGH (1u << 31)
/* Nodes a count's reachability looks at most. */
#define REACH_LOOK 64

static int high(const struct search *s, uint32_t x)
{
	return s->d.place[x] >= HIGH;
}

/* x, and its thread's writes before it still at HIGH, placed below HIGH
 * after every write there, in program order: the order stays
 * topological (they have no edge but their thread's, and their thread's
 * earlier writes are placed below them). */
static void pull(struct search *s, uint32_t x)
{
	uint32_t u, c;

	if (!high(s, x))
		return;
	if ((c = s->chain_at[x]) == NONE) {
		s->d.place[x] = s->next_place++; /* no edge at all */
		return;
	}
	u = s->h->writer[x];
	for (; s->pulled[u] <= c; s->pulled[u]++)
		s->d.place[s->chain[s->pulled[u]]] = s->next_place++;
}

/* Does a reach b? Asked only for the next level's counts (a heuristic),
 * so the order's search gives up past REACH_LOOK nodes and says no. A
 * write at HIGH reaches only its thread's later ones,
 * and reaches b at HIGH only through b's thread's last write placed
 * below HIGH. 1, 0 or -ENOMEM. */
static int reach(struct search *s, uint32_t a, uint32_t b)
{
	uint32_t u;
	int r;

	if (a == b)
		return 1;
	if (high(s, a))
		return high(s, b) && s->h->writer[a] == s->h->writer[b] &&
		       s->chain_at[a] < s->chain_at[b];
	if (high(s, b)) {
		u = s->h->writer[b];
		if (s->chain_at[b] == NONE || s->pulled[u] == s->chain_first[u])
			return 0;
		b = s->chain[s->pulled[u] - 1];
		if (a == b)
			return 1;
	}
	r = dyn_order_reaches(&s->d, a, b, REACH_LOOK);
	return r == 2 ? 0 : r; /* gave up: a guess, only the count's */
}

/* The edge a -> b for level `at`, whose other end level `other` chose:
 * 0, 1 (a cycle: other and its path's levels into the conflicts of level
 * at), -ENOMEM or -EDEADLK (conflict_path()). */
static int draw(struct search *s, uint32_t at, uint32_t other, uint32_t a, uint32_t b)
{
	int r = label_room(s);

	pull(s, a);
	pull(s, b);
	if (!r)
		r = dyn_order_add(&s->d, a, b);
	if (r == 0) {
		s->edge_level[s->d.edges - 1] = at;
		s->edge_other[s->d.edges - 1] = other;
	} else if (r == 1 && conflict_add(s, &s->lv[at], other)) {
		r = -ENOMEM;
	} else if (r == 1 && a != b) {
		int c = conflict_path(s, &s->lv[at], at, a, b);
		r = c ? c : 1;
	}
	return r;
}

/* The block of the nearest event of thread t before place i (after: from
 * i + 1 on) that has one, INIT_NODE (NONE after) when none; *level: the
 * level that chose it, NONE. */
static uint32_t neighbour(struct search *s, uint32_t t, uint32_t i, int after, uint32_t *level)
{
	struct hot *h = s->h;
	size_t base = h->base[t], len = h->p->threads[t].length, k = i;

	*level = NONE;
	if (after) {
		for (k = i + 1; k < len && h->node[base + k] == NONE; k++)
			s->walked++;
		if (k == len)
			return NONE;
	} else {
		while (k > 0 && h->node[base + k - 1] == NONE)
			k--, s->walked++;
		if (k-- == 0)
			return INIT_NODE;
	}
	*level = s->level_of[base + k];
	return h->node[base + k];
}

/* The block of thread t's last write before place i, INIT_NODE. */
static uint32_t last_write(struct search *s, uint32_t t, uint32_t i)
{
	struct hot *h = s->h;

	while (i > 0 && event_at(h, t, i - 1)->kind == VSC_READ)
		i--, s->walked++;
	return i ? h->node[h->base[t] + i - 1] : INIT_NODE;
}

/* Level at tries source x: 0 (taken: edges drawn, its reads given x), 1
 * (refused: why in its conflicts) or -ENOMEM. */
static int try_source(struct search *s, uint32_t at, uint32_t x)
{
	struct level *l = &s->lv[at];
	struct hot *h = s->h;
	uint32_t t, i, lb, ln, before, next, own, k;
	const struct vsc_event *e = event_of(h, l->g, &t, &i);
	int r = 0;

	before = neighbour(s, t, i, 0, &lb);
	next = neighbour(s, t, i, 1, &ln);
	own = last_write(s, t, i);
	l->edges = s->d.edges;
	l->fixed_init = 0;
	if (x == INIT_NODE && s->init_level != NONE && s->init_value != e->value)
		return conflict_add(s, l, s->init_level) ? -ENOMEM : 1;
	if (x == next || (x == INIT_NODE && before != INIT_NODE))
		r = conflict_add(s, l, x == next ? ln : lb) ? -ENOMEM : 1;
	/* the thread's own last write first: a cycle through it owes
	 * nothing to the level that chose before */
	if (!r && own != INIT_NODE && own != before)
		r = draw(s, at, NONE, own, x);
	if (!r && before != INIT_NODE && before != x)
		r = draw(s, at, lb, before, x);
	if (!r && next != NONE)
		r = draw(s, at, ln, x, next);
	if (r) {
		while (s->d.edges > l->edges)
			dyn_order_undo(&s->d);
		return r;
	}
	if (x == INIT_NODE && s->init_level == NONE && h->p->inits[0].kind == VSC_INIT_UNKNOWN) {
		s->init_level = at;
		s->init_value = e->value;
		l->fixed_init = 1;
	}
	for (k = i; k < h->p->threads[t].length; k++) {
		const struct vsc_event *f = event_at(h, t, k);
		if (k > i && (f->kind != VSC_READ || f->value != e->value))
			break;
		h->node[h->base[t] + k] = x;
		s->level_of[h->base[t] + k] = at;
	}
	l->joined_end = (uint32_t)(h->base[t] + k);
	return 0;
}

/* Level at's choice undone. */
static void undo_choice(struct search *s, uint32_t at)
{
	struct level *l = &s->lv[at];

	while (s->d.edges > l->edges)
		dyn_order_undo(&s->d);
	for (uint32_t g = l->g; g < l->joined_end; g++) {
		s->h->node[g] = NONE;
		s->level_of[g] = NONE;
	}
	if (l->fixed_init)
		s->init_level = NONE;
	l->fixed_init = 0;
	l->joined_end = l->g;
}

struct near {
	uint64_t distance;
	uint32_t node;
};

static int near_cmp(const void *a, const void *b)
{
	const struct near *x = a, *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* Room for n more candidates. 0 or -ENOMEM. */
static int cand_room(struct search *s, size_t n)
{
	size_t cap = s->cand_cap ? s->cand_cap : 1024;
	uint32_t *c;

	if (s->cand_n + n <= s->cand_cap)
		return 0;
	while (cap < s->cand_n + n)
		cap *= 2;
	if (!(c = realloc(s->cand, cap * sizeof(*c))))
		return -ENOMEM;
	s->cand = c;
	s->cand_cap = cap;
	return 0;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Where thread u has come to in the search: the place of its next read to
 * choose for, its length when none is left. */
static uint64_t come_to(const struct search *s, uint32_t u)
{
	uint32_t next = s->open_first[u] + s->chosen[u];

	return next < s->open_first[u + 1] ? s->open[next] - s->h->base[u]
					   : s->h->p->threads[u].length;
}

/* How near write w (of key wkey) is to a read of key `key`: by the hints
 * when every event has one; else by how far w is from where its thread
 * has come to in the search (its next read to choose for), since the
 * places in the threads, scaled, are a poor guide (threads run at their
 * own rates), then by those. */
static uint64_t closeness(const struct search *s, const struct value_write *w, uint64_t wkey,
			  uint64_t key)
{
	if (s->h->hinted)
		return distance(wkey, key);
	return distance(w->at, come_to(s, w->thread)) << 32 | distance(wkey, key) >> 32;
}

/* The thread whose write thread t's open read before g sees, NONE. */
static uint32_t prev_source_thread(const struct search *s, uint32_t t, uint32_t g)
{
	uint32_t lo = s->open_first[t], hi = s->open_first[t + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->open[mid] < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->open_first[t])
		return NONE;
	uint32_t x = s->h->node[s->open[lo - 1]];
	return x == NONE || x == INIT_NODE ? NONE : s->h->writer[x];
}

/* Thread u's writes among a value's x->w[lo, hi) that can be among a
 * read's s->near_only nearest: closeness is first the distance from where
 * u has come to, and u's writes are sorted by place, so only the
 * near_only on either side of that point. Appended to near[n..]; returns
 * the new n. */
static uint32_t nearest_of_thread(const struct search *s, uint32_t u, uint64_t key, size_t lo,
				  size_t hi, struct near *near, uint32_t n)
{
	const struct hot *h = s->h;
	uint64_t come = come_to(s, u);
	size_t tlo, thi, a, b;

	writes_of_thread(&s->w, u, lo, hi, &tlo, &thi);
	a = tlo, b = thi;
	while (a < b) { /* the first of u's writes at or past come */
		size_t mid = a + (b - a) / 2;
		if (s->w.w[mid].at < come)
			a = mid + 1;
		else
			b = mid;
	}
	b = a + s->near_only < thi ? a + s->near_only : thi;
	a = a - tlo > s->near_only ? a - s->near_only : tlo;
	for (size_t j = a; j < b; j++) {
		const struct value_write *w = &s->w.w[j];
		uint32_t x = h->node[h->base[u] + w->at];
		near[n++] = (struct near){ closeness(s, w, h->key[x], key) >> 1, x };
	}
	return n;
}

/* A near-only pass's candidates for a read of thread t (key `key`) of a
 * value written more than SEARCH_CANDIDATES times, x->w[lo, hi): the
 * s->near_only nearest, the same ones a look at every write would keep
 * (near[] is cut to them whenever another thread's could overflow it).
 * Returns how many, into near[]. */
static uint32_t nearest_of_many(const struct search *s, uint32_t t, uint64_t key, size_t lo,
				size_t hi, struct near *near)
{
	uint32_t n = 0;

	for (uint32_t u = 0; u < s->h->k; u++) {
		if (u == t)
			continue;
		if (n + 2 * s->near_only > SEARCH_CANDIDATES) {
			qsort(near, n, sizeof(*near), near_cmp);
			n = s->near_only;
		}
		n = nearest_of_thread(s, u, key, lo, hi, near, n);
	}
	return n;
}

/* Level at's candidates, nearest by key first, onto s->cand. 0,
 * HOT_VAR_OPEN (too many) or -ENOMEM. */
static int level_candidates(struct search *s, uint32_t at)
{
	struct level *l = &s->lv[at];
	struct hot *h = s->h;
	const struct vsc_var_init *in = &h->p->inits[0];
	uint32_t t, i, n = 0;
	const struct vsc_event *e = event_of(h, l->g, &t, &i);
	uint64_t key = hot_event_key(h, t, i);
	struct near near[SEARCH_CANDIDATES + 1];
	size_t lo, hi;

	uint32_t prev_src = prev_source_thread(s, t, l->g);

	writes_of_value(&s->w, e->value, &lo, &hi);
	if (hi - lo > SEARCH_CANDIDATES && !s->near_only)
		return HOT_VAR_OPEN;
	if (hi - lo > SEARCH_CANDIDATES)
		n = nearest_of_many(s, t, key, lo, hi, near);
	for (size_t j = lo; hi - lo <= SEARCH_CANDIDATES && j < hi; j++) {
		const struct value_write *w = &s->w.w[j];
		uint32_t x = h->node[h->base[w->thread] + w->at];
		int other = !h->hinted && !s->near_only && w->thread != prev_src;
		if (w->thread != t)
			near[n++] = (struct near){
				(uint64_t)other << 63 | closeness(s, w, h->key[x], key) >> 1, x
			};
	}
	if (i == 0 &&
	    (in->kind == VSC_INIT_UNKNOWN || (in->kind == VSC_INIT_KNOWN && in->value == e->value)))
		near[n++] = (struct near){ key, INIT_NODE };
	qsort(near, n, sizeof(*near), near_cmp);
	if (s->near_only && n > s->near_only)
		n = s->near_only;
	if (cand_room(s, n))
		return -ENOMEM;
	l->first = (uint32_t)s->cand_n;
	l->count = n;
	l->tried = 0;
	l->cs_n = 0;
	l->edges = s->d.edges;
	l->joined_end = l->g;
	l->fixed_init = 0;
	for (uint32_t j = 0; j < n; j++)
		s->cand[s->cand_n++] = near[j].node;
	return 0;
}

/* The deepest of level at's conflicts, NONE when it has none. */
static uint32_t deepest(const struct level *l)
{
	uint32_t d = NONE;

	for (uint32_t j = 0; j < l->cs_n; j++)
		d = d == NONE || l->cs[j] > d ? l->cs[j] : d;
	return d;
}

/* Would level at's read (thread t, place i, value v) take source x now,
 * as try_source() would (its edges own -> x, before -> x, x -> next,
 * none closing a cycle)? Nothing is drawn: each edge alone is asked,
 * since two of them never close a cycle together (next already follows
 * own and before). 1, 0 or -ENOMEM. */
static int fits(struct search *s, uint32_t t, uint32_t i, int64_t v, uint32_t x)
{
	uint32_t lb, ln, before = neighbour(s, t, i, 0, &lb), next = neighbour(s, t, i, 1, &ln);
	uint32_t own = last_write(s, t, i);
	int r;

	if (x == INIT_NODE && s->init_level != NONE && s->init_value != v)
		return 0;
	if (x == next || (x == INIT_NODE && before != INIT_NODE))
		return 0;
	if (own != INIT_NODE && own != before && (r = reach(s, x, own)))
		return r < 0 ? r : 0;
	if (before != INIT_NODE && before != x && (r = reach(s, x, before)))
		return r < 0 ? r : 0;
	if (next != NONE && (r = reach(s, next, x)))
		return r < 0 ? r : 0;
	return 1;
}

/* How many of level at's candidates (its read g, of thread t) fit now.
 * Returns it (up to `enough`), or -errno. */
static long fitting(struct search *s, uint32_t at, uint32_t t, uint32_t g, long enough)
{
	struct level *l = &s->lv[at];
	uint32_t tt, i;
	const struct vsc_event *e;
	long fit = 0;
	int r = 0;

	l->g = g;
	l->thread = t;
	if ((r = level_candidates(s, at)))
		return r > 0 ? -EAGAIN : r;
	e = event_of(s->h, g, &tt, &i);
	for (uint32_t j = 0; j < l->count && fit < enough; j++) {
		if ((r = fits(s, t, i, e->value, s->cand[l->first + j])) < 0)
			break;
		fit += r;
	}
	s->cand_n = l->first;
	return r < 0 ? r : fit;
}

/* Level at takes the next read of the thread whose next read has the
 * fewest candidates that fit now (none: it fails at once, near what
 * caused it; one: forced), the one that lags most (its last chosen block
 * earliest in the order) among equals. 0, HOT_VAR_OPEN or -ENOMEM. */
static int enter_level(struct search *s, uint32_t at)
{
	struct hot *h = s->h;
	uint32_t best = NONE, best_place = 0;
	long best_fit = LONG_MAX;

	for (uint32_t t = 0; t < h->k && best_fit > 1; t++) {
		uint32_t g, before, place;
		long fit;
		if (s->open_first[t] + s->chosen[t] == s->open_first[t + 1])
			continue;
		g = s->open[s->open_first[t] + s->chosen[t]];
		before = g == h->base[t] ? INIT_NODE : h->node[g - 1];
		place = s->d.place[before];
		fit = fitting(s, at, t, g, best_fit);
		if (fit == -EAGAIN)
			return HOT_VAR_OPEN;
		if (fit < 0)
			return (int)fit;
		if (best == NONE || fit < best_fit || (fit == best_fit && place < best_place)) {
			best = t;
			best_place = place;
			best_fit = fit;
		}
	}
	s->lv[at].thread = best;
	s->lv[at].g = s->open[s->open_first[best] + s->chosen[best]++];
	return level_candidates(s, at);
}

/* Level at and its read given up. */
static void leave_level(struct search *s, uint32_t at)
{
	undo_choice(s, at);
	s->chosen[s->lv[at].thread]--;
}

/* Level at has no candidate left: back to the deepest of its conflicts,
 * which takes over the others. Returns that level, NONE (none: refuted),
 * or NONE - 1 (no memory). */
static uint32_t jump_back(struct search *s, uint32_t at)
{
	struct level *l = &s->lv[at];
	uint32_t to = deepest(l);

	if (to == NONE)
		return NONE;
	merge_begin(s, &s->lv[to]);
	for (uint32_t j = 0; j < l->cs_n; j++)
		if (l->cs[j] != to && conflict_add(s, &s->lv[to], l->cs[j]))
			return NONE - 1;
	for (uint32_t back = at + 1; back-- > to + 1;)
		leave_level(s, back);
	undo_choice(s, to);
	s->cand_n = s->lv[to].first + s->lv[to].count;
	return to;
}

/* The bytes the search holds: what the memory limit weighs (per event
 * about 8, per read chosen for about 56, per node about 28, and what
 * grows: edges, conflicts, candidates, the graph searches' room). */
static size_t search_bytes(const struct search *s)
{
	const struct hot *h = s->h;

	return h->n * 2 * sizeof(uint32_t) + s->n_open * (sizeof(struct level) + sizeof(uint32_t)) +
	       (size_t)h->nodes * 7 * sizeof(uint32_t) + s->w.n * sizeof(struct value_write) +
	       (size_t)s->d.edges_cap * 4 * sizeof(uint32_t) +
	       (size_t)s->edge_cap * 2 * sizeof(uint32_t) + s->cand_cap * sizeof(uint32_t) +
	       (size_t)s->d.scratch_cap * (3 * sizeof(uint32_t) + 4 * sizeof(uint64_t)) +
	       (size_t)s->lp.list_cap * (sizeof(uint32_t) + 2 * sizeof(uint64_t)) + s->cs_bytes;
}

/* The search: a level per read of s->open. 0 (every read chosen),
 * HOT_VAR_OPEN (a read of a value written too often, or the work cap),
 * HOT_VAR_REFUTED, or -errno. */
static int search_levels(struct search *s, struct budget *b)
{
	uint32_t at = 0;
	unsigned long cap = s->work_cap, spent = 0;
	int r;

	if (!s->n_open)
		return 0;
	if ((r = enter_level(s, 0)))
		return r;
	for (;;) {
		struct level *l = &s->lv[at];
		unsigned long work = s->d.work + s->lp.work + s->walked;
		r = 1;
		while (r == 1 && l->tried < l->count) {
			merge_begin(s, l);
			r = try_source(s, at, s->cand[l->first + l->tried++]);
		}
		if (r < 0)
			return r;
		if (work > cap)
			return HOT_VAR_OPEN;
		if (budget_spend(b, work - spent + 1))
			return -ETIME;
		if (budget_over_memory(b, search_bytes(s)))
			return -ENOMEM;
		spent = work;
		if (r == 0 && ++at == s->n_open)
			return 0;
		if (r == 0) {
			if ((r = enter_level(s, at)))
				return r;
			continue;
		}
		at = jump_back(s, at);
		if (at == NONE)
			return HOT_VAR_REFUTED;
		if (at == NONE - 1)
			return -ENOMEM;
	}
}

/* The reads hot_var.c's step 2 chooses for, into s->open by thread and
 * place; reads after a write of their value take its block now (step 1).
 * Returns how many. */
static uint32_t open_reads(struct search *s)
{
	struct hot *h = s->h;
	uint32_t n = 0;

	for (uint32_t t = 0; t < h->k; t++) {
		s->open_first[t] = n;
		for (size_t i = 0; i < h->p->threads[t].length; i++) {
			const struct vsc_event *e = event_at(h, t, i);
			size_t g = h->base[t] + i;
			if (e->kind != VSC_READ)
				continue;
			h->node[g] = NONE;
			if (i && (e - 1)->value == e->value) /* no RMW: the value after */
				h->node[g] = h->node[g - 1]; /* NONE: the read before's */
			else
				s->open[n++] = (uint32_t)g;
		}
	}
	s->open_first[h->k] = n;
	return n;
}

static void search_free(struct search *s)
{
	dyn_order_free(&s->d);
	least_path_free(&s->lp);
	writes_by_value_free(&s->w);
	free(s->open);
	free(s->open_first);
	free(s->chosen);
	if (s->lv)
		for (uint32_t j = 0; j < s->n_open; j++)
			free(s->lv[j].cs);
	free(s->lv);
	free(s->cand);
	free(s->level_of);
	free(s->edge_level);
	free(s->edge_other);
	free(s->stamp);
	free(s->chain);
	free(s->chain_at);
	free(s->chain_first);
	free(s->pulled);
}

/* The places of the nodes for the order: by key (INIT_NODE first). */
static uint32_t *initial_places(const struct hot *h)
{
	struct near *by = malloc(h->nodes * sizeof(*by));
	uint32_t *place = malloc(h->nodes * sizeof(uint32_t));

	if (by && place) {
		for (uint32_t x = 0; x < h->nodes; x++)
			by[x] = (struct near){ h->key[x], x };
		qsort(by, h->nodes, sizeof(*by), near_cmp);
		for (uint32_t j = 0; j < h->nodes; j++)
			place[by[j].node] = j;
	} else {
		free(place);
		place = NULL;
	}
	free(by);
	return place;
}

/* Marks in `used` the writes of every value written more than
 * SEARCH_CANDIDATES times: a near-only pass may take any of them. */
static void used_writes_of_many(const struct search *s, uint8_t *used)
{
	const struct hot *h = s->h;

	for (size_t lo = 0, hi; lo < s->w.n; lo = hi) {
		for (hi = lo + 1; hi < s->w.n && s->w.w[hi].value == s->w.w[lo].value; hi++)
			;
		for (size_t k = lo; hi - lo > SEARCH_CANDIDATES && k < hi; k++)
			used[h->node[h->base[s->w.w[k].thread] + s->w.w[k].at]] = 1;
	}
}

/* Marks in `used` the writes a choice may draw an edge to or from: every
 * write of an open read's value (its candidates), and the writes of the
 * read's thread nearest before and after it (its own last write, its next
 * block). Other writes take no edge but their thread's. */
static void used_writes(struct search *s, uint8_t *used)
{
	struct hot *h = s->h;

	if (s->near_only)
		used_writes_of_many(s, used);

	for (uint32_t t = 0; t < h->k; t++) {
		size_t base = h->base[t], len = h->p->threads[t].length;
		for (uint32_t j = s->open_first[t]; j < s->open_first[t + 1]; j++) {
			size_t i = s->open[j] - base, k, lo, hi;
			for (k = i; k > 0 && event_at(h, t, k - 1)->kind == VSC_READ; k--)
				;
			if (k > 0)
				used[h->node[base + k - 1]] = 1;
			for (k = i + 1; k < len && event_at(h, t, k)->kind == VSC_READ; k++)
				;
			if (k < len)
				used[h->node[base + k]] = 1;
			writes_of_value(&s->w, event_at(h, t, i)->value, &lo, &hi);
			if (hi - lo <= SEARCH_CANDIDATES)
				for (k = lo; k < hi; k++)
					used[h->node[h->base[s->w.w[k].thread] + s->w.w[k].at]] = 1;
		}
	}
}

/* Each thread's writes in order: the edges no choice draws, between the
 * writes a choice may use (a path through the others is the same path
 * between those, and the order's searches never visit a node with no
 * edge). 0, 1 (never: the places are by key, each thread's keys
 * ascending) or -ENOMEM. */
static int program_order(struct search *s)
{
	struct hot *h = s->h;
	uint8_t *used = calloc(h->nodes ? h->nodes : 1, 1);
	uint32_t n = 0;
	int r = 0;

	s->chain = malloc((h->nodes ? h->nodes : 1) * sizeof(uint32_t));
	s->chain_at = malloc((h->nodes ? h->nodes : 1) * sizeof(uint32_t));
	s->chain_first = malloc(((size_t)h->k + 1) * sizeof(uint32_t));
	s->pulled = malloc(((size_t)h->k + 1) * sizeof(uint32_t));
	if (!used || !s->chain || !s->chain_at || !s->chain_first || !s->pulled) {
		free(used);
		return -ENOMEM;
	}
	used_writes(s, used);
	memset(s->chain_at, 0xff, h->nodes * sizeof(uint32_t));
	for (uint32_t x = 0; x < h->nodes; x++)
		if (x != INIT_NODE)
			s->d.place[x] += HIGH;
	s->d.place[INIT_NODE] = 0;
	s->next_place = 1;
	for (uint32_t t = 0; t < h->k && !r; t++) {
		s->chain_first[t] = s->pulled[t] = n;
		for (size_t i = 0, last = NONE; i < h->p->threads[t].length && !r; i++)
			if (event_at(h, t, i)->kind != VSC_READ) {
				uint32_t x = h->node[h->base[t] + i];
				if (!used[x])
					continue;
				s->chain_at[x] = n;
				s->chain[n++] = x;
				if (last != NONE && !(r = label_room(s)) &&
				    !(r = dyn_order_add(&s->d, (uint32_t)last, x)))
					s->edge_level[s->d.edges - 1] =
						s->edge_other[s->d.edges - 1] = NONE;
				last = x;
			}
	}
	s->chain_first[h->k] = n;
	free(used);
	return r;
}

/* One search, each read trying its nearest near_only writes (0: all), at
 * most cap work. */
static int search_once(struct hot *h, struct budget *b, uint32_t near_only, unsigned long cap)
{
	struct search s = { .h = h, .init_level = NONE, .near_only = near_only, .work_cap = cap };
	uint32_t *place = initial_places(h);
	uint32_t n;
	int r = -ENOMEM;

	s.open = malloc((h->n ? h->n : 1) * sizeof(uint32_t));
	s.level_of = malloc((h->n ? h->n : 1) * sizeof(uint32_t));
	if (!place || !s.open || !s.level_of || dyn_order_init(&s.d, h->nodes, place) ||
	    least_path_init(&s.lp, h->nodes) || writes_by_value_build(&s.w, h->p))
		goto out;
	memset(s.level_of, 0xff, h->n * sizeof(uint32_t));
	s.open_first = malloc(((size_t)h->k + 1) * sizeof(uint32_t));
	s.chosen = calloc(h->k ? h->k : 1, sizeof(uint32_t));
	if (!s.open_first || !s.chosen)
		goto out;
	n = s.n_open = open_reads(&s);
	if (budget_over_memory(b, search_bytes(&s)))
		goto out; /* -ENOMEM: the memory limit */
	s.lv = calloc(n ? (size_t)n : 1, sizeof(*s.lv));
	s.stamp = calloc(n ? (size_t)n : 1, sizeof(uint32_t));
	if (!s.lv || !s.stamp)
		goto out;
	r = program_order(&s);
	if (r == 1)
		r = HOT_VAR_OPEN;
	if (!r)
		r = search_levels(&s, b);
	if (r == -EDEADLK) /* conflict_path(): the order's invariant broken */
		r = HOT_VAR_OPEN;
out:
	free(place);
	search_free(&s);
	return r;
}

int hot_search_choose(struct hot *h, struct budget *b)
{
	int r;

	if (h->k > SEARCH_THREADS || h->nodes > HIGH)
		return HOT_VAR_OPEN; /* places HIGH + 0 .. nodes - 1 fit 32 bits */
	for (size_t j = 0; !h->hinted && j < sizeof(near_passes) / sizeof(*near_passes); j++) {
		r = search_once(h, b, near_passes[j], NEAR_WORK * h->n + SEARCH_WORK_FLOOR);
		if (r == 0 || r < 0)
			return r; /* a witness, or the time or memory limit */
	}
	return search_once(h, b, 0, SEARCH_WORK * h->n + SEARCH_WORK_FLOOR);
}
