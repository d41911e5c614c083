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
	hash_index_free(&t->index);
	memset(t, 0, sizeof(*t));
}

size_t state_table_bytes(const struct state_table *t)
{
	return (size_t)t->cap * (t->width * sizeof(uint32_t) + sizeof(struct state_record)) +
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

	if (!cap || hash_index_reserve(&t->index, cap) ||
	    array_resize((void **)&t->words, cap * t->width, sizeof(*t->words)) ||
	    ARRAY_RESIZE(t->records, cap))
		return -ENOMEM;
	t->cap = (uint32_t)cap;
	return 0;
}

int64_t state_table_find(const struct state_table *t, const uint32_t *key)
{
	return hash_index_find(&t->index, hash_words(key, t->width), state_eq, t, key);
}

int64_t state_table_get(struct state_table *t, const uint32_t *key, int *added)
{
	uint64_t hash = hash_words(key, t->width);
	int64_t found = hash_index_find(&t->index, hash, state_eq, t, key);

	*added = 0;
	if (found >= 0)
		return found;
	if (t->count == t->cap && grow(t))
		return -ENOMEM;
	memcpy(t->words + (size_t)t->count * t->width, key, t->width * sizeof(*key));
	memset(&t->records[t->count], 0, sizeof(t->records[t->count]));
	hash_index_add(&t->index, hash, t->count); /* room was reserved by grow() */
	*added = 1;
	return t->count++;
}
