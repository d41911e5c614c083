/* SPDX-License-Identifier: MIT */
/* A graph that grows one edge at a time, with an order of its nodes kept
 * topological (Pearce and Kelly's dynamic topological sort): an edge that
 * would close a cycle is refused, and the order is left as it was. */
#ifndef VSC_DYN_ORDER_H
#define VSC_DYN_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct dyn_order {
	uint32_t nodes;
	uint32_t *place;    /* per node: its place in the order */
	uint32_t *out, *in; /* per node: its first outgoing, incoming edge */
	uint32_t *edge_to, *edge_next_out, *edge_from, *edge_next_in;
	uint32_t edges, edges_cap;
	uint32_t *mark; /* per node: the search that saw it last */
	uint32_t search;
	uint32_t *forward, *backward, *stack; /* the nodes a search moves */
	uint64_t *sorted;                     /* room to sort them by place */
	uint32_t scratch_cap;                 /* room of each of those */
	unsigned long work;                   /* nodes and edges the searches visited */
};

/* nodes nodes, in the order of places (a permutation of 0..nodes-1).
 * Returns 0 or -ENOMEM. */
int dyn_order_init(struct dyn_order *d, uint32_t nodes, const uint32_t *places);
void dyn_order_free(struct dyn_order *d);
/* Add the edge from a to b, moving nodes so that the order stays
 * topological. Returns 0, 1 when the edge would close a cycle (nothing
 * changed), or -ENOMEM. */
int dyn_order_add(struct dyn_order *d, uint32_t a, uint32_t b);
/* Does a reach b (a path of edges from a to b; a == b counts)? Nothing
 * moves: only the nodes placed between them are visited, at most limit
 * of them. 1, 0, 2 (gave up at the limit) or -ENOMEM. */
int dyn_order_reaches(struct dyn_order *d, uint32_t a, uint32_t b, unsigned long limit);
/* Remove the edge added last (its order stays topological). */
void dyn_order_undo(struct dyn_order *d);

#endif
