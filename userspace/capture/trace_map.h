/* SPDX-License-Identifier: MIT */
/*
 * The trace writer's map from (pid, 64-bit key) to a 32-bit index, for its
 * tables: variables (key: address), locations (key: instruction pointer),
 * threads (key: tid), segments (key: id) and names (key: a hash of the
 * name). It is the toolkit's hash table (userspace/util/hash.h) with these
 * key and value types; a zeroed struct trace_map is an empty map.
 */
#ifndef VSC_CAPTURE_TRACE_MAP_H
#define VSC_CAPTURE_TRACE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "userspace/util/hash.h"

struct trace_map {
	struct hash_map map; /* struct trace_map_key -> uint32_t index */
};

void trace_map_free(struct trace_map *m);
/* Set (pid, key) to index. 0 or -ENOMEM. */
int trace_map_put(struct trace_map *m, uint32_t pid, uint64_t key, uint32_t index);
bool trace_map_get(const struct trace_map *m, uint32_t pid, uint64_t key, uint32_t *index);
/* Remove (pid, key) if present. */
void trace_map_remove(struct trace_map *m, uint32_t pid, uint64_t key);

/* The hash of a NUL-terminated string, as a key. */
static inline uint64_t trace_map_hash_string(const char *s)
{
	return hash_string(s);
}

#endif /* VSC_CAPTURE_TRACE_MAP_H */
