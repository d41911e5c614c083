/* SPDX-License-Identifier: MIT */
/* The writes of each (variable, value) pair, for coherence.c's reads-from:
 * one 32-bit number per pair (the caller's: coherence.c keeps the first
 * write's flat number + 1 and a bit for a second write), 0 while no write
 * of the pair was added.
 *
 * Where the values each variable is written are dense (counters, as
 * generators and instrumented programs write them: the values of a
 * variable span at most a few entries per write), the numbers are an
 * array per variable indexed by the value less the least value written:
 * 4 bytes per value of the span, and a lookup is one load from an array
 * that is a sixth of a hash table's size, so it mostly stays in the
 * caches. Otherwise they are a hash table of pairs (pair_table.h). */
#ifndef VSC_WRITE_INDEX_H
#define VSC_WRITE_INDEX_H

#include <stdint.h>

#include "pair_table.h"
#include "program.h"

struct write_index {
	uint32_t *dense; /* per variable, span entries from start; NULL: hash */
	uint64_t *start; /* per variable: its first entry in dense */
	uint64_t *span;  /* per variable: its entries (0: it is never written) */
	int64_t *least;  /* per variable: the least value written */
	struct pair_table hash;
};

/* Room for the pairs that p's writes (a write, or an RMW's new value)
 * give, every number 0. 0 or -ENOMEM. */
int write_index_init(struct write_index *wi, const struct vsc_program *p);
void write_index_free(struct write_index *wi);

/* The number of (x, v): 0 while no write of the pair was added; NULL
 * when none can be (v is out of x's span, or the hash table lacks it). */
static inline __attribute__((always_inline)) const uint32_t *
write_index_get(const struct write_index *wi, uint32_t x, int64_t v)
{
	uint64_t d;

	if (!wi->dense)
		return pair_table_get(&wi->hash, x, v);
	d = (uint64_t)v - (uint64_t)wi->least[x];
	return d < wi->span[x] ? &wi->dense[wi->start[x] + d] : NULL;
}

/* The number of (x, v), added (0) when new; v must be a value some write
 * of x gives. NULL: out of memory (the hash form only). */
static inline __attribute__((always_inline)) uint32_t *write_index_put(struct write_index *wi,
								       uint32_t x, int64_t v)
{
	bool added;

	if (!wi->dense)
		return pair_table_put(&wi->hash, x, v, &added);
	return &wi->dense[wi->start[x] + ((uint64_t)v - (uint64_t)wi->least[x])];
}

/* Start loading the number of (x, v), which a pass will look up a few
 * events from now: the misses then overlap instead of following each
 * other. Always inlined: a function that only prefetches looks free of
 * effects to the compiler, which drops a call to it before inlining. */
static inline __attribute__((always_inline)) void write_index_prefetch(const struct write_index *wi,
								       uint32_t x, int64_t v)
{
	uint64_t d;

	if (!wi->dense) {
		pair_table_prefetch(&wi->hash, x, v);
		return;
	}
	d = (uint64_t)v - (uint64_t)wi->least[x];
	if (d < wi->span[x])
		__builtin_prefetch(&wi->dense[wi->start[x] + d]);
}

#endif
