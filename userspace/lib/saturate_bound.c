/* SPDX-License-Identifier: MIT */
/* The lower bound's table (forced_stops()). The bound asks, for threads u
 * and v, two numbers of the predecessor vectors only:
 *   last[u][v] = vec[u's last event][v]  (events of v before u's last),
 *   back[u][v] = vec[v's event last[u][v] - 1][u]  (events of u before it),
 * k x k numbers in all. They are read off the vectors when the fixpoint kept
 * them (events x threads words), or, for the reads' first ranges, found by
 * two passes over the events that keep a vector per thread and a few per
 * value read (below): kilobytes where the vectors took events x threads
 * (320 MB at 10^7 events and 8 threads, over the cap that then left the
 * search without its bound). */
#include "saturate_int.h"
#include "userspace/util/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NO_SLOT UINT32_MAX
#define MAX_SLOT_WORDS ((size_t)16 << 20)

/* One topological pass over the orders of the first ranges. A read r of
 * the pair p = (x, v), x written by W, has the range [lo, hi] of every read
 * of p: the first and the last epoch holding v. Its orders are the write
 * opening lo -> r and r -> the write opening hi + 1, the same for all reads
 * of p. So the vectors the orders carry live per pair, from the write
 * opening lo (or p's first read) to the write opening hi + 1, in a slot:
 * the vector of the opening write, and the merge of p's reads, which the
 * closing write takes. With values that identify writes that is one epoch
 * per variable at a time; with few values, one slot per value.
 * Most events change nothing of this but their own thread's entry: a thread
 * that took p's opening vector once has it, and a read whose thread's
 * vector did not grow since its last read of p only moves its own entry in
 * the merge. A version per thread, bumped when its vector grows in another
 * thread's entry, tells which; so most events cost O(1), not O(threads). */
struct stream {
	uint32_t k;
	uint32_t *cur;                /* k x k: per thread, the vector of its event passed last */
	uint32_t *version;            /* per thread: bumped when cur grows in another entry */
	uint32_t *pos;                /* per thread: its next event */
	uint32_t *read;               /* per thread: the number of its next read */
	uint32_t *epoch;              /* per variable: W's writes of it passed */
	uint32_t *waiting;            /* per xw entry: reads the write still waits for */
	int waiting_counted;          /* index_pairs() counted them for the first pass */
	uint8_t *read_by_other;       /* per pair: bit set when another thread than W reads it */
	uint32_t *close_off, *closes; /* per xw entry: the pairs whose hi + 1 it opens */
	uint32_t *slot_of;            /* per pair: its slot, or NO_SLOT */
	/* slots of 4 x k words: the opening vector, the merge of the reads,
	 * per thread whether it took the first, and its version + 1 when it
	 * last merged into the second */
	uint32_t *pool, *free_slot, nslots, nfree;
	size_t pool_cap, free_cap;
	/* pass 2 */
	uint32_t *ask;  /* per thread v, the indices whose vector is asked, */
	uint32_t *who;  /* sorted, and the thread u asking (k x k each) */
	uint32_t *nask; /* per thread: how many; next: the next one not met */
	uint32_t *next;
	uint32_t unanswered;
};

/* The first epoch holding pair p of x: the range of every read of p starts
 * there. */
static uint32_t first_epoch(const struct sat_state *s, uint32_t x, uint32_t p)
{
	if (init_matches(s, x, p))
		return 0;
	return s->a->writes_of[p] ? s->pe[pe_start(s, p)] : UINT32_MAX;
}

static uint32_t *slot_words(const struct stream *st, uint32_t slot)
{
	return st->pool + (size_t)slot * 4 * st->k;
}

/* Pair p's slot, made when it has none: its index, or NO_SLOT when the
 * slots would pass MAX_SLOT_WORDS or memory ran out. */
