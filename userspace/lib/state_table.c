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

	if (cap && t->limit && cap > t->limit)
		cap = t->limit;
	if (!cap || hash_index_reserve(&t->index, cap) ||
	    array_resize((void **)&t->words, cap * t->width, sizeof(*t->words)) ||
	    ARRAY_RESIZE(t->records, cap) || (t->limit && ARRAY_RESIZE(t->used, cap)))
		return -ENOMEM;
	t->cap = (uint32_t)cap;
	return 0;
}

void state_table_limit_bytes(struct state_table *t, size_t bytes)
{
	/* the index is at most half full and grows by doubling: up to 4 slots
	 * a state */
	size_t per_state = t->width * sizeof(uint32_t) + sizeof(struct state_record) + 1 +
			   4 * sizeof(struct hash_slot);
	size_t states = bytes / per_state;

	t->limit = states < 1 ? 1 : states > HASH_INDEX_MAX ? HASH_INDEX_MAX : (uint32_t)states;
}

int64_t state_table_find(struct state_table *t, const uint32_t *key)
{
	int64_t found = hash_index_find(&t->index, hash_words(key, t->width), state_eq, t, key);

	if (found >= 0 && t->used)
		t->used[found] = 1;
	return found;
}

/* The state to drop for a new one: the first at or after the hand not
 * looked up since the hand last passed it (those it passes lose the mark). */
static uint32_t evict(struct state_table *t)
{
	uint32_t victim;

	while (t->used[t->hand]) {
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
