/* SPDX-License-Identifier: MIT */
/* The lower bound's table (forced_stops()). The bound asks, for threads u
 * and v, two numbers of the predecessor vectors only:
 *   last[u][v] = vec[u's last event][v]  (events of v before u's last),
 *   back[u][v] = vec[v's event last[u][v] - 1][u]  (events of u before it),
 * k x k numbers in all. They are read off the vectors when the fixpoint kept
 * them (events x threads words), or, when no read has a choice of writes
 * (the fixpoint has nothing to do), found by two passes over the events
 * that keep a vector per thread and a few words per variable and thread
 * (below): kilobytes where the vectors took events x threads (320 MB at
 * 10^7 events and 8 threads, over the cap that then left the search
 * without its bound). */
#include "saturate_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One topological pass. Without choices of writes, a read r of a
 * one-writer variable x has one epoch e: its edges are the write opening e
 * -> r and r -> the write opening e + 1. When r is passed, W has passed
 * exactly e writes of x (the first edge is in, the second not yet), so the
 * vectors an edge carries live per variable: that of W's latest write of x,
 * and the merge of the reads of x since, which the next write takes.
 * Most events change nothing of this but their own thread's entry: a thread
 * that took epoch e of x once has it, and a read whose thread's vector did
 * not grow since its last read of the epoch only moves its own entry in the
 * merge. A version per thread, bumped when its vector grows in another
 * thread's entry, tells which; so most events cost O(1), not O(threads). */
struct stream {
	uint32_t k, nvars;
	uint32_t *cur;     /* k x k: per thread, the vector of its event passed last */
	uint32_t *version; /* per thread: bumped when cur grows in another entry */
	uint32_t *pos;     /* per thread: its next event */
	uint32_t *read;    /* per thread: the number of its next read */
	/* per one-writer variable x, written by W */
	uint32_t *opened;         /* nvars x k: W's latest write of x, with it */
	uint32_t *opened_version; /* W's version when it was taken (UINT32_MAX: never) */
	uint32_t *readers;        /* nvars x k: the reads of x since, with them */
	uint32_t *any_readers;    /* per variable: readers is not all zero */
	uint32_t *epoch;          /* per variable: W's writes of it passed */
	uint32_t *waiting;        /* per xw entry: reads the write still waits for */
	/* per thread t and variable x (t * nvars + x) */
	uint32_t *took;         /* the epoch + 1 whose opened t took last (0: none) */
	uint32_t *gave;         /* the epoch + 1 into whose readers t merged last */
	uint32_t *gave_version; /* t's version then */
	/* pass 2 */
	uint32_t *ask;  /* per thread v, the indices whose vector is asked, */
	uint32_t *who;  /* sorted, and the thread u asking (k x k each) */
	uint32_t *nask; /* per thread: how many; next: the next one not met */
	uint32_t *next;
	uint32_t unanswered;
};

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

/* W's write (index i) of x, with vector v: it takes the reads of the epoch
 * it closes and opens the next. */
static void pass_write(const struct sat_state *s, struct stream *st, uint32_t w, uint32_t i,
		       uint32_t x)
{
	uint32_t k = st->k, *v = st->cur + (size_t)w * k;
	uint32_t *opened = st->opened + (size_t)x * k, *readers = st->readers + (size_t)x * k;

	(void)s;
	if (st->any_readers[x]) {
		if (raise_to(v, readers, k))
			st->version[w]++;
		memset(readers, 0, k * sizeof(uint32_t));
		st->any_readers[x] = 0;
	}
	if (st->opened_version[x] != st->version[w]) {
		memcpy(opened, v, k * sizeof(uint32_t));
		st->opened_version[x] = st->version[w];
	}
	opened[w] = i + 1; /* the rest is v's, as the versions agree */
	st->epoch[x]++;
}

/* Thread t's read (index i) of x, written by another thread. */
static void pass_read(const struct sat_state *s, struct stream *st, uint32_t t, uint32_t i,
		      uint32_t x)
{
	uint32_t k = st->k, e = st->epoch[x], *v = st->cur + (size_t)t * k;
	size_t tx = (size_t)t * st->nvars + x;

	if (e >= 1 && st->took[tx] != e) {
		if (raise_to(v, st->opened + (size_t)x * k, k))
			st->version[t]++;
		st->took[tx] = e;
	}
	if (e < epochs_of(s, x)) {
		uint32_t *readers = st->readers + (size_t)x * k;
		if (st->gave[tx] != e + 1 || st->gave_version[tx] != st->version[t]) {
			raise_to(readers, v, k);
			st->gave[tx] = e + 1;
			st->gave_version[tx] = st->version[t];
		}
		readers[t] = i + 1;
		st->any_readers[x] = 1;
	}
}

