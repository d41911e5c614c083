/* SPDX-License-Identifier: MIT */
/* When values identify writes (every read has exactly one write, or the
 * initial value, it can read), reads-from is known, and a program is SC iff
 * some coherence order (a total order of each variable's writes) makes
 * program order + reads-from + coherence + from-read acyclic. We saturate
 * the orders every SC interleaving must contain (docs/solvers.md, "Values
 * that identify writes"):
 *  - rule A: a write w' of x that must precede a read r of w (w' != w) must
 *    precede w;
 *  - rule B: a write w' of x that must follow w (w' != r) must follow r;
 * with vectors (how many events of each thread must precede an event) from
 * a topological pass, so each rule needs one binary search per writer
 * thread of x. A cycle refutes the program for every bound. Otherwise the
 * orders give a lower bound on the preemptions, and a greedy run that
 * keeps them (and never overwrites a value a pending read needs) is tried
 * as a witness; whatever it cannot settle is left to the search. */
#include "coherence.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "coherence_guess.h"
#include "write_index.h"
#include "userspace/util/sorted.h"
#include "userspace/util/array.h"

#define SLOT_TWICE 0x80000000u /* write index: two writes of the pair */
#define MAX_EVENTS 0x7ffffff0u
#define MAX_VECTOR_WORDS ((size_t)160 << 20) /* sync events x threads */
#define MAX_RUN_WORDS ((size_t)16 << 20)     /* threads x threads: 4,096 threads */
#define RULE_WORK_PER_EVENT 64               /* reads x writer threads, per event */
#define MAX_ROUNDS 64
#define GUESS_FIRST_THREADS 64 /* more threads: the guessed run first */
#define MAX_STOPPED 64         /* stopped threads charged by stops_along() */

/* Inlined whatever the compiler thinks of its size: the per-event steps,
 * and the prefetches (a function that only prefetches looks free of
 * effects to the compiler, which then drops the call before inlining). */
#define HOT static inline __attribute__((always_inline))

struct segment {
	uint32_t thread, start, end; /* writes of a variable by one thread: wlist[start, end) */
};

struct coh {
	const struct vsc_program *p;
	struct budget *b;
	uint32_t k, n, nvars;
	uint32_t *base;    /* per thread + 1: flat number of its event 0 */
	uint32_t *rf;      /* per flat event: the write it reads, COH_INIT or COH_NONE */
	uint32_t *seg_off; /* per variable + 1: its segments */
	struct segment *segs;
	uint32_t *wlist; /* flat writes, by variable, then thread, in program order */
	uint32_t *wrank; /* per wlist entry, while the rules run: sync events up to it */
	uint64_t *edges; /* derived orders (to << 32 | from), sorted */
	size_t nedges;
	/* Vectors: vec(e)[u] = events of thread u that precede e or are e.
	 * Stored only for "sync" events (an order from another thread ends
	 * there: a read of another thread's write, a derived order); any other
	 * event has its thread's previous sync event's vector (own entry
	 * aside). rows holds them in flat order, one row of k per sync event. */
	uint64_t *sync;        /* bit per flat event */
	uint32_t *sync_before; /* per 64 events: sync events before them */
	uint32_t *first_row;   /* per thread + 1: rank of its first sync event */
	uint32_t *sync_flat;   /* per sync event: its flat number */
	uint32_t *rows;
	uint32_t nsync;
	uint32_t *run;  /* per thread: the vector of its last placed event (k x k) */
	uint32_t *pos;  /* per thread: events placed */
	uint64_t *done; /* bit per flat event: placed (by the pass or the run under way) */
	size_t *cursor; /* per thread: first edge into its next event */
	uint64_t steps; /* events placed by every pass and run: the work done */
	int refuted;
	bool vectors; /* the rows fit (threads x threads, sync events x threads) */
};

static uint32_t thread_of(const struct coh *c, uint32_t flat)
{
	return last_at_most(c->base, 0, c->k, flat);
}

static int writes(const struct vsc_event *e)
{
	return e->kind != VSC_READ;
}

