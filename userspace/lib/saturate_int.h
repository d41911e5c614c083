/* SPDX-License-Identifier: MIT */
/* The working state of the forced-order saturation, shared by saturate.c
 * (epochs, first graph, vectors, export) and saturate_fix.c (the
 * incremental fixpoint). Internal to the library. */
#ifndef VSC_SATURATE_INT_H
#define VSC_SATURATE_INT_H

#include "saturate.h"
#include "userspace/util/sorted.h"

#define NO_READ UINT32_MAX

/* Read r was put on a write's list when its lo (or hi) was epoch. */
struct list_node {
	uint32_t r, epoch, next;
};

/* A queue of distinct numbers below cap (each in it at most once). */
struct ring {
	uint32_t *slot, cap, head, len;
	uint8_t *in;
};

/* Events to propagate from, lowest rank first (each in it at most once). */
struct heap {
	uint32_t *item, *rank, len;
	uint8_t *in;
};

struct sat_state {
	const struct vsc_program *p;
	const struct analysis *a;
	uint32_t k, n;
	uint32_t *base;        /* per thread + 1: flat number of its event 0 */
	uint32_t *thread_of;   /* per flat event (the fixpoint's graph only) */
	uint32_t *xw_off, *xw; /* per one-writer variable: W's indices of its writes */
	uint32_t *pe_off, *pe; /* per pair: epochs (>= 1) that hold it (pe_start()) */
	uint32_t reads_max;    /* constrained reads (index_writes counts them) */
	uint32_t nreads, *read_flat, *lo, *hi;
	int choices;             /* some read has a choice of epochs (lo < hi) */
	uint32_t *out_off, *out; /* forced edges, CSR by source */
	uint32_t *ue_off, *ue;   /* of them, a value written once -> its reads
				  * (NULL: none; unique_edges()) */
	uint32_t *indeg, *queue;
	uint32_t *vec; /* n * k */
	/* the incremental fixpoint (fixpoint()) */
	uint32_t *read_of;           /* per flat event: its read number, or NO_READ */
	uint32_t *prev_read;         /* per read: the thread's read of x before it */
	uint32_t *head_lo, *head_hi; /* per flat write: lists of reads whose lo */
	struct list_node *nodes;     /* (hi) epoch it opens; stale nodes are */
	uint32_t nnodes, node_cap;   /* unlinked when met */
	struct heap events;          /* to propagate from, by topological rank */
	struct ring reads;           /* to tighten again */
};

static inline uint32_t epochs_of(const struct sat_state *s, uint32_t x)
{
	return s->xw_off[x + 1] - s->xw_off[x];
}

/* Where pair's epochs are in pe: pe_off[pair] is their end (index_writes);
 * a pair of a one-writer variable has an epoch per write. */
static inline uint32_t pe_start(const struct sat_state *s, uint32_t pair)
{
	return s->pe_off[pair] - s->a->writes_of[pair];
}

static inline uint32_t pe_end(const struct sat_state *s, uint32_t pair)
{
	return s->pe_off[pair];
}

static inline int init_matches(const struct sat_state *s, uint32_t x, uint32_t pair)
{
	return s->a->init[x] == pair || s->a->init[x] == VALUE_UNDECIDED;
}

/* Smallest epoch >= e of variable x holding pair, or UINT32_MAX. */
static inline uint32_t next_match(const struct sat_state *s, uint32_t x, uint32_t pair, uint32_t e)
{
	uint32_t lo;
	if (e == 0 && init_matches(s, x, pair))
		return 0;
	lo = first_at_least(s->pe, pe_start(s, pair), pe_end(s, pair), e);
	return lo < pe_end(s, pair) ? s->pe[lo] : UINT32_MAX;
}

/* Largest epoch <= e of variable x holding pair, or UINT32_MAX. */
static inline uint32_t prev_match(const struct sat_state *s, uint32_t x, uint32_t pair, uint32_t e)
{
	uint32_t lo = pe_start(s, pair), hi = pe_end(s, pair);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->pe[mid] <= e)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > pe_start(s, pair))
		return s->pe[lo - 1];
	return init_matches(s, x, pair) ? 0 : UINT32_MAX;
}

/* Thread t's event i at flat f, for f met in increasing order: *t moves
 * on from the thread of the last one (start it at 0). */
static inline const struct vsc_event *flat_event_in_order(const struct sat_state *s, uint32_t f,
							  uint32_t *t, uint32_t *i)
{
	while (f >= s->base[*t + 1])
		(*t)++;
	*i = f - s->base[*t];
	return &s->p->threads[*t].events[*i];
}

/* The same for any f (thread_of: the fixpoint's graph only). */
static inline const struct vsc_event *flat_event(const struct sat_state *s, uint32_t f, uint32_t *t,
						 uint32_t *i)
{
	*t = s->thread_of[f];
	*i = f - s->base[*t];
	return &s->p->threads[*t].events[*i];
}

/* The writer's event (flat) opening epoch e >= 1 of x. */
static inline uint32_t opening(const struct sat_state *s, uint32_t x, uint32_t e)
{
	return s->base[s->a->writer[x]] + s->xw[s->xw_off[x] + e - 1];
}

/* s->ue_off, s->ue (saturate_unique.c): 0 or -ENOMEM. */
int saturate_unique_edges(struct sat_state *s);

/* The edges of values written once out of flat event f, as [*e, *end). */
static inline void unique_edges(const struct sat_state *s, uint32_t f, uint32_t *e, uint32_t *end)
{
	*e = s->ue_off ? s->ue_off[f] : 0;
	*end = s->ue_off ? s->ue_off[f + 1] : 0;
}

/* f->iv_off, f->iv from the vectors (saturate_stops.c): 0, -ENOMEM or
 * -ETIME. */
int saturate_stops(const struct sat_state *s, struct forced *f, struct budget *b);

/* Tighten every read's range and pass the orders on to a fixpoint (s has
 * the vectors of the first graph). Returns 0, 1 when refuted, -ENOMEM or
 * -ETIME. */
int saturate_fixpoint(struct sat_state *s, struct budget *b);
void saturate_fixpoint_free(struct sat_state *s);

/* The lower bound's table into f->last and f->back (saturate_bound.c):
 * from s->vec, or, without vectors, by two topological passes over the
 * orders of the reads' first ranges, which also find a cycle. Return 0, 1
 * on a cycle (passes only), -E2BIG (passes: too many values open at
 * once), -ENOMEM or -ETIME. */
int bound_table_from_vectors(const struct sat_state *s, struct forced *f);
int bound_table_by_passes(struct sat_state *s, struct forced *f, struct budget *b);

#endif
