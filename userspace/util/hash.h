/* SPDX-License-Identifier: MIT */
/*
 * One hash table, in two layers (header only, so the library, the command
 * and the babeltrace2 plugin can all use it):
 *
 * - struct hash_index maps a hash to the index of an entry the caller keeps
 *   in its own arrays (interned names, solver states: keys of any length).
 *   Open addressing with linear probing, at most half full; each slot keeps
 *   the entry's index + 1 (0: empty) and 32 bits of its hash, so most
 *   mismatches cost no key comparison and growing needs no key at all.
 *   The caller's equality test is a function the compiler can inline.
 *
 * - struct hash_map is a map from fixed-size keys to fixed-size values
 *   (ip -> decoded instruction, (pid, tid) -> counter) built on it: keys
 *   and values live in two dense arrays, so entries are visited in order
 *   0..count-1 and removal moves the last entry into the gap.
 *
 * A key of a hash_map is compared and hashed as bytes: a struct key must
 * have no padding (or be zeroed whole before its fields are set). The
 * hash_map_get/put/remove/find macros take a typed pointer to the key and
 * pass its size along.
 */
#ifndef VSC_UTIL_HASH_H
#define VSC_UTIL_HASH_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A full 64-bit avalanche (the murmur3 finalizer): every input bit moves
 * about half of the output bits, so the low bits make a good slot. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The hash of len bytes: FNV-1a, then mixed (FNV's low bits alone spread
 * similar names such as T1, T2 poorly). */
static inline uint64_t hash_bytes(const void *bytes, size_t len)
{
	const unsigned char *s = bytes;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return hash_mix64(h);
}

/* The hash of a NUL-terminated string. */
static inline uint64_t hash_string(const char *s)
{
	return hash_bytes(s, strlen(s));
}

/* The hash of a key made of n 64-bit words (read as bytes: the key need
 * not be aligned): one multiply per word, one avalanche at the end. */
static inline uint64_t hash_words64(const void *key, size_t n)
{
	const unsigned char *bytes = key;
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++) {
		uint64_t word;

		memcpy(&word, bytes + i * sizeof(word), sizeof(word));
		h = (h ^ word) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	return hash_mix64(h);
}

/* Are two keys of n 64-bit words equal? (memcmp, without its call.) */
static inline bool hash_words64_eq(const void *a, const void *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x, y;

		memcpy(&x, (const unsigned char *)a + i * sizeof(x), sizeof(x));
		memcpy(&y, (const unsigned char *)b + i * sizeof(y), sizeof(y));
		if (x != y)
			return false;
	}
	return true;
}

struct hash_slot {
	uint32_t ref;  /* the entry's index + 1; 0: empty */
	uint32_t hash; /* the low 32 bits of its hash: its home slot */
};

struct hash_index {
	struct hash_slot *slots;
	size_t mask; /* slot count - 1 (a power of two); 0 before the first insert */
	size_t count;
};

/* At most this many entries (refs are 32 bits; the home slot comes from 32
 * bits of hash, so the slot count stays within 2^32). */
#define HASH_INDEX_MAX (UINT32_MAX / 2)

/* Is the entry at index equal to key? */
typedef bool (*hash_eq_fn)(const void *ctx, uint32_t index, const void *key);

static inline size_t hash_index_slots(const struct hash_index *h)
{
	return h->slots ? h->mask + 1 : 0;
}

/* Bytes the index takes (for callers that count their memory). */
static inline size_t hash_index_bytes(const struct hash_index *h)
{
	return hash_index_slots(h) * sizeof(struct hash_slot);
}

/* From this many bytes on, an index's slots are a mapping of their own
 * (hash_slots_new()). */
#define HASH_BIG_BYTES ((size_t)2 << 20)

/* n empty slots. A large index is probed at random, a cache miss a
 * look-up: in 4 KiB pages a TLB miss too, and calloc()'s pages, read
 * before they were written (a look-up finds the empty slot, then the add
 * writes it), were faulted twice, the second time copied from the zero
 * page with a TLB shootdown (the search's state tables: 15% of its CPU in
 * the kernel on this VM). So from HASH_BIG_BYTES on, an anonymous mapping
 * asked for huge pages and populated writable at once (zeroed by hand
 * where the kernel cannot populate). NULL: out of memory. */
static inline struct hash_slot *hash_slots_new(size_t n)
{
	size_t bytes = n * sizeof(struct hash_slot);
	void *m;

	if (bytes < HASH_BIG_BYTES)
		return calloc(n, sizeof(struct hash_slot));
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	(void)madvise(m, bytes, MADV_HUGEPAGE); /* advice: fine if refused */
#ifdef MADV_POPULATE_WRITE
	if (madvise(m, bytes, MADV_POPULATE_WRITE) == 0)
		return m;
	if (errno != EINVAL) { /* no memory for it (a cgroup's limit) */
		munmap(m, bytes);
		return NULL;
	}
#endif
	memset(m, 0, bytes); /* a kernel before 5.14 */
	return m;
}

