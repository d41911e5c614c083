/* SPDX-License-Identifier: MIT */
/* SAT over the order of events, for bounds above 0 and no bound
 * (sat_bound.c): what they share (encode_events.c: the events, the
 * writes of each variable, "each read sees one write"), and the two ways
 * to order the events:
 *  - order_cycles.c: a variable per pair of events the reads-from
 *    clauses name (one variable, one of them a write), cycles through
 *    them and program order forbidden lazily; any number of preemptions
 *    (no bound);
 *  - order_gaps.c: for a bound with many threads, a gap literal per two
 *    consecutive events of a thread ("they run together") on the cycles
 *    and a counter of the false ones: the preemptions;
 *  - order_slots.c: for a bound with few threads, each event in one of L
 *    slots, each slot one thread's run, so L = threads + k allows k
 *    preemptions; no transitivity. */
#ifndef VSC_ENCODE_EVENTS_H
#define VSC_ENCODE_EVENTS_H

#include "lazy_order.h"
#include "program.h"

/* The writes of each variable, in event order: writes[wstart[x]..wstart[x+1]). */
struct write_lists {
	uint32_t *wstart, *writes;
	uint32_t *own; /* per event: its thread's last write of its variable before it, or NONE */
	uint32_t *windex; /* per write: its place among the writes of its variable */
};

#define NONE UINT32_MAX

struct event_encoding {
	const struct vsc_program *p;
	uint32_t n;       /* events, numbered thread by thread in program order */
	uint32_t threads; /* threads with events */
	uint32_t *thread; /* the program's thread of each event */
	uint32_t *end;    /* per event: one past the last event of its thread */
	uint32_t *start;  /* per program thread: its first event */
	struct write_lists wl;
	/* the order's literal "a comes before b", for a and b of one
	 * variable, one of them a write (LIT_TRUE / LIT_FALSE in one thread) */
	order_lit_fn order;
	void *order_ctx;
	int nvars;       /* variables used so far */
	size_t lits;     /* literals given to the solver */
	size_t max_lits; /* beyond this the solver would pass the memory limit */
	struct sat_backend *s;
};

/* Estimated bytes of the SAT solver per literal of a clause and per
 * variable (CaDiCaL on the 3-SAT reductions, rounded up). */
#define SAT_BYTES_PER_LIT 40
#define SAT_BYTES_PER_VAR 160

/* Number p's events and list its writes, for clauses given to s. 0,
 * -E2BIG (too many events), -ENOMEM. */
int events_number(const struct vsc_program *p, struct event_encoding *e, struct sat_backend *s,
		  struct budget *b);
void event_encoding_free(struct event_encoding *e);
const struct vsc_event *event_at(const struct event_encoding *e, uint32_t a);
/* Room for vars more variables within the memory limit: 0 or -E2BIG. */
int events_reserve(struct event_encoding *e, uint64_t vars);

/* A clause to the solver, counted against the memory estimate (past it,
 * clauses are left out and events_done() says -E2BIG). */
void event_clause(struct event_encoding *e, const int *lits, int n);
void event_clause2(struct event_encoding *e, int a, int b);
void event_clause3(struct event_encoding *e, int a, int b, int c);
/* 0, or -E2BIG when clauses were left out. */
int events_done(const struct event_encoding *e);

/* Every read sees one write (or the initial value) in e->order. 0,
 * -ENOMEM, -ETIME. */
int encode_reads_from(struct event_encoding *e, struct budget *b);

/* The pairs the reads-from clauses name (a and b of one variable, one of
 * them a write, different threads): one variable each, made on first use,
 * in the row of its read (or of its first write), a column per write of
 * the variable. */
struct pair_rows {
	uint64_t *row;  /* per event: where its pairs with the writes of its variable start */
	int *pair;      /* pair variables made so far (0: not yet) */
	uint64_t total; /* places in the rows */
};
int pair_rows_init(struct pair_rows *r, const struct event_encoding *e);
void pair_rows_free(struct pair_rows *r);
/* "a comes before b" (LIT_TRUE / LIT_FALSE in one thread): the pair's
 * variable, made by make(ctx, row, col) on first use (meaning "row's event
 * comes first"; LIT_TRUE when it could not be made). */
