/* SPDX-License-Identifier: MIT */
/* One variable that several threads write and read (a watched `hot`):
 * memory coherence of one location. Once each read is given the write it
 * sees, deciding is linear: a write and the reads that see it are a block
 * of the interleaving, and the blocks must follow each other in an order
 * that keeps every thread's program order, so the choice is good exactly
 * when the graph of blocks that program order draws has no cycle. So:
 *
 *  1. a read of the value its thread's previous event wrote or read sees
 *     that same write (the earliest it may see: nothing is lost);
 *  2. any other read (and an RMW's read) sees the write of its value that
 *     comes last before it by the timestamp hints (every event has one,
 *     as a recording gives) or by the events' places in their threads;
 *  3. the blocks in an order of that graph (Kahn's, the least hint first),
 *     an RMW's block right after the block of the write it reads;
 *  4. the threads run along that order, each as long as it can (few
 *     preemptions), and the verifier checks the run.
 *
 * Linear but for a sort of the writes by value. A choice with a cycle, or
 * a run the verifier rejects, concludes nothing (docs/solvers.md, "One hot
 * variable"): the search decides as before. */
#include "hot_var.h"

#include "dyn_order.h"
#include "hot_merge.h"
#include "hot_var_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Hint of event i of thread t, or its place in its thread scaled to 2^32. */
uint64_t hot_event_key(const struct hot *h, uint32_t t, size_t i)
{
	const struct vsc_thread *th = &h->p->threads[t];

	return h->hinted ? th->ts[i] + 1 : ((uint64_t)i << 32) / th->length + 1;
}

static int all_hinted(const struct vsc_program *p)
{
	for (uint32_t t = 0; t < program_threads(p); t++)
		if (p->threads[t].length && !p->threads[t].ts)
			return 0;
	return 1;
}

