/* SPDX-License-Identifier: MIT */
/* The order of events without a bound (encode_events.h): a variable only
 * for each pair the reads-from clauses name (two events of one variable,
 * one a write, of different threads), and no transitivity up front.
 *
 * A model orients those pairs; with program order they make a graph over
 * the events. When it is acyclic, a topological order keeps program order
 * and every named pair, so every reads-from clause holds in it and it is
 * an SC interleaving (encode_events.c). When it has a cycle, its pairs
 * cannot all hold in any total order, so "not all of them" is true of
 * every SC interleaving: that clause is added (the shortest such cycles
 * through some events, by the fewest pairs) and the solver runs again on
 * the same instance. Exact: only clauses every SC interleaving satisfies
 * are added, and a model is taken only when its graph is acyclic.
 *
 * The pairs of every two events (n^2/2 variables, n^2 clauses of
 * transitivity through a thread) were what made the order of events big:
 * with 64 variables, 2,000 events and two writers each, these are about
 * 1% of them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode_events.h"

#define CYCLES_PER_ROUND 100000 /* clauses added per model, at most */
/* Edges looked at a round, per edge of the graph: on 2,000-4,000-event
 * traces of 8 threads 16 took 150-530 rounds, 256 22-79 rounds and 30-60%
 * less CPU, no limit 4-13 rounds but 80% of the time in this search. */
#define SEARCH_WORK_PER_ROUND 256

static int new_pair(void *ctx, uint32_t row, uint32_t col)
{
	struct cycle_order *o = ctx;
	struct pair_edge *grown;

	if (o->nedges == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 1024;
		if (!(grown = realloc(o->edges, cap * sizeof(*grown)))) {
			o->failed = 1;
			return LIT_TRUE; /* the clause is left out; solving says -ENOMEM */
		}
		o->edges = grown;
		o->cap = cap;
	}
	o->edges[o->nedges] = (struct pair_edge){ ++o->e->nvars, row, col };
	return o->edges[o->nedges++].var;
}

/* a before b, for a and b of one variable, one of them a write. */
static int cycle_lit(const void *ctx, uint32_t a, uint32_t b)
{
	struct cycle_order *o = (struct cycle_order *)ctx;

	return pair_rows_lit(&o->rows, o->e, a, b, new_pair, o);
}

int cycle_order_init(struct cycle_order *o, struct event_encoding *e)
{
	int err;

	*o = (struct cycle_order){ .e = e };
	if ((err = pair_rows_init(&o->rows, e)))
		return err;
	if ((err = events_reserve(e, o->rows.total)))
		return err;
	e->order = cycle_lit;
	e->order_ctx = o;
	return 0;
}

void cycle_order_free(struct cycle_order *o)
{
	uint32_t **arrays[] = { &o->first, &o->next_edge, &o->target,   &o->indegree,
				&o->order, &o->index,     &o->low,      &o->stack,
				&o->call,  &o->iter,      &o->on_stack, &o->dist,
				&o->via,   &o->from,      &o->queue,    &o->rep };

	pair_rows_free(&o->rows);
	free(o->edges);
	free(o->gap);
	for (size_t i = 0; i < sizeof(arrays) / sizeof(*arrays); i++)
		free(*arrays[i]);
	memset(o, 0, sizeof(*o));
}

int cycle_order_gaps(struct cycle_order *o)
{
	const struct event_encoding *e = o->e;
	int err;

	if (o->gap)
		return 0;
	if ((err = events_reserve(o->e, e->n)))
		return err;
	if (!(o->gap = calloc(e->n + 1, sizeof(*o->gap))))
		return -ENOMEM;
	for (uint32_t a = 0; a + 1 < e->n; a++)
		if (a + 1 < e->end[a])
			o->gap[a] = ++o->e->nvars;
	return 0;
}

/* Graph edges: the pairs first (edge i is pair i), then program order. */
static size_t graph_edges(const struct cycle_order *o)
{
	return o->nedges + o->e->n;
}

