/* SPDX-License-Identifier: MIT */
/* The trace writer's map (see trace_map.h) on the toolkit's hash table. */
#include "trace_map.h"

#include <errno.h>

/* 16 bytes, no padding: the table compares keys as bytes. */
struct trace_map_key {
	uint64_t key;
	uint64_t pid;
};

void trace_map_free(struct trace_map *m)
{
	hash_map_free(&m->map);
}

int trace_map_put(struct trace_map *m, uint32_t pid, uint64_t key, uint32_t index)
{
	struct trace_map_key k = { key, pid };
	uint32_t *value;

	if (!m->map.key_size)
		hash_map_init(&m->map, sizeof(k), sizeof(*value));
	value = hash_map_put(&m->map, &k, NULL);
	if (!value)
		return -ENOMEM;
	*value = index;
	return 0;
}

bool trace_map_get(const struct trace_map *m, uint32_t pid, uint64_t key, uint32_t *index)
{
	struct trace_map_key k = { key, pid };
	const uint32_t *value = m->map.count ? hash_map_get(&m->map, &k) : NULL;

	if (value)
		*index = *value;
	return value != NULL;
}

void trace_map_remove(struct trace_map *m, uint32_t pid, uint64_t key)
{
	struct trace_map_key k = { key, pid };

	if (m->map.count)
		hash_map_remove(&m->map, &k);
}
