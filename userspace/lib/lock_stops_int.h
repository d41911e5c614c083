/* SPDX-License-Identifier: MIT */
/* What the two halves of the lock stops share (lock_stops.c finds a lock
 * and the order of its holds, lock_episodes.c counts the stops readers
 * force on the holders). */
#ifndef VSC_LOCK_STOPS_INT_H
#define VSC_LOCK_STOPS_INT_H

#include "analysis.h"
#include "lock_stops.h"
#include "own_stops.h"

#define NO_PLACE UINT32_MAX
/* The key of a hold never given with no RMW of the clock: the last */
#define LAST_KEY (NO_PLACE - 1)

/* budget_spend() for b, NULL: no budget. */
static inline int lock_spend(struct budget *b, unsigned long work)
{
	return b && budget_spend(b, work);
}

/* A take of the lock and its give in one thread. */
struct hold {
	uint32_t key;        /* phase of the first clock RMW inside */
	uint32_t thread;     /* the holder */
	uint32_t take, give; /* positions; give NO_PLACE: held to the end */
};

struct lock {
	uint32_t x;           /* the variable */
	uint32_t free, taken; /* its pairs: the value A gives write, the value B takes write */
	/* the thread that held x at the start (its initial value is B), or
	 * NO_PLACE (it is A): holds[0] is then that thread's hold from its
	 * start to its first give, its take (0) standing for one before its
	 * first event (lock_stops.c, "held at the start") */
	uint32_t holder;
	struct hold *holds; /* in the order of the clock */
	uint32_t n;
};

/* The first place of an episode after hold j (0: from the start): gap j,
 * but hold 1 when x was held at the start (gap 0 is then empty). */
static inline uint32_t lock_first_place(const struct lock *l, uint32_t j)
{
	return j ? 2 * j : l->holder != NO_PLACE;
}

/* Is h the hold the lock's holder had at the start (no take of its own)? */
static inline int held_from_start(const struct lock *l, const struct hold *h)
{
	return l->holder != NO_PLACE && h == l->holds;
}

struct lock_scratch {
	const struct vsc_program *p;
	const struct analysis *a;
	uint32_t *rmw, *plain;  /* per variable: its RMW writes, its other writes */
	uint32_t *init;         /* per variable: its initial pair (lock_init.h) */
	uint32_t *next, *phase; /* per pair: the clock's chain */
	struct hold *holds;
};

struct episode {
	uint32_t lo, hi; /* its first and last costly place */
	uint32_t weight; /* costly places its reads take at least */
};

struct line {
	const struct lock_scratch *s;
	const struct lock *l;
	uint32_t places;             /* 2n + 1 */
	uint8_t *costly;             /* per place */
	uint32_t *costly_before;     /* per place + 1: costly places before it */
	uint32_t *own_off;           /* per thread + 1: its minimal own intervals */
	struct own_interval *own;    /* each thread's, by increasing left and right */
	uint64_t own_stops;          /* their stops, all threads */
	uint32_t *index_off, *index; /* per thread: its holds' numbers, in program order */
	uint32_t *row, *next_row;    /* dynamic program, places words each */
	uint8_t *reads;              /* one episode's reads: 1 for B (a hold), 0 for A */
	uint32_t *read_at;           /* their positions in the thread */
	struct episode *episodes;
	uint32_t nepisodes;
	struct budget *b;
	int stopped; /* b ran out */
	/* for the witness (lock_witness.c) */
	size_t *base;    /* per thread: the flat number of its event 0 */
	uint32_t *place; /* per flat event: the place of a read put on the line */
	uint8_t *used;   /* per place: a costly place some episode took */
	void *placing;   /* the episodes kept for placing (lock_witness.c) */
};

/* Called with each episode of thread t: m reads (ln->reads, ln->read_at)
 * between its holds j and j2 (0 and n + 1 at the ends). */
typedef void episode_fn(struct line *ln, uint32_t t, uint32_t m, uint32_t j, uint32_t j2);

/* Thread t's episodes, in program order. Returns 0, or -1 when t reads A
 * in its own hold (no SC interleaving). */
int lock_walk_episodes(struct line *ln, uint32_t t, episode_fn *on_episode);

/* The stops beyond the own stops that readers of lock l force on its
 * holders (l->holds in order) into found->extra (0 when memory runs out
 * or b stops it), and a witness along the line when it has fewer
 * preemptions than found's. */
void lock_episodes(const struct lock_scratch *s, const struct lock *l, struct budget *b,
		   struct lock_stops *found);
/* An SC interleaving along ln's line, verified, or NULL; *preemptions its
 * count. */
uint32_t *lock_witness(struct line *ln, long *preemptions);

#endif