static int64_t written(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* Bits set in x. (__builtin_popcountll is a library call when the build
 * targets no particular processor: this is a few instructions inline.) */
static inline uint32_t bits_set(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (uint32_t)((x * 0x0101010101010101ULL) >> 56);
}

/* Sync events with a flat number below x. */
static uint32_t sync_rank(const struct coh *c, uint32_t x)
{
	uint64_t below = x & 63 ? c->sync[x >> 6] & ((1ULL << (x & 63)) - 1) : 0;

	return c->sync_before[x >> 6] + bits_set(below);
}

static int is_sync(const struct coh *c, uint32_t f)
{
	return (c->sync[f >> 6] >> (f & 63)) & 1;
}

/* The row holding vec(f) (f in thread t), or NULL: no sync event of t up
 * to f, so vec(f) is 0 but for t's own entry. */
static const uint32_t *row_of(const struct coh *c, uint32_t f, uint32_t t)
{
	uint32_t r = sync_rank(c, f + 1);

	return r > c->first_row[t] ? c->rows + (size_t)(r - 1) * c->k : NULL;
}

/* vec(f)[u], f in thread t. */
static uint32_t vec_at(const struct coh *c, uint32_t f, uint32_t t, uint32_t u)
{
	const uint32_t *row;

	if (u == t)
		return f - c->base[t] + 1;
	row = row_of(c, f, t);
	return row ? row[u] : 0;
}

/* ---- reads-from: the one write of each read's (variable, value) ---------- */

/* How many events ahead the passes over the write index ask for an
 * entry: about as many misses as a core keeps in flight. */
#define PREFETCH_AHEAD 16

/* Ask for the entry that event i + PREFETCH_AHEAD of th will look up: the
 * pair it writes (write) or reads. */
HOT void prefetch_pair(const struct write_index *wi, const struct vsc_thread *th, uint32_t i,
		       bool write)
{
	uint32_t ahead = i + PREFETCH_AHEAD < th->length ? i + PREFETCH_AHEAD : i;
	const struct vsc_event *e = &th->events[ahead];

	write_index_prefetch(wi, e->var, write ? written(e) : e->value);
}

/* (variable, value) -> the flat number + 1 of its first write, with
 * SLOT_TWICE once a second write of the pair is seen. */
static int index_writes(const struct coh *c, struct write_index *wi)
{
	if (write_index_init(wi, c->p))
		return -ENOMEM;
	for (uint32_t t = 0; t < c->k; t++)
		for (uint32_t i = 0; i < c->p->threads[t].length; i++) {
			const struct vsc_event *e = &c->p->threads[t].events[i];
			uint32_t *s;

			prefetch_pair(wi, &c->p->threads[t], i, true);
			if (!writes(e))
				continue;
			s = write_index_put(wi, e->var, written(e));
			if (!s)
				return -ENOMEM;
			*s = *s ? *s | SLOT_TWICE : c->base[t] + i + 1;
		}
	return 0;
}

/* rf of one read of (x, v): COH_NONE when nothing gives v (refuted),
 * SLOT_TWICE when there is a choice. */
static uint32_t source_of(const struct coh *c, const struct write_index *wi, uint32_t x, int64_t v)
{
	const struct vsc_var_init *in = &c->p->inits[x];
	const uint32_t *slot = write_index_get(wi, x, v);
	uint32_t s = slot ? *slot : 0;
	int from_init =
		in->kind == VSC_INIT_UNKNOWN || (in->kind == VSC_INIT_KNOWN && in->value == v);

	if (s && (from_init || (s & SLOT_TWICE)))
		return SLOT_TWICE;
	if (s)
		return s - 1;
	return from_init ? COH_INIT : COH_NONE;
}

/* Fill c->rf, and mark the reads of another thread's write as sync
 * events. Returns 0, COHERENCE_NOT_APPLY or -ENOMEM. */
static int link_reads(struct coh *c)
{
	struct write_index wi = { 0 };
	uint8_t *seen = calloc((size_t)c->nvars + 1, 1); /* init x ?: a read fixed it */
	int64_t *init_value = malloc(((size_t)c->nvars + 1) * sizeof(int64_t));
	int r = index_writes(c, &wi);

	if (!r && (!seen || !init_value))
		r = -ENOMEM;
	for (uint32_t t = 0; !r && t < c->k; t++)
		for (uint32_t i = 0; !r && i < c->p->threads[t].length; i++) {
			const struct vsc_event *e = &c->p->threads[t].events[i];
			uint32_t f = c->base[t] + i, s = COH_NONE;
			prefetch_pair(&wi, &c->p->threads[t], i, false);
			if (e->kind != VSC_WRITE)
				s = source_of(c, &wi, e->var, e->value);
			c->rf[f] = s;
			if (e->kind == VSC_WRITE)
				continue;
			if (s < COH_INIT && (s < c->base[t] || s >= c->base[t + 1]))
				c->sync[f >> 6] |= 1ULL
						   << (f & 63); /* reads another thread's write */
			if (s == SLOT_TWICE)
				r = COHERENCE_NOT_APPLY;
			else if (s == COH_NONE)
				c->refuted = 1; /* nothing writes the value read */
			else if (s == COH_INIT && seen[e->var] && init_value[e->var] != e->value)
				c->refuted = 1; /* init x ?: one value only */
			if (s == COH_INIT) {
				seen[e->var] = 1;
				init_value[e->var] = e->value;
			}
		}
	write_index_free(&wi);
	free(seen);
	free(init_value);
	return r;
}

/* ---- writes of each variable, grouped by thread ---------------------- */

/* c->wlist: the flat writes by variable, then thread, in program order.
 * off (zeroed, nvars + 2) ends with off[x] where variable x's start. */
static int list_writes(struct coh *c, uint32_t *off)
{
	for (uint32_t t = 0; t < c->k; t++) /* count per variable */
		for (uint32_t i = 0; i < c->p->threads[t].length; i++) {
			const struct vsc_event *e = &c->p->threads[t].events[i];
			if (writes(e))
				off[e->var + 2]++;
		}
	for (uint32_t x = 0; x < c->nvars; x++)
		off[x + 2] += off[x + 1];
	c->wlist = malloc(((size_t)off[c->nvars + 1] + 1) * sizeof(uint32_t));
	if (!c->wlist)
		return -ENOMEM;
	for (uint32_t t = 0; t < c->k; t++)
		for (uint32_t i = 0; i < c->p->threads[t].length; i++) {
			const struct vsc_event *e = &c->p->threads[t].events[i];
			if (writes(e))
				c->wlist[off[e->var + 1]++] = c->base[t] + i;
		}
	return 0;
}

/* The segments (runs of one thread's writes) of each variable's list:
 * counted, and stored in c->segs and c->seg_off when fill. */
static uint32_t segment_writes(struct coh *c, const uint32_t *off, bool fill)
{
	uint32_t nsegs = 0, last_thread, t;

	for (uint32_t x = 0; x < c->nvars; x++) {
		if (fill)
			c->seg_off[x] = nsegs;
		last_thread = UINT32_MAX;
		t = 0;
		for (uint32_t j = off[x]; j < off[x + 1]; j++) {
			while (c->wlist[j] >= c->base[t + 1]) /* the list is in flat order */
				t++;
			if (t != last_thread) {
				if (fill)
					c->segs[nsegs] = (struct segment){ t, j, j };
				nsegs++;
				last_thread = t;
			}
			if (fill)
				c->segs[nsegs - 1].end = j + 1;
		}
	}
	return nsegs;
}

static int group_writes(struct coh *c)
{
	uint32_t *off = calloc((size_t)c->nvars + 2, sizeof(uint32_t));
	int r = off ? list_writes(c, off) : -ENOMEM;

	c->seg_off = malloc(((size_t)c->nvars + 1) * sizeof(uint32_t));
	if (!c->seg_off)
		r = -ENOMEM;

	if (!r) {
		c->segs = malloc(((size_t)segment_writes(c, off, false) + 1) * sizeof(*c->segs));
		if (c->segs)
			c->seg_off[c->nvars] = segment_writes(c, off, true);
		else
			r = -ENOMEM;
	}
	free(off);
	return r;
}

/* Is the work of one round of rules affordable (reads x writer threads)? */
static int rules_affordable(const struct coh *c)
{
	uint64_t work = 0;

	for (uint32_t t = 0; t < c->k; t++)
		for (uint32_t i = 0; i < c->p->threads[t].length; i++) {
			uint32_t x = c->p->threads[t].events[i].var;
			if (c->rf[c->base[t] + i] != COH_NONE)
				work += c->seg_off[x + 1] - c->seg_off[x];
		}
	return work <= (uint64_t)RULE_WORK_PER_EVENT * c->n + 1024;
}

/* What the rules need: each variable's writes grouped by thread. 0, or
 * COHERENCE_NOT_APPLY when a round would cost too much, or -ENOMEM. */
static int prepare_rules(struct coh *c)
{
	int r = group_writes(c);

	return r ? r : rules_affordable(c) ? 0 : COHERENCE_NOT_APPLY;
}

/* ---- vectors: one topological pass ------------------------------------ */

/* Mark the targets of derived orders as sync events, rank them, and make
 * room for their rows. 0, or COHERENCE_NOT_APPLY: too many rows. */
static int index_sync(struct coh *c)
{
	uint32_t words = (c->n >> 6) + 1, total = 0;
	uint32_t *rows;

	for (size_t e = 0; e < c->nedges; e++) {
		uint32_t f = (uint32_t)(c->edges[e] >> 32);
		c->sync[f >> 6] |= 1ULL << (f & 63);
	}
	for (uint32_t w = 0; w < words; w++) {
		c->sync_before[w] = total;
		total += bits_set(c->sync[w]);
	}
	for (uint32_t t = 0; t <= c->k; t++)
		c->first_row[t] = sync_rank(c, c->base[t]);
	if ((size_t)total * c->k > MAX_VECTOR_WORDS)
		return COHERENCE_NOT_APPLY;
	if (total > c->nsync || !c->rows) {
		rows = realloc(c->rows, ((size_t)total * c->k + 1) * sizeof(uint32_t));
		if (!rows)
			return -ENOMEM;
		c->rows = rows;
		rows = realloc(c->sync_flat, ((size_t)total + 1) * sizeof(uint32_t));
		if (!rows)
			return -ENOMEM;
		c->sync_flat = rows;
	}
	c->nsync = total;
	total = 0;
	for (uint32_t w = 0; w < words; w++)
		for (uint64_t bits = c->sync[w]; bits; bits &= bits - 1)
			c->sync_flat[total++] = (w << 6) + (uint32_t)__builtin_ctzll(bits);
	return 0;
}

static size_t first_edge_into(const struct coh *c, uint32_t flat)
{
	size_t lo = 0, hi = c->nedges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uint32_t)(c->edges[mid] >> 32) < flat)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int placed(const struct coh *c, uint32_t flat)
{
	return (c->done[flat >> 6] >> (flat & 63)) & 1;
}