/* Run thread t as far as the orders let it; returns the events passed. */
static uint32_t advance(const struct sat_state *s, struct stream *st, uint32_t t, uint32_t *last,
			uint32_t *back)
{
	const struct vsc_event *ev = s->p->threads[t].events;
	uint32_t len = s->p->threads[t].length, i = st->pos[t], k = st->k;
	uint32_t *v = st->cur + (size_t)t * k;

	for (; i < len; i++) {
		uint32_t x = ev[i].var;
		if (s->a->writers[x] == 1 && s->a->writer[x] == t) {
			if (s->a->pairs[t][i].write != PAIR_NONE &&
			    st->waiting[s->xw_off[x] + st->epoch[x]])
				break; /* reads of the epoch it closes are pending */
			v[t] = i;
			if (s->a->pairs[t][i].write != PAIR_NONE)
				pass_write(s, st, t, i, x);
		} else if (s->a->writers[x] == 1 && ev[i].kind == VSC_READ) {
			uint32_t r = st->read[t];
			if (st->epoch[x] < s->lo[r])
				break; /* its write has not passed */
			if (s->hi[r] < epochs_of(s, x))
				st->waiting[s->xw_off[x] + s->hi[r]]--;
			st->read[t]++;
			v[t] = i;
			pass_read(s, st, t, i, x);
		} else {
			v[t] = i;
		}
		if (back)
			answer(st, t, i, v, back);
	}
	uint32_t moved = i - st->pos[t];

	if (!back && i == len && moved)
		memcpy(last + (size_t)t * k, v, k * sizeof(uint32_t));
	st->pos[t] = i;
	return moved;
}
/* The reads each write of a one-writer variable waits for (per xw entry:
 * the reads of the epoch it closes). */
static void count_waiting(const struct sat_state *s, uint32_t *waiting)
{
	memset(waiting, 0, ((size_t)s->xw_off[s->a->nvars] + 1) * sizeof(uint32_t));
	for (uint32_t r = 0; r < s->nreads; r++) {
		uint32_t t, i, x = flat_event(s, s->read_flat[r], &t, &i)->var;
		if (s->hi[r] < epochs_of(s, x))
			waiting[s->xw_off[x] + s->hi[r]]++;
	}
}

static void stream_reset(const struct sat_state *s, struct stream *st)
{
	size_t k = st->k, nv = st->nvars;

	count_waiting(s, st->waiting);
	memset(st->cur, 0, k * k * sizeof(uint32_t));
	memset(st->version, 0, k * sizeof(uint32_t));
	memset(st->opened_version, 0xff, nv * sizeof(uint32_t));
	memset(st->readers, 0, nv * k * sizeof(uint32_t));
	memset(st->any_readers, 0, nv * sizeof(uint32_t));
	memset(st->epoch, 0, nv * sizeof(uint32_t));
	memset(st->took, 0, k * nv * sizeof(uint32_t));
	memset(st->gave, 0, k * nv * sizeof(uint32_t));
	for (uint32_t t = 0; t < k; t++) { /* reads are numbered in flat order */
		st->pos[t] = 0;
		st->read[t] = first_at_least(s->read_flat, 0, s->nreads, s->base[t]);
	}
}

/* A topological pass, threads in turn, each as far as it can go: pass 1
 * (back NULL) fills last, pass 2 back (and stops once all is answered).
 * Returns 0, 1 on a cycle, or -ETIME. */
static int stream_pass(const struct sat_state *s, struct stream *st, uint32_t *last, uint32_t *back,
		       struct budget *b)
{
	uint32_t done = 0;

	stream_reset(s, st);
	for (uint32_t moved = 1; moved && !(back && st->unanswered == 0);) {
		moved = 0;
		for (uint32_t t = 0; t < st->k; t++)
			moved += advance(s, st, t, last, back);
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

static void stream_free(struct stream *st)
{
	free(st->cur);
	free(st->version);
	free(st->pos);
	free(st->read);
	free(st->opened);
	free(st->opened_version);
	free(st->readers);
	free(st->any_readers);
	free(st->epoch);
	free(st->waiting);
	free(st->took);
	free(st->gave);
	free(st->gave_version);
	free(st->ask);
	free(st->who);
	free(st->nask);
	free(st->next);
}

static int stream_alloc(const struct sat_state *s, struct stream *st)
{
	size_t k = s->k, nv = s->a->nvars, kk = k * k + 1, vk = nv * k + 1;

	st->k = s->k;
	st->nvars = s->a->nvars;
	st->cur = malloc(kk * sizeof(uint32_t));
	st->version = malloc((k + 1) * sizeof(uint32_t));
	st->pos = malloc((k + 1) * sizeof(uint32_t));
	st->read = malloc((k + 1) * sizeof(uint32_t));
	st->opened = malloc(vk * sizeof(uint32_t));
	st->opened_version = malloc((nv + 1) * sizeof(uint32_t));
	st->readers = malloc(vk * sizeof(uint32_t));
	st->any_readers = malloc((nv + 1) * sizeof(uint32_t));
	st->epoch = malloc((nv + 1) * sizeof(uint32_t));
	st->waiting = malloc(((size_t)s->xw_off[nv] + 1) * sizeof(uint32_t));
	st->took = malloc(vk * sizeof(uint32_t));
	st->gave = malloc(vk * sizeof(uint32_t));
	st->gave_version = malloc(vk * sizeof(uint32_t));
	st->ask = malloc(kk * sizeof(uint32_t));
	st->who = malloc(kk * sizeof(uint32_t));
	st->nask = malloc((k + 1) * sizeof(uint32_t));
	st->next = malloc((k + 1) * sizeof(uint32_t));
	if (!st->cur || !st->version || !st->pos || !st->read || !st->opened ||
	    !st->opened_version || !st->readers || !st->any_readers || !st->epoch || !st->waiting ||
	    !st->took || !st->gave || !st->gave_version || !st->ask || !st->who || !st->nask ||
	    !st->next)
		return -ENOMEM;
	return 0;
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
