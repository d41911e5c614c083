/* SPDX-License-Identifier: MIT */
/* The span of each variable's values, and the one rule for when a table
 * indexed by value - least value beats a hash table: shared by the
 * analysis's pair ids (analysis.c: every value read or written, variable by
 * variable) and coherence's write index (write_index.c: the values written,
 * the whole program at once). Counters, flags and indices, as generators
 * and instrumented programs write them, are dense; pointers and scattered
 * values are not. */
#ifndef VSC_VALUE_SPAN_H
#define VSC_VALUE_SPAN_H

#include <stdbool.h>
#include <stdint.h>

#include "program.h"

struct value_span {
	int64_t least, most; /* least > most: no value seen */
	uint64_t seen;       /* values counted (with repeats) */
};

enum value_span_kind {
	VALUES_WRITTEN, /* a write's value, an RMW's new value */
	VALUES_ALL,     /* those, every value read, and known initial values */
};

/* A table of 4-byte entries is worth it while it has at most this many
 * entries per value counted (plus a little): then it takes at most 8 bytes
 * a value where a hash table takes 12-24, and a lookup is one load. */
#define VALUE_SPAN_ENTRIES_PER_VALUE 2

/* span[x] for each of p's variables, by one pass over its events. */
void value_spans_find(struct value_span *span, const struct vsc_program *p,
		      enum value_span_kind kind);
/* The same in a caller's pass: start (the initial values), then see each
 * event once. */
void value_spans_start(struct value_span *span, const struct vsc_program *p,
		       enum value_span_kind kind);

static inline void value_span_see(struct value_span *s, int64_t v)
{
	if (v < s->least)
		s->least = v;
	if (v > s->most)
		s->most = v;
	s->seen++;
}

static inline void value_spans_see_event(struct value_span *span, const struct vsc_event *e,
					 enum value_span_kind kind)
{
	if (e->kind != VSC_WRITE && kind == VALUES_ALL)
		value_span_see(&span[e->var], e->value);
	if (e->kind != VSC_READ)
		value_span_see(&span[e->var], e->kind == VSC_RMW ? e->new_value : e->value);
}

/* The entries of s's table less one (it may be 2^64 - 1: compare it with
 * <, never add 1 first); 0 when no value was seen. */
static inline uint64_t value_span_width(const struct value_span *s)
{
	return s->least > s->most ? 0 : (uint64_t)s->most - (uint64_t)s->least;
}

/* Is a table of width + 1 entries dense enough for seen values, slack
 * entries allowed beyond the rule? */
static inline bool value_span_dense(uint64_t width, uint64_t seen, uint64_t slack)
{
	return width < VALUE_SPAN_ENTRIES_PER_VALUE * seen + slack;
}

#endif
