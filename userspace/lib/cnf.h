/* SPDX-License-Identifier: MIT */
/* A formula in conjunctive normal form as one array of DIMACS literals,
 * each clause ended by 0, and the SAT encoding of a program into one. */
#ifndef VSC_CNF_H
#define VSC_CNF_H

#include "program.h"

struct cnf {
	int *lits;
	size_t count, cap;
	int nvars;
	size_t nclauses;
	int failed; /* out of memory while adding */
};

int cnf_new_var(struct cnf *f);
void cnf_add(struct cnf *f, int lit); /* 0 ends the clause */
void cnf_clause2(struct cnf *f, int a, int b);
void cnf_clause3(struct cnf *f, int a, int b, int c);
void cnf_free(struct cnf *f);
int cnf_write_dimacs(const struct cnf *f, FILE *out, const char *comment);

/* What the variables of an encoding mean, to read a model back. */
struct order_encoding {
	uint32_t *threads; /* threads with events, in the order of the encoding */
	uint32_t count;
};

/* "Is there an SC interleaving with no preemption?" as CNF: one variable per
 * pair of threads (which runs first), transitivity (left out when
 * with_transitivity is 0: the caller adds the clauses a model violates),
 * and for each thread's first read of a variable a choice of the thread it
 * reads from. b (NULL: no limit) is charged a unit per literal as the
 * clauses are made (they grow with the square of a variable's writers per
 * read: one hot variable of a long trace takes seconds): -ETIME when it
 * runs out; -E2BIG when the clauses and the solver's memory for them
 * (SAT_BYTES_PER_LIT a literal) would pass b's memory limit. */
struct budget;
int encode_no_preemption(const struct vsc_program *p, struct cnf *f, struct order_encoding *o,
			 int with_transitivity, struct budget *b);
/* The order variable "a runs before b" (indices into o->threads). */
int order_lit(const struct order_encoding *o, uint32_t a, uint32_t b);

#endif
