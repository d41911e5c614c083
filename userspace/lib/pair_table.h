/* SPDX-License-Identifier: MIT */
/* A map from (variable, value) pairs to a 32-bit number, for the passes
 * that look a pair up once per event (analysis.c's pair ids, coherence.c's
 * write of each pair). The key is kept in its slot, so a lookup reads one
 * slot (16 bytes) per probe and no other array; open addressing with
 * linear probing, at most half full, a power-of-two slot count. Header
 * only, so that each pass inlines it. */
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
	uint32_t mask, count; /* slot count - 1; pairs held */
};

static inline uint64_t pair_table_hash(uint32_t var, int64_t value)
{
	return hash_mix64((uint64_t)value ^ (uint64_t)var << 40 ^ (uint64_t)var);
}

static inline void pair_table_free(struct pair_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = t->count = 0;
}

/* Room for slots_wanted slots (a power of two), every pair moved over.
 * 0 or -ENOMEM (the table unchanged). */
static inline int pair_table_resize(struct pair_table *t, size_t slots_wanted)
{
	struct pair_slot *slots;

	if (slots_wanted > ((size_t)1 << 31) || !(slots = malloc(slots_wanted * sizeof(*slots))))
		return -ENOMEM;
	for (size_t i = 0; i < slots_wanted; i++)
		slots[i].var = PAIR_SLOT_EMPTY;
	for (size_t i = 0; t->slots && i <= t->mask; i++) {
		const struct pair_slot *s = &t->slots[i];
		size_t j;

		if (s->var == PAIR_SLOT_EMPTY)
			continue;
		for (j = pair_table_hash(s->var, s->value) & (slots_wanted - 1);
		     slots[j].var != PAIR_SLOT_EMPTY; j = (j + 1) & (slots_wanted - 1))
			;
		slots[j] = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = (uint32_t)(slots_wanted - 1);
	return 0;
}

/* An empty table with room for pairs pairs before it grows. */
static inline int pair_table_init(struct pair_table *t, size_t pairs)
{
	size_t n = 64;

	t->slots = NULL;
	t->mask = t->count = 0;
	while (n < 2 * pairs)
		n *= 2;
	return pair_table_resize(t, n);
}

/* The data of (var, value): the slot's, *added false; or a new slot
 * (data 0, *added true). NULL: out of memory. */
static inline uint32_t *pair_table_put(struct pair_table *t, uint32_t var, int64_t value,
				       bool *added)
{
	size_t j = pair_table_hash(var, value) & t->mask;

	for (;; j = (j + 1) & t->mask) {
		struct pair_slot *s = &t->slots[j];

		if (s->var == var && s->value == value) {
			*added = false;
			return &s->data;
		}
		if (s->var == PAIR_SLOT_EMPTY)
			break;
	}
	*added = true;
	if (2 * ((size_t)t->count + 1) > (size_t)t->mask + 1) {
		if (pair_table_resize(t, 2 * ((size_t)t->mask + 1)))
			return NULL;
		for (j = pair_table_hash(var, value) & t->mask; t->slots[j].var != PAIR_SLOT_EMPTY;
		     j = (j + 1) & t->mask)
			;
	}
	t->count++;
	t->slots[j] = (struct pair_slot){ .value = value, .var = var, .data = 0 };
	return &t->slots[j].data;
}

/* The data of (var, value), or NULL when absent. */
static inline const uint32_t *pair_table_get(const struct pair_table *t, uint32_t var,
					     int64_t value)
{
	for (size_t j = pair_table_hash(var, value) & t->mask;; j = (j + 1) & t->mask) {
		const struct pair_slot *s = &t->slots[j];

		if (s->var == var && s->value == value)
			return &s->data;
		if (s->var == PAIR_SLOT_EMPTY)
			return NULL;
	}
}

#endif
