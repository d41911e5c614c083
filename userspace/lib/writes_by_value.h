/* SPDX-License-Identifier: MIT */
/* The writes of a program of one variable sorted by the value they leave,
 * then by place (thread, index in it): the writes of one value, and one
 * thread's among them, found by halving (the lower bound hot_bound.c and
 * the refutation hot_refute.c look up a read's possible sources so). */
#ifndef VSC_WRITES_BY_VALUE_H
#define VSC_WRITES_BY_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "program.h"

struct value_write {
	int64_t value;   /* memory after it (an RMW's new value) */
	uint32_t thread; /* its thread */
	uint32_t at;     /* its index in its thread */
};

struct writes_by_value {
	struct value_write *w;
	size_t n;
};

/* Every write and RMW of p (one variable, fewer than 2^32 events each
 * thread), sorted. 0 or -ENOMEM; free with writes_by_value_free() either
 * way. */
int writes_by_value_build(struct writes_by_value *x, const struct vsc_program *p);
void writes_by_value_free(struct writes_by_value *x);

/* The writes of value v: x->w[*lo, *hi). Cost: a halving to the first,
 * then doubling steps from it (a value of few writes costs few more). */
void writes_of_value(const struct writes_by_value *x, int64_t v, size_t *lo, size_t *hi);

/* Thread t's writes among x->w[lo, hi), the writes of one value:
 * x->w[*tlo, *thi). */
void writes_of_thread(const struct writes_by_value *x, uint32_t t, size_t lo, size_t hi,
		      size_t *tlo, size_t *thi);

#endif
