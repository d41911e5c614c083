/* SPDX-License-Identifier: MIT */
/* Facts about a program that the fast solvers share: every (variable, value)
 * pair gets a small id, each event knows the pair it reads and the pair it
 * writes, each variable its number of writer threads and its initial value,
 * and static checks that refute a program before any search. */
#ifndef VSC_ANALYSIS_H
#define VSC_ANALYSIS_H

#include "program.h"
#include "solver.h"

#define PAIR_NONE UINT32_MAX             /* the event does not read (or write) */
#define VALUE_NONE UINT32_MAX            /* memory: no initial value, never written */
#define VALUE_UNDECIDED (UINT32_MAX - 1) /* memory: init x ?, not yet read */

struct event_pairs {
	uint32_t read;  /* pair read (RMW: the old value), or PAIR_NONE */
	uint32_t write; /* pair written (RMW: the new value), or PAIR_NONE */
};

struct analysis {
	uint32_t k, nvars, npairs;
	struct event_pairs **pairs;       /* per thread, per event */
	uint32_t *reads_of;               /* per pair: events that read it */
	uint32_t *writes_of;              /* per pair: events that write it */
	uint32_t *var_reads, *var_writes; /* per variable */
	uint32_t *writers;                /* per variable: threads that write it */
	uint32_t *writer;                 /* per variable: the writer thread when there is one */
	uint32_t *written_pairs;          /* per variable: distinct pairs written */
	uint32_t *last_write;             /* per variable: pair of its last write in thread
					   * order (threads in turn), or VALUE_NONE */
	uint32_t *init;                   /* per variable: initial memory (pair or VALUE_*) */
	int refuted;                      /* no SC interleaving exists, whatever the bound */
	const char *why;                  /* what refuted it */
};

int analysis_build(struct analysis *a, const struct vsc_program *p);
/* The same within budget b (NULL: none), which it reports progress to:
 * -ETIME when b's deadline passed. */
int analysis_build_within(struct analysis *a, const struct vsc_program *p, struct budget *b);
/* The same with the spans of p's values (value_span.h, VALUES_ALL) found
 * already (NULL: found here, a pass over the events). */
struct value_span;
int analysis_build_spanned(struct analysis *a, const struct vsc_program *p, struct budget *b,
			   const struct value_span *spans);
void analysis_free(struct analysis *a);

#endif
