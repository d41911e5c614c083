/* SPDX-License-Identifier: MIT */
/* Localizing a refutation in a long trace, in time linear in its length.
 *
 * Orders that hold in every SC interleaving are read off the whole program
 * without any search:
 *  - reads-from: a read whose value one write alone makes (and the initial
 *    value does not) comes after that write;
 *  - from-read: such a read comes before the next write of the variable by
 *    its source's thread (that write follows the source in program order,
 *    so it cannot fall between the source and the read); a read that must
 *    see the initial value comes before the first write of each thread;
 *  - coherence: the last write of the variable by the read's own thread
 *    before the read (if it is not the source) comes before the source;
 *  - atomicity: an RMW that reads the same only write is a write that comes
 *    after that source, so every other read of it comes before the RMW (two
 *    RMWs that read one write, a lost update, are then a cycle of two).
 * `init x ?` gets the value of a read that nothing else can explain.
 * With program order these orders form a graph; a cycle in it refutes the
 * program. The cycle with the fewest orders that are not program order is
 * found by a breadth-first search inside its strongly connected component,
 * and its events, with the events that justify each order, are the small
 * set that explain.c then checks and shrinks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "userspace/util/array.h"
#include "userspace/util/sorted.h"

#define NONE UINT32_MAX
#define INIT_READ_FANOUT 16    /* writer threads a must-read-initial read is ordered against */
#define CYCLE_TRIES 8          /* components/edges tried for a short cycle */
#define SOURCE_CHAIN_LIMIT 256 /* sources added so that every read keeps one */

struct net {
	const struct vsc_program *p;
	const struct analysis *a;
	uint32_t n, k;
	uint32_t *base;                   /* per thread + 1: flat number of event 0 */
	uint32_t *only_write;             /* per pair: its one write, or NONE */
	uint32_t *rmw_readers;            /* per pair: the first two RMWs reading it, or NONE */
	uint32_t *init_pair;              /* per var: the pair the initial value is, or VALUE_* */
	uint32_t *init_reader;            /* per var with init ?: the read that fixes it, or NONE */
	uint32_t *next_write;             /* per event: next write of its var by its thread */
	uint8_t *ends_thread;             /* per event: the last of its thread */
	uint32_t *first_off, *first_list; /* per var: first write of each thread */
	uint32_t *stamp, *last;           /* per var: scratch for the thread passes */
	/* non-program-order edges, by source (CSR): made by two passes over
	 * the reads, the first counting (to NULL), the second filling */
	uint32_t *off;
	uint32_t *to, *why;   /* why: the read whose value forces the order */
	uint32_t refuting[2]; /* a static refutation: the reads that show it */
	size_t nrefuting;
};

static struct vsc_event_ref ref_of(const struct net *g, uint32_t f)
{
	uint32_t t = last_at_most(g->base, 0, g->k, f); /* the last thread whose base <= f */
	return (struct vsc_event_ref){ t, f - g->base[t] };
}

static const struct event_pairs *pairs_of(const struct net *g, uint32_t t, uint32_t i)
{
	return &g->a->pairs[t][i];
}

static void add_edge(struct net *g, uint32_t from, uint32_t to, uint32_t why)
{
	uint32_t at;

	if (!g->to) {
		g->off[from + 2]++;
		return;
	}
	at = g->off[from + 1]++;
	g->to[at] = to;
	g->why[at] = why;
}

/* init x ? takes the value of a read that no write explains; two such reads
 * of different values, or one of a value neither a write nor the initial
 * value gives, refute the program on their own. */
static void fix_initial_values(struct net *g)
{
	const struct analysis *a = g->a;

	for (uint32_t v = 0; v < a->nvars; v++) {
		g->init_pair[v] = a->init[v];
		g->init_reader[v] = NONE;
	}
	for (uint32_t t = 0; t < g->k && !g->nrefuting; t++) {
		for (uint32_t i = 0; i < g->p->threads[t].length; i++) {
			uint32_t pr = pairs_of(g, t, i)->read, v = g->p->threads[t].events[i].var;
			uint32_t f = g->base[t] + i;
			if (pr == PAIR_NONE || a->writes_of[pr] || g->init_pair[v] == pr)
				continue;
			if (g->init_pair[v] == VALUE_UNDECIDED) {
				g->init_pair[v] = pr;
				g->init_reader[v] = f;
				continue;
			}
			g->refuting[g->nrefuting++] = f;
			if (g->init_reader[v] != NONE)
				g->refuting[g->nrefuting++] = g->init_reader[v];
			break;
		}
	}
}