int pair_rows_lit(const struct pair_rows *r, const struct event_encoding *e, uint32_t a, uint32_t b,
		  int (*make)(void *ctx, uint32_t row, uint32_t col), void *ctx);

/* order_cycles.c */
struct pair_edge {
	int var;
	uint32_t row, col; /* var: row comes before col */
};
struct cycle_order {
	struct event_encoding *e;
	struct pair_rows rows;
	struct pair_edge *edges; /* every pair variable made, in order */
	size_t nedges, cap;
	int failed; /* out of memory while making one */
	/* per event a: "a and a + 1 run together" (no preemption of a's
	 * thread between them), 0 at a thread's last event; NULL: no bound */
	int *gap;
	int assume; /* a literal assumed at every solve, or 0 */
	/* per round: the model's graph (program order and the pairs) */
	uint32_t *first, *next_edge; /* out-edges as lists: first[a], next_edge[edge] */
	uint32_t *target;            /* per edge of the graph: its head */
	uint32_t *indegree, *order;  /* a topological order of what sorts, first first */
	uint32_t *index, *low, *stack, *call, *iter, *on_stack; /* strongly connected parts */
	uint32_t *dist, *via, *from, *queue;                    /* the shortest cycles' search */
	uint32_t *rep; /* per round: the first event of each event's block */
};
/* e->order becomes the pairs' variables; clauses come with them. */
int cycle_order_init(struct cycle_order *o, struct event_encoding *e);
void cycle_order_free(struct cycle_order *o);
/* The gap literals, for a bound (order_gaps.c counts the false ones): 0,
 * -E2BIG, -ENOMEM. A model's blocks (events that run together) become the
 * graph's nodes, and a cycle's clause names the gaps it crosses. */
int cycle_order_gaps(struct cycle_order *o);
/* "At most k preemptions": a counter of the false gap literals up to
 * cutoff (order_gaps.c); out[j - 1] (j = 1..outputs) is "at least j", so
 * assuming -out[k] bounds them by k; outputs is less than cutoff only when
 * there are fewer gaps (k >= outputs needs no assumption). 0, -E2BIG,
 * -ENOMEM, -ETIME. */
int gap_counter(struct cycle_order *o, uint32_t cutoff, int **out, uint32_t *outputs,
		struct budget *b);
/* Solve, adding the cycles each model closes, until a model has none (10:
 * o->order holds a witness, event by event) or there is none (20); 0 when
 * b stopped it, -ENOMEM. Counts rounds and the clauses added. */
int cycle_order_solve(struct cycle_order *o, struct budget *b, uint64_t *rounds, uint64_t *added);

/* order_slots.c */
struct slot_order {
	struct event_encoding *e;
	uint32_t slots;  /* L */
	int rbase;       /* r(a) > j is variable rbase + a * (L - 1) + j, j = 1..L-1 */
	int ownbase;     /* own(j,i): slot j holds a run of thread i (among threads with events) */
	int ladderbase;  /* at-most-one own(j,i) per slot j: "some i' <= i owns j" */
	int limbase;     /* lim(j): slot j may be used */
	uint32_t *index; /* per program thread: its index among threads with events */
	struct pair_rows rows; /* the pair variables, each tied to the slots */
};
/* L = slots; e->order becomes the order of the slots. */
int slot_order_init(struct slot_order *o, struct event_encoding *e, uint32_t slots,
		    struct budget *b);
void slot_order_free(struct slot_order *o);
/* The literal to assume for "at most k preemptions" (k < L - threads). */
int slot_limit(const struct slot_order *o, uint32_t k);
/* The model's order of events as threads, one per step: 0 or -ENOMEM. */
int slot_witness(const struct slot_order *o, uint32_t *threads);

#endif
