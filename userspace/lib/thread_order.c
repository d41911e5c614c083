/* SPDX-License-Identifier: MIT */
/* With no preemption every thread runs whole, so an interleaving is an order
 * of the threads. When each variable has at most one writer thread W, what
 * another thread t reads of x is W's last value of x when W runs before t,
 * and the initial value when it runs after: each such read asks for one of
 * the two orders, or for neither (both values are the one read), or cannot
 * be met. The program runs with no preemption iff W's own reads agree with
 * its program and the graph of these orders has no cycle; a topological
 * order is then the witness. docs/solvers.md has the proof, and what an
 * unknown initial value (init x ?) changes. */
#include "thread_order.h"
#include "userspace/util/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct order_graph {
	uint32_t k, nedges, cap;
	uint32_t *from, *to;
};

static int add_order(struct order_graph *g, uint32_t before, uint32_t after)
{
	if (g->nedges == g->cap) {
		size_t cap = array_grown_cap(g->cap, (size_t)g->nedges + 1, 256, UINT32_MAX);

		if (!cap || ARRAY_RESIZE(g->from, cap) || ARRAY_RESIZE(g->to, cap))
			return -ENOMEM;
		g->cap = (uint32_t)cap;
	}
	g->from[g->nedges] = before;
	g->to[g->nedges++] = after;
	return 0;
}

/* The initial values: an unknown one (init x ?) must be what the writer
 * reads before its first write of x and what any other thread reads that
 * is not the writer's last value; with no such read, the last value (it
 * asks for no order). 0, or 1 when two reads want different values. */
static int initial_values(const struct analysis *a, const struct vsc_program *p,
			  const uint32_t *last, uint32_t *init, uint8_t *written)
{
	memcpy(init, a->init, a->nvars * sizeof(*init));
	memset(written, 0, a->nvars);
	for (uint32_t t = 0; t < a->k; t++) {
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t x = p->threads[t].events[i].var, r = a->pairs[t][i].read;
			int own = a->writer[x] == t && a->writers[x] == 1;
			if (r != PAIR_NONE && a->init[x] == VALUE_UNDECIDED &&
			    (own ? !written[x] : r != last[x])) {
				if (init[x] != VALUE_UNDECIDED && init[x] != r)
					return 1;
				init[x] = r;
			}
			if (own && a->pairs[t][i].write != PAIR_NONE)
				written[x] = 1;
		}
	}
	for (uint32_t x = 0; x < a->nvars; x++)
		if (init[x] == VALUE_UNDECIDED)
			init[x] = last[x];
	return 0;
}

/* The writer's reads of x see the initial value before its first write and
 * its own last write after: 0 when they do, 1 when not. mem: a copy of the
 * initial values. */
static int own_reads(const struct analysis *a, const struct vsc_program *p, uint32_t t,
		     uint32_t *mem)
{
	for (uint32_t i = 0; i < p->threads[t].length; i++) {
		uint32_t x = p->threads[t].events[i].var;
		const struct event_pairs *ep = &a->pairs[t][i];
		if (a->writer[x] != t)
			continue;
		if (ep->read != PAIR_NONE && mem[x] != ep->read)
			return 1;
		if (ep->write != PAIR_NONE)
			mem[x] = ep->write;
	}
	return 0;
}

/* The orders the reads of thread t ask for; 1 when one cannot be met. */
static int reads_of(struct order_graph *g, const struct analysis *a, const struct vsc_program *p,
		    uint32_t t, const uint32_t *last, const uint32_t *init)
{
	for (uint32_t i = 0; i < p->threads[t].length; i++) {
		uint32_t x = p->threads[t].events[i].var, r = a->pairs[t][i].read, w = a->writer[x];
		if (r == PAIR_NONE || w == t)
			continue;
		int sees_last = a->writers[x] == 1 && r == last[x];
		int sees_init = r == init[x];
		if (!sees_last && !sees_init)
			return 1;
		if (a->writers[x] == 1 && sees_last != sees_init &&
		    add_order(g, sees_last ? w : t, sees_last ? t : w))
			return -ENOMEM;
	}
	return 0;
}

