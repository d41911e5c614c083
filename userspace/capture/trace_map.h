/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing map from (pid, 64-bit key) to a 32-bit index, for
 * the trace writer's tables: variables (key: address), locations (key:
 * instruction pointer), threads (key: tid), segments (key: id) and names
 * (key: a hash of the name). Lookups are O(1); the map never shrinks.
 */
#ifndef VSC_CAPTURE_TRACE_MAP_H
#define VSC_CAPTURE_TRACE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_map {
	uint64_t *keys;
	uint32_t *pids;
	uint32_t *vals; /* index + 1; 0 marks an empty slot */
	size_t cap, len;
};

void trace_map_free(struct trace_map *m);
/* Set (pid, key) to index. 0 or -ENOMEM. */
int trace_map_put(struct trace_map *m, uint32_t pid, uint64_t key, uint32_t index);
bool trace_map_get(const struct trace_map *m, uint32_t pid, uint64_t key, uint32_t *index);
/* Remove (pid, key) if present. */
void trace_map_remove(struct trace_map *m, uint32_t pid, uint64_t key);

/* FNV-1a of a NUL-terminated string, as a key. */
uint64_t trace_map_hash_string(const char *s);

#endif /* VSC_CAPTURE_TRACE_MAP_H */