/* Keep the first two RMWs that read pair pr (none when pr is PAIR_NONE). */
static void note_rmw_reader(struct net *g, uint32_t pr, uint32_t f)
{
	uint32_t *slot = pr == PAIR_NONE ? NULL : &g->rmw_readers[2 * (size_t)pr];

	if (slot && slot[0] == NONE)
		slot[0] = f;
	else if (slot && slot[1] == NONE)
		slot[1] = f;
}

/* next_write, only_write, the RMWs reading each pair and the first write of
 * each variable per thread. */
static int index_writes(struct net *g)
{
	const struct analysis *a = g->a;
	uint32_t *count = g->first_off, nfirst = 0;

	for (uint32_t t = 0; t < g->k; t++) {
		for (uint32_t i = 0; i < g->p->threads[t].length; i++) {
			uint32_t pw = pairs_of(g, t, i)->write, v = g->p->threads[t].events[i].var;
			uint32_t f = g->base[t] + i;
			if (pw == PAIR_NONE)
				continue;
			note_rmw_reader(g, pairs_of(g, t, i)->read, f);
			if (a->writes_of[pw] == 1)
				g->only_write[pw] = f;
			if (g->stamp[v] == t + 1) {
				g->next_write[g->last[v]] = f;
			} else {
				g->stamp[v] = t + 1;
				count[v + 1]++;
				nfirst++;
			}
			g->last[v] = f;
		}
	}
	for (uint32_t v = 0; v < a->nvars; v++)
		count[v + 1] += count[v];
	g->first_list = malloc((nfirst ? nfirst : 1) * sizeof(uint32_t));
	if (!g->first_list)
		return -ENOMEM;
	memset(g->stamp, 0, a->nvars * sizeof(uint32_t));
	for (uint32_t t = 0; t < g->k; t++) {
		for (uint32_t i = 0; i < g->p->threads[t].length; i++) {
			uint32_t v = g->p->threads[t].events[i].var;
			if (pairs_of(g, t, i)->write == PAIR_NONE || g->stamp[v] == t + 1)
				continue;
			g->stamp[v] = t + 1;
			g->first_list[count[v]++] = g->base[t] + i;
		}
	}
	for (uint32_t v = a->nvars; v > 0; v--) /* the fill moved each start one slot on */
		count[v] = count[v - 1];
	count[0] = 0;
	return 0;
}

/* The orders a read r (flat f, thread t) forces, each with its kind; lw:
 * the last write of its variable by t before it, or NONE. */
static void read_edges(struct net *g, uint32_t t, uint32_t i, uint32_t lw)
{
	const struct analysis *a = g->a;
	uint32_t pr = pairs_of(g, t, i)->read, v = g->p->threads[t].events[i].var;
	uint32_t f = g->base[t] + i, w, w2;

	if (g->init_pair[v] == pr) {
		if (a->writes_of[pr])
			return; /* the initial value or a write: no order is forced */
		if (g->first_off[v + 1] - g->first_off[v] > INIT_READ_FANOUT)
			return;
		for (uint32_t j = g->first_off[v]; j < g->first_off[v + 1]; j++)
			if (g->first_list[j] != f)
				add_edge(g, f, g->first_list[j], f); /* from-read */
		return;
	}
	if (g->init_pair[v] == VALUE_UNDECIDED || a->writes_of[pr] != 1)
		return;
	w = g->only_write[pr];
	if (w == f)
		return;
	add_edge(g, w, f, f); /* reads-from */
	w2 = g->next_write[w];
	if (w2 != NONE && w2 != f)
		add_edge(g, f, w2, f); /* from-read */
	if (lw != NONE && lw != w)
		add_edge(g, lw, w, f); /* coherence */
	for (int j = 0; j < 2; j++) {  /* atomicity: see the top of the file */
		uint32_t u = g->rmw_readers[2 * (size_t)pr + j];
		if (u != NONE && u != f && u != w && u != w2)
			add_edge(g, f, u, f);
	}
}