static void mark_placed(struct coh *c, uint32_t f)
{
	c->done[f >> 6] |= 1ULL << (f & 63);
}

/* Is every derived order into event f (next of thread t) placed? Asked
 * once per event by the pass and the run, so inlined, and without orders
 * (the first pass) a single comparison. */

HOT int edges_placed(const struct coh *c, uint32_t t, uint32_t f)
{
	if (c->cursor[t] >= c->nedges)
		return 1;
	for (size_t e = c->cursor[t]; e < c->nedges && (uint32_t)(c->edges[e] >> 32) == f; e++)
		if (!placed(c, (uint32_t)c->edges[e]))
			return 0;
	return 1;
}

/* May event f (next of thread t) be placed: its source and every derived
 * order into it placed? */
HOT int preds_placed(const struct coh *c, uint32_t t, uint32_t f)
{
	return (c->rf[f] >= COH_INIT || placed(c, c->rf[f])) && edges_placed(c, t, f);
}

static void join(uint32_t *v, const uint32_t *w, uint32_t k)
{
	for (uint32_t u = 0; u < k; u++)
		if (w[u] > v[u])
			v[u] = w[u];
}

static void reset_cursors(struct coh *c)
{
	memset(c->done, 0, (((size_t)c->n >> 6) + 1) * sizeof(uint64_t));
	for (uint32_t t = 0; t < c->k; t++) {
		c->pos[t] = 0;
		c->cursor[t] = first_edge_into(c, c->base[t]);
	}
}

