/* SPDX-License-Identifier: MIT */
/* Pearce and Kelly, "A dynamic topological sort algorithm for directed
 * acyclic graphs" (JEA 2006): an edge a -> b with b placed before a is
 * added by searching forward from b through the nodes placed before a
 * (reaching a: a cycle) and backward from a through the nodes placed
 * after b; the nodes found are given the same places again, those
 * that reach a first, in their old order. Only the nodes between b and a
 * are visited, so a new edge near the order's own costs little. */
#include "dyn_order.h"

#include "sort_numbers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

int dyn_order_init(struct dyn_order *d, uint32_t nodes, const uint32_t *places)
{
	size_t bytes = ((size_t)nodes + 1) * sizeof(uint32_t);

	memset(d, 0, sizeof(*d));
	d->nodes = nodes;
	d->place = malloc(bytes);
	d->out = malloc(bytes);
	d->in = malloc(bytes);
	d->mark = calloc((size_t)nodes + 1, sizeof(uint32_t));
	if (!d->place || !d->out || !d->in || !d->mark)
		return -ENOMEM;
	memcpy(d->place, places, (size_t)nodes * sizeof(uint32_t));
	memset(d->out, 0xff, bytes);
	memset(d->in, 0xff, bytes);
	return 0;
}

void dyn_order_free(struct dyn_order *d)
{
	free(d->place);
	free(d->out);
	free(d->in);
	free(d->edge_to);
	free(d->edge_next_out);
	free(d->edge_from);
	free(d->edge_next_in);
	free(d->mark);
	free(d->forward);
	free(d->backward);
	free(d->stack);
	free(d->sorted);
}

static int grow(uint32_t **a, uint32_t cap)
{
	uint32_t *n = realloc(*a, (size_t)cap * sizeof(uint32_t));

	if (!n)
		return -ENOMEM;
	*a = n;
	return 0;
}

/* Room for need nodes in each of a search's lists (they grow as needed:
 * most searches see a few nodes). 0 or -ENOMEM. */
static int room(struct dyn_order *d, uint32_t need)
{
	uint32_t cap = d->scratch_cap ? d->scratch_cap : 64;
	uint64_t *sorted;

	if (need <= d->scratch_cap)
		return 0;
	while (cap < need)
		cap = cap > UINT32_MAX / 2 ? UINT32_MAX : 2 * cap;
	if (grow(&d->forward, cap) || grow(&d->backward, cap) || grow(&d->stack, cap))
		return -ENOMEM;
	if (!(sorted = realloc(d->sorted, 4 * (size_t)cap * sizeof(uint64_t))))
		return -ENOMEM;
	d->sorted = sorted;
	d->scratch_cap = cap;
	return 0;
}

static int link_edge(struct dyn_order *d, uint32_t a, uint32_t b)
{
	uint32_t e = d->edges;

	if (e == d->edges_cap) {
		uint32_t cap = d->edges_cap ? 2 * d->edges_cap : 1024;
		if (cap < d->edges_cap || grow(&d->edge_to, cap) || grow(&d->edge_next_out, cap) ||
		    grow(&d->edge_from, cap) || grow(&d->edge_next_in, cap))
			return -ENOMEM;
		d->edges_cap = cap;
	}
	d->edge_to[e] = b;
	d->edge_from[e] = a;
	d->edge_next_out[e] = d->out[a];
	d->edge_next_in[e] = d->in[b];
	d->out[a] = d->in[b] = e;
	d->edges++;
	return 0;
}

void dyn_order_undo(struct dyn_order *d)
{
	uint32_t e = --d->edges;

	d->out[d->edge_from[e]] = d->edge_next_out[e];
	d->in[d->edge_to[e]] = d->edge_next_in[e];
}

/* Nodes reachable from b placed before `below`, into d->forward (*found
 * of them); 1 when `target` is among them (a cycle), or -ENOMEM. The
 * backward list is its stack. Room for n + top + 1 at each push: every
 * node on the stack still goes to the list, with no push (no check) in
 * between. */
