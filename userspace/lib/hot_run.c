/* SPDX-License-Identifier: MIT */
/* Steps 3 and 4 of hot_var.c at once: the threads run along the blocks
 * the choice of sources made, and the next block is chosen as the run
 * goes, so that a thread goes on whenever it can. hot_var.c's run follows
 * an order of the blocks fixed first (the least hint first), which
 * switches threads where no read asks it: on small recording-shaped
 * programs its witness had up to twice the least preemptions. Here:
 *
 *  - the thread that ran last runs on while its next event reads the
 *    current block;
 *  - when the current block's reads have all run, the next block is an
 *    RMW's that must follow it, else the one whose write that thread is
 *    at if nothing else must come first, else the ready one of least key;
 *  - while reads of the current block are left, the thread to run is one
 *    that ends with them (the switch away from it is free), else one that
 *    cannot go on after them, and last the one that can.
 *
 * Any order it makes is an order of the blocks' graph, so the run is an
 * SC interleaving with those sources (docs/solvers.md, "One hot
 * variable"); the verifier checks it all the same. */
#include "hot_var.h"
#include "hot_var_int.h"

#include <errno.h>
#include <stdlib.h>

/* Readers of a block looked at to choose the next; past them, the first
 * that may run (a block of many reads costs no more than one scan). */
#define READER_SCAN 64

struct greedy {
	struct hot *h;
	struct graph g;
	struct ready q;
	uint32_t *pos;            /* per thread: its events run */
	unsigned char *completed; /* per node: its edges are done */
	unsigned char *ran;       /* per node: its write ran */
	uint32_t cur, t;          /* the block whose write ran last; the thread that ran last */
};

static size_t at(const struct greedy *u, uint32_t t)
{
	return u->h->base[t] + u->pos[t];
}

static int finished(const struct greedy *u, uint32_t t)
{
	return u->pos[t] == u->h->p->threads[t].length;
}

/* Is thread t's next event a read of the current block? */
static int reads_cur(const struct greedy *u, uint32_t t)
{
	return !finished(u, t) && event_at(u->h, t, u->pos[t])->kind == VSC_READ &&
	       u->h->node[at(u, t)] == u->cur;
}

/* The block whose write thread t is at, when it may come next (every block
 * before it in the graph is done, and it follows no RMW's source), else
 * NONE. */
static uint32_t write_ready(const struct greedy *u, uint32_t t)
{
	uint32_t x;

	if (t == NONE || finished(u, t) || event_at(u->h, t, u->pos[t])->kind == VSC_READ)
		return NONE;
	x = u->h->node[at(u, t)];
	return u->ran[x] || u->g.indegree[x] || u->h->source[x] != NONE ? NONE : x;
}

/* The current block's reads have all run: its edges are done. */
static void complete(struct greedy *u, uint32_t x)
{
	if (u->completed[x])
		return;
	u->completed[x] = 1;
	for (uint32_t e = u->g.start[x]; e < u->g.start[x + 1]; e++) {
		uint32_t y = u->g.to[e];
		if (--u->g.indegree[y] == 0 && u->h->source[y] == NONE)
			hot_ready_push(&u->q, y);
	}
}

/* The next block: an RMW right after its source, else the one the last
 * thread is at, else the ready one of least key. NONE: none may come. */
static uint32_t next_block(struct greedy *u)
{
	uint32_t x = u->h->rmw_of[u->cur];

	if (x != NONE)
		return u->g.indegree[x] ? NONE : x;
	if ((x = write_ready(u, u->t)) != NONE)
		return x;
	while (u->q.n) {
		x = hot_ready_pop(&u->q);
		if (!u->ran[x])
			return x;
	}
	return NONE;
}

/* How good a choice thread t (at a read of the current block) is to run
 * now: 0 when its run of those reads ends it, 1 when it cannot go on
 * after them anyway, 2 when it may (it should be the last). */
