/* SPDX-License-Identifier: MIT */
/* In a graph kept by dyn_order.c, whose edges carry a rank: when a -> b
 * closes a cycle, the path from b to a whose greatest rank is least (the
 * search of sources takes the levels on it as the conflict: the least
 * deepest conflict jumps back the farthest). */
#ifndef VSC_LEAST_PATH_H
#define VSC_LEAST_PATH_H

#include "dyn_order.h"

struct least_path {
	uint32_t *best;  /* per node: the least greatest rank of a path from b */
	uint32_t *via;   /* per node: the edge into it on that path */
	uint32_t *seen;  /* per node: the search that reached it last */
	uint32_t search; /* this search */
	uint32_t *list;  /* the nodes reached */
	uint32_t list_cap;
	uint64_t *sorted; /* room to sort them by place (twice the list) */
	unsigned long work;
};

/* Nodes a search's list holds at most (its room doubles in 32 bits). */
#define LEAST_PATH_MAX (1u << 31)

/* Room for d's nodes: 0 or -ENOMEM. */
int least_path_init(struct least_path *lp, uint32_t nodes);
void least_path_free(struct least_path *lp);
/* Room for need nodes in lp's list: 0, or -ENOMEM (no memory, or need
 * above LEAST_PATH_MAX: nothing is allocated then). */
int least_path_room(struct least_path *lp, uint32_t need);
/* The path from b to a (b reaches a in d, below a's place) whose greatest
 * rank(e, ctx) is least: afterwards lp->via[x] is the edge into x on it,
 * from x = a back to b. 0, 1 (b does not reach a) or -ENOMEM. */
int least_path_find(struct least_path *lp, const struct dyn_order *d, uint32_t a, uint32_t b,
		    uint32_t (*rank)(uint32_t e, const void *ctx), const void *ctx);

#endif
