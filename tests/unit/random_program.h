/* SPDX-License-Identifier: MIT */
/* Small random programs for property tests: built by running a random
 * interleaving (so most are SC), then some reads are given wrong values. */
#ifndef VSC_TEST_RANDOM_PROGRAM_H
#define VSC_TEST_RANDOM_PROGRAM_H

#include <stdint.h>

#include "vsc/vsc.h"

struct random_shape {
	unsigned threads;   /* 1.. */
	unsigned events;    /* total events */
	unsigned vars;      /* 1.. */
	unsigned values;    /* distinct values written: 1.. */
	int one_writer;     /* each variable written by one thread */
	int two_writers;    /* each variable written by two threads at most */
	unsigned write_pct; /* chance of a write (or RMW) per event */
	unsigned rmw_pct;   /* of the writes, chance to be an RMW */
	unsigned wrong_pct; /* chance of a read with a random value */
	unsigned init_pct;  /* chance per variable of init x v (half of them ?) */
	int timestamps;     /* @ts hints: the generating order, a little shuffled */
	int unique_last;    /* the last variable's writes write values of their own */
};

/* xorshift64*: the seed picks the program. */
uint64_t random_next(uint64_t *state);
/* A number below n (0 when n is 0). */
unsigned random_below(uint64_t *state, unsigned n);
struct vsc_program *random_program(uint64_t *state, const struct random_shape *shape);
/* A shape of 3-5 threads whose variables have two writer threads at most:
 * events, vars and values from the given least (22, 4 and 3 choices),
 * RMWs in one program of three (i: the program's number), known or
 * unknown inits in every other one, a few wrong reads. */
struct random_shape random_two_writer_shape(uint64_t *state, int i, unsigned events, unsigned vars,
					    unsigned values);
/* An empty program with threads T0.. and variables x0.. (NULL: no memory). */
struct vsc_program *named_program(unsigned threads, unsigned vars);

/* A hammer, the shape of a watchpoint recording of one variable: k
 * threads each store 0..n-1 into x0 and load it back; two threads (a, b)
 * run at a time, and another pair after a step in 40. */
struct hammer {
	unsigned k, n, left, a, b;
	unsigned *pos; /* per thread: its events so far */
	int64_t mem;   /* what memory holds */
};

/* 0, or -1 when there is no memory (h->pos). */
int hammer_start(struct hammer *h, unsigned k, unsigned n);
/* Thread t, the caller's pick of the pair, or the first not done when t
 * is done; the pair changes after a step in 40. */
unsigned hammer_thread(uint64_t *state, struct hammer *h, unsigned t);
/* Thread t's next event (a store of its counter or a load of memory),
 * counted as run: the caller appends it, maybe changed. */
struct vsc_event hammer_step(struct hammer *h, unsigned t);

#endif
