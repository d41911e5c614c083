/* SPDX-License-Identifier: MIT */
/* The trace writer's map (see trace_map.h): linear probing, half full at
 * most, deletion by moving the rest of the probe run back. */
#include "trace_map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static size_t home_slot(const struct trace_map *m, uint32_t pid, uint64_t key)
{
	return mix64(key ^ ((uint64_t)pid << 32) ^ pid) & (m->cap - 1);
}

uint64_t trace_map_hash_string(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

void trace_map_free(struct trace_map *m)
{
	free(m->keys);
	free(m->pids);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static void place(struct trace_map *m, uint32_t pid, uint64_t key, uint32_t val)
{
	size_t j = home_slot(m, pid, key);
	while (m->vals[j])
		j = (j + 1) & (m->cap - 1);
	m->keys[j] = key;
	m->pids[j] = pid;
	m->vals[j] = val;
}

static int grow(struct trace_map *m)
{
	struct trace_map n = { .cap = m->cap ? m->cap * 2 : 64, .len = m->len };
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.pids = calloc(n.cap, sizeof(*n.pids));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.pids || !n.vals) {
		trace_map_free(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			place(&n, m->pids[i], m->keys[i], m->vals[i]);
	trace_map_free(m);
	*m = n;
	return 0;
}

/* The slot of (pid, key), or of the empty slot where it would go. */
static size_t find(const struct trace_map *m, uint32_t pid, uint64_t key, bool *found)
{
	size_t j = home_slot(m, pid, key);
	while (m->vals[j]) {
		if (m->keys[j] == key && m->pids[j] == pid) {
			*found = true;
			return j;
		}
		j = (j + 1) & (m->cap - 1);
	}
	*found = false;
	return j;
}

int trace_map_put(struct trace_map *m, uint32_t pid, uint64_t key, uint32_t index)
{
	bool found;
	if ((m->len + 1) * 2 > m->cap) {
		int err = grow(m);
		if (err)
			return err;
	}
	size_t j = find(m, pid, key, &found);
	if (!found)
		m->len++;
	m->keys[j] = key;
	m->pids[j] = pid;
	m->vals[j] = index + 1;
	return 0;
}

bool trace_map_get(const struct trace_map *m, uint32_t pid, uint64_t key, uint32_t *index)
{
	bool found;
	if (!m->cap)
		return false;
	size_t j = find(m, pid, key, &found);
	if (found)
		*index = m->vals[j] - 1;
	return found;
}

void trace_map_remove(struct trace_map *m, uint32_t pid, uint64_t key)
{
	bool found;
	if (!m->cap)
		return;
	size_t j = find(m, pid, key, &found);
	if (!found)
		return;
	m->vals[j] = 0;
	m->len--;
	/* put back every entry of the run after j, so no lookup stops early */
	for (size_t k = (j + 1) & (m->cap - 1); m->vals[k]; k = (k + 1) & (m->cap - 1)) {
		uint32_t val = m->vals[k];
		m->vals[k] = 0;
		place(m, m->pids[k], m->keys[k], val);
	}
}