/* The thread of event g (the bases are ascending). */
uint32_t hot_thread_of(const struct hot *h, size_t g)
{
	uint32_t lo = 0, hi = h->k;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (h->base[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Value memory holds after e. */
static int64_t value_after(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* Bases and a node per write (reads get theirs in hot_choose()). */
static int hot_index(struct hot *h)
{
	const struct vsc_program *p = h->p;
	uint32_t w = 1;

	h->base = malloc((h->k + 1) * sizeof(size_t));
	h->node = malloc(h->n * sizeof(uint32_t));
	if (!h->base || !h->node)
		return -ENOMEM;
	h->base[0] = 0;
	for (uint32_t t = 0; t < h->k; t++) {
		h->base[t + 1] = h->base[t] + p->threads[t].length;
		for (size_t i = 0; i < p->threads[t].length; i++)
			w += event_at(h, t, i)->kind != VSC_READ;
	}
	h->nodes = w;
	h->key = malloc(w * sizeof(uint64_t));
	h->writer = malloc(w * sizeof(uint32_t));
	h->rmw_of = malloc(w * sizeof(uint32_t));
	h->source = malloc(w * sizeof(uint32_t));
	if (!h->key || !h->writer || !h->rmw_of || !h->source)
		return -ENOMEM;
	h->key[INIT_NODE] = 0;
	h->writer[INIT_NODE] = NONE;
	memset(h->rmw_of, 0xff, w * sizeof(uint32_t));
	memset(h->source, 0xff, w * sizeof(uint32_t));
	w = 1;
	for (uint32_t t = 0; t < h->k; t++) {
		uint32_t *node = h->node + h->base[t];
		for (size_t i = 0; i < p->threads[t].length; i++) {
			node[i] = NONE;
			if (event_at(h, t, i)->kind != VSC_READ) {
				h->key[w] = hot_event_key(h, t, i);
				h->writer[w] = t;
				node[i] = w++;
			}
		}
	}
	return 0;
}

struct by_value {
	int64_t value;
	uint64_t key;
	uint32_t node, writer; /* the writer here too: a read looks at it */
};

static int by_value_cmp(const void *a, const void *b)
{
	const struct by_value *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* First entry of w[lo..hi) with (value, key) above (v, key). */
static size_t after(const struct by_value *w, size_t lo, size_t hi, int64_t v, uint64_t key)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w[mid].value < v || (w[mid].value == v && w[mid].key <= key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#define CANDIDATES 8 /* writes tried for a read, nearest first */

/* What step 2 needs: the writes by value, and the graph of what is
 * chosen so far with a topological order of it. */
struct choice {
	struct by_value *w;
	size_t nw;
	/* when the variable's values span at most SPAN_PER_WRITE a write:
	 * per value from the least, its first entry in w (else NULL) */
	uint32_t *bucket;
	struct dyn_order d;
	unsigned long walked; /* events passed to find a read's neighbours */
	uint32_t cand[CANDIDATES + 1];
};

/* May write node x be the source of event e of thread t (self: e's own
 * node when e is an RMW, else NONE)? A plain read sees another thread's
 * write: its own thread's last value was step 1. */
static int may_see(const struct hot *h, const struct by_value *x, uint32_t t, uint32_t self)
{
	return self != NONE ? x->node != self && h->rmw_of[x->node] == NONE : x->writer != t;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The writes of v that event e (of thread t, at key) may see, nearest by
 * key first, at most CANDIDATES, and the initial value (at key 0) when it
 * may be v. Returns how many, in c->cand. */
static uint32_t candidates(const struct hot *h, struct choice *c, int64_t v, uint64_t key,
			   uint32_t t, uint32_t self)
{
	const struct vsc_var_init *in = &h->p->inits[0];
	const struct by_value *w = c->w;
	size_t hi = c->nw, lo = 0, looked = 0;
	uint32_t n = 0;
	int init = in->kind == VSC_INIT_UNKNOWN || (in->kind == VSC_INIT_KNOWN && in->value == v);

	if (c->bucket && (v < in->least || v > in->most)) {
		hi = 0; /* no write of v (the span holds every value) */
	} else if (c->bucket) {
		uint64_t at = (uint64_t)v - (uint64_t)in->least;
		lo = c->bucket[at];
		hi = c->bucket[at + 1];
	}
	lo = hi = after(w, lo, hi, v, key);
	while (n < CANDIDATES && looked++ < 2 * SOURCE_SCAN) {
		int left = lo > 0 && w[lo - 1].value == v, right = hi < c->nw && w[hi].value == v;
		size_t at;
		if (!left && !right)
			break;
		if (left && (!right || distance(w[lo - 1].key, key) <= distance(w[hi].key, key)))
			at = --lo;
		else
			at = hi++;
		if (init && distance(w[at].key, key) > key) {
			c->cand[n++] = INIT_NODE; /* nearer than this write */
			init = 0;
		}
		if (n < CANDIDATES && may_see(h, &w[at], t, self))
			c->cand[n++] = w[at].node;
	}
	if (init)
		c->cand[n++] = INIT_NODE;
	return n;
}

/* x as the source of the event whose block follows node before and
 * precedes node next (NONE: nothing after): both edges, or none. Returns 0,
 * 1 (a cycle) or -ENOMEM. */
static int try_source(struct dyn_order *d, uint32_t before, uint32_t x, uint32_t next)
{
	int r = 0, added = 0;

	if (x == INIT_NODE && before != INIT_NODE)
		return 1;
	if (before != INIT_NODE && before != x) {
		if ((r = dyn_order_add(d, before, x)))
			return r;
		added = 1;
	}
	if (next != NONE && (r = dyn_order_add(d, x, next)) && added)
		dyn_order_undo(d);
	return r;
}

/* Step 2 for event g, the i-th of thread t: the nearest candidate that
 * closes no cycle; then the reads after it of the same value join it.
 * Returns 0, HOT_VAR_OPEN (no candidate fits) or -ENOMEM. */
static int choose_for(struct hot *h, struct choice *c, uint32_t t, size_t i)
{
	size_t g = h->base[t] + i;
	const struct vsc_event *e = event_at(h, t, i);
	uint32_t self = e->kind == VSC_RMW ? h->node[g] : NONE;
	uint32_t before = INIT_NODE, next = self, n;
	size_t k = i;

	while (k > 0 && h->node[g - i + k - 1] == NONE) /* reads whose choice is to come */
		k--;
	before = k ? h->node[g - i + k - 1] : INIT_NODE;
	c->walked += i - k;
	for (k = i + 1; next == NONE && k < h->p->threads[t].length; k++)
		next = h->node[g - i + k];
	c->walked += k - i;
	n = candidates(h, c, e->value, hot_event_key(h, t, i), t, self);

	for (uint32_t j = 0; j < n; j++) {
		uint32_t x = c->cand[j];
		int r = try_source(&c->d, before, x, next);
		if (r < 0)
			return r;
		if (r)
			continue;
		if (self != NONE) {
			h->rmw_of[x] = self;
			h->source[self] = x;
			return 0;
		}
		for (size_t k = i; k < h->p->threads[t].length; k++) {
			if (k > i &&
			    (event_at(h, t, k)->kind != VSC_READ || e[k - i].value != e->value))
				break;
			h->node[g + k - i] = x;
		}
		return 0;
	}
	return HOT_VAR_OPEN;
}
struct keyed {
	uint64_t key;
	uint64_t what;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->what < y->what ? -1 : x->what > y->what;
}

/* Is event i of thread t one step 2 chooses for (an RMW, or a read that
 * does not see its thread's last value)? Reads after a write of their
 * value join its block here (step 1). */
static int to_choose(struct hot *h, uint32_t t, size_t i)
{
	const struct vsc_event *e = event_at(h, t, i);
	size_t g = h->base[t] + i;

	if (e->kind == VSC_RMW)
		return 1;
	if (e->kind == VSC_WRITE)
		return 0;
	if (i && value_after(e - 1) == e->value) {
		h->node[g] = h->node[g - 1]; /* NONE after a read still open */
		return 0;
	}
	return 1;
}

/* How sure the choice of event i of thread t is: the nearest candidate's
 * distance over the second's, scaled to 2^40 (0: one candidate or none). */
static uint64_t doubt(const struct hot *h, struct choice *c, uint32_t t, size_t i)
{
	const struct vsc_event *e = event_at(h, t, i);
	uint64_t key = hot_event_key(h, t, i), d[2];
	uint32_t self = e->kind == VSC_RMW ? h->node[h->base[t] + i] : NONE;

	if (candidates(h, c, e->value, key, t, self) < 2)
		return 0;
	for (int j = 0; j < 2; j++)
		d[j] = distance(h->key[c->cand[j]], key);
	return (uint64_t)((double)d[0] / ((double)d[1] + 1) * (double)(1ULL << 40));
}

/* The events to choose for, surest first (their choices then constrain
 * the doubtful ones), into list, and the writes' first places in the
 * order of their keys (each the most of its thread's keys so far).
 * Returns how many events, or -ENOMEM. */
static long choice_list(struct hot *h, struct choice *c, struct keyed *list, uint32_t *place)
{
	struct keyed *writes = malloc(h->nodes * sizeof(*writes));
	size_t n = 0, nw = 0;

	if (!writes)
		return -ENOMEM;
	for (uint32_t t = 0; t < h->k; t++) {
		uint64_t most = 0;
		for (size_t i = 0; i < h->p->threads[t].length; i++) {
			uint64_t key = hot_event_key(h, t, i);
			most = key > most ? key : most;
			if (event_at(h, t, i)->kind != VSC_READ)
				writes[nw++] = (struct keyed){ most, h->node[h->base[t] + i] };
			if (to_choose(h, t, i))
				list[n++] = (struct keyed){ doubt(h, c, t, i), h->base[t] + i };
		}
	}
	qsort(list, n, sizeof(*list), keyed_cmp);
	qsort(writes, nw, sizeof(*writes), keyed_cmp);
	place[INIT_NODE] = 0;
	for (size_t j = 0; j < nw; j++)
		place[writes[j].what] = (uint32_t)j + 1;
	free(writes);
	return (long)n;
}

/* Values per write up to which the writes are found by a table by value
 * rather than a binary search of them all (a fifth of the time at 10^7
 * events of a watched loop counter). */
#define SPAN_PER_WRITE 2

/* c->bucket for c->w sorted, when the values span little. 0 or -ENOMEM. */
static int value_buckets(const struct hot *h, struct choice *c)
{
	const struct vsc_var_init *in = &h->p->inits[0];
	uint64_t span = (uint64_t)in->most - (uint64_t)in->least;
	size_t j = 0;

	if (in->least > in->most || span >= SPAN_PER_WRITE * (uint64_t)c->nw + 64)
		return 0;
	span++;
	if (!(c->bucket = malloc((span + 1) * sizeof(uint32_t))))
		return -ENOMEM;
	for (uint64_t v = 0; v <= span; v++) {
		while (j < c->nw && (uint64_t)c->w[j].value - (uint64_t)in->least < v)
			j++;
		c->bucket[v] = (uint32_t)j;
	}
	return 0;
}

/* Work (nodes and edges visited) the order may take per event. */
#define ORDER_WORK 64UL

/* Steps 1 and 2. Returns 0, HOT_VAR_OPEN (a read with no write it may see
 * that closes no cycle, or the work cap) or -errno. */
static int hot_choose(struct hot *h, struct budget *b)
{
	struct choice c = { 0 };
	struct keyed *list = malloc(h->n * sizeof(*list));
	uint32_t *place = malloc(h->nodes * sizeof(uint32_t));
	unsigned long spent = 0;
	long n;
	int r = -ENOMEM;

	c.w = malloc(h->nodes * sizeof(*c.w));
	if (!list || !place || !c.w)
		goto out;
	for (uint32_t t = 0; t < h->k; t++)
		for (size_t i = 0; i < h->p->threads[t].length; i++)
			if (event_at(h, t, i)->kind != VSC_READ) {
				uint32_t x = h->node[h->base[t] + i];
				c.w[c.nw++] = (struct by_value){ value_after(event_at(h, t, i)),
								 h->key[x], x, t };
			}
	qsort(c.w, c.nw, sizeof(*c.w), by_value_cmp);
	if ((r = value_buckets(h, &c)))
		goto out;
	r = -ENOMEM;
	if ((n = choice_list(h, &c, list, place)) < 0 || dyn_order_init(&c.d, h->nodes, place))
		goto out;
	r = 0;
	for (uint32_t t = 0; t < h->k && !r; t++) /* each thread's writes in order */
		for (size_t i = 0, last = NONE; i < h->p->threads[t].length && !r; i++)
			if (event_at(h, t, i)->kind != VSC_READ) {
				uint32_t x = h->node[h->base[t] + i];
				if (last != NONE && dyn_order_add(&c.d, (uint32_t)last, x))
					r = HOT_VAR_OPEN;
				last = x;
			}
	for (long j = 0; j < n && !r; j++) {
		uint32_t t = hot_thread_of(h, list[j].what);
		r = choose_for(h, &c, t, list[j].what - h->base[t]);
		if (!r && c.d.work + c.walked > ORDER_WORK * h->n)
			r = HOT_VAR_OPEN;
		if (!r && budget_spend(b, c.d.work + c.walked - spent + 1))
			r = -ETIME;
		spent = c.d.work + c.walked;
	}
out:
	dyn_order_free(&c.d);
	free(c.w);
	free(c.bucket);
	free(list);
	free(place);
	return r;
}

void hot_graph_free(struct graph *g)
{
	free(g->start);
	free(g->to);
	free(g->indegree);
}

/* Calls edge(h, g, from, to) on every edge. */
#define FOR_EACH_EDGE(h, EDGE)                                                     \
	do {                                                                       \
		for (uint32_t t_ = 0; t_ < (h)->k; t_++) {                         \
			const uint32_t *node_ = (h)->node + (h)->base[t_];         \
			for (size_t i_ = 1; i_ < (h)->p->threads[t_].length; i_++) \
				if (node_[i_ - 1] != node_[i_])                    \
					EDGE(node_[i_ - 1], node_[i_]);            \
		}                                                                  \
		for (uint32_t x_ = 1; x_ < (h)->nodes; x_++)                       \
			if ((h)->source[x_] != NONE)                               \
				EDGE((h)->source[x_], x_);                         \
	} while (0)

int hot_graph_build(const struct hot *h, struct graph *g)
{
	size_t edges = 0;

	g->start = calloc((size_t)h->nodes + 1, sizeof(uint32_t));
	g->indegree = calloc(h->nodes, sizeof(uint32_t));
	if (!g->start || !g->indegree)
		return -ENOMEM;
#define COUNT(a, b) (g->start[(a) + 1]++, g->indegree[b]++, edges++)
	FOR_EACH_EDGE(h, COUNT);
#undef COUNT
	if (edges >= UINT32_MAX)
		return HOT_VAR_OPEN;
	for (uint32_t x = 0; x < h->nodes; x++)
		g->start[x + 1] += g->start[x];
	if (!(g->to = malloc((edges ? edges : 1) * sizeof(uint32_t))))
		return -ENOMEM;
#define FILL(a, b) (g->to[g->start[a]++] = (b))
	FOR_EACH_EDGE(h, FILL);
#undef FILL
	for (uint32_t x = h->nodes; x-- > 1;) /* the fill moved each start to the next */
		g->start[x] = g->start[x - 1];
	g->start[0] = 0;
	return 0;
}

static int ready_before(const struct ready *q, uint32_t a, uint32_t b)
{
	return q->key[a] < q->key[b] || (q->key[a] == q->key[b] && a < b);
}

void hot_ready_push(struct ready *q, uint32_t x)
{
	uint32_t i = q->n++;

	while (i > 0 && ready_before(q, x, q->at[(i - 1) / 2])) {
		q->at[i] = q->at[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->at[i] = x;
}

uint32_t hot_ready_pop(struct ready *q)
{
	uint32_t top = q->at[0], x = q->at[--q->n], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && ready_before(q, q->at[c + 1], q->at[c]))
			c++;
		if (!ready_before(q, q->at[c], x))
			break;
		q->at[i] = q->at[c];
		i = c;
	}
	if (q->n)
		q->at[i] = x;
	return top;
}

/* x is in the order: its edges are done; its RMW, if any, comes next. */
static uint32_t emit(struct hot *h, struct graph *g, struct ready *q, uint32_t x, uint32_t done)
{
	for (;;) {
		h->order[done++] = x;
		for (uint32_t e = g->start[x]; e < g->start[x + 1]; e++) {
			uint32_t y = g->to[e];
			if (--g->indegree[y] == 0 && h->source[y] == NONE)
				hot_ready_push(q, y);
		}
		x = h->rmw_of[x];
		if (x == NONE || g->indegree[x] != 0)
			return done; /* an RMW not ready there: the order will miss it */
	}
}

/* Step 3: the blocks in an order of the graph, least key first. Returns 0,
 * HOT_VAR_OPEN (a cycle, or an RMW that cannot follow its source) or
 * -errno. */
static int hot_order(struct hot *h, struct budget *b)
{
	struct graph g = { 0 };
	struct ready q = { .key = h->key };
	uint32_t done = 0, pops = 0;
	int r = hot_graph_build(h, &g);

	h->order = malloc(h->nodes * sizeof(uint32_t));
	q.at = malloc(h->nodes * sizeof(uint32_t));
	if (!r && (!h->order || !q.at))
		r = -ENOMEM;
	if (!r && g.indegree[INIT_NODE])
		r = HOT_VAR_OPEN;
	for (uint32_t x = 1; !r && x < h->nodes; x++)
		if (!g.indegree[x] && h->source[x] == NONE)
			hot_ready_push(&q, x);
	if (!r)
		done = emit(h, &g, &q, INIT_NODE, 0);
	while (!r && q.n) {
		done = emit(h, &g, &q, hot_ready_pop(&q), done);
		if (++pops % HOT_CHUNK == 0 && budget_spend(b, HOT_CHUNK))
			r = -ETIME;
	}
	if (!r && done != h->nodes)
		r = HOT_VAR_OPEN;
	hot_graph_free(&g);
	free(q.at);
	return r;
}

/* The reads of each block, linked, and how many of them are left. */
int hot_readers(struct hot *h)
{
	free(h->first_reader);
	free(h->pending);
	free(h->next_reader);
	h->first_reader = malloc(h->nodes * sizeof(uint32_t));
	h->pending = calloc(h->nodes, sizeof(uint32_t));
	h->next_reader = malloc(h->n * sizeof(uint32_t));
	if (!h->first_reader || !h->pending || !h->next_reader)
		return -ENOMEM;
	memset(h->first_reader, 0xff, h->nodes * sizeof(uint32_t));
	for (uint32_t t = h->k; t-- > 0;)
		for (size_t i = h->p->threads[t].length; i-- > 0;)
			if (event_at(h, t, i)->kind == VSC_READ) {
				size_t g = h->base[t] + i;
				uint32_t x = h->node[g];
				h->next_reader[g] = h->first_reader[x];
				h->first_reader[x] = (uint32_t)g;
				h->pending[x]++;
			}
	return 0;
}

/* Run state of step 4: at is the place in h->order of the block whose
 * write ran last. */
struct run {
	uint32_t *pos;
	uint32_t at;
};

/* Can thread t run its next event now? */
static int runnable(const struct hot *h, const struct run *u, uint32_t t)
{
	size_t g = h->base[t] + u->pos[t];
	uint32_t cur = h->order[u->at];

	if (u->pos[t] == h->p->threads[t].length)
		return 0;
	if (event_at(h, t, u->pos[t])->kind == VSC_READ)
		return h->node[g] == cur;
	return h->pending[cur] == 0 && u->at + 1 < h->nodes && h->node[g] == h->order[u->at + 1];
}

/* The thread to run when the last one cannot: one with a read of the
 * current block left (its next event is such a read: every block before
 * has run whole), else the writer of the next block. */
static uint32_t next_thread(struct hot *h, struct run *u)
{
	uint32_t cur = h->order[u->at];

	while (h->pending[cur]) {
		size_t g = h->first_reader[cur];
		uint32_t t = hot_thread_of(h, g);
		if (h->base[t] + u->pos[t] <= g)
			return t;
		h->first_reader[cur] = h->next_reader[g]; /* it ran */
	}
	return u->at + 1 < h->nodes ? h->writer[h->order[u->at + 1]] : NONE;
}

/* Step 4 into witness: 0, HOT_VAR_OPEN (stuck: the order is not one the
 * threads can follow) or -ETIME. */
static int hot_run(struct hot *h, struct budget *b, uint32_t *witness)
{
	struct run u = { calloc(h->k, sizeof(uint32_t)), 0 };
	uint32_t t = NONE;
	int r = 0;

	if (!u.pos)
		return -ENOMEM;
	for (size_t done = 0; done < h->n && !r; done++) {
		if (t == NONE || !runnable(h, &u, t))
			t = next_thread(h, &u);
		if (t == NONE || !runnable(h, &u, t)) {
			r = HOT_VAR_OPEN;
			break;
		}
		witness[done] = t;
		if (event_at(h, t, u.pos[t])->kind == VSC_READ)
			h->pending[h->order[u.at]]--;
		else
			u.at++;
		u.pos[t]++;
		if ((done + 1) % HOT_CHUNK == 0 && budget_spend(b, HOT_CHUNK))
			r = -ETIME;
	}
	free(u.pos);
	return r;
}

static void hot_free(struct hot *h)
{
	free(h->base);
	free(h->node);
	free(h->next_reader);
	free(h->key);
	free(h->writer);
	free(h->rmw_of);
	free(h->source);
	free(h->order);
	free(h->first_reader);
	free(h->pending);
}

/* Events on one variable, written by some thread. */
static int applies(const struct vsc_program *p)
{
	return p->event_count > 0 && p->event_count < UINT32_MAX && program_vars(p) == 1;
}

/* run (pick), verified with pre[pick] preemptions, with its slices joined
 * on a copy (other, room for h->n), kept when the verifier agrees with
 * fewer: the better of the two into *witness, the other freed. */
static void join_slices(struct hot *h, uint32_t *run[2], long pre[2], int pick, uint32_t **witness,
			long *preemptions)
{
	memcpy(run[!pick], run[pick], h->n * sizeof(uint32_t));
	if (hot_merge_slices(h->p, run[!pick], h->n) > 0 &&
	    !vsc_witness_verify(h->p, run[!pick], h->n, &pre[!pick], NULL, 0) &&
	    pre[!pick] < pre[pick])
		pick = !pick;
	*witness = run[pick];
	*preemptions = pre[pick];
	free(run[!pick]);
}

/* A run along h's choice into *witness, verified, with its preemptions:
 * both runs (the order fixed first, hot_run.c's), the one with fewer; a
 * verified run is kept when the other stops at a limit. 0, HOT_VAR_OPEN
 * (neither is an SC interleaving) or -errno. */
static int best_run(struct hot *h, struct budget *b, uint32_t **witness, long *preemptions)
{
	uint32_t *run[2] = { malloc(h->n * sizeof(uint32_t)), malloc(h->n * sizeof(uint32_t)) };
	long pre[2] = { -1, -1 };
	int r = run[0] && run[1] ? hot_order(h, b) : -ENOMEM, pick;

	if (!r)
		r = hot_readers(h);
	if (!r)
		r = hot_run(h, b, run[0]);
	if (!r && vsc_witness_verify(h->p, run[0], h->n, &pre[0], NULL, 0))
		pre[0] = -1;
	if (r == HOT_VAR_OPEN || !r)
		r = hot_run_greedy(h, b, run[1]);
	if (!r && vsc_witness_verify(h->p, run[1], h->n, &pre[1], NULL, 0))
		pre[1] = -1;
	pick = pre[0] < 0 || (pre[1] >= 0 && pre[1] < pre[0]);
	if (pre[pick] < 0) {
		free(run[0]);
		free(run[1]);
		return r < 0 ? r : HOT_VAR_OPEN;
	}
	if (r == -ETIME) { /* the first run's, as it is */
		*witness = run[pick];
		*preemptions = pre[pick];
		free(run[!pick]);
	} else {
		join_slices(h, run, pre, pick, witness, preemptions);
	}
	return 0;
}

int hot_var_witness(const struct vsc_program *p, struct budget *b, uint32_t **witness,
		    long *preemptions)
{
	struct hot h = { .p = p, .n = p->event_count, .k = program_threads(p) };
	int r;

	*witness = NULL;
	if (!applies(p))
		return HOT_VAR_OPEN;
	h.hinted = all_hinted(p);
	r = hot_index(&h);
	if (!r)
		r = hot_choose(&h, b);
	if (!r)
		r = best_run(&h, b, witness, preemptions);
	hot_free(&h);
	return r < 0 ? r : r ? HOT_VAR_OPEN : HOT_VAR_FOUND;
}

/* Does some event of p read and write at once? */
static int has_rmw(const struct vsc_program *p)
{
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (size_t i = 0; i < p->threads[t].length; i++)
			if (p->threads[t].events[i].kind == VSC_RMW)
				return 1;
	return 0;
}

/* hot_var_search() with the keys of the hints (hinted) or of the places
 * in the threads: 0 (a witness), HOT_VAR_REFUTED, HOT_VAR_OPEN or
 * -errno. */
static int search_keyed(const struct vsc_program *p, struct budget *b, int hinted,
			uint32_t **witness, long *preemptions)
{
	struct hot h = { .p = p, .n = p->event_count, .k = program_threads(p), .hinted = hinted };
	int r = hot_index(&h);

	if (!r)
		r = hot_search_choose(&h, b);
	if (!r)
		r = best_run(&h, b, witness, preemptions);
	hot_free(&h);
	return r < 0 || r == HOT_VAR_REFUTED ? r : r ? HOT_VAR_OPEN : 0;
}

int hot_var_search(const struct vsc_program *p, struct budget *b, uint32_t **witness,
		   long *preemptions)
{
	int r;

	*witness = NULL;
	if (!applies(p) || has_rmw(p))
		return HOT_VAR_OPEN;
	r = search_keyed(p, b, all_hinted(p), witness, preemptions);
	/* The hints only order the tries, the nearest in time first; a
	 * recording's times can be hundreds of events off (a thread taken
	 * off its CPU between the access and its log), and where they lead
	 * the search astray the places in the threads may not: the search
	 * again without them (the passes over the nearest writes first). */
	if (r == HOT_VAR_OPEN && all_hinted(p))
		r = search_keyed(p, b, 0, witness, preemptions);
	return r ? r : HOT_VAR_FOUND;
}
