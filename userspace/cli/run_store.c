/* SPDX-License-Identifier: MIT */
/* Outcome texts interned: what check keeps of an execution's outcome
 * after its program is gone (run_store.h). */
#include <stdlib.h>
#include <string.h>

#include "run_store.h"
#include "userspace/util/array.h"

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
