/* SPDX-License-Identifier: MIT */
#include "intern.h"
#include "userspace/util/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A name is a key of len bytes, not NUL-terminated in the input. */
struct name_key {
	const char *s;
	size_t len;
};

static bool name_eq(const void *ctx, uint32_t index, const void *key)
{
	const struct intern *t = ctx;
	const struct name_key *k = key;
	const char *name = t->names[index];

	return strncmp(name, k->s, k->len) == 0 && name[k->len] == '\0';
}

int intern_find(const struct intern *t, const char *s, size_t len)
{
	struct name_key key = { s, len };

	return (int)hash_index_find(&t->index, hash_bytes(s, len), name_eq, t, &key);
}

int intern_get(struct intern *t, const char *s, size_t len, int *added)
{
	struct name_key key = { s, len };
	uint64_t hash = hash_bytes(s, len);
	int found = (int)hash_index_find(&t->index, hash, name_eq, t, &key);
	char *copy;

	if (added)
		*added = 0;
	if (found >= 0)
		return found;
	if (t->count == INT32_MAX)
		return -ENOMEM;
	if (ARRAY_RESERVE_FROM(t->names, t->cap, (size_t)t->count + 1, 4))
		return -ENOMEM;
	copy = malloc(len + 1);
	if (!copy || hash_index_add(&t->index, hash, t->count)) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->names[t->count] = copy;
	if (added)
		*added = 1;
	return (int)t->count++;
}

void intern_free(struct intern *t)
{
	for (uint32_t k = 0; k < t->count; k++)
		free(t->names[k]);
	free(t->names);
	hash_index_free(&t->index);
	memset(t, 0, sizeof(*t));
}