/* v = max(v, vec(s)). */
static void join_from(const struct coh *c, uint32_t *v, uint32_t s)
{
	uint32_t ts = thread_of(c, s);
	const uint32_t *row = row_of(c, s, ts);

	if (row)
		join(v, row, c->k);
	if (v[ts] < s - c->base[ts] + 1)
		v[ts] = s - c->base[ts] + 1;
}

/* The vector of sync event f (index i of thread t) from its predecessors,
 * stored in its row; moves the thread's cursor on. (Any other event's
 * vector is its thread's previous sync event's: nothing to do.) */
static void place_vector(struct coh *c, uint32_t t, uint32_t f, uint32_t i)
{
	uint32_t k = c->k, *run = c->run + (size_t)t * k, *row;
	size_t e = c->cursor[t];

	run[t] = i + 1;
	if (c->rf[f] < COH_INIT)
		join_from(c, run, c->rf[f]);
	for (; e < c->nedges && (uint32_t)(c->edges[e] >> 32) == f; e++)
		join_from(c, run, (uint32_t)c->edges[e]);
	c->cursor[t] = e;
	row = c->rows + (size_t)sync_rank(c, f) * k;
	memcpy(row, run, k * sizeof(uint32_t));
}

/* Place thread t's events while their predecessors are placed. Returns
 * how many it placed. */
static uint32_t sweep_thread(struct coh *c, uint32_t t)
{
	uint32_t start = c->pos[t], len = c->p->threads[t].length, i, f;

	for (i = start, f = c->base[t] + start; i < len && preds_placed(c, t, f); i++, f++) {
		if (is_sync(c, f))
			place_vector(c, t, f, i);
		mark_placed(c, f);
	}
	c->pos[t] = i;
	return i - start;
}

/* 1: acyclic, vectors set; 0: a cycle; -ETIME. */
static int sweep(struct coh *c)
{
	uint32_t left = c->n, placed_now = 1;

	reset_cursors(c);
	memset(c->run, 0, (size_t)c->k * c->k * sizeof(uint32_t));
	while (placed_now && left > 0) {
		placed_now = 0;
		for (uint32_t t = 0; t < c->k; t++)
			placed_now += sweep_thread(c, t);
		left -= placed_now;
		c->steps += placed_now;
		if (budget_spend(c->b, (unsigned long)c->k * (placed_now + 1)))
			return -ETIME;
	}
	return left == 0;
}

/* ---- the rules -------------------------------------------------------- */

struct edge_buf {
	uint64_t *e;
	size_t n, cap;
};

static int add_edge(struct edge_buf *eb, uint32_t from, uint32_t to)
{
	uint64_t v = (uint64_t)to << 32 | from;

	if (eb->n > 0 && eb->e[eb->n - 1] == v)
		return 0;
	if (ARRAY_RESERVE_FROM(eb->e, eb->cap, eb->n + 1, 4096))
		return -ENOMEM;
	eb->e[eb->n++] = v;
	return 0;
}

/* Index in L[0, m) of the first write not before limit_flat. */
static uint32_t writes_before(const uint32_t *L, uint32_t m, uint32_t limit_flat)
{
	return first_at_least(L, 0, m, limit_flat);
}

/* The first index in [lo, n) of the increasing array a whose value is at
 * least v (n when none), given a[lo - 1] < v: galloping from lo, so a
 * search that moves a little from the last answer costs a little. */
static uint32_t gallop_at_least(const uint32_t *a, uint32_t lo, uint32_t n, uint32_t v)
{
	uint32_t hi = lo, step = 1;

	while (hi < n && a[hi] < v) {
		lo = hi + 1;
		hi = n - lo > step ? lo + step : n;
		step *= 2;
	}
	return first_at_least(a, lo, hi, v);
}

/* c->wrank for the sync events as they are now (their rows move when
 * orders are added), so the rules find a write's row without a count. */
static int rank_writes(struct coh *c)
{
	size_t n = c->seg_off[c->nvars] ? c->segs[c->seg_off[c->nvars] - 1].end : 0;

	if (!c->wrank && !(c->wrank = malloc((n + 1) * sizeof(uint32_t))))
		return -ENOMEM;
	for (size_t j = 0; j < n; j++)
		c->wrank[j] = sync_rank(c, c->wlist[j] + 1);
	return 0;
}

/* vec(L[j])[v] for the write at wlist index j, of thread u (v != u). */
static uint32_t write_vec_at(const struct coh *c, uint32_t j, uint32_t u, uint32_t v)
{
	uint32_t r = c->wrank[j];

	return r > c->first_row[u] ? c->rows[(size_t)(r - 1) * c->k + v] : 0;
}

/* A read under the rules: f (index i of thread t) with vec(f) in row, and
 * its source w (index iw of thread tw, vec(w) in wrow) or COH_INIT. */
struct rule_read {
	uint32_t f, t, i, w, tw, iw;
	const uint32_t *row, *wrow;
};

/* Does the source of rd precede the write at wlist index j (thread u)? */
static int source_precedes(const struct coh *c, const struct rule_read *rd, uint32_t j, uint32_t u)
{
	return write_vec_at(c, j, u, rd->tw) > rd->iw;
}

/* Index of the first write in segment sg (writes of thread u) that must
 * follow the source of rd (its own thread: the first after it in program
 * order). Vectors grow along program order, so the writes that w precedes
 * are a suffix of the segment. It usually starts near guess (the first
 * write of u that rd's read does not follow): a gallop from there, or a
 * binary search below it when it starts lower. */