static uint32_t slot_for(struct stream *st, uint32_t p)
{
	uint32_t slot = st->slot_of[p];

	if (slot != NO_SLOT)
		return slot;
	if (st->nfree) {
		slot = st->free_slot[--st->nfree];
	} else {
		size_t words = ((size_t)st->nslots + 1) * 4 * st->k;
		if (words > MAX_SLOT_WORDS || ARRAY_RESERVE(st->pool, st->pool_cap, words) ||
		    ARRAY_RESERVE(st->free_slot, st->free_cap, (size_t)st->nslots + 1))
			return NO_SLOT;
		slot = st->nslots++;
	}
	memset(slot_words(st, slot), 0, 4 * st->k * sizeof(uint32_t));
	st->slot_of[p] = slot;
	return slot;
}

static void slot_free(struct stream *st, uint32_t p)
{
	st->free_slot[st->nfree++] = st->slot_of[p];
	st->slot_of[p] = NO_SLOT;
}

/* Event f (thread t, index i) with vector v: record what pass 2 asks. */
static void answer(struct stream *st, uint32_t t, uint32_t i, const uint32_t *v, uint32_t *back)
{
	uint32_t k = st->k, *n = &st->next[t];

	while (*n < st->nask[t] && st->ask[t * k + *n] == i) {
		uint32_t u = st->who[t * k + *n];
		back[u * k + t] = v[u];
		(*n)++;
		st->unanswered--;
	}
}

static int raise_to(uint32_t *dst, const uint32_t *src, uint32_t k)
{
	int grew = 0;

	for (uint32_t j = 0; j < k; j++)
		if (src[j] > dst[j]) {
			dst[j] = src[j];
			grew = 1;
		}
	return grew;
}

/* W's write (index i) of x, opening epoch e: it takes the reads of the
 * pairs it closes, then opens the pair it writes when e is its lo. Returns
 * 0, or -E2BIG when no slot could be had. */
static int pass_write(const struct sat_state *s, struct stream *st, uint32_t w, uint32_t i,
		      uint32_t x)
{
	uint32_t k = st->k, *v = st->cur + (size_t)w * k, e = ++st->epoch[x];
	uint32_t c = s->xw_off[x] + e - 1, p = s->a->pairs[w][i].write, slot;

	for (uint32_t q = st->close_off[c]; q < st->close_off[c + 1]; q++) {
		uint32_t closed = st->closes[q];
		if (st->slot_of[closed] == NO_SLOT)
			continue; /* no read of it passed */
		if (raise_to(v, slot_words(st, st->slot_of[closed]) + k, k))
			st->version[w]++;
		slot_free(st, closed);
	}
	if (!(st->read_by_other[p / 8] & (1u << p % 8)) || first_epoch(s, x, p) != e)
		return 0;
	if ((slot = slot_for(st, p)) == NO_SLOT)
		return -E2BIG;
	memcpy(slot_words(st, slot), v, k * sizeof(uint32_t));
	slot_words(st, slot)[w] = i + 1;
	return 0;
}

/* Thread t's read r (index i) of the pair p of x, written by another
 * thread. Returns 0, or -E2BIG when no slot could be had. */
static int pass_read(const struct sat_state *s, struct stream *st, uint32_t t, uint32_t i,
		     uint32_t r, uint32_t p)
{
	uint32_t k = st->k, *v = st->cur + (size_t)t * k, slot = st->slot_of[p], *words;
	uint32_t x = s->p->threads[t].events[i].var, m = epochs_of(s, x);

	if (s->hi[r] < m)
		st->waiting[s->xw_off[x] + s->hi[r]]--;
	if (s->lo[r] == 0 && s->hi[r] == m)
		return 0; /* no order with W */
	if (slot == NO_SLOT && (slot = slot_for(st, p)) == NO_SLOT)
		return -E2BIG;
	words = slot_words(st, slot);
	if (s->lo[r] >= 1 && !words[2 * k + t]) {
		if (raise_to(v, words, k))
			st->version[t]++;
		words[2 * k + t] = 1;
	}
	if (s->hi[r] < m) {
		if (words[3 * k + t] != st->version[t] + 1) {
			raise_to(words + k, v, k);
			words[3 * k + t] = st->version[t] + 1;
		}
		words[k + t] = i + 1;
	}
	return 0;
}

