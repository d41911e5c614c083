/* SPDX-License-Identifier: MIT */
#include "state_table.h"
#include "userspace/util/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_words(const uint32_t *w, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (uint32_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

int state_table_init(struct state_table *t, uint32_t width)
{
	memset(t, 0, sizeof(*t));
	t->width = width ? width : 1;
	return 0;
}

void state_table_free(struct state_table *t)
{
	free(t->words);
	free(t->records);
	free(t->used);
	hash_index_free(&t->index);
	memset(t, 0, sizeof(*t));
}

size_t state_table_bytes(const struct state_table *t)
{
	return (size_t)t->cap * (t->width * sizeof(uint32_t) + sizeof(struct state_record) +
				 (t->used ? 1 : 0)) +
	       hash_index_bytes(&t->index);
}

static bool state_eq(const void *ctx, uint32_t index, const void *key)
{
	const struct state_table *t = ctx;

	return memcmp(state_words(t, index), key, t->width * sizeof(uint32_t)) == 0;
}

static int grow(struct state_table *t)
{
	size_t cap = array_grown_cap(t->cap, (size_t)t->cap + 1, 1024, UINT32_MAX / 2);
	size_t marked = t->used ? t->cap : 0; /* marks that hold a value */

	if (cap && t->limit && cap > t->limit)
		cap = t->limit;
	if (!cap || hash_index_reserve(&t->index, cap) ||
	    array_resize((void **)&t->words, cap * t->width, sizeof(*t->words)) ||
	    ARRAY_RESIZE(t->records, cap) || (t->limit && ARRAY_RESIZE(t->used, cap)))
		return -ENOMEM;
	if (t->used)
		memset(t->used + marked, 0, cap - marked);
	t->cap = (uint32_t)cap;
	return 0;
}

void state_table_limit_bytes(struct state_table *t, size_t bytes)
{
	/* a state's words, record and mark, and the index: a power of two of
	 * slots, at least twice the states (hash_index_reserve()). The most
	 * states that fit, but an index twice as large only for a quarter
	 * more of them: a limit just past a power of two took 4 slots a state,
	 * and the index's last growth held both (8 threads, 3 values, 10^4
	 * events, -p 20: 381 MB at a limit of 271) */
	size_t arrays = t->width * sizeof(uint32_t) + sizeof(struct state_record) + 1;
	size_t best = 0;

	for (size_t slots = 8;
	     slots <= bytes / sizeof(struct hash_slot) && slots / 2 <= HASH_INDEX_MAX; slots *= 2) {
		size_t fit = (bytes - slots * sizeof(struct hash_slot)) / arrays;
		size_t states = fit < slots / 2 ? fit : slots / 2;
		if (states > best + best / 4)
			best = states;
	}
	t->limit = best < 1 ? 1 : (uint32_t)best;
	/* a table that holds states already: their marks, none set (without
	 * memory for them the clock drops the states in turn, evict()) */
	if (t->cap && !t->used)
		t->used = calloc(t->cap, 1);
}

int64_t state_table_find(struct state_table *t, const uint32_t *key)
{
	int64_t found = hash_index_find(&t->index, hash_words(key, t->width), state_eq, t, key);

	if (found >= 0 && t->used)
		t->used[found] = 1;
	return found;
}

/* The state to drop for a new one: the first at or after the hand not
 * looked up since the hand last passed it (those it passes lose the mark;
 * without marks, the one at the hand). */
static uint32_t evict(struct state_table *t)
{
	uint32_t victim;

	while (t->used && t->used[t->hand]) {
		t->used[t->hand] = 0;
		t->hand = t->hand + 1 < t->count ? t->hand + 1 : 0;
	}
	victim = t->hand;
	t->hand = t->hand + 1 < t->count ? t->hand + 1 : 0;
	hash_index_remove(&t->index, hash_words(state_words(t, victim), t->width), victim);
	return victim;
}

int64_t state_table_get(struct state_table *t, const uint32_t *key, int *added)
{
	uint64_t hash = hash_words(key, t->width);
	int64_t found = hash_index_find(&t->index, hash, state_eq, t, key);
	uint32_t at;

	*added = 0;
	if (found >= 0) {
		if (t->used)
			t->used[found] = 1;
		return found;
	}
	if (t->limit && t->count >= t->limit && t->count > 0) {
		at = evict(t);
	} else {
		if (t->count == t->cap && grow(t))
			return -ENOMEM;
		at = t->count++;
	}
	memcpy(t->words + (size_t)at * t->width, key, t->width * sizeof(*key));
	memset(&t->records[at], 0, sizeof(t->records[at]));
	if (t->used)
		t->used[at] = 0;
	hash_index_add(&t->index, hash, at); /* room was reserved by grow() */
	*added = 1;
	return at;
}