static int search_forward(struct dyn_order *d, uint32_t b, uint32_t target, uint32_t below,
			  uint32_t *found)
{
	uint32_t n = 0, top = 0;

	if (room(d, 1))
		return -ENOMEM;
	d->mark[b] = d->search;
	d->backward[top++] = b;
	while (top) {
		uint32_t x = d->backward[--top];
		d->forward[n++] = x;
		for (uint32_t e = d->out[x]; e != NONE; e = d->edge_next_out[e]) {
			uint32_t y = d->edge_to[e];
			d->work++;
			if (y != target && (d->mark[y] == d->search || d->place[y] >= below))
				continue;
			if (y == target)
				return 1;
			if (room(d, n + top + 1))
				return -ENOMEM;
			d->mark[y] = d->search;
			d->backward[top++] = y;
		}
	}
	*found = n;
	return 0;
}

/* Nodes that reach a placed after `above`, into d->backward (*found of
 * them). 0 or -ENOMEM. */
static int search_backward(struct dyn_order *d, uint32_t a, uint32_t above, uint32_t *found)
{
	uint32_t n = 0, top = 0;

	d->mark[a] = d->search;
	d->stack[top++] = a;
	while (top) {
		uint32_t x = d->stack[--top];
		d->backward[n++] = x;
		for (uint32_t e = d->in[x]; e != NONE; e = d->edge_next_in[e]) {
			uint32_t y = d->edge_from[e];
			d->work++;
			if (d->mark[y] != d->search && d->place[y] > above) {
				if (room(d, n + top + 1))
					return -ENOMEM;
				d->mark[y] = d->search;
				d->stack[top++] = y;
			}
		}
	}
	*found = n;
	return 0;
}

/* nodes[0..n) sorted by their places, through d->sorted. */
static void sort_by_place(struct dyn_order *d, uint32_t *nodes, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		d->sorted[i] = (uint64_t)d->place[nodes[i]] << 32 | nodes[i];
	sort_numbers(d->sorted, d->sorted + 2 * (size_t)d->scratch_cap, n, 32);
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = (uint32_t)d->sorted[i];
}

/* The backward nodes, then the forward ones, each in their old order,
 * take the places they held together, in order. */
static void reorder(struct dyn_order *d, uint32_t nf, uint32_t nb)
{
	uint32_t n = 0;

	sort_by_place(d, d->forward, nf);
	sort_by_place(d, d->backward, nb);
	for (uint32_t i = 0; i < nb; i++)
		d->sorted[n++] = d->place[d->backward[i]];
	for (uint32_t i = 0; i < nf; i++)
		d->sorted[n++] = d->place[d->forward[i]];
	sort_numbers(d->sorted, d->sorted + 2 * (size_t)d->scratch_cap, n, 0);
	n = 0;
	for (uint32_t i = 0; i < nb; i++)
		d->place[d->backward[i]] = (uint32_t)d->sorted[n++];
	for (uint32_t i = 0; i < nf; i++)
		d->place[d->forward[i]] = (uint32_t)d->sorted[n++];
}

int dyn_order_add(struct dyn_order *d, uint32_t a, uint32_t b)
{
	uint32_t nf, nb;
	int r;

	if (a == b)
		return 1;
	if (d->place[a] < d->place[b])
		return link_edge(d, a, b);
	if (++d->search == 0) { /* the marks wrapped: clear them */
		memset(d->mark, 0, ((size_t)d->nodes + 1) * sizeof(uint32_t));
		d->search = 1;
	}
	if ((r = search_forward(d, b, a, d->place[a], &nf)) ||
	    (r = search_backward(d, a, d->place[b], &nb)))
		return r;
	reorder(d, nf, nb);
	return link_edge(d, a, b);
}

int dyn_order_reaches(struct dyn_order *d, uint32_t a, uint32_t b, unsigned long limit)
{
	uint32_t top = 0;
	unsigned long seen = 0;

	if (a == b)
		return 1;
	if (d->place[a] > d->place[b])
		return 0; /* the order is topological */
	if (++d->search == 0) {
		memset(d->mark, 0, ((size_t)d->nodes + 1) * sizeof(uint32_t));
		d->search = 1;
	}
	if (room(d, 1))
		return -ENOMEM;
	d->mark[a] = d->search;
	d->stack[top++] = a;
	while (top) {
		uint32_t x = d->stack[--top];
		for (uint32_t e = d->out[x]; e != NONE; e = d->edge_next_out[e]) {
			uint32_t y = d->edge_to[e];
			d->work++;
			if (y == b)
				return 1;
			if (d->mark[y] == d->search || d->place[y] > d->place[b])
				continue;
			if (++seen > limit)
				return 2;
			if (room(d, top + 1))
				return -ENOMEM;
			d->mark[y] = d->search;
			d->stack[top++] = y;
		}
	}
	return 0;
}