/* Thread t's event i: 1 when it must wait, 0 when it passed, -E2BIG. */
static int step(const struct sat_state *s, struct stream *st, uint32_t t, uint32_t i)
{
	const struct vsc_event *ev = &s->p->threads[t].events[i];
	uint32_t x = ev->var, *v = st->cur + (size_t)t * st->k;

	if (s->a->writers[x] != 1)
		return (v[t] = i), 0;
	if (s->a->writer[x] == t) {
		int writes = s->a->pairs[t][i].write != PAIR_NONE;
		if (writes && st->waiting[s->xw_off[x] + st->epoch[x]])
			return 1; /* reads of the epoch it closes are pending */
		v[t] = i;
		return writes ? pass_write(s, st, t, i, x) : 0;
	}
	if (ev->kind != VSC_READ)
		return (v[t] = i), 0;
	uint32_t r = st->read[t];
	if (st->epoch[x] < s->lo[r])
		return 1; /* the write opening its first epoch has not passed */
	v[t] = i;
	st->read[t]++;
	return pass_read(s, st, t, i, r, s->a->pairs[t][i].read);
}

/* Run thread t as far as the orders let it: the events passed, or -E2BIG. */
static int64_t advance(const struct sat_state *s, struct stream *st, uint32_t t, uint32_t *last,
		       uint32_t *back)
{
	uint32_t len = s->p->threads[t].length, i = st->pos[t], k = st->k;
	uint32_t *v = st->cur + (size_t)t * k, moved;
	int r = 0;

	for (; i < len && (r = step(s, st, t, i)) == 0; i++)
		if (back)
			answer(st, t, i, v, back);
	if (r < 0)
		return r;
	moved = i - st->pos[t];
	if (!back && i == len && moved)
		memcpy(last + (size_t)t * k, v, k * sizeof(uint32_t));
	st->pos[t] = i;
	return moved;
}

/* The reads each write of a one-writer variable waits for (per xw entry:
 * the reads of the epoch it closes). */
static void count_waiting(const struct sat_state *s, uint32_t *waiting)
{
	uint32_t t = 0, i;

	memset(waiting, 0, ((size_t)s->xw_off[s->a->nvars] + 1) * sizeof(uint32_t));
	for (uint32_t r = 0; r < s->nreads; r++) { /* reads are in flat order */
		uint32_t x = flat_event_in_order(s, s->read_flat[r], &t, &i)->var;
		if (s->hi[r] < epochs_of(s, x))
			waiting[s->xw_off[x] + s->hi[r]]++;
	}
}

static void stream_reset(const struct sat_state *s, struct stream *st)
{
	size_t k = st->k;

	if (!st->waiting_counted)
		count_waiting(s, st->waiting);
	st->waiting_counted = 0;
	memset(st->cur, 0, k * k * sizeof(uint32_t));
	memset(st->version, 0, k * sizeof(uint32_t));
	memset(st->epoch, 0, (size_t)s->a->nvars * sizeof(uint32_t));
	memset(st->slot_of, 0xff, (size_t)s->a->npairs * sizeof(uint32_t));
	st->nfree = 0;
	for (uint32_t slot = st->nslots; slot > 0; slot--)
		st->free_slot[st->nfree++] = slot - 1;
	for (uint32_t t = 0; t < k; t++) { /* reads are numbered in flat order */
		st->pos[t] = 0;
		st->read[t] = first_at_least(s->read_flat, 0, s->nreads, s->base[t]);
	}
}

/* A topological pass, threads in turn, each as far as it can go: pass 1
 * (back NULL) fills last, pass 2 back (and stops once all is answered).
 * Returns 0, 1 on a cycle, -E2BIG or -ETIME. */