/* One pass over the reads: counting the edges of each source (g->to NULL)
 * or putting them in place. */
static void edge_pass(struct net *g)
{
	memset(g->stamp, 0, g->a->nvars * sizeof(uint32_t));
	for (uint32_t t = 0; t < g->k; t++) {
		for (uint32_t i = 0; i < g->p->threads[t].length; i++) {
			const struct event_pairs *ep = pairs_of(g, t, i);
			uint32_t v = g->p->threads[t].events[i].var;
			if (ep->read != PAIR_NONE)
				read_edges(g, t, i, g->stamp[v] == t + 1 ? g->last[v] : NONE);
			if (ep->write != PAIR_NONE) {
				g->stamp[v] = t + 1;
				g->last[v] = g->base[t] + i;
			}
		}
	}
}

/* The edges in CSR: 0, 1 when there are too many to number, or -ENOMEM. */
static int build_edges(struct net *g)
{
	uint64_t total = 0;

	g->off = calloc((size_t)g->n + 2, sizeof(uint32_t));
	if (!g->off)
		return -ENOMEM;
	edge_pass(g);
	for (uint32_t u = 0; u < g->n; u++) {
		total += g->off[u + 2];
		if (total >= NONE)
			return 1;
		g->off[u + 2] = (uint32_t)total;
	}
	g->to = malloc((total ? total : 1) * sizeof(uint32_t));
	g->why = malloc((total ? total : 1) * sizeof(uint32_t));
	if (!g->to || !g->why)
		return -ENOMEM;
	edge_pass(g); /* each source's edges go to off[u + 1]..., which ends at off[u + 2] */
	return 0;
}

/* Whether u has a program-order successor (edge 0 of u). */
static uint32_t has_po_next(const struct net *g, uint32_t u)
{
	return !g->ends_thread[u];
}

/* ---- strongly connected components (Tarjan, without recursion) --------- */

#define ON_CYCLE 2 /* onstack, once done: in a component of more than one node */

struct scc {
	uint32_t *idx, *low, *stack, *frames, *next_edge;
	uint8_t *onstack;
};

static uint32_t edge_target(const struct net *g, uint32_t u, uint32_t j, uint32_t po)
{
	return j < po ? u + 1 : g->to[g->off[u] + j - po];
}

static void tarjan(const struct net *g, struct scc *s)
{
	uint32_t counter = 0, sp = 0, fp = 0;

	for (uint32_t root = 0; root < g->n; root++) {
		if (s->idx[root] != NONE)
			continue;
		s->idx[root] = s->low[root] = counter++;
		s->stack[sp++] = root;
		s->onstack[root] = 1;
		s->frames[fp++] = root;
		s->next_edge[root] = 0;
		while (fp) {
			uint32_t u = s->frames[fp - 1], po = has_po_next(g, u);
			uint32_t deg = po + g->off[u + 1] - g->off[u];
			if (s->next_edge[u] < deg) {
				uint32_t v = edge_target(g, u, s->next_edge[u]++, po);
				if (s->idx[v] == NONE) {
					s->idx[v] = s->low[v] = counter++;
					s->stack[sp++] = v;
					s->onstack[v] = 1;
					s->frames[fp++] = v;
					s->next_edge[v] = 0;
				} else if (s->onstack[v] == 1 && s->idx[v] < s->low[u]) {
					s->low[u] = s->idx[v];
				}
				continue;
			}
			fp--;
			if (s->low[u] == s->idx[u]) { /* u roots a component: low = its id */
				uint32_t x, size = 0;
				do {
					x = s->stack[--sp];
					s->onstack[x] = 0;
					s->low[x] = s->idx[u];
					size++;
				} while (x != u);
				for (uint32_t j = sp; size > 1 && j < sp + size; j++)
					s->onstack[s->stack[j]] = ON_CYCLE;
			}
			if (fp && s->low[u] < s->low[s->frames[fp - 1]])
				s->low[s->frames[fp - 1]] = s->low[u];
		}
	}
}

