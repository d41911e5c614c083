/* SPDX-License-Identifier: MIT */
/* One hot variable: what choosing the writes the reads see (hot_var.c)
 * and running the threads along them (hot_run.c) share. */
#ifndef VSC_HOT_VAR_INT_H
#define VSC_HOT_VAR_INT_H

#include "solver.h"

#define NONE UINT32_MAX
#define INIT_NODE 0    /* the initial value's block, first of all */
#define HOT_CHUNK 4096 /* events between looks at the budget */
#define SOURCE_SCAN 64 /* writes of the value looked at past the reader's own */

struct hot {
	const struct vsc_program *p;
	size_t n;
	uint32_t k, nodes;     /* nodes: the writes + INIT_NODE */
	size_t *base;          /* per thread (k + 1): index of its first event */
	uint32_t *node;        /* per event: the block it is in */
	uint32_t *next_reader; /* per event: the next read of its block */
	uint64_t *key;         /* per node: hint or place, the order's tie-break */
	uint32_t *writer;      /* per node: its thread (INIT_NODE: NONE) */
	uint32_t *rmw_of;      /* per node: the RMW right after it, NONE */
	uint32_t *source;      /* per node: an RMW's source node, NONE */
	uint32_t *order;       /* the blocks in their order */
	uint32_t *first_reader;
	uint32_t *pending; /* per node: its reads not run yet */
	int hinted;
};

static inline const struct vsc_event *event_at(const struct hot *h, uint32_t t, size_t i)
{
	return &h->p->threads[t].events[i];
}

/* The blocks' graph: an edge from the block of each event to the block of
 * the next event of its thread, and from an RMW's source to the RMW. */
struct graph {
	uint32_t *start; /* per node + 1: its first edge */
	uint32_t *to;
	uint32_t *indegree;
};

/* A binary heap of ready nodes, least key first. */
struct ready {
	uint32_t *at;
	uint32_t n;
	const uint64_t *key;
};

void hot_ready_push(struct ready *q, uint32_t x);
uint32_t hot_ready_pop(struct ready *q);

/* The hint of event i of thread t, or its place in its thread scaled to
 * 2^32 (h->hinted: every event has a hint). */
uint64_t hot_event_key(const struct hot *h, uint32_t t, size_t i);
/* The thread of event g. */
uint32_t hot_thread_of(const struct hot *h, size_t g);
/* g for h's choice: 0, HOT_VAR_OPEN (too many edges) or -ENOMEM; free
 * with hot_graph_free() either way. */
int hot_graph_build(const struct hot *h, struct graph *g);
void hot_graph_free(struct graph *g);
/* The readers of each block (h->first_reader, next_reader, pending) anew.
 * 0 or -ENOMEM. */
int hot_readers(struct hot *h);
/* Runs the threads along the blocks, choosing the next block as it goes
 * (the one its thread is at first), into witness: 0, HOT_VAR_OPEN (stuck)
 * or -errno. */
int hot_run_greedy(struct hot *h, struct budget *b, uint32_t *witness);
/* Steps 1 and 2 by a search (hot_search.c; p has no RMW): h->node for
 * every read, the blocks' graph acyclic. 0, HOT_VAR_REFUTED (no choice
 * is: no SC interleaving), HOT_VAR_OPEN (the search's caps) or -errno. */
int hot_search_choose(struct hot *h, struct budget *b);

#endif