static int graph_alloc(struct cycle_order *o)
{
	size_t n = o->e->n + 1, m = graph_edges(o) + 1;
	uint32_t **per_event[] = { &o->first, &o->indegree, &o->order, &o->index,    &o->low,
				   &o->stack, &o->call,     &o->iter,  &o->on_stack, &o->dist,
				   &o->via,   &o->from,     &o->rep };
	int err = 0;

	for (size_t i = 0; i < sizeof(per_event) / sizeof(*per_event); i++)
		if (!(*per_event[i] = malloc(n * sizeof(uint32_t))))
			err = -ENOMEM;
	o->next_edge = malloc(m * sizeof(*o->next_edge));
	o->target = malloc(m * sizeof(*o->target));
	o->queue = malloc(2 * m * sizeof(*o->queue));
	return err || !o->next_edge || !o->target || !o->queue ? -ENOMEM : 0;
}

static void add_edge(struct cycle_order *o, uint32_t id, uint32_t from, uint32_t to)
{
	o->target[id] = to;
	o->next_edge[id] = o->first[from];
	o->first[from] = id;
}

/* The model's blocks: a and a + 1 share one when the model says they run
 * together (gap literal true); rep[a] is the first event of a's block.
 * Without gap literals every event is a block of its own. */
static void blocks_read(struct cycle_order *o)
{
	const struct event_encoding *e = o->e;

	for (uint32_t a = 0; a < e->n; a++)
		o->rep[a] =
			a > 0 && o->gap && o->gap[a - 1] && sat_backend_true(e->s, o->gap[a - 1])
				? o->rep[a - 1]
				: a;
}

/* The events an edge leaves and enters (its nodes are their blocks). */
static uint32_t edge_tail(const struct cycle_order *o, uint32_t id)
{
	if (id >= o->nedges)
		return id - (uint32_t)o->nedges;
	return o->target[id] == o->rep[o->edges[id].col] ? o->edges[id].row : o->edges[id].col;
}

static uint32_t edge_head(const struct cycle_order *o, uint32_t id)
{
	if (id >= o->nedges)
		return id - (uint32_t)o->nedges + 1;
	return o->target[id] == o->rep[o->edges[id].col] ? o->edges[id].col : o->edges[id].row;
}

/* The model's graph over its blocks: each pair as the model orients it,
 * program order between the blocks of a thread. */
static void graph_read(struct cycle_order *o)
{
	const struct event_encoding *e = o->e;
	const uint32_t *rep = o->rep;

	blocks_read(o);
	for (uint32_t a = 0; a < e->n; a++)
		o->first[a] = NONE;
	for (size_t i = 0; i < o->nedges; i++) {
		const struct pair_edge *p = &o->edges[i];
		if (sat_backend_true(e->s, p->var))
			add_edge(o, (uint32_t)i, rep[p->row], rep[p->col]);
		else
			add_edge(o, (uint32_t)i, rep[p->col], rep[p->row]);
	}
	for (uint32_t a = 0; a + 1 < e->n; a++)
		if (a + 1 < e->end[a] && rep[a + 1] != rep[a])
			add_edge(o, (uint32_t)(o->nedges + a), rep[a], a + 1);
}

/* The last event of the block that starts at r. */
static uint32_t block_last(const struct cycle_order *o, uint32_t r)
{
	while (r + 1 < o->e->end[r] && o->rep[r + 1] == o->rep[r])
		r++;
	return r;
}

/* A topological order of the blocks, their events into o->order, that
 * stays on a thread while it can (fewer preemptions in the witness); the
 * number of events it sorts (n: the graph is acyclic). Sorted blocks, and
 * events that do not start one, get indegree NONE. */
static uint32_t topological_order(struct cycle_order *o)
{
	const struct event_encoding *e = o->e;
	uint32_t *in = o->indegree, *ready = o->stack, nready = 0, sorted = 0, a = NONE,
		 last = NONE;

	for (uint32_t v = 0; v < e->n; v++)
		in[v] = o->rep[v] == v ? 0 : NONE;
	for (uint32_t v = 0; v < e->n; v++)
		for (uint32_t id = o->first[v]; id != NONE; id = o->next_edge[id])
			in[o->target[id]]++;
	for (uint32_t v = 0; v < e->n; v++)
		if (!in[v])
			ready[nready++] = v;
	for (;;) {
		if (a == NONE || last + 1 >= e->end[last] ||
		    in[last + 1]) /* else the next is ready */
			do
				a = nready ? ready[--nready] : NONE;
			while (a != NONE && in[a] == NONE);
		else
			a = last + 1;
		if (a == NONE)
			return sorted;
		in[a] = NONE;
		last = block_last(o, a);
		for (uint32_t v = a; v <= last; v++)
			o->order[sorted++] = v;
		for (uint32_t id = o->first[a]; id != NONE; id = o->next_edge[id])
			if (!--in[o->target[id]])
				ready[nready++] = o->target[id];
	}
}

