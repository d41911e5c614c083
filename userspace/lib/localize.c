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
#define EVENTS_PER_LOOK 65536  /* steps of a pass between looks at the clock */

/* A graph of forced orders (CSR by source; program order implicit: node x
 * to x + 1 unless ends has x's bit), its nodes events or runs of events,
 * node x from flat event first[x] (increasing). */
struct graph {
	uint32_t m;      /* nodes */
	uint32_t *first; /* per node + 1 (first[m] = n) */
	uint64_t *ends;  /* bit per node: no program-order edge to x + 1 */
	uint32_t *off;   /* per node + 2 while built, + 1 after */
	uint32_t *to;    /* the target node of each edge */
	uint32_t *comp;  /* the nodes of one component of more than one */
	/* the read whose value forces each order (justify): the edge's target
	 * where why_is_to has its bit (reads-from), else its source (from-read,
	 * atomicity, a read of the initial value), but for the coherence
	 * orders, whose read is neither: those are listed as (edge << 32 |
	 * read), sorted. A bit an edge, where a number took 32. */
	uint64_t *why_is_to;
	uint64_t *coherence;
	size_t ncoherence;
};

struct net {
	const struct vsc_program *p;
	const struct analysis *a;
	uint32_t n, k;
	uint32_t *base;                   /* per thread + 1: flat number of event 0 */
	uint32_t *only_write;             /* per pair: its one write, or NONE */
	uint32_t *rmw_readers;            /* per pair: the first two RMWs reading it, or NONE */
	uint32_t *init_pair;              /* per var: the pair the initial value is, or VALUE_* */
	uint32_t *init_reader;            /* per var with init ?: the read that fixes it, or NONE */
	uint32_t *only_next;              /* per pair: the next write of its var by its one
					   * write's thread, or NONE (per pair, not event:
					   * 4 bytes an event the spins do not need) */
	uint32_t *last_pair;              /* per var: scratch, the pair of `last` */
	uint32_t *first_off, *first_list; /* per var: first write of each thread */
	uint32_t *stamp, *last;           /* per var: scratch for the thread passes */
	/* the orders, made by two passes over the reads, the first counting
	 * (gr.to NULL), the second filling: first (runs) between the runs of
	 * repeated reads, for the components; then (!runs) between the events
	 * of the components of more than one, for the cycle */
	struct graph gr;
	bool runs;
	/* the events that are nodes of gr, a bit each: the first of each run,
	 * then those in a component of more than one; with rank, the count
	 * of bits before each word, a node's number is found at once */
	uint64_t *nodes;
	uint32_t *rank;
	uint64_t orders;      /* !runs: every order of the whole graph, counted */
	uint32_t refuting[2]; /* a static refutation: the reads that show it */
	size_t nrefuting;
	const struct timespec *deadline; /* NULL or tv_sec 0: none */
	bool late;                       /* the deadline has passed */
};

static bool bit_is(const uint64_t *bits, uint32_t u)
{
	return bits[u / 64] >> (u % 64) & 1;
}

static void bit_set(uint64_t *bits, uint32_t u)
{
	bits[u / 64] |= (uint64_t)1 << (u % 64);
}

/* Past the deadline? Looked at once every EVENTS_PER_LOOK calls of a
 * pass (each a step of a pass over the events). */
static bool late(struct net *g, uint64_t step)
{
	if (step % EVENTS_PER_LOOK == 0 && g->deadline && g->deadline->tv_sec &&
	    seconds_until(g->deadline) <= 0)
		g->late = true;
	return g->late;
}

static struct vsc_event_ref ref_of(const struct net *g, uint32_t f)
{
	uint32_t t = last_at_most(g->base, 0, g->k, f); /* the last thread whose base <= f */
	return (struct vsc_event_ref){ t, f - g->base[t] };
}

static const struct event_pairs *pairs_of(const struct net *g, uint32_t t, uint32_t i)
{
	return &g->a->pairs[t][i];
}

/* How many events before f are nodes: f's node, when it is one; else the
 * node of the run that holds it, plus 1. */
static uint32_t node_of(const struct net *g, uint32_t f)
{
	uint64_t below = g->nodes[f / 64] & (((uint64_t)1 << (f % 64)) - 1);

	return g->rank[f / 64] + (uint32_t)__builtin_popcountll(below);
}

/* g->nodes filled: its ranks, and the node count. */
static uint32_t rank_nodes(struct net *g)
{
	uint32_t count = 0;

	for (uint32_t w = 0; w <= g->n / 64; w++) {
		g->rank[w] = count;
		count += (uint32_t)__builtin_popcountll(g->nodes[w]);
	}
	return count;
}

