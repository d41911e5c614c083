/* SPDX-License-Identifier: MIT */
/* A hash set of fixed-width search states (arrays of uint32 words), each with
 * a small record the search keeps beside it. States are referred to by index. */
#ifndef VSC_STATE_TABLE_H
#define VSC_STATE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/util/hash.h"

struct state_record {
	uint32_t cost;   /* preemptions used to reach the state */
	uint32_t parent; /* state it was reached from (UINT32_MAX: the start) */
	uint32_t move;   /* thread that moved to reach it */
};

struct state_table {
	uint32_t width; /* words per state */
	uint32_t count;
	uint32_t cap;    /* states the arrays can hold */
	uint32_t limit;  /* 0: none; else at most this many states (see below) */
	uint32_t hand;   /* with a limit: the next state the eviction looks at */
	uint32_t *words; /* count * width */
	struct state_record *records;
	uint8_t *used;           /* with a limit, per state: looked up since the hand passed */
	struct hash_index index; /* the states by their words */
};

int state_table_init(struct state_table *t, uint32_t width);
/* At most as many states as bytes hold (the index and the states' words,
 * records and marks; at least one state): once full, adding a state drops
 * one that was not looked up since the last drop passed it (a clock over
 * the states) and reuses its index. Only for tables whose records save
 * work, no more: a dropped state is searched again. Set on a table that
 * holds more states than that, it keeps them (each new one drops one), so
 * the bytes hold only from an empty table. */
void state_table_limit_bytes(struct state_table *t, size_t bytes);
void state_table_free(struct state_table *t);
/* Find key; when absent, add it (record zeroed). Returns the index, or
 * -ENOMEM. *added tells which. */
int64_t state_table_get(struct state_table *t, const uint32_t *key, int *added);
/* The index of key, or -1 when absent (nothing is added). */
int64_t state_table_find(struct state_table *t, const uint32_t *key);
size_t state_table_bytes(const struct state_table *t);

static inline const uint32_t *state_words(const struct state_table *t, uint32_t index)
{
	return t->words + (size_t)index * t->width;
}

#endif