static uint32_t first_after(const struct coh *c, const struct segment *sg, uint32_t u,
			    const struct rule_read *rd, uint32_t guess)
{
	uint32_t m = sg->end - sg->start, lo = guess, hi = guess, step = 1;

	if (u == rd->tw)
		return writes_before(c->wlist + sg->start, m, rd->w + 1);
	if (m == 0 || !source_precedes(c, rd, sg->end - 1, u))
		return m; /* w precedes none of them */
	if (guess > 0 && source_precedes(c, rd, sg->start + guess - 1, u)) {
		lo = 0;
		hi = guess - 1;
	} else {
		while (hi < m - 1 && !source_precedes(c, rd, sg->start + hi, u)) {
			lo = hi + 1;
			hi = m - 1 - lo > step ? lo + step : m - 1;
			step *= 2;
		}
	}
	while (lo < hi) { /* the answer is in [lo, hi] */
		uint32_t mid = lo + (hi - lo) / 2;
		if (source_precedes(c, rd, sg->start + mid, u))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Rules A and B for read rd of x against the writes of one thread
 * (segment sg). *hint: (reader + 1) << 32 | where the search below ended
 * for that reader's previous read of x (the writes of u a thread's reads
 * follow only grow along its program order). */
static int rules_for(struct coh *c, struct edge_buf *eb, const struct rule_read *rd,
		     const struct segment *sg, uint64_t *hint)
{
	const uint32_t *L = c->wlist + sg->start;
	uint32_t m = sg->end - sg->start, u = sg->thread, w = rd->w;
	uint32_t seen = u == rd->t ? rd->i : rd->row ? rd->row[u] : 0;
	uint32_t from = *hint >> 32 == (uint64_t)rd->t + 1 ? (uint32_t)*hint : 0;
	uint32_t j = gallop_at_least(L, from, m, c->base[u] + seen);
	int r = 0;

	*hint = ((uint64_t)rd->t + 1) << 32 | j;
	if (j > 0 && L[j - 1] != w) { /* rule A */
		uint32_t before;      /* vec(w)[u]: u's events that precede w */
		if (w == COH_INIT) {
			c->refuted = 1; /* a write precedes a read of the initial value */
			return 0;
		}
		before = u == rd->tw ? rd->iw + 1 : rd->wrow ? rd->wrow[u] : 0;
		if (before <= L[j - 1] - c->base[u])
			r = add_edge(eb, L[j - 1], w);
	}
	j = w == COH_INIT ? 0 : first_after(c, sg, u, rd, j); /* rule B */
	if (j < m && L[j] == rd->f)
		j++;
	/* f before L[j] already? (u == t: L[j] follows f in program order) */
	if (!r && j < m &&
	    !(u == rd->t ? L[j] > rd->f : write_vec_at(c, sg->start + j, u, rd->t) > rd->i))
		r = add_edge(eb, rd->f, L[j]);
	return r;
}

static int derive(struct coh *c, struct edge_buf *eb, uint64_t *hints)
{
	eb->n = 0;
	memset(hints, 0, ((size_t)c->seg_off[c->nvars] + 1) * sizeof(uint64_t));
	for (uint32_t t = 0; t < c->k; t++) {
		const struct vsc_thread *th = &c->p->threads[t];
		for (uint32_t i = 0; i < th->length; i++) {
			struct rule_read rd = { .f = c->base[t] + i, .t = t, .i = i };
			uint32_t x = th->events[i].var;
			rd.w = c->rf[rd.f];
			if (rd.w == COH_NONE)
				continue;
			rd.row = row_of(c, rd.f, t);
			if (rd.w != COH_INIT) {
				rd.tw = thread_of(c, rd.w);
				rd.iw = rd.w - c->base[rd.tw];
				rd.wrow = row_of(c, rd.w, rd.tw);
			}
			for (uint32_t s = c->seg_off[x]; s < c->seg_off[x + 1]; s++) {
				int r = rules_for(c, eb, &rd, &c->segs[s], &hints[s]);
				if (r || c->refuted)
					return r;
			}
		}
		if (budget_spend(c->b, th->length))
			return -ETIME;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Merge the new edges (sorted, unique) into c->edges. */
static int merge_edges(struct coh *c, struct edge_buf *eb)
{
	size_t n = 0, i = 0, j = 0;
	uint64_t *all;

	qsort(eb->e, eb->n, sizeof(uint64_t), cmp_u64);
	for (size_t a = 0; a < eb->n; a++)
		if (n == 0 || eb->e[n - 1] != eb->e[a])
			eb->e[n++] = eb->e[a];
	eb->n = n;
	all = malloc((c->nedges + n + 1) * sizeof(uint64_t));
	if (!all)
		return -ENOMEM;
	n = 0;
	while (i < c->nedges || j < eb->n) {
		if (j == eb->n || (i < c->nedges && c->edges[i] <= eb->e[j]))
			all[n++] = c->edges[i++];
		else
			all[n++] = eb->e[j++];
	}
	free(c->edges);
	c->edges = all;
	c->nedges = n;
	return 0;
}

/* Rounds of vectors and rules until nothing new (or MAX_ROUNDS: what is
 * known then is sound too). 0 or -errno; c->refuted on a cycle. */
static int saturate(struct coh *c)
{
	struct edge_buf eb = { 0 };
	uint64_t *hints = malloc(((size_t)c->seg_off[c->nvars] + 1) * sizeof(uint64_t));
	int r = hints ? 0 : -ENOMEM;

	for (unsigned round = 0; round < MAX_ROUNDS && !r && !c->refuted; round++) {
		r = sweep(c);
		if (r <= 0) {
			c->refuted = r == 0;
			break;
		}
		r = rank_writes(c);
		if (!r)
			r = derive(c, &eb, hints);
		if (r || c->refuted || eb.n == 0)
			break;
		r = merge_edges(c, &eb);
		if (!r)
			r = index_sync(c); /* COHERENCE_NOT_APPLY: too many rows */
		if (!r && round + 1 == MAX_ROUNDS && (r = sweep(c)) >= 0) {
			c->refuted = r == 0; /* the vectors must hold every edge kept */
			r = 0;
		}
	}
	free(eb.e);
	free(hints);
	return r < 0 || r == COHERENCE_NOT_APPLY ? r : 0;
}

/* ---- lower bound and witness ------------------------------------------ */

/* Preemptions thread u cannot avoid. For an event e of u (index ie) let a
 * be the most events of u that must precede some event of another thread
 * that must precede e: then u is switched away from (unfinished) at one of
 * its events a - 1 .. ie - 1. Ranges that do not overlap need different
 * preemptions; taking them by earliest end counts the most. Only sync
 * events change a, and their rows are in program order. */
static long forced_stops_of(const struct coh *c, uint32_t u)
{
	uint32_t free_from = 0; /* u's events from here are in no counted range */
	long stops = 0;

	for (uint32_t r = c->first_row[u]; r < c->first_row[u + 1]; r++) {
		const uint32_t *row = c->rows + (size_t)r * c->k;
		uint32_t ie = c->sync_flat[r] - c->base[u], a = 0;
		for (uint32_t v = 0; v < c->k; v++) {
			uint32_t before = v == u || row[v] == 0
						  ? 0
						  : vec_at(c, c->base[v] + row[v] - 1, v, u);
			a = before > a ? before : a;
		}
		if (a >= 1 && a - 1 >= free_from) {
			stops++;
			free_from = ie;
		}
	}
	return stops;
}

/* A lower bound on the preemptions of every SC interleaving: each
 * preemption switches away from one thread. */
static long forced_stops(const struct coh *c)
{
	long stops = 0;

	for (uint32_t u = 0; u < c->k; u++)
		stops += forced_stops_of(c, u);
	return stops;
}

struct run_state {
	uint32_t *mem;       /* per variable: flat write in memory, or COH_INIT */
	uint32_t *left;      /* per flat write: its reads not run yet */
	uint32_t *init_left; /* per variable: reads of the initial value not run yet */
};

HOT int runnable(const struct coh *c, const struct run_state *s, uint32_t t)
{
	uint32_t f, cur, waiting;
	const struct vsc_event *e;

	if (c->pos[t] == c->p->threads[t].length)
		return 0;
	f = c->base[t] + c->pos[t];
	e = &c->p->threads[t].events[c->pos[t]];
	cur = s->mem[e->var];
	/* memory holds only writes that ran: a source found there is placed */
	if ((c->rf[f] != COH_NONE && c->rf[f] != cur) || !edges_placed(c, t, f))
		return 0;
	if (!writes(e))
		return 1;
	waiting = cur == COH_INIT ? s->init_left[e->var] : s->left[cur];
	return waiting == (c->rf[f] == cur); /* nobody else still needs cur */
}

/* Run thread t while its next event can run (what runnable() asks, one
 * event after the other); its thread number goes to steps for each.
 * Returns how many ran. */
static uint32_t run_thread(struct coh *c, struct run_state *s, uint32_t t, uint32_t *steps)
{
	const struct vsc_event *ev = c->p->threads[t].events;
	uint32_t start = c->pos[t], len = c->p->threads[t].length, i, f;

	for (i = start, f = c->base[t] + start; i < len; i++, f++) {
		uint32_t x = ev[i].var, cur = s->mem[x], src = c->rf[f];
		if ((src != COH_NONE && src != cur) || !edges_placed(c, t, f))
			break;
		if (writes(&ev[i])) {
			uint32_t waiting = cur == COH_INIT ? s->init_left[x] : s->left[cur];
			if (waiting != (src == cur)) /* another pending read needs cur */
				break;
			s->mem[x] = f;
		}
		if (src == COH_INIT)
			s->init_left[x]--;
		else if (src != COH_NONE)
			s->left[src]--;
		while (c->cursor[t] < c->nedges && (uint32_t)(c->edges[c->cursor[t]] >> 32) == f)
			c->cursor[t]++;
		mark_placed(c, f);
		steps[i - start] = t;
	}
	c->pos[t] = i;
	return i - start;
}

/* How far thread u could run from its position before an event that
 * must wait for another thread's pending event (vectors are monotone in
 * program order, so one binary search per other thread). */
static uint32_t free_run(const struct coh *c, uint32_t u)
{
	uint32_t end = c->p->threads[u].length;

	for (uint32_t v = 0; v < c->k; v++) {
		uint32_t lo = c->pos[u], hi = end;
		if (v == u)
			continue;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (vec_at(c, c->base[u] + mid, u, v) > c->pos[v])
				hi = mid;
			else
				lo = mid + 1;
		}
		end = lo;
	}
	return end;
}

/* Whom to run after cur: among the threads that can run, one that can
 * finish, else the one that can run longest before it must wait. */
static uint32_t next_thread(const struct coh *c, const struct run_state *s, uint32_t cur)
{
	uint32_t start = cur == COH_NONE ? 0 : cur + 1, best = COH_NONE;
	uint64_t best_score = 0;

	for (uint32_t d = 0; d < c->k; d++) {
		uint32_t u = (start + d) % c->k;
		if (!runnable(c, s, u))
			continue;
		uint32_t end = free_run(c, u), len = c->p->threads[u].length;
		uint64_t score = (end == len ? (uint64_t)1 << 32 : 0) + (end - c->pos[u]) + 1;
		if (score > best_score) {
			best = u;
			best_score = score;
		}
	}
	return best;
}

/* Greedy: the running thread goes on while it can. 1 with the witness in
 * steps and its preemptions in *pre (a switch away from a thread with
 * events left), 0 stuck, -errno. */
static int greedy_run(struct coh *c, uint32_t *steps, long *pre)
{
	struct run_state s = {
		.mem = malloc(((size_t)c->nvars + 1) * sizeof(uint32_t)),
		.left = calloc((size_t)c->n + 1, sizeof(uint32_t)),
		.init_left = calloc((size_t)c->nvars + 1, sizeof(uint32_t)),
	};
	uint32_t cur = COH_NONE, done = 0;
	int r = 0;

	if (!s.mem || !s.left || !s.init_left)
		r = -ENOMEM;
	for (uint32_t x = 0; !r && x < c->nvars; x++)
		s.mem[x] = COH_INIT;
	for (uint32_t t = 0; !r && t < c->k; t++)
		for (uint32_t i = 0; i < c->p->threads[t].length; i++) {
			uint32_t f = c->base[t] + i;
			if (c->rf[f] == COH_INIT)
				s.init_left[c->p->threads[t].events[i].var]++;
			else if (c->rf[f] != COH_NONE)
				s.left[c->rf[f]]++;
		}
	reset_cursors(c);
	*pre = 0;
	while (!r && done < c->n) { /* the running thread has stopped: a switch */
		if (cur != COH_NONE && c->pos[cur] < c->p->threads[cur].length)
			++*pre;
		cur = next_thread(c, &s, cur);
		if (cur == COH_NONE)
			break;
		if (budget_spend(c->b, c->k)) {
			r = -ETIME;
			break;
		}
		done += run_thread(c, &s, cur, steps + done);
	}
	c->steps += done;
	free(s.mem);
	free(s.left);
	free(s.init_left);
	return r ? r : done == c->n;
}

/* ---- the whole -------------------------------------------------------- */

static void coh_free(struct coh *c)
{
	free(c->base);
	free(c->rf);
	free(c->seg_off);
	free(c->segs);
	free(c->wlist);
	free(c->wrank);
	free(c->edges);
	free(c->sync);
	free(c->sync_before);
	free(c->first_row);
	free(c->sync_flat);
	free(c->rows);
	free(c->run);
	free(c->pos);
	free(c->done);
	free(c->cursor);
}

/* Sources, writes by thread, room for vectors (c->vectors: they fit). 0,
 * COHERENCE_NOT_APPLY or -errno. */
static int coh_build(struct coh *c, const struct vsc_program *p, struct budget *b)
{
	int r;

	*c = (struct coh){ .p = p, .b = b, .k = program_threads(p), .nvars = program_vars(p) };
	if (p->event_count > MAX_EVENTS || c->k == 0)
		return COHERENCE_NOT_APPLY;
	c->n = (uint32_t)p->event_count;
	c->base = malloc(((size_t)c->k + 1) * sizeof(uint32_t));
	c->rf = malloc(((size_t)c->n + 1) * sizeof(uint32_t));
	c->pos = malloc((size_t)c->k * sizeof(uint32_t));
	c->cursor = malloc((size_t)c->k * sizeof(size_t));
	if (!c->base || !c->rf || !c->pos || !c->cursor)
		return -ENOMEM;
	c->base[0] = 0;
	for (uint32_t t = 0; t < c->k; t++)
		c->base[t + 1] = c->base[t] + p->threads[t].length;
	c->sync = calloc(((size_t)c->n >> 6) + 1, sizeof(uint64_t));
	if (!c->sync)
		return -ENOMEM;
	if ((r = link_reads(c)) || c->refuted || (size_t)c->k * c->k > MAX_RUN_WORDS)
		return r; /* too many threads: sources only (the guessed run) */
	c->sync_before = malloc((((size_t)c->n >> 6) + 1) * sizeof(uint32_t));
	c->first_row = malloc(((size_t)c->k + 1) * sizeof(uint32_t));
	c->run = malloc((size_t)c->k * c->k * sizeof(uint32_t));
	c->done = malloc((((size_t)c->n >> 6) + 1) * sizeof(uint64_t));
	if (!c->sync_before || !c->first_row || !c->run || !c->done)
		return -ENOMEM;
	r = index_sync(c);
	c->vectors = r == 0;
	return r == COHERENCE_NOT_APPLY ? 0 : r;
}

static int decided(struct vsc_result *res, enum vsc_verdict v)
{
	res->verdict = v;
	return COHERENCE_DECIDED;
}

/* A run found (steps with pre preemptions; steps NULL: none) and a lower
 * bound: keep the better witness in open (steps is taken), and decide
 * when the bound exceeds the bound asked, or the witness kept meets the
 * bound asked (--min: the lower bound). */
static int settle(struct coh *c, const struct query *q, struct vsc_result *res,
		  struct coherence_open *open, uint32_t *steps, long pre, long lower)
{
	if (steps && (!open->witness || pre < open->preemptions)) {
		free(open->witness);
		open->witness = steps;
		open->preemptions = pre;
	} else {
		free(steps);
	}
	open->least = lower > open->least ? lower : open->least;
	if (q->bound >= 0 && open->least > q->bound)
		return decided(res, VSC_INCONSISTENT);
	pre = open->preemptions;
	if (open->witness && (q->minimize ? pre == open->least : q->bound < 0 || pre <= q->bound)) {
		res->witness = open->witness;
		res->witness_length = c->n;
		res->preemptions = res->lower = pre;
		open->witness = NULL;
		return decided(res, VSC_CONSISTENT);
	}
	return COHERENCE_OPEN;
}

static struct coh_sources sources(const struct coh *c)
{
	return (struct coh_sources){ c->p, c->k, c->n, c->nvars, c->base, c->rf };
}

/* forced_stops() over the threads a witness switches away from
 * unfinished, each at most once: no other thread stops there, so none is
 * forced to (forced_stops() looks at every thread for each sync event). */
static long stops_along(struct coh *c, const uint32_t *steps)
{
	struct coh_sources s = sources(c);
	uint32_t u[MAX_STOPPED], m = coh_preempted_threads(&s, steps, c->pos, u, MAX_STOPPED);
	long stops = 0;

	for (uint32_t j = 0; j < m; j++)
		stops += forced_stops_of(c, u[j]);
	return stops;
}

/* The saturated orders hold no cycle: the lower bound, then the greedy
 * run, unless a guessed run went first with many threads (the greedy
 * compares every thread at each switch; the bound is then taken over the
 * threads that witness stops). */
static int try_witness(struct coh *c, const struct query *q, struct vsc_result *res,
		       struct coherence_open *open)
{
	bool cheap = open->witness && c->k > GUESS_FIRST_THREADS;
	long lower = cheap ? stops_along(c, open->witness) : forced_stops(c), pre = -1;
	uint32_t *steps = NULL;
	int ok = 0;

	if (!cheap && (q->bound < 0 || lower <= q->bound)) {
		steps = malloc(((size_t)c->n + 1) * sizeof(uint32_t));
		ok = steps ? greedy_run(c, steps, &pre) : -ENOMEM;
	}
	if (ok != 1) {
		free(steps);
		steps = NULL;
	}
	return ok < 0 ? ok : settle(c, q, res, open, steps, pre, lower);
}

/* Does a witness with pre preemptions answer q alone (settle())? Then the
 * bound along it is not needed. */
static bool witness_answers(const struct query *q, long pre)
{
	return q->minimize ? pre == 0 : q->bound < 0 || pre <= q->bound;
}

/* The run under the coherence order the values suggest
 * (coherence_guess.c), and the lower bound read along its witness. */
static int try_guess(struct coh *c, const struct query *q, struct vsc_result *res,
		     struct coherence_open *open)
{
	struct coh_sources s = sources(c);
	uint32_t *steps = malloc(((size_t)c->n + 1) * sizeof(uint32_t));
	long pre = -1, lower = 0;
	long enough = q->minimize ? 0 : q->bound < 0 ? LONG_MAX : q->bound;
	int ok = steps ? coherence_guess_run(&s, c->b, enough, steps, &pre) : -ENOMEM;

	c->steps += ok == 1 ? c->n : 0;
	if (ok == 1 && !witness_answers(q, pre) &&
	    (lower = coherence_path_bound(&s, steps, c->b)) < 0)
		ok = (int)lower;
	if (ok != 1) {
		free(steps);
		return ok < 0 ? ok : COHERENCE_OPEN;
	}
	return settle(c, q, res, open, steps, pre, lower);
}

/* Vectors, the lower bound and the greedy run with program order and
 * sources alone (the rules cost most, and where values identify writes
 * the run often needs none); then the rules, and both again. When a round
 * of rules costs too much, or the rows outgrow their cap, what is known
 * then is what is known. */
static int saturate_and_run(struct coh *c, const struct query *q, struct vsc_result *res,
			    struct coherence_open *open)
{
	int r = sweep(c);

	if (r <= 0) {
		c->refuted = r == 0;
		return r;
	}
	r = try_witness(c, q, res, open);
	if (r == COHERENCE_OPEN && (r = prepare_rules(c)) == 0) {
		r = saturate(c);
		if (r == 0 && !c->refuted)
			r = try_witness(c, q, res, open);
	}
	return r == COHERENCE_NOT_APPLY ? COHERENCE_OPEN : r;
}

int coherence_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		    struct vsc_result *res, struct coherence_open *open)
{
	struct coh c;
	int r = coh_build(&c, p, b);
	bool guessed = false;

	*open = (struct coherence_open){ 0, NULL, -1 };
	/* with many threads (or too many for vectors) the guessed run goes
	 * first: it is linear, where the vectors' runs cost threads per switch */
	if (r == 0 && !c.refuted && (!c.vectors || c.k > GUESS_FIRST_THREADS)) {
		r = try_guess(&c, q, res, open);
		guessed = true;
	}
	if (c.vectors && !c.refuted && (guessed ? r == COHERENCE_OPEN : r == 0))
		r = saturate_and_run(&c, q, res, open);
	if (r == COHERENCE_OPEN && !guessed && !c.refuted)
		r = try_guess(&c, q, res, open);
	if (r == 0 && c.refuted)
		r = decided(res, VSC_INCONSISTENT);
	if (r != COHERENCE_OPEN) { /* the witness kept serves only the search */
		free(open->witness);
		/* stopped by a limit: the bound proven so far stays */
		*open = (struct coherence_open){ r == -ETIME || r == -ENOMEM ? open->least : 0,
						 NULL, -1 };
	}
	res->steps += c.steps;
	coh_free(&c);
	return r;
}
