/* SPDX-License-Identifier: MIT */
#include "state_table.h"

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
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

size_t state_table_bytes(const struct state_table *t)
{
	return (size_t)t->cap * (t->width * sizeof(uint32_t) + sizeof(struct state_record)) +
	       (size_t)t->nslots * sizeof(uint32_t);
}

static uint32_t find_slot(const struct state_table *t, const uint32_t *key)
{
	uint32_t mask = t->nslots - 1;
	uint32_t i = (uint32_t)hash_words(key, t->width) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t ref = t->slots[i];
		if (ref == 0 || memcmp(state_words(t, ref - 1), key, t->width * sizeof(*key)) == 0)
			return i;
	}
}

static int grow(struct state_table *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 1024;
	uint32_t nslots = cap * 2;
	uint32_t *words, *slots;
	struct state_record *records;

	if (t->cap >= UINT32_MAX / 4)
		return -ENOMEM;
	words = realloc(t->words, (size_t)cap * t->width * sizeof(*words));
	if (!words)
		return -ENOMEM;
	t->words = words;
	records = realloc(t->records, (size_t)cap * sizeof(*records));
	if (!records)
		return -ENOMEM;
	t->records = records;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	t->cap = cap;
	for (uint32_t k = 0; k < t->count; k++)
		t->slots[find_slot(t, state_words(t, k))] = k + 1;
	return 0;
}

int64_t state_table_get(struct state_table *t, const uint32_t *key, int *added)
{
	uint32_t slot;

	*added = 0;
	if (t->count == t->cap && grow(t))
		return -ENOMEM;
	slot = find_slot(t, key);
	if (t->slots[slot])
		return t->slots[slot] - 1;
	memcpy(t->words + (size_t)t->count * t->width, key, t->width * sizeof(*key));
	memset(&t->records[t->count], 0, sizeof(t->records[t->count]));
	t->slots[slot] = t->count + 1;
	*added = 1;
	return t->count++;
}
