/* SPDX-License-Identifier: MIT */
/* Names of executions in blocks (one allocation per 64 KiB, not one per
 * name) and outcome texts interned: what check keeps of an execution
 * after its program is gone (run_store.h). */
#include <stdlib.h>
#include <string.h>

#include "run_store.h"
#include "userspace/util/array.h"

#define TEXT_BLOCK_BYTES ((size_t)64 << 10)

struct text_block {
	struct text_block *before;
	size_t used, cap;
	char bytes[];
};

const char *text_blocks_add(struct text_blocks *b, const char *s)
{
	size_t len = strlen(s) + 1;
	struct text_block *last = b->last;
	char *copy;

	if (!last || last->cap - last->used < len) {
		size_t cap = len > TEXT_BLOCK_BYTES ? len : TEXT_BLOCK_BYTES;
		struct text_block *next = malloc(sizeof(*next) + cap);
		if (!next)
			return NULL;
		next->before = last;
		next->used = 0;
		next->cap = cap;
		b->last = last = next;
	}
	copy = last->bytes + last->used;
	memcpy(copy, s, len);
	last->used += len;
	return copy;
}

void text_blocks_free(struct text_blocks *b)
{
	while (b->last) {
		struct text_block *before = b->last->before;
		free(b->last);
		b->last = before;
	}
}

static bool same_text(const void *ctx, uint32_t index, const void *key)
{
	const struct outcome_names *o = ctx;
	return strcmp(o->texts[index], key) == 0;
}

uint32_t outcome_names_get(struct outcome_names *o, char *text)
{
	uint64_t hash;
	int64_t found;

	if (!text)
		return OUTCOME_NONE;
	hash = hash_string(text);
	found = hash_index_find(&o->index, hash, same_text, o, text);
	if (found >= 0) {
		free(text);
		return (uint32_t)found;
	}
	if (o->count >= HASH_INDEX_MAX || ARRAY_RESERVE(o->texts, o->cap, o->count + 1) ||
	    hash_index_add(&o->index, hash, o->count)) {
		free(text);
		return OUTCOME_NONE;
	}
	o->texts[o->count] = text;
	return o->count++;
}

void outcome_names_free(struct outcome_names *o)
{
	for (uint32_t i = 0; i < o->count; i++)
		free(o->texts[i]);
	free(o->texts);
	hash_index_free(&o->index);
	memset(o, 0, sizeof(*o));
}