static inline void hash_slots_free(struct hash_slot *slots, size_t n)
{
	if (slots && n * sizeof(struct hash_slot) >= HASH_BIG_BYTES)
		munmap(slots, n * sizeof(struct hash_slot));
	else
		free(slots);
}

static inline void hash_index_free(struct hash_index *h)
{
	hash_slots_free(h->slots, hash_index_slots(h));
	memset(h, 0, sizeof(*h));
}

static inline void hash_index_place(struct hash_slot *slots, size_t mask, struct hash_slot s)
{
	size_t j = s.hash & mask;

	while (slots[j].ref)
		j = (j + 1) & mask;
	slots[j] = s;
}

/* Room for count entries, at most half full. 0 or -ENOMEM (then nothing
 * changed). Starts small: a lab trace holds one program, with two name
 * tables, per iteration of its test (10^6 of them in one file). */
static inline int hash_index_reserve(struct hash_index *h, size_t count)
{
	size_t old = hash_index_slots(h), n = old ? old : 8;
	struct hash_slot *slots;

	if (count > HASH_INDEX_MAX)
		return -ENOMEM;
	if (2 * count <= old)
		return 0;
	while (n < 2 * count)
		n *= 2;
	slots = hash_slots_new(n);
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < old; i++)
		if (h->slots[i].ref)
			hash_index_place(slots, n - 1, h->slots[i]);
	hash_slots_free(h->slots, old);
	h->slots = slots;
	h->mask = n - 1;
	return 0;
}

/* The index of the entry equal to key (eq decides, among the entries whose
 * hash matches), or -1. */
static inline int64_t hash_index_find(const struct hash_index *h, uint64_t hash, hash_eq_fn eq,
				      const void *ctx, const void *key)
{
	uint32_t tag = (uint32_t)hash;

	if (!h->slots)
		return -1;
	for (size_t j = tag & h->mask;; j = (j + 1) & h->mask) {
		const struct hash_slot *s = &h->slots[j];

		if (!s->ref)
			return -1;
		if (s->hash == tag && eq(ctx, s->ref - 1, key))
			return s->ref - 1;
	}
}

/* Add the entry at index, whose hash is hash (the caller has found it
 * absent). 0 or -ENOMEM. */
static inline int hash_index_add(struct hash_index *h, uint64_t hash, uint32_t index)
{
	int err = hash_index_reserve(h, h->count + 1);

	if (err)
		return err;
	hash_index_place(h->slots, h->mask, (struct hash_slot){ index + 1, (uint32_t)hash });
	h->count++;
	return 0;
}

/* The slot that holds index (whose hash is hash), or NULL. */
static inline struct hash_slot *hash_index_slot_of(const struct hash_index *h, uint64_t hash,
						   uint32_t index)
{
	if (!h->slots)
		return NULL;
	for (size_t j = (uint32_t)hash & h->mask; h->slots[j].ref; j = (j + 1) & h->mask)
		if (h->slots[j].ref == index + 1)
			return &h->slots[j];
	return NULL;
}

/* Remove the entry at index (whose hash is hash), if there. The rest of its
 * probe run is placed again, so no later lookup stops early. */
static inline void hash_index_remove(struct hash_index *h, uint64_t hash, uint32_t index)
{
	struct hash_slot *s = hash_index_slot_of(h, hash, index);
	size_t j;

	if (!s)
		return;
	s->ref = 0;
	h->count--;
	for (j = ((size_t)(s - h->slots) + 1) & h->mask; h->slots[j].ref; j = (j + 1) & h->mask) {
		struct hash_slot moved = h->slots[j];

		h->slots[j].ref = 0;
		hash_index_place(h->slots, h->mask, moved);
	}
}

/* The entry at index (whose hash is hash) is now at index to. */
static inline void hash_index_move(struct hash_index *h, uint64_t hash, uint32_t index, uint32_t to)
{
	struct hash_slot *s = hash_index_slot_of(h, hash, index);

	if (s)
		s->ref = to + 1;
}

/* ---- fixed-size keys and values --------------------------------------- */

struct hash_map {
	struct hash_index index;
	unsigned char *keys, *values; /* count entries, room for cap */
	size_t key_size, value_size, count, cap;
};

/* struct hash_map m = HASH_MAP_INIT(uint64_t, struct thing); */
#define HASH_MAP_INIT(key_type, value_type)                                    \
	{                                                                      \
		.key_size = sizeof(key_type), .value_size = sizeof(value_type) \
	}

static inline void hash_map_init(struct hash_map *m, size_t key_size, size_t value_size)
{
	memset(m, 0, sizeof(*m));
	m->key_size = key_size;
	m->value_size = value_size;
}

static inline void hash_map_free(struct hash_map *m)
{
	size_t key_size = m->key_size, value_size = m->value_size;

	hash_index_free(&m->index);
	free(m->keys);
	free(m->values);
	hash_map_init(m, key_size, value_size);
}

static inline const void *hash_map_key_at(const struct hash_map *m, size_t i)
{
	return m->keys + i * m->key_size;
}

