/* SPDX-License-Identifier: MIT */
#include "intern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	/* FNV's low bits mix poorly across similar names (T1, T2, ...) and the
	 * table index is the low bits: finish with a full avalanche */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static int slot_of(const struct intern *t, const char *s, size_t len, uint32_t *slot)
{
	uint32_t mask = t->nslots - 1;
	uint32_t i = (uint32_t)hash_bytes(s, len) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t ref = t->slots[i];
		if (ref == 0) {
			*slot = i;
			return -1;
		}
		const char *name = t->names[ref - 1];
		if (strncmp(name, s, len) == 0 && name[len] == '\0') {
			*slot = i;
			return (int)(ref - 1);
		}
	}
}

static int grow_slots(struct intern *t)
{
	uint32_t n = t->nslots ? t->nslots * 2 : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	for (uint32_t k = 0; k < t->count; k++) {
		uint32_t slot;
		slot_of(t, t->names[k], strlen(t->names[k]), &slot);
		t->slots[slot] = k + 1;
	}
	return 0;
}

int intern_find(const struct intern *t, const char *s, size_t len)
{
	uint32_t slot;
	if (t->nslots == 0)
		return -1;
	return slot_of(t, s, len, &slot);
}

int intern_get(struct intern *t, const char *s, size_t len, int *added)
{
	uint32_t slot;
	int found;

	if (added)
		*added = 0;
	if ((t->count + 1) * 2 > t->nslots && grow_slots(t))
		return -ENOMEM;
	found = slot_of(t, s, len, &slot);
	if (found >= 0)
		return found;
	if (t->count == INT32_MAX)
		return -ENOMEM;
	if (t->count == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		char **names = realloc(t->names, cap * sizeof(*names));
		if (!names)
			return -ENOMEM;
		t->names = names;
		t->cap = cap;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->names[t->count] = copy;
	t->slots[slot] = t->count + 1;
	if (added)
		*added = 1;
	return (int)t->count++;
}

void intern_free(struct intern *t)
{
	for (uint32_t k = 0; k < t->count; k++)
		free(t->names[k]);
	free(t->names);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