/* The end of v's part: its events (on o->stack above v) get v's index as
 * their part in o->low, or NONE when v is alone. */
static void close_part(struct cycle_order *o, uint32_t v, uint32_t *sp)
{
	uint32_t size = 0, w;

	do {
		w = o->stack[--*sp];
		o->on_stack[w] = 0;
		o->low[w] = o->index[v];
		size++;
	} while (w != v);
	if (size == 1)
		o->low[v] = NONE;
}

static void visit(struct cycle_order *o, uint32_t w, uint32_t *counter, uint32_t *sp,
		  uint32_t *depth)
{
	o->index[w] = o->low[w] = (*counter)++;
	o->iter[w] = o->first[w];
	o->stack[(*sp)++] = w;
	o->on_stack[w] = 1;
	o->call[(*depth)++] = w;
}

/* Tarjan's strongly connected parts of what the topological order left
 * (iterative): o->low[v] is v's part, NONE for a sorted event or an event
 * alone in its part. */
static void strong_parts(struct cycle_order *o)
{
	const struct event_encoding *e = o->e;
	uint32_t counter = 0, sp = 0;

	for (uint32_t v = 0; v < e->n; v++) {
		o->index[v] = o->low[v] = NONE;
		o->on_stack[v] = 0;
	}
	for (uint32_t root = 0; root < e->n; root++) {
		uint32_t depth = 0;
		if (o->indegree[root] == NONE || o->index[root] != NONE)
			continue;
		visit(o, root, &counter, &sp, &depth);
		while (depth) {
			uint32_t v = o->call[depth - 1], id = o->iter[v];
			if (id != NONE) {
				uint32_t w = o->target[id];
				o->iter[v] = o->next_edge[id];
				if (o->indegree[w] == NONE)
					continue; /* sorted: on no cycle */
				if (o->index[w] == NONE)
					visit(o, w, &counter, &sp, &depth);
				else if (o->on_stack[w] && o->index[w] < o->low[v])
					o->low[v] = o->index[w];
				continue;
			}
			depth--;
			if (depth && o->low[v] < o->low[o->call[depth - 1]])
				o->low[o->call[depth - 1]] = o->low[v];
			if (o->low[v] == o->index[v])
				close_part(o, v, &sp);
		}
	}
}

/* The gaps a cycle crosses backwards inside a block: in at event `in`,
 * out at event `out` before it (events out..in run together). */
static int block_gaps(const struct cycle_order *o, uint32_t in, uint32_t out, int *lits)
{
	int n = 0;

	for (uint32_t g = out; g < in; g++)
		lits[n++] = -o->gap[g];
	return n;
}

/* The clause that a cycle's pairs and the gaps it crosses backwards do
 * not all hold: edge id from u closes it at root; the path root ~> u is
 * in o->via (the edge into each block) and o->from (that edge's tail). */
static void add_cycle(struct cycle_order *o, uint32_t root, uint32_t u, uint32_t id, int *lits)
{
	uint32_t closing = id, out = edge_tail(o, id);
	int n = 0;

	for (;;) {
		if (id < o->nedges) {
			const struct pair_edge *p = &o->edges[id];
			lits[n++] = o->target[id] == o->rep[p->col] ? -p->var : p->var;
		}
		if (u == root)
			break;
		id = o->via[u];
		n += block_gaps(o, edge_head(o, id), out, lits + n);
		out = edge_tail(o, id);
		u = o->from[u];
	}
	n += block_gaps(o, edge_head(o, closing), out, lits + n);
	event_clause(o->e, lits, n);
}

/* 0-1 search from root inside its part (a pair costs 1, program order 0):
 * every edge back into root closes a cycle with the fewest pairs through
 * that edge; each becomes a clause, and the search ends when every edge
 * into root from its part (o->iter[root]) closed one. Returns the edges
 * looked at. o->call
 * marks the events expanded (by root); o->dist must be NONE throughout,
 * and is left so. */
