/* SPDX-License-Identifier: MIT */
/* A map from (variable, value) pairs to a 32-bit number, for the passes
 * that look a pair up once per event (analysis.c's pair ids, coherence.c's
 * write of each pair). The key is kept in its slot, so a lookup reads one
 * slot (16 bytes) per probe and no other array; open addressing with
 * linear probing, at most two thirds full. The slot count is any number
 * (a hash is mapped onto it by a multiplication), so a table sized for a
 * known count takes 24 bytes per pair, not up to twice that as a power of
 * two would. Header only, so that each pass inlines it. */
#ifndef VSC_PAIR_TABLE_H
#define VSC_PAIR_TABLE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "userspace/util/hash.h"

struct pair_slot {
	int64_t value;
	uint32_t var;  /* PAIR_SLOT_EMPTY: the slot is free */
	uint32_t data; /* the caller's */
};

#define PAIR_SLOT_EMPTY UINT32_MAX /* no variable has this number */

struct pair_table {
	struct pair_slot *slots;
	uint32_t size, count; /* slots; pairs held */
};

/* The home slot of (var, value) in a table of size slots. */
static inline size_t pair_table_home(uint32_t var, int64_t value, uint32_t size)
{
	uint64_t h = hash_mix64((uint64_t)value ^ (uint64_t)var << 40 ^ (uint64_t)var);

	return (size_t)(((h >> 32) * size) >> 32);
}

static inline size_t pair_table_next(size_t j, uint32_t size)
{
	return j + 1 == size ? 0 : j + 1;
}

static inline void pair_table_free(struct pair_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->size = t->count = 0;
}

/* Start loading the home slot of (var, value): a pass that looks up one
 * pair per event in a table bigger than the caches asks for the slot a
 * few events ahead, so the misses overlap instead of following each
 * other. Always inlined: a function that only prefetches looks free of
 * effects to the compiler, which drops a call to it before inlining. */
static inline __attribute__((always_inline)) void pair_table_prefetch(const struct pair_table *t,
								      uint32_t var, int64_t value)
{
	__builtin_prefetch(&t->slots[pair_table_home(var, value, t->size)]);
}

/* The slot of (var, value), or the empty slot where it would go. */
static inline struct pair_slot *pair_table_find(const struct pair_table *t, uint32_t var,
						int64_t value)
{
	size_t j = pair_table_home(var, value, t->size);

	while (t->slots[j].var != PAIR_SLOT_EMPTY &&
	       !(t->slots[j].var == var && t->slots[j].value == value))
		j = pair_table_next(j, t->size);
	return &t->slots[j];
}

/* Room for size slots, every pair moved over. 0 or -ENOMEM (the table
 * unchanged). */
static inline int pair_table_resize(struct pair_table *t, size_t size)
{
	struct pair_table grown = { NULL, (uint32_t)size, t->count };

	if (size >= UINT32_MAX || !(grown.slots = malloc(size * sizeof(*grown.slots))))
		return -ENOMEM;
	for (size_t i = 0; i < size; i++)
		grown.slots[i].var = PAIR_SLOT_EMPTY;
	for (size_t i = 0; i < t->size; i++)
		if (t->slots[i].var != PAIR_SLOT_EMPTY)
			*pair_table_find(&grown, t->slots[i].var, t->slots[i].value) = t->slots[i];
	free(t->slots);
	*t = grown;
	return 0;
}

/* An empty table with room for pairs pairs before it grows. */
static inline int pair_table_init(struct pair_table *t, size_t pairs)
{
	t->slots = NULL;
	t->size = t->count = 0;
	return pair_table_resize(t, 64 + pairs + pairs / 2);
}

/* The data of (var, value): the slot's, *added false; or a new slot
 * (data 0, *added true). NULL: out of memory. */
static inline uint32_t *pair_table_put(struct pair_table *t, uint32_t var, int64_t value,
				       bool *added)
{
	struct pair_slot *s = pair_table_find(t, var, value);

	*added = s->var == PAIR_SLOT_EMPTY;
	if (!*added)
		return &s->data;
	if (3 * ((size_t)t->count + 1) > 2 * (size_t)t->size) { /* over two thirds full */
		if (pair_table_resize(t, 2 * (size_t)t->size))
			return NULL;
		s = pair_table_find(t, var, value);
	}
	t->count++;
	*s = (struct pair_slot){ .value = value, .var = var, .data = 0 };
	return &s->data;
}

/* The data of (var, value), or NULL when absent. */
static inline const uint32_t *pair_table_get(const struct pair_table *t, uint32_t var,
					     int64_t value)
{
	const struct pair_slot *s = pair_table_find(t, var, value);

	return s->var == PAIR_SLOT_EMPTY ? NULL : &s->data;
}

#endif