/* The order from -> to (flat numbers) that read why forces. */
static void add_edge(struct net *g, uint32_t from, uint32_t to, uint32_t why)
{
	struct graph *h = &g->gr;
	uint32_t x, y, at;

	if (g->runs) { /* between the runs that hold them */
		x = node_of(g, from) - !bit_is(g->nodes, from);
		y = node_of(g, to) - !bit_is(g->nodes, to);
		if (h->to)
			h->to[h->off[x + 1]++] = y;
		else
			h->off[x + 2]++;
		return;
	}
	g->orders += !h->to;
	/* a cycle lies inside one component: the orders between two of them
	 * are not looked at */
	if (!bit_is(g->nodes, from) || !bit_is(g->nodes, to))
		return;
	x = node_of(g, from);
	y = node_of(g, to);
	if (h->comp[x] != h->comp[y])
		return;
	if (!h->to) {
		h->off[x + 2]++;
		h->ncoherence += why != from && why != to;
		return;
	}
	at = h->off[x + 1]++;
	h->to[at] = y;
	if (why == to)
		bit_set(h->why_is_to, at);
	else if (why != from)
		h->coherence[h->ncoherence++] = (uint64_t)at << 32 | why;
}

static int compare_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* The read behind edge e, from -> to (flat numbers). */
static uint32_t edge_why(const struct graph *h, uint32_t e, uint32_t from, uint32_t to)
{
	size_t lo = 0, hi = h->ncoherence;

	if (bit_is(h->why_is_to, e))
		return to;
	while (lo < hi) { /* the first entry of edge e or a later one */
		size_t mid = lo + (hi - lo) / 2;
		if (h->coherence[mid] >> 32 < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->ncoherence && h->coherence[lo] >> 32 == e ? (uint32_t)h->coherence[lo]
								 : from;
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

/* only_write, only_next, the RMWs reading each pair and the first write
 * of each variable per thread. */
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
				if (a->writes_of[g->last_pair[v]] == 1)
					g->only_next[g->last_pair[v]] = f;
			} else {
				g->stamp[v] = t + 1;
				count[v + 1]++;
				nfirst++;
			}
			g->last[v] = f;
			g->last_pair[v] = pw;
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
	w2 = g->only_next[pr];
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

/* Event i of thread t reads what event i - 1 read (a spin): neither a
 * write nor an RMW, the same variable and value, nothing between. Its
 * orders are those of the read before (read_edges: the same source, next
 * write, own last write and RMWs; none of them is a plain read): in the
 * graph of runs the two are one node. */
static bool repeats(const struct net *g, uint32_t t, uint32_t i)
{
	const struct vsc_event *e = g->p->threads[t].events;

	return i > 0 && e[i].kind == VSC_READ && e[i - 1].kind == VSC_READ &&
	       e[i].var == e[i - 1].var && pairs_of(g, t, i)->read == pairs_of(g, t, i - 1)->read;
}

/* One pass over the reads: counting the edges of each source (gr.to
 * NULL) or putting them in place. A run's repeated reads add what its
 * first added. */
static void edge_pass(struct net *g)
{
	memset(g->stamp, 0, g->a->nvars * sizeof(uint32_t));
	for (uint32_t t = 0; t < g->k; t++) {
		for (uint32_t i = 0; i < g->p->threads[t].length; i++) {
			const struct event_pairs *ep = pairs_of(g, t, i);
			if (late(g, g->base[t] + i))
				return;
			uint32_t v = g->p->threads[t].events[i].var;
			if (ep->read != PAIR_NONE && !(g->runs && repeats(g, t, i)))
				read_edges(g, t, i, g->stamp[v] == t + 1 ? g->last[v] : NONE);
			if (ep->write != PAIR_NONE) {
				g->stamp[v] = t + 1;
				g->last[v] = g->base[t] + i;
			}
		}
	}
}

/* The edges of g->gr in CSR: 0, 1 when there are too many to number (in
 * the whole graph), or -ENOMEM. */
static int build_edges(struct net *g)
{
	struct graph *h = &g->gr;
	uint64_t total = 0;

	h->off = calloc((size_t)h->m + 2, sizeof(uint32_t));
	if (!h->off)
		return -ENOMEM;
	g->orders = 0;
	edge_pass(g);
	if (g->late)
		return -ETIME;
	if (g->orders >= NONE)
		return 1;
	for (uint32_t x = 0; x < h->m; x++) {
		total += h->off[x + 2];
		if (total >= NONE)
			return 1;
		h->off[x + 2] = (uint32_t)total;
	}
	h->to = malloc((total ? total : 1) * sizeof(uint32_t));
	if (!h->to)
		return -ENOMEM;
	if (!g->runs) {
		h->why_is_to = calloc(total / 64 + 1, sizeof(uint64_t));
		h->coherence = malloc((h->ncoherence ? h->ncoherence : 1) * sizeof(uint64_t));
		if (!h->why_is_to || !h->coherence)
			return -ENOMEM;
		h->ncoherence = 0;
	}
	edge_pass(g); /* each source's edges go to off[x + 1]..., which ends at off[x + 2] */
	if (g->late)
		return -ETIME;
	if (!g->runs)
		qsort(h->coherence, h->ncoherence, sizeof(uint64_t), compare_u64);
	return 0;
}

/* Whether x has a program-order successor (edge 0 of x). */
static uint32_t has_po_next(const struct graph *h, uint32_t x)
{
	return !bit_is(h->ends, x);
}

static void graph_free(struct graph *h)
{
	free(h->first);
	free(h->ends);
	free(h->off);
	free(h->to);
	free(h->comp);
	free(h->why_is_to);
	free(h->coherence);
	*h = (struct graph){ 0 };
}

/* The graph of runs: each run of repeated reads one node. */
static int make_runs(struct net *g)
{
	struct graph *h = &g->gr;
	uint32_t m = 0, x = 0;

	for (uint32_t t = 0; t < g->k; t++)
		for (uint32_t i = 0; i < g->p->threads[t].length; i++)
			m += !repeats(g, t, i);
	h->m = m;
	h->first = malloc(((size_t)m + 1) * sizeof(uint32_t));
	h->ends = calloc(m / 64 + 1, sizeof(uint64_t));
	if (!h->first || !h->ends)
		return -ENOMEM;
	for (uint32_t t = 0; t < g->k; t++) {
		for (uint32_t i = 0; i < g->p->threads[t].length; i++) {
			if (!repeats(g, t, i)) {
				bit_set(g->nodes, g->base[t] + i);
				h->first[x++] = g->base[t] + i;
			}
		}
	}
	rank_nodes(g);
	h->first[m] = g->n;
	for (uint32_t t = 0; t < g->k; t++)
		if (g->p->threads[t].length)
			bit_set(h->ends, last_at_most(h->first, 0, m, g->base[t + 1] - 1));
	g->runs = true;
	return build_edges(g);
}

/* ---- strongly connected components (Pearce's, without recursion) ------- */

/* Of the graph of runs (make_runs): a run of repeated reads is one node,
 * and the components are those of the events, run by run. The reads of a
 * run r1 .. rk have the same orders out (to writes and RMWs, never to a
 * read of the run) and each has one in from the same source w: a path
 * into the run can come in at r1 (by program order, or from w) and walk
 * to any ri, and leave from there; so ri and rj (i < j) are in one
 * component exactly when a path leaves the run and comes back, when the
 * run is in a component of more than one node, and an event outside is in
 * the component of the run exactly when it is with each ri. A spin of 10^6
 * reads is then one number, not 10^6.
 *
 * D. J. Pearce, "A space-efficient algorithm for finding strongly connected
 * components" (IPL 116(1), 2016; PEA_FIND_SCC2): one number per node, its
 * rindex (0 unvisited, its index while it is open, its component's number,
 * counted down from m, once done), and a bit per node for a component
 * of more than one; the stack of open nodes that are no root holds only
 * nodes of components of more than one. The depth-first search is a stack
 * of frames, each a run of program-order descents (start..cur: each node
 * before cur went on to the next at once, its first edge), so a thread of
 * 10^7 nodes that the search walks down is one frame, not 10^7. Where
 * Tarjan's numbers (index, lowlink, stack, frame, next edge) took 21 bytes
 * an event, all touched, this takes 4 and a bit, and the stacks. The
 * components are a property of the graph: the same whatever the search. */

struct frame {
	uint32_t start, cur; /* the run of descents; cur is being looked at */
	uint32_t next_edge;  /* cur's next edge (0: program order) */
	uint32_t root;       /* no edge of cur has reached an older open event */
};

struct scc {
	uint32_t *rindex;
	uint64_t *big; /* bit per node: in a component of more than one */
	struct frame *frames;
	size_t nframes, frames_cap;
	uint32_t *open; /* open nodes that are no root */
	size_t nopen, open_cap;
	uint32_t index, component;
};

static uint32_t edge_target(const struct graph *h, uint32_t u, uint32_t j, uint32_t po)
{
	return j < po ? u + 1 : h->to[h->off[u] + j - po];
}

/* u has no edge left: a root takes the open events after it as its
 * component, else u waits among them. */
static int scc_finish(struct scc *s, uint32_t u, bool root)
{
	if (!root) {
		if (ARRAY_RESERVE(s->open, s->open_cap, s->nopen + 1))
			return -ENOMEM;
		s->open[s->nopen++] = u;
		return 0;
	}
	s->index--;
	bool more = false;
	while (s->nopen && s->rindex[u] <= s->rindex[s->open[s->nopen - 1]]) {
		uint32_t w = s->open[--s->nopen];
		s->rindex[w] = s->component;
		bit_set(s->big, w);
		s->index--;
		more = true;
	}
	s->rindex[u] = s->component--;
	if (more)
		bit_set(s->big, u);
	return 0;
}

/* Open v (unvisited), reached from frame top's cur by edge j. */
static int scc_open(struct scc *s, uint32_t v, bool po)
{
	s->rindex[v] = s->index++;
	if (po) { /* the run goes on: cur went to v at once */
		struct frame *f = &s->frames[s->nframes - 1];
		f->cur = v;
		f->next_edge = 0;
		f->root = 1;
		return 0;
	}
	if (ARRAY_RESERVE(s->frames, s->frames_cap, s->nframes + 1))
		return -ENOMEM;
	s->frames[s->nframes++] = (struct frame){ v, v, 0, 1 };
	return 0;
}

/* The search from root. */
static int scc_from(struct net *g, struct scc *s, uint32_t root)
{
	const struct graph *h = &g->gr;
	int err = scc_open(s, root, false);

	for (uint64_t step = 1; !err && s->nframes; step++) {
		if (late(g, step))
			return -ETIME;
		struct frame *f = &s->frames[s->nframes - 1];
		uint32_t u = f->cur, po = has_po_next(h, u);
		uint32_t deg = po + h->off[u + 1] - h->off[u];
		if (f->next_edge < deg) {
			uint32_t j = f->next_edge++, v = edge_target(h, u, j, po);
			if (s->rindex[v] == 0) {
				err = scc_open(s, v, j < po);
			} else if (s->rindex[v] < s->rindex[u]) {
				s->rindex[u] = s->rindex[v];
				f->root = 0;
			}
			continue;
		}
		if ((err = scc_finish(s, u, f->root)))
			break;
		/* back to where u was reached from: u - 1 in the run, else the
		 * frame below's cur; it looks at u's number, then goes on */
		uint32_t back;
		if (f->cur > f->start) {
			back = f->cur = u - 1;
			f->next_edge = 1;
			f->root = 1;
		} else if (--s->nframes) {
			f = &s->frames[s->nframes - 1];
			back = f->cur;
		} else {
			break;
		}
		if (s->rindex[u] < s->rindex[back]) {
			s->rindex[back] = s->rindex[u];
			f->root = 0;
		}
	}
	return err;
}

/* rindex: each node's component; big: those of more than one. */
static int strong_components(struct net *g, struct scc *s)
{
	const struct graph *h = &g->gr;
	int err = 0;

	s->rindex = calloc(h->m ? h->m : 1, sizeof(uint32_t));
	s->big = calloc(h->m / 64 + 1, sizeof(uint64_t));
	if (!s->rindex || !s->big)
		return -ENOMEM;
	s->index = 1;
	s->component = h->m; /* from m: no component is 0, "unvisited" */
	for (uint32_t root = 0; root < h->m && !err; root++)
		if (s->rindex[root] == 0)
			err = scc_from(g, s, root);
	free(s->frames);
	free(s->open);
	s->frames = NULL;
	s->open = NULL;
	return err;
}

/* ---- the cycle with the fewest non-program-order edges ------------------- */

/* In the graph of the events of the components of more than one (each
 * edge inside one component, in the order of the whole graph's):
 * breadth-first by number of non-program-order edges, from `from` until
 * `target`, inside component comp. reached (each node's level + 1, 0
 * where not reached), parent, parent_edge are scratch; order holds the
 * nodes by level. Returns the cost or NONE. */
static uint32_t shortest_path(const struct graph *h, const uint32_t *comp, uint32_t from,
			      uint32_t target, uint32_t *reached, uint32_t *parent,
			      uint32_t *parent_edge, uint32_t *order, size_t *visited)
{
	size_t head = 0, tail = 0, level_end;
	uint32_t level = 0, c = comp[from];

	reached[from] = 1;
	parent[from] = NONE;
	order[tail++] = from;
	while (head < tail && !reached[target]) {
		/* program-order closure of the level, then its other edges */
		for (size_t q = head; q < tail; q++) {
			uint32_t u = order[q];
			while (has_po_next(h, u) && !reached[u + 1] && comp[u + 1] == c) {
				reached[u + 1] = level + 1;
				parent[u + 1] = u;
				parent_edge[u + 1] = NONE;
				order[tail++] = ++u;
			}
		}
		level_end = tail;
		for (; head < level_end; head++) {
			uint32_t u = order[head];
			for (uint32_t e = h->off[u]; e < h->off[u + 1]; e++) {
				uint32_t v = h->to[e];
				if (reached[v] || comp[v] != c)
					continue;
				reached[v] = level + 2;
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
			reached[order[q]] = 0;
	return reached[target] ? reached[target] - 1 : NONE;
}

struct cycle_edges {
	uint32_t *edges; /* CSR edge ids on the cycle */
	size_t count;
};

/* events: of the whole graph (how far the searches may go) */
static int best_cycle(const struct graph *h, size_t events, uint32_t *scratch[4],
		      struct cycle_edges *best)
{
	const uint32_t *comp = h->comp;
	uint32_t *reached = scratch[0], *parent = scratch[1], *pedge = scratch[2];
	uint32_t *order = scratch[3], best_cost = NONE, tried_comp[CYCLE_TRIES];
	size_t tries = 0, visited = 0;

	for (uint32_t u = 0; u < h->m && tries < CYCLE_TRIES; u++) {
		for (uint32_t e = h->off[u]; e < h->off[u + 1] && tries < CYCLE_TRIES; e++) {
			uint32_t v = h->to[e], cost;
			size_t seen = 0;
			if (comp[u] != comp[v])
				continue;
			for (size_t j = 0; j < tries; j++)
				seen += tried_comp[j] == comp[u];
			if (seen >= 2 || (best_cost != NONE && visited > 4 * events))
				continue;
			tried_comp[tries++] = comp[u];
			cost = shortest_path(h, comp, v, u, reached, parent, pedge, order,
					     &visited);
			if (cost == NONE || (best_cost != NONE && cost + 1 >= best_cost)) {
				reached[u] = 0;
				continue;
			}
			best_cost = cost + 1;
			best->count = 0;
			best->edges[best->count++] = e;
			for (uint32_t x = u; x != v; x = parent[x])
				if (pedge[x] != NONE)
					best->edges[best->count++] = pedge[x];
			reached[u] = 0;
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

/* An order's own events (edge e, from node x), the read behind it, that
 * read's source and the read that fixes an unknown initial value. */
static int justify(const struct net *g, uint32_t e, uint32_t x, struct vsc_event_ref **out,
		   size_t *count, size_t *cap)
{
	uint32_t from = g->gr.first[x], to = g->gr.first[g->gr.to[e]];
	uint32_t r = edge_why(&g->gr, e, from, to), add[5] = { from, to, r, NONE, NONE };
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

static uint32_t edge_source(const struct graph *h, uint32_t e)
{
	return last_at_most(h->off, 0, h->m, e); /* the x with off[x] <= e < off[x + 1] */
}

/* From the graph of runs and its components, the graph of the events of
 * the components of more than one: each a node, with its component. */
static int events_in_cycles(struct net *g, const struct scc *s)
{
	const struct graph *runs = &g->gr;
	struct graph h = { 0 };
	uint32_t y = 0;

	memset(g->nodes, 0, (g->n / 64 + 1) * sizeof(uint64_t));
	for (uint32_t x = 0; x < runs->m; x++)
		if (bit_is(s->big, x))
			h.m += runs->first[x + 1] - runs->first[x];
	h.first = malloc(((size_t)h.m + 1) * sizeof(uint32_t));
	h.comp = malloc((h.m ? h.m : 1) * sizeof(uint32_t));
	h.ends = calloc(h.m / 64 + 1, sizeof(uint64_t));
	if (!h.first || !h.comp || !h.ends) {
		graph_free(&h);
		return -ENOMEM;
	}
	for (uint32_t x = 0; x < runs->m; x++) {
		for (uint32_t f = runs->first[x]; bit_is(s->big, x) && f < runs->first[x + 1];
		     f++) {
			bit_set(g->nodes, f);
			h.first[y] = f;
			h.comp[y++] = s->rindex[x];
		}
	}
	h.first[h.m] = g->n;
	rank_nodes(g);
	/* program order from y to y + 1: the next event of the same thread */
	for (y = 0; y < h.m; y++) {
		uint32_t f = h.first[y], t = last_at_most(g->base, 0, g->k, f);
		if (f + 1 == g->base[t + 1] || h.first[y + 1] != f + 1)
			bit_set(h.ends, y);
	}
	graph_free(&g->gr);
	g->gr = h;
	g->runs = false;
	return 0;
}

/* The components of the graph of runs, then the orders inside them. */
static int components(struct net *g)
{
	struct scc s = { 0 };
	int err = make_runs(g);

	if (!err)
		err = strong_components(g, &s);
	if (!err)
		err = events_in_cycles(g, &s);
	free(s.rindex);
	free(s.big);
	free(s.frames);
	free(s.open);
	/* no component of more than one, no cycle (the whole graph's orders
	 * are not counted then: too many to number or not, no cycle) */
	if (!err)
		err = g->gr.m ? build_edges(g) : 1;
	/* what made the edges is not needed by the search: let it go */
	free(g->only_next);
	free(g->first_list);
	g->only_next = g->first_list = NULL;
	return err;
}

static int find_cycle_events(struct net *g, struct vsc_event_ref **out, size_t *count)
{
	const struct graph *h = &g->gr;
	struct cycle_edges best = { 0 };
	uint32_t *scratch[4] = { 0 };
	size_t cap = 0, m = h->m ? h->m : 1;
	int err = 0, found;

	scratch[0] = calloc(m, sizeof(uint32_t));
	for (int i = 1; i < 4; i++)
		scratch[i] = malloc(m * sizeof(uint32_t));
	best.edges = malloc((m + 1) * sizeof(uint32_t));
	if (!scratch[0] || !scratch[1] || !scratch[2] || !scratch[3] || !best.edges) {
		err = -ENOMEM;
		goto out;
	}
	found = best_cycle(h, g->n, scratch, &best);
	for (size_t i = 0; found && i < best.count && !err; i++)
		err = justify(g, best.edges[i], edge_source(h, best.edges[i]), out, count, &cap);
	if (!err && found)
		err = add_sources(g, out, count, &cap);
	if (!err && !found)
		err = 1;
out:
	for (int i = 0; i < 4; i++)
		free(scratch[i]);
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
	free(g->only_next);
	free(g->last_pair);
	free(g->first_off);
	free(g->first_list);
	free(g->stamp);
	free(g->last);
	free(g->nodes);
	free(g->rank);
	graph_free(&g->gr);
}

int localize_refutation(const struct vsc_program *p, const struct analysis *a,
			const struct timespec *deadline, struct vsc_event_ref **events,
			size_t *count)
{
	struct net g = { .p = p, .a = a, .k = program_threads(p), .deadline = deadline };
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
	g.only_next = malloc(np * sizeof(uint32_t));
	g.last_pair = malloc(nv * sizeof(uint32_t));
	g.nodes = calloc(g.n / 64 + 1, sizeof(uint64_t));
	g.rank = malloc((g.n / 64 + 1) * sizeof(uint32_t));
	g.first_off = calloc(nv + 1, sizeof(uint32_t));
	g.stamp = calloc(nv, sizeof(uint32_t));
	g.last = malloc(nv * sizeof(uint32_t));
	if (!g.base || !g.only_write || !g.rmw_readers || !g.init_pair || !g.init_reader ||
	    !g.only_next || !g.last_pair || !g.nodes || !g.rank || !g.first_off || !g.stamp ||
	    !g.last)
		goto out;
	g.base[0] = 0;
	for (uint32_t t = 0; t < g.k; t++)
		g.base[t + 1] = g.base[t] + p->threads[t].length;
	memset(g.only_write, 0xff, np * sizeof(uint32_t));
	memset(g.rmw_readers, 0xff, 2 * np * sizeof(uint32_t));
	memset(g.only_next, 0xff, np * sizeof(uint32_t));
	fix_initial_values(&g);
	if (g.nrefuting) {
		size_t cap = 0;
		err = 0;
		for (size_t i = 0; i < g.nrefuting && !err; i++)
			err = add_ref(events, count, &cap, ref_of(&g, g.refuting[i]));
	} else if (!(err = index_writes(&g)) && !(err = components(&g))) {
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