/* ---- the cycle with the fewest non-program-order edges ------------------- */

/* Breadth-first by number of non-program-order edges, from `from` until
 * `target`, inside component comp. dist/parent/parent_edge are scratch;
 * order holds the nodes by level. Returns the cost or NONE. */
static uint32_t shortest_path(const struct net *g, const uint32_t *comp, uint32_t from,
			      uint32_t target, uint32_t *dist, uint32_t *parent,
			      uint32_t *parent_edge, uint32_t *order, size_t *visited)
{
	size_t head = 0, tail = 0, level_end;
	uint32_t level = 0, c = comp[from];

	dist[from] = 0;
	parent[from] = NONE;
	order[tail++] = from;
	while (head < tail && dist[target] == NONE) {
		/* program-order closure of the level, then its other edges */
		for (size_t q = head; q < tail; q++) {
			uint32_t u = order[q];
			while (has_po_next(g, u) && dist[u + 1] == NONE && comp[u + 1] == c) {
				dist[u + 1] = level;
				parent[u + 1] = u;
				parent_edge[u + 1] = NONE;
				order[tail++] = ++u;
			}
		}
		level_end = tail;
		for (; head < level_end; head++) {
			uint32_t u = order[head];
			for (uint32_t e = g->off[u]; e < g->off[u + 1]; e++) {
				uint32_t v = g->to[e];
				if (dist[v] != NONE || comp[v] != c)
					continue;
				dist[v] = level + 1;
				parent[v] = u;
				parent_edge[v] = e;
				order[tail++] = v;
			}
		}
		level++;
	}
	*visited += tail;
	for (size_t q = 0; q < tail; q++) /* reset for the next try */
		if (order[q] != target)
			dist[order[q]] = NONE;
	return dist[target];
}

struct cycle_edges {
	uint32_t *edges; /* CSR edge ids on the cycle */
	size_t count;
};

static int best_cycle(const struct net *g, const uint32_t *comp, const uint8_t *on_cycle,
		      uint32_t *scratch[4], struct cycle_edges *best)
{
	uint32_t *dist = scratch[0], *parent = scratch[1], *pedge = scratch[2], *order = scratch[3];
	uint32_t best_cost = NONE, tried_comp[CYCLE_TRIES];
	size_t tries = 0, visited = 0;

	for (uint32_t i = 0; i < g->n; i++)
		dist[i] = NONE;
	for (uint32_t u = 0; u < g->n && tries < CYCLE_TRIES; u++) {
		if (on_cycle[u] != ON_CYCLE)
			continue;
		for (uint32_t e = g->off[u]; e < g->off[u + 1] && tries < CYCLE_TRIES; e++) {
			uint32_t v = g->to[e], cost;
			size_t seen = 0;
			if (comp[u] != comp[v])
				continue;
			for (size_t j = 0; j < tries; j++)
				seen += tried_comp[j] == comp[u];
			if (seen >= 2 || (best_cost != NONE && visited > 4 * (size_t)g->n))
				continue;
			tried_comp[tries++] = comp[u];
			cost = shortest_path(g, comp, v, u, dist, parent, pedge, order, &visited);
			if (cost == NONE || (best_cost != NONE && cost + 1 >= best_cost)) {
				dist[u] = NONE;
				continue;
			}
			best_cost = cost + 1;
			best->count = 0;
			best->edges[best->count++] = e;
			for (uint32_t x = u; x != v; x = parent[x])
				if (pedge[x] != NONE)
					best->edges[best->count++] = pedge[x];
			dist[u] = NONE;
		}
	}
	return best_cost != NONE;
}

/* ---- the events that make the cycle hold on their own -------------------- */