/* Kahn's algorithm: the threads in an order that keeps every edge, into
 * order[]; 0 when there is a cycle. */
static int topological(const struct order_graph *g, uint32_t *order)
{
	uint32_t k = g->k, head = 0, tail = 0;
	uint32_t *indeg = calloc((size_t)k + 1, sizeof(*indeg));
	uint32_t *off = calloc((size_t)k + 2, sizeof(*off));
	uint32_t *adj = malloc(((size_t)g->nedges + 1) * sizeof(*adj));
	int r = -ENOMEM;

	if (indeg && off && adj) {
		for (uint32_t e = 0; e < g->nedges; e++) {
			off[g->from[e] + 2]++;
			indeg[g->to[e]]++;
		}
		for (uint32_t u = 0; u < k; u++)
			off[u + 2] += off[u + 1];
		for (uint32_t e = 0; e < g->nedges; e++)
			adj[off[g->from[e] + 1]++] = g->to[e];
		for (uint32_t u = 0; u < k; u++)
			if (indeg[u] == 0)
				order[tail++] = u;
		while (head < tail) {
			uint32_t u = order[head++];
			for (uint32_t e = off[u]; e < off[u + 1]; e++)
				if (--indeg[adj[e]] == 0)
					order[tail++] = adj[e];
		}
		r = tail == k;
	}
	free(indeg);
	free(off);
	free(adj);
	return r;
}

static int decide(struct order_graph *g, const struct analysis *a, const struct vsc_program *p,
		  uint32_t *order)
{
	uint32_t *last = malloc(((size_t)a->nvars + 1) * sizeof(*last));
	uint32_t *init = malloc(((size_t)a->nvars + 1) * sizeof(*init));
	uint32_t *mem = malloc(((size_t)a->nvars + 1) * sizeof(*mem));
	uint8_t *written = malloc((size_t)a->nvars + 1);
	int r = -ENOMEM;

	if (last && init && mem && written) {
		/* With every initial value known, initial_values() would change
		 * none, and the writers' own reads were checked by the analysis
		 * (static_refutation(): the same check, unless a->refuted): two
		 * passes over the events saved. */
		int undecided = a->refuted;
		for (uint32_t x = 0; x < a->nvars; x++)
			undecided |= a->init[x] == VALUE_UNDECIDED;
		memcpy(last, a->last_write, a->nvars * sizeof(*last)); /* one writer: W's last */
		memcpy(init, a->init, a->nvars * sizeof(*init));
		r = undecided ? initial_values(a, p, last, init, written) : 0;
		for (uint32_t t = 0; undecided && !r && t < a->k; t++) {
			memcpy(mem, init, a->nvars * sizeof(*mem));
			r = own_reads(a, p, t, mem);
		}
		for (uint32_t t = 0; !r && t < a->k; t++)
			r = reads_of(g, a, p, t, last, init);
		r = r ? (r < 0 ? r : 0) : topological(g, order);
	}
	free(last);
	free(init);
	free(mem);
	free(written);
	return r;
}

int thread_order_witness(const struct analysis *a, const struct vsc_program *p, uint32_t **witness)
{
	struct order_graph g = { .k = a->k };
	uint32_t *order;
	int r;

	*witness = NULL;
	for (uint32_t x = 0; x < a->nvars; x++)
		if (a->writers[x] > 1)
			return THREAD_ORDER_NOT_APPLY;
	order = malloc(((size_t)a->k + 1) * sizeof(*order));
	r = order ? decide(&g, a, p, order) : -ENOMEM;
	if (r == 1 && !(*witness = malloc((p->event_count + 1) * sizeof(**witness))))
		r = -ENOMEM;
	if (r == 1)
		for (size_t n = 0, j = 0; j < a->k; j++)
			for (uint32_t i = 0; i < p->threads[order[j]].length; i++)
				(*witness)[n++] = order[j];
	free(order);
	free(g.from);
	free(g.to);
	return r;
}
