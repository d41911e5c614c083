/* SPDX-License-Identifier: MIT */
/* What the rows of source_orders.c share with the splits of
 * source_splits.c: the rows, the writes by key, and the rules' helpers.
 * Internal to those two files. */
#ifndef VSC_SOURCE_ORDERS_INT_H
#define VSC_SOURCE_ORDERS_INT_H

#include "analysis.h"
#include "solver.h"

#define NO_POS UINT32_MAX
#define ROUNDS_MAX 64

/* Writes grouped by a key (a pair or a variable), then by thread in
 * increasing order, each thread's in program order: one run per key and
 * thread. */
struct write_runs {
	uint32_t *first_run;  /* per key + 1: the key's runs */
	uint32_t *run_thread; /* per run */
	uint32_t *run_start;  /* per run + 1: the run's positions */
	uint32_t *pos;        /* positions in the run's thread, ascending */
};

struct sources {
	const struct vsc_program *p;
	const struct analysis *a;
	uint32_t k;
	size_t *base;   /* per thread: the row of its first event */
	uint32_t *rows; /* per event, k entries */
	struct write_runs by_pair, by_var;
	uint32_t *next, *least, *probe; /* k each: the row being settled, the sources' meet,
					 * the row if one thread's write is seen */
	uint32_t *forced;               /* per run of a variable: its last write before the read */
	uint32_t *last_pos, *last_pair; /* per variable: the thread's last access */
	/* rounds in the order of the recorded times (when every event has
	 * one, NULL else): per thread, 2 x variables words (its last_pos,
	 * last_pair), and per thread its next event */
	uint32_t *by_time, *time_pos;
};

static inline uint32_t *row_of(const struct sources *s, uint32_t t, uint32_t i)
{
	return s->rows + (s->base[t] + i) * s->k;
}

/* Rounds until no row grows (at most ROUNDS_MAX). Returns
 * SOURCE_ORDERS_REFUTED, 0, or -ETIME when b stopped it. */
int sources_fixpoint(struct sources *s, struct budget *b);
/* The first position >= m of run x, or NO_POS. */
uint32_t sources_first_from(const struct write_runs *r, uint32_t x, uint32_t m);
/* The run of variable x's writes by thread w in s->by_var, or NO_POS. */
uint32_t sources_var_run(const struct sources *s, uint32_t x, uint32_t w);
/* The last write of x (runs v0..v1) by each other thread among the
 * events that row (the read's, thread t) says precede the read, into
 * s->forced. */
void sources_forced_writes(struct sources *s, uint32_t t, const uint32_t *row, uint32_t v0,
			   uint32_t v1);
/* The earliest write of pair (run `run`, thread w) that the read t[i] can
 * see: after t's event j (NO_POS: none) and after the last writes of x
 * known to precede the read (s->forced, runs v0..v1); NO_POS when none is
 * left. */
uint32_t sources_first_candidate(const struct sources *s, uint32_t run, uint32_t w, uint32_t t,
				 uint32_t i, uint32_t j, uint32_t v0, uint32_t v1);
/* Does a read of pair (variable x) need another thread's write, when its
 * thread's previous access of x left `before` (PAIR_NONE: none)? */
int sources_needs_source_after(const struct sources *s, uint32_t x, uint32_t pair, uint32_t before);

/* After the rows' fixpoint: split on the write each read that needs
 * another thread's sees (source_splits.c), for at most
 * SPLIT_WORK_PER_ROUNDS times rows_work budget units (the rows' own work;
 * no cap without b). Returns SOURCE_ORDERS_REFUTED, 0 (open), or -ETIME. */
int sources_split(struct sources *s, struct budget *b, unsigned long rows_work);

/* A stale read among 10^4 events that only the splits refute needed more
 * than 8 (and at most 16); a program they leave open pays at most that. */
#define SPLIT_WORK_PER_ROUNDS 16

#endif