static int stream_pass(const struct sat_state *s, struct stream *st, uint32_t *last, uint32_t *back,
		       struct budget *b)
{
	uint32_t done = 0;

	stream_reset(s, st);
	for (uint32_t moved = 1; moved && !(back && st->unanswered == 0);) {
		moved = 0;
		for (uint32_t t = 0; t < st->k; t++) {
			int64_t m = advance(s, st, t, last, back);
			if (m < 0)
				return (int)m;
			moved += (uint32_t)m;
		}
		done += moved;
		if (budget_spend(b, (unsigned long)st->k + moved))
			return -ETIME;
	}
	return done == s->n || back ? 0 : 1;
}

/* Pass 2's questions: for each thread v, the indices last[u][v] - 1, sorted. */
static void ask_back(struct stream *st, const uint32_t *last)
{
	uint32_t k = st->k;

	st->unanswered = 0;
	for (uint32_t v = 0; v < k; v++) {
		uint32_t n = 0;
		for (uint32_t u = 0; u < k; u++) {
			uint32_t c = last[u * k + v], at;
			if (u == v || c == 0)
				continue;
			for (at = n; at > 0 && st->ask[v * k + at - 1] > c - 1; at--) {
				st->ask[v * k + at] = st->ask[v * k + at - 1];
				st->who[v * k + at] = st->who[v * k + at - 1];
			}
			st->ask[v * k + at] = c - 1;
			st->who[v * k + at] = u;
			n++;
		}
		st->nask[v] = n;
		st->next[v] = 0;
		st->unanswered += n;
	}
}

/* Which pairs another thread than W reads, and the write that closes each
 * (close_off, closes by xw entry: the write opening hi + 1, hi being the
 * range of every read of the pair). The first of its two passes over the
 * reads counts the first stream pass's waiting too (count_waiting()). */
static int index_pairs(const struct sat_state *s, struct stream *st)
{
	size_t np = s->a->npairs, nw = s->xw_off[s->a->nvars];
	uint8_t *filled = calloc(np / 8 + 1, 1);

	st->read_by_other = calloc(np / 8 + 1, 1);
	st->close_off = calloc(nw + 2, sizeof(uint32_t));
	memset(st->waiting, 0, (nw + 1) * sizeof(uint32_t));
	st->waiting_counted = 1;
	st->closes = malloc((np + 1) * sizeof(uint32_t));
	if (!filled || !st->read_by_other || !st->close_off || !st->closes) {
		free(filled);
		return -ENOMEM;
	}
	for (int fill = 0; fill < 2; fill++) {
		uint8_t *seen = fill ? filled : st->read_by_other;
		uint32_t t = 0, i;
		for (uint32_t r = 0; r < s->nreads; r++) { /* reads are in flat order */
			uint32_t x = flat_event_in_order(s, s->read_flat[r], &t, &i)->var;
			uint32_t p = s->a->pairs[t][i].read, c = s->xw_off[x] + s->hi[r];
			if (!fill && s->hi[r] < epochs_of(s, x))
				st->waiting[c]++;
			if (seen[p / 8] & (1u << p % 8))
				continue;
			seen[p / 8] |= (uint8_t)(1u << p % 8);
			if (s->hi[r] == epochs_of(s, x))
				continue; /* never closed */
			if (fill)
				st->closes[st->close_off[c]++] = p;
			else
				st->close_off[c + 1]++;
		}
		if (!fill)
			for (size_t c = 0; c < nw; c++)
				st->close_off[c + 1] += st->close_off[c];
	}
	for (size_t c = nw; c > 0; c--)
		st->close_off[c] = st->close_off[c - 1];
	st->close_off[0] = 0;
	free(filled);
	return 0;
}