static int reader_rank(const struct greedy *u, uint32_t t)
{
	const struct hot *h = u->h;
	size_t i = u->pos[t], len = h->p->threads[t].length;
	uint32_t y;

	while (i < len && h->node[h->base[t] + i] == u->cur && event_at(h, t, i)->kind == VSC_READ)
		i++;
	if (i == len)
		return 0;
	if (event_at(h, t, i)->kind == VSC_READ)
		return 1;
	y = h->node[h->base[t] + i];
	return h->source[y] == NONE && !u->ran[y] ? 2 : 1;
}

/* A thread at a read of the current block, the best by reader_rank(), or
 * NONE. */
static uint32_t pick_reader(struct greedy *u)
{
	struct hot *h = u->h;
	uint32_t best = NONE, looked = 0;
	int best_rank = 3;

	for (uint32_t g = h->first_reader[u->cur]; g != NONE && looked < READER_SCAN;
	     g = h->next_reader[g]) {
		uint32_t t = hot_thread_of(h, g);
		if (at(u, t) > g) { /* ran: drop it from the front */
			if (g == h->first_reader[u->cur])
				h->first_reader[u->cur] = h->next_reader[g];
			continue;
		}
		looked++;
		if (at(u, t) != g)
			continue;
		int rank = reader_rank(u, t);
		if (rank < best_rank) {
			best = t;
			best_rank = rank;
		}
		if (rank == 0)
			break;
	}
	return best;
}

/* Thread t runs its next event. */
static void step(struct greedy *u, uint32_t t, uint32_t *witness, size_t done)
{
	witness[done] = t;
	if (event_at(u->h, t, u->pos[t])->kind == VSC_READ)
		u->h->pending[u->cur]--;
	u->pos[t]++;
	u->t = t;
}

/* The next thread to run, after the block changes if it must; NONE: stuck. */
static uint32_t next_thread(struct greedy *u)
{
	struct hot *h = u->h;
	uint32_t x;

	if (u->t != NONE && reads_cur(u, u->t))
		return u->t;
	if (h->pending[u->cur])
		return pick_reader(u);
	complete(u, u->cur);
	x = next_block(u);
	if (x == NONE || u->g.indegree[x] || finished(u, h->writer[x]) ||
	    h->node[at(u, h->writer[x])] != x ||
	    event_at(h, h->writer[x], u->pos[h->writer[x]])->kind == VSC_READ)
		return NONE;
	u->ran[x] = 1;
	u->cur = x;
	return h->writer[x];
}

static int greedy_init(struct greedy *u, struct hot *h)
{
	int r = hot_graph_build(h, &u->g);

	u->h = h;
	u->q.key = h->key;
	u->cur = INIT_NODE;
	u->t = NONE;
	if (r)
		return r;
	u->q.at = malloc(h->nodes * sizeof(uint32_t));
	u->pos = calloc(h->k, sizeof(uint32_t));
	u->completed = calloc(h->nodes, 1);
	u->ran = calloc(h->nodes, 1);
	if (!u->q.at || !u->pos || !u->completed || !u->ran)
		return -ENOMEM;
	if (u->g.indegree[INIT_NODE])
		return HOT_VAR_OPEN;
	u->ran[INIT_NODE] = 1;
	for (uint32_t x = 1; x < h->nodes; x++)
		if (!u->g.indegree[x] && h->source[x] == NONE)
			hot_ready_push(&u->q, x);
	return hot_readers(h);
}

int hot_run_greedy(struct hot *h, struct budget *b, uint32_t *witness)
{
	struct greedy u = { 0 };
	int r = greedy_init(&u, h);

	for (size_t done = 0; done < h->n && !r; done++) {
		uint32_t t = next_thread(&u);
		if (t == NONE) {
			r = HOT_VAR_OPEN;
			break;
		}
		step(&u, t, witness, done);
		if ((done + 1) % HOT_CHUNK == 0 && budget_spend(b, HOT_CHUNK))
			r = -ETIME;
	}
	hot_graph_free(&u.g);
	free(u.q.at);
	free(u.pos);
	free(u.completed);
	free(u.ran);
	return r;
}