static inline void *hash_map_value_at(const struct hash_map *m, size_t i)
{
	return m->values + i * m->value_size;
}

/* The functions below take the key's size from the caller's key type (the
 * macros pass sizeof(*key)): a constant, so the hash and the comparison of
 * a 16-byte key compile to a few instructions. It must be the map's. */
#define HASH_INLINE static inline __attribute__((always_inline))

struct hash_map_probe {
	const struct hash_map *map;
	size_t key_size;
};

static inline bool hash_map_key_eq(const void *ctx, uint32_t index, const void *key)
{
	const struct hash_map_probe *p = ctx;
	const void *at = p->map->keys + (size_t)index * p->key_size;

	if (p->key_size % sizeof(uint64_t) == 0)
		return hash_words64_eq(at, key, p->key_size / sizeof(uint64_t));
	return memcmp(at, key, p->key_size) == 0;
}

HASH_INLINE uint64_t hash_map_hash(const void *key, size_t key_size)
{
	if (key_size % sizeof(uint64_t) == 0)
		return hash_words64(key, key_size / sizeof(uint64_t));
	return hash_bytes(key, key_size);
}

HASH_INLINE int64_t hash_map_find_hashed(const struct hash_map *m, const void *key, size_t key_size,
					 uint64_t hash)
{
	struct hash_map_probe probe = { m, key_size };

	assert(key_size == m->key_size);
	return hash_index_find(&m->index, hash, hash_map_key_eq, &probe, key);
}

/* hash_map_find(m, key): the position (0..count-1) of *key, or -1. */
#define hash_map_find(m, key) hash_map_find_sized((m), (key), sizeof(*(key)))
HASH_INLINE int64_t hash_map_find_sized(const struct hash_map *m, const void *key, size_t key_size)
{
	return hash_map_find_hashed(m, key, key_size, hash_map_hash(key, key_size));
}

/* hash_map_get(m, key): the value of *key, or NULL. Valid until the map
 * next changes. */
#define hash_map_get(m, key) hash_map_get_sized((m), (key), sizeof(*(key)))
HASH_INLINE void *hash_map_get_sized(const struct hash_map *m, const void *key, size_t key_size)
{
	int64_t i = hash_map_find_sized(m, key, key_size);

	return i < 0 ? NULL : hash_map_value_at(m, (size_t)i);
}

static inline int hash_map_grow(struct hash_map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 16;
	void *keys, *values;

	if (cap > HASH_INDEX_MAX || hash_index_reserve(&m->index, cap))
		return -ENOMEM;
	keys = realloc(m->keys, cap * m->key_size);
	if (!keys)
		return -ENOMEM;
	m->keys = keys;
	values = realloc(m->values, cap * (m->value_size ? m->value_size : 1));
	if (!values)
		return -ENOMEM;
	m->values = values;
	m->cap = cap;
	return 0;
}

/* hash_map_put(m, key, added): the value of *key, added (all zero bytes)
 * if absent; *added says which (added may be NULL). NULL: out of memory,
 * the map unchanged. Valid until the map next changes. */
#define hash_map_put(m, key, added) hash_map_put_sized((m), (key), sizeof(*(key)), (added))
HASH_INLINE void *hash_map_put_sized(struct hash_map *m, const void *key, size_t key_size,
				     bool *added)
{
	uint64_t hash = hash_map_hash(key, key_size);
	int64_t i = hash_map_find_hashed(m, key, key_size, hash);
	void *value;

	if (added)
		*added = i < 0;
	if (i >= 0)
		return hash_map_value_at(m, (size_t)i);
	if (m->count == m->cap && hash_map_grow(m))
		return NULL;
	/* room was reserved for cap entries: adding cannot fail */
	hash_index_add(&m->index, hash, (uint32_t)m->count);
	memcpy(m->keys + m->count * key_size, key, key_size);
	value = hash_map_value_at(m, m->count++);
	memset(value, 0, m->value_size);
	return value;
}

/* hash_map_remove(m, key): remove *key if present; the last entry takes
 * its position. */
#define hash_map_remove(m, key) hash_map_remove_sized((m), (key), sizeof(*(key)))
static inline void hash_map_remove_sized(struct hash_map *m, const void *key, size_t key_size)
{
	uint64_t hash = hash_map_hash(key, key_size);
	int64_t i = hash_map_find_hashed(m, key, key_size, hash);
	size_t last;

	if (i < 0)
		return;
	last = m->count - 1;
	hash_index_remove(&m->index, hash, (uint32_t)i);
	if ((size_t)i != last) {
		const void *last_key = hash_map_key_at(m, last);

		hash_index_move(&m->index, hash_map_hash(last_key, key_size), (uint32_t)last,
				(uint32_t)i);
		memcpy(m->keys + (size_t)i * key_size, last_key, key_size);
		memcpy(hash_map_value_at(m, (size_t)i), hash_map_value_at(m, last), m->value_size);
	}
	m->count--;
}

#endif /* VSC_UTIL_HASH_H */