static size_t cycles_through(struct cycle_order *o, uint32_t root, size_t *added, int *lits)
{
	size_t cap = 2 * (graph_edges(o) + 1), head = cap / 2, tail = cap / 2, work = 0;
	uint32_t part = o->low[root], touched = 0, open = o->iter[root];

	o->dist[root] = 0;
	o->stack[touched++] = root;
	o->queue[tail++] = root;
	while (head != tail && open && *added < CYCLES_PER_ROUND) {
		uint32_t u = o->queue[head++];
		if (o->call[u] == root)
			continue; /* expanded already, at its least cost */
		o->call[u] = root;
		for (uint32_t id = o->first[u]; id != NONE; id = o->next_edge[id], work++) {
			uint32_t w = o->target[id], cost = id < o->nedges;
			if (w == root) {
				add_cycle(o, root, u, id, lits);
				++*added;
				open--;
				continue;
			}
			if (o->low[w] != part || o->dist[w] <= o->dist[u] + cost)
				continue;
			if (o->dist[w] == NONE)
				o->stack[touched++] = w;
			o->dist[w] = o->dist[u] + cost;
			o->via[w] = id;
			o->from[w] = u;
			if (cost)
				o->queue[tail++] = w;
			else
				o->queue[--head] = w;
		}
	}
	while (touched)
		o->dist[o->stack[--touched]] = NONE;
	return work;
}

/* Cycles of the model's graph as clauses, from roots in parts of more than
 * one event (a different first root each round), until CYCLES_PER_ROUND
 * clauses or the round's work: at least one when the graph has a cycle
 * (the first root's search runs whole). The number added, or -ETIME when
 * b stopped it. */
static long add_cycles(struct cycle_order *o, struct budget *b, uint64_t round, int *lits)
{
	uint32_t n = o->e->n, start = (uint32_t)(round * 7919 % n);
	size_t added = 0, work = 0, most = SEARCH_WORK_PER_ROUND * graph_edges(o);

	for (uint32_t v = 0; v < n; v++)
		o->dist[v] = o->call[v] = o->iter[v] = 0;
	for (uint32_t v = 0; v < n; v++) /* iter: edges into v from its part */
		for (uint32_t id = o->first[v]; id != NONE; id = o->next_edge[id])
			o->iter[o->target[id]] +=
				o->low[v] != NONE && o->low[v] == o->low[o->target[id]];
	for (uint32_t v = 0; v < n; v++)
		o->dist[v] = o->call[v] = NONE;
	for (uint32_t i = 0; i < n && added < CYCLES_PER_ROUND && work < most; i++) {
		uint32_t root = (start + i) % n;
		size_t w;
		if (o->low[root] == NONE)
			continue;
		w = cycles_through(o, root, &added, lits);
		work += w;
		if (budget_spend(b, (unsigned long)w + 1))
			return -ETIME;
	}
	return (long)added;
}

int cycle_order_solve(struct cycle_order *o, struct budget *b, uint64_t *rounds, uint64_t *added)
{
	int *lits = malloc((2 * (size_t)o->e->n + 1) * sizeof(*lits));
	int answer = -ENOMEM;
	long more;

	if (!lits || (!o->first && graph_alloc(o)))
		goto out;
	for (;;) {
		budget_progress(b, "SAT rounds, events", *rounds, o->e->n);
		if (o->assume)
			sat_backend_assume(o->e->s, o->assume);
		answer = o->failed ? -ENOMEM : sat_backend_solve(o->e->s);
		if (answer != 10)
			break;
		graph_read(o);
		if (budget_spend(b, (unsigned long)graph_edges(o))) {
			answer = 0;
			break;
		}
		++*rounds;
		if (topological_order(o) == o->e->n)
			break;
		strong_parts(o);
		if ((more = add_cycles(o, b, *rounds, lits)) < 0) {
			answer = 0;
			break;
		}
		*added += (uint64_t)more;
		if ((answer = events_done(o->e)))
			break; /* a cycle's clause was left out: past the memory limit */
	}
out:
	free(lits);
	return answer;
}