static int add_ref(struct vsc_event_ref **out, size_t *count, size_t *cap, struct vsc_event_ref r)
{
	if (ARRAY_RESERVE(*out, *cap, *count + 1))
		return -ENOMEM;
	(*out)[(*count)++] = r;
	return 0;
}

static int compare_refs(const void *x, const void *y)
{
	const struct vsc_event_ref *a = x, *b = y;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/* Sort and drop repeats. */
static size_t unique_refs(struct vsc_event_ref *refs, size_t count)
{
	size_t m = 0;

	qsort(refs, count, sizeof(*refs), compare_refs);
	for (size_t i = 0; i < count; i++)
		if (m == 0 || compare_refs(&refs[m - 1], &refs[i]) != 0)
			refs[m++] = refs[i];
	return m;
}

/* An order's own events, the read behind it, that read's source and the
 * read that fixes an unknown initial value. */
static int justify(const struct net *g, uint32_t e, uint32_t from, struct vsc_event_ref **out,
		   size_t *count, size_t *cap)
{
	uint32_t r = g->why[e], add[5] = { from, g->to[e], r, NONE, NONE };
	struct vsc_event_ref rr = ref_of(g, r);
	uint32_t pr = pairs_of(g, rr.thread, rr.index)->read;
	uint32_t v = g->p->threads[rr.thread].events[rr.index].var;
	int err = 0;

	if (pr != PAIR_NONE && g->init_pair[v] != pr && g->a->writes_of[pr] == 1)
		add[3] = g->only_write[pr];
	add[4] = g->init_reader[v];
	for (int i = 0; i < 5 && !err; i++)
		if (add[i] != NONE)
			err = add_ref(out, count, cap, ref_of(g, add[i]));
	return err;
}

/* The only write a read can see, when there is one: NONE for a read the
 * initial value may serve, or one with a choice of writes. */
static uint32_t only_source(const struct net *g, struct vsc_event_ref r)
{
	uint32_t pr = pairs_of(g, r.thread, r.index)->read;
	uint32_t v = g->p->threads[r.thread].events[r.index].var;

	if (pr == PAIR_NONE || g->init_pair[v] == pr || g->init_pair[v] == VALUE_UNDECIDED ||
	    g->a->writes_of[pr] != 1)
		return NONE;
	return g->only_write[pr];
}

/* Every read of the set keeps its source: an RMW's only source is added,
 * and that one's if it is an RMW too, back to a plain write (a chain of
 * increments, say), up to SOURCE_CHAIN_LIMIT events; beyond, the set is
 * left as it is (explain.c then finds it lacking and shrinks the whole). */
static int add_sources(const struct net *g, struct vsc_event_ref **out, size_t *count, size_t *cap)
{
	size_t added = 0;
	int err = 0;

	for (size_t i = 0; i < *count && !err && added < SOURCE_CHAIN_LIMIT; i++) {
		uint32_t w = only_source(g, (*out)[i]);
		bool have = w == NONE;
		for (size_t j = 0; j < *count && !have; j++) /* sets are small here */
			have = g->base[(*out)[j].thread] + (*out)[j].index == w;
		if (!have) {
			err = add_ref(out, count, cap, ref_of(g, w));
			added++;
		}
	}
	return err;
}

static uint32_t edge_source(const struct net *g, uint32_t e)
{
	return last_at_most(g->off, 0, g->n, e); /* the u with off[u] <= e < off[u + 1] */
}

static int find_cycle_events(struct net *g, struct vsc_event_ref **out, size_t *count)
{
	struct scc s = { 0 };
	struct cycle_edges best = { 0 };
	uint32_t *scratch[4];
	size_t cap = 0;
	int err = -ENOMEM, found;

	s.idx = malloc(g->n * sizeof(uint32_t));
	s.low = malloc(g->n * sizeof(uint32_t));
	s.stack = malloc(g->n * sizeof(uint32_t));
	s.frames = malloc(g->n * sizeof(uint32_t));
	s.next_edge = malloc(g->n * sizeof(uint32_t));
	s.onstack = calloc(g->n, 1);
	best.edges = malloc((g->n + 1) * sizeof(uint32_t));
	if (!s.idx || !s.low || !s.stack || !s.frames || !s.next_edge || !s.onstack || !best.edges)
		goto out;
	memset(s.idx, 0xff, g->n * sizeof(uint32_t));
	tarjan(g, &s);
	/* the component ids are in low; the rest is scratch now */
	scratch[0] = s.idx;
	scratch[1] = s.stack;
	scratch[2] = s.frames;
	scratch[3] = s.next_edge;
	found = best_cycle(g, s.low, s.onstack, scratch, &best);
	err = 0;
	for (size_t i = 0; found && i < best.count && !err; i++)
		err = justify(g, best.edges[i], edge_source(g, best.edges[i]), out, count, &cap);
	if (!err && found)
		err = add_sources(g, out, count, &cap);
	if (!err && !found)
		err = 1;
out:
	free(s.idx);
	free(s.low);
	free(s.stack);
	free(s.frames);
	free(s.next_edge);
	free(s.onstack);
	free(best.edges);
	return err;
}

static void net_free(struct net *g)
{
	free(g->base);
	free(g->only_write);
	free(g->rmw_readers);
	free(g->init_pair);
	free(g->init_reader);
	free(g->next_write);
	free(g->ends_thread);
	free(g->first_off);
	free(g->first_list);
	free(g->stamp);
	free(g->last);
	free(g->off);
	free(g->to);
	free(g->why);
}

int localize_refutation(const struct vsc_program *p, const struct analysis *a,
			struct vsc_event_ref **events, size_t *count)
{
	struct net g = { .p = p, .a = a, .k = program_threads(p) };
	size_t nv = a->nvars ? a->nvars : 1, np = a->npairs ? a->npairs : 1;
	int err = -ENOMEM;

	*events = NULL;
	*count = 0;
	if (p->event_count >= NONE - 1 || !p->event_count)
		return p->event_count ? 1 : -EINVAL;
	g.n = (uint32_t)p->event_count;
	g.base = malloc(((size_t)g.k + 1) * sizeof(uint32_t));
	g.only_write = malloc(np * sizeof(uint32_t));
	g.rmw_readers = malloc(2 * np * sizeof(uint32_t));
	g.init_pair = malloc(nv * sizeof(uint32_t));
	g.init_reader = malloc(nv * sizeof(uint32_t));
	g.next_write = malloc(g.n * sizeof(uint32_t));
	g.ends_thread = calloc(g.n, 1);
	g.first_off = calloc(nv + 1, sizeof(uint32_t));
	g.stamp = calloc(nv, sizeof(uint32_t));
	g.last = malloc(nv * sizeof(uint32_t));
	if (!g.base || !g.only_write || !g.rmw_readers || !g.init_pair || !g.init_reader ||
	    !g.next_write || !g.ends_thread || !g.first_off || !g.stamp || !g.last)
		goto out;
	g.base[0] = 0;
	for (uint32_t t = 0; t < g.k; t++) {
		g.base[t + 1] = g.base[t] + p->threads[t].length;
		if (p->threads[t].length)
			g.ends_thread[g.base[t + 1] - 1] = 1;
	}
	memset(g.only_write, 0xff, np * sizeof(uint32_t));
	memset(g.rmw_readers, 0xff, 2 * np * sizeof(uint32_t));
	memset(g.next_write, 0xff, g.n * sizeof(uint32_t));
	fix_initial_values(&g);
	if (g.nrefuting) {
		size_t cap = 0;
		err = 0;
		for (size_t i = 0; i < g.nrefuting && !err; i++)
			err = add_ref(events, count, &cap, ref_of(&g, g.refuting[i]));
	} else if (!(err = index_writes(&g)) && !(err = build_edges(&g))) {
		err = find_cycle_events(&g, events, count);
	}
	if (!err)
		*count = unique_refs(*events, *count);
out:
	net_free(&g);
	if (err) {
		free(*events);
		*events = NULL;
		*count = 0;
	}
	return err;
}