static void stream_free(struct stream *st)
{
	free(st->cur);
	free(st->version);
	free(st->pos);
	free(st->read);
	free(st->epoch);
	free(st->waiting);
	free(st->read_by_other);
	free(st->close_off);
	free(st->closes);
	free(st->slot_of);
	free(st->pool);
	free(st->free_slot);
	free(st->ask);
	free(st->who);
	free(st->nask);
	free(st->next);
}

static int stream_alloc(const struct sat_state *s, struct stream *st)
{
	size_t k = s->k, kk = k * k + 1;

	st->k = s->k;
	st->cur = malloc(kk * sizeof(uint32_t));
	st->version = malloc((k + 1) * sizeof(uint32_t));
	st->pos = malloc((k + 1) * sizeof(uint32_t));
	st->read = malloc((k + 1) * sizeof(uint32_t));
	st->epoch = malloc(((size_t)s->a->nvars + 1) * sizeof(uint32_t));
	st->waiting = malloc(((size_t)s->xw_off[s->a->nvars] + 1) * sizeof(uint32_t));
	st->slot_of = malloc(((size_t)s->a->npairs + 1) * sizeof(uint32_t));
	st->ask = malloc(kk * sizeof(uint32_t));
	st->who = malloc(kk * sizeof(uint32_t));
	st->nask = malloc((k + 1) * sizeof(uint32_t));
	st->next = malloc((k + 1) * sizeof(uint32_t));
	if (!st->cur || !st->version || !st->pos || !st->read || !st->epoch || !st->waiting ||
	    !st->slot_of || !st->ask || !st->who || !st->nask || !st->next)
		return -ENOMEM;
	return index_pairs(s, st);
}

int bound_table_by_passes(struct sat_state *s, struct forced *f, struct budget *b)
{
	size_t kk = (size_t)s->k * s->k + 1;
	struct stream st = { 0 };
	int r = stream_alloc(s, &st);

	f->last = calloc(kk, sizeof(uint32_t));
	f->back = calloc(kk, sizeof(uint32_t));
	if (!r && (!f->last || !f->back))
		r = -ENOMEM;
	if (!r)
		r = stream_pass(s, &st, f->last, NULL, b);
	if (!r) {
		ask_back(&st, f->last);
		r = stream_pass(s, &st, f->last, f->back, b);
	}
	stream_free(&st);
	return r;
}

int bound_table_from_vectors(const struct sat_state *s, struct forced *f)
{
	uint32_t k = s->k;

	f->last = calloc((size_t)k * k + 1, sizeof(uint32_t));
	f->back = calloc((size_t)k * k + 1, sizeof(uint32_t));
	if (!f->last || !f->back)
		return -ENOMEM;
	for (uint32_t u = 0; u < k; u++) {
		uint32_t len = s->p->threads[u].length;
		if (len == 0)
			continue;
		memcpy(f->last + (size_t)u * k, s->vec + (size_t)(s->base[u] + len - 1) * k,
		       k * sizeof(uint32_t));
		for (uint32_t v = 0; v < k; v++) {
			uint32_t c = f->last[u * k + v];
			if (v != u && c > 0)
				f->back[u * k + v] = s->vec[(size_t)(s->base[v] + c - 1) * k + u];
		}
	}
	return 0;
}

uint32_t forced_stops(const struct forced *f, const struct vsc_program *p, const uint32_t *pos)
{
	uint32_t k = f->k, stops = 0;

	for (uint32_t u = 0; u < k; u++) {
		const uint32_t *last = f->last + (size_t)u * k, *back = f->back + (size_t)u * k;
		if (pos[u] + 1 >= p->threads[u].length)
			continue; /* one event left cannot be split */
		for (uint32_t v = 0; v < k; v++)
			/* v's event last[v] - 1 is pending and comes before u's
			 * last event; does a pending event of u precede it? */
			if (v != u && last[v] > pos[v] && back[v] > pos[u]) {
				stops++;
				break;
			}
	}
	return stops;
}
