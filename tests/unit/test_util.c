/* SPDX-License-Identifier: MIT */
/* The internal toolkit (userspace/util/): growable arrays, the hash table,
 * monotonic time, the `vsc CMD:` message printer, the option tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/util/array.h"
#include "userspace/util/clock.h"
#include "userspace/util/hash.h"
/* The printer and the option parser belong to the command, not to libvsc:
 * compile them in here. */
#include "userspace/util/diag.c"
#include "userspace/util/options.c"

static void test_array_grows(void **state)
{
	(void)state;
	uint64_t(*pairs)[2] = NULL;
	size_t cap = 0;

	for (size_t n = 0; n < 1000; n++) {
		assert_int_equal(ARRAY_RESERVE(pairs, cap, n + 1), 0);
		assert_true(cap >= n + 1);
		pairs[n][0] = n;
		pairs[n][1] = 2 * n;
	}
	assert_int_equal(cap, 1024); /* 16, doubled: the cost stays linear */
	for (size_t n = 0; n < 1000; n++)
		assert_int_equal(pairs[n][1], 2 * n);
	assert_int_equal(ARRAY_RESERVE(pairs, cap, 10), 0); /* enough room: unchanged */
	assert_int_equal(cap, 1024);
	free(pairs);
}

static void test_array_overflow(void **state)
{
	(void)state;
	int *small = NULL;
	size_t cap = 0;

	/* A byte count past SIZE_MAX is refused, and nothing changes. */
	assert_int_equal(ARRAY_RESERVE(small, cap, SIZE_MAX / 2), -ENOMEM);
	assert_null(small);
	assert_int_equal(cap, 0);
	assert_int_equal(array_reserve((void **)&small, &cap, SIZE_MAX, 1, 16), -ENOMEM);
	assert_int_equal(ARRAY_RESERVE(small, cap, 3), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(array_reserve((void **)&small, &cap, 40, sizeof(*small), 16), 0);
	assert_int_equal(cap, 64);
	free(small);
}

/* A 32-bit capacity grows the same way and never past UINT32_MAX; arrays
 * that share one capacity grow to the room array_grown_cap gives. */
static void test_array_cap32_and_shared(void **state)
{
	(void)state;
	uint8_t *bytes = NULL;
	uint32_t cap = 0, *from = NULL, *to = NULL;
	size_t room;

	assert_int_equal(ARRAY_RESERVE_FROM(bytes, cap, 100, 8), 0);
	assert_int_equal(cap, 128);
	assert_int_equal(ARRAY_RESERVE(bytes, cap, (size_t)UINT32_MAX + 1), -ENOMEM);
	assert_int_equal(cap, 128);
	free(bytes);

	assert_int_equal(array_grown_cap(0, 1, 256, UINT32_MAX), 256);
	assert_int_equal(array_grown_cap(256, 257, 256, UINT32_MAX), 512);
	assert_int_equal(array_grown_cap((size_t)1 << 31, ((size_t)1 << 31) + 1, 1, UINT32_MAX), 0);
	room = array_grown_cap(0, 5, 4, UINT32_MAX);
	assert_int_equal(ARRAY_RESIZE(from, room), 0);
	assert_int_equal(ARRAY_RESIZE(to, room), 0);
	from[room - 1] = to[room - 1] = 7;
	assert_int_equal(from[room - 1] + to[room - 1], 14);
	free(from);
	free(to);
}

struct pid_tid {
	uint32_t pid, tid;
};

struct counter {
	uint64_t next;
	int seen;
};

static void test_hash_map_put_get(void **state)
{
	(void)state;
	struct hash_map m = HASH_MAP_INIT(struct pid_tid, struct counter);
	struct pid_tid key = { 1, 2 };
	bool added;

	assert_null(hash_map_get(&m, &key)); /* empty: nothing */
	for (uint32_t t = 0; t < 5000; t++) {
		struct counter *c;

		key = (struct pid_tid){ 7, t };
		c = hash_map_put(&m, &key, &added);
		assert_non_null(c);
		assert_true(added);
		assert_int_equal(c->next, 0); /* a new value starts zeroed */
		c->next = 3 * t;
	}
	assert_int_equal(m.count, 5000);
	for (uint32_t t = 0; t < 5000; t++) {
		struct counter *c;

		key = (struct pid_tid){ 7, t };
		c = hash_map_put(&m, &key, &added);
		assert_false(added);
		assert_int_equal(c->next, 3 * t);
	}
	key = (struct pid_tid){ 8, 1 };
	assert_null(hash_map_get(&m, &key)); /* another pid */
	key = (struct pid_tid){ 7, 5000 };
	assert_null(hash_map_get(&m, &key)); /* never put */
	/* entries are visited in the order they came */
	for (size_t i = 0; i < m.count; i++)
		assert_int_equal(((const struct pid_tid *)hash_map_key_at(&m, i))->tid, i);
	hash_map_free(&m);
	assert_int_equal(m.count, 0);
	key = (struct pid_tid){ 7, 1 };
	assert_null(hash_map_get(&m, &key));
	assert_non_null(hash_map_put(&m, &key, NULL)); /* usable again */
	hash_map_free(&m);
}

/* Random puts and removes against a plain array of the same keys. */
static void test_hash_map_remove(void **state)
{
	(void)state;
	enum {
		KEYS = 700
	};
	struct hash_map m = HASH_MAP_INIT(uint64_t, uint32_t);
	uint32_t truth[KEYS] = { 0 }; /* value + 1; 0: absent */
	uint64_t rng = 88172645463325252ULL;

	for (int step = 0; step < 40000; step++) {
		uint64_t key, r;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		r = rng;
		key = (r >> 8) % KEYS * 0x10000; /* clustered keys: long probe runs */
		if (r & 3) {
			uint32_t *v = hash_map_put(&m, &key, NULL);

			assert_non_null(v);
			*v = (uint32_t)step;
			truth[key / 0x10000] = (uint32_t)step + 1;
		} else {
			hash_map_remove(&m, &key);
			truth[key / 0x10000] = 0;
		}
		if (step % 1000 == 0 || step > 39000) {
			size_t present = 0;

			for (uint64_t k = 0; k < KEYS; k++) {
				uint64_t probe = k * 0x10000;
				uint32_t *v = hash_map_get(&m, &probe);

				assert_int_equal(v ? *v + 1 : 0, truth[k]);
				present += truth[k] != 0;
			}
			assert_int_equal(m.count, present);
			assert_int_equal(m.index.count, present);
		}
	}
	hash_map_free(&m);
}

/* The index alone, over names the caller keeps: the interning pattern. */
struct names {
	const char *list[64];
	uint32_t count;
	struct hash_index index;
};

static bool name_eq(const void *ctx, uint32_t index, const void *key)
{
	const struct names *n = ctx;

	return strcmp(n->list[index], key) == 0;
}

static int64_t name_intern(struct names *n, const char *name)
{
	uint64_t hash = hash_string(name);
	int64_t found = hash_index_find(&n->index, hash, name_eq, n, name);

	if (found >= 0)
		return found;
	if (hash_index_add(&n->index, hash, n->count))
		return -ENOMEM;
	n->list[n->count] = name;
	return n->count++;
}

static void test_hash_index(void **state)
{
	(void)state;
	static const char *const words[] = { "T1", "T2", "x", "y", "T1", "x", "T10", "" };
	static const int64_t want[] = { 0, 1, 2, 3, 0, 2, 4, 5 };
	struct names n = { .count = 0 };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		assert_int_equal(name_intern(&n, words[i]), want[i]);
	assert_int_equal(n.index.count, 6);
	assert_int_equal(hash_index_find(&n.index, hash_string("T3"), name_eq, &n, "T3"), -1);
	/* at most half full: 6 entries in 16 slots, grown from 8 */
	assert_int_equal(hash_index_bytes(&n.index), 16 * sizeof(struct hash_slot));
	hash_index_remove(&n.index, hash_string("x"), 2);
	assert_int_equal(hash_index_find(&n.index, hash_string("x"), name_eq, &n, "x"), -1);
	assert_int_equal(hash_index_find(&n.index, hash_string("T10"), name_eq, &n, "T10"), 4);
	hash_index_free(&n.index);
}

/* An index past HASH_BIG_BYTES is a mapping of its own (hash_slots_new()):
 * a map grown through it, its entries found, some removed, the mapped
 * index given back as it grows again and when freed. */
static void test_hash_map_big(void **state)
{
	(void)state;
	enum {
		KEYS = 600000
	};
	struct hash_map m = HASH_MAP_INIT(uint64_t, uint32_t);

	for (uint32_t i = 0; i < KEYS; i++) {
		uint64_t key = (uint64_t)i * 0x9e3779b9ULL;
		uint32_t *v = hash_map_put(&m, &key, NULL);

		assert_non_null(v);
		*v = i + 1;
	}
	assert_true(hash_index_bytes(&m.index) >= 4 * HASH_BIG_BYTES);
	for (uint32_t i = 0; i < KEYS; i += 3) {
		uint64_t key = (uint64_t)i * 0x9e3779b9ULL;

		hash_map_remove(&m, &key);
	}
	for (uint32_t i = 0; i < KEYS; i++) {
		uint64_t key = (uint64_t)i * 0x9e3779b9ULL;
		uint32_t *v = hash_map_get(&m, &key);

		if (i % 3 == 0)
			assert_null(v);
		else
			assert_true(v && *v == i + 1);
	}
	hash_map_free(&m);
	assert_int_equal(hash_index_bytes(&m.index), 0);
}

static void test_hash_values(void **state)
{
	(void)state;
	uint64_t words[2] = { 1, 2 };
	unsigned char shifted[17];

	/* the same key hashes the same wherever it lies in memory */
	memcpy(shifted + 1, words, sizeof(words));
	assert_true(hash_words64(words, 2) == hash_words64(shifted + 1, 2));
	assert_true(hash_string("T1") != hash_string("T2"));
	assert_true(hash_mix64(1) != hash_mix64(2));
}

static void test_clock(void **state)
{
	(void)state;
	uint64_t a = clock_now_ns();
	double s = clock_now_s();
	uint64_t b = clock_now_ns();

	assert_true(b >= a);
	assert_true(s * 1e9 >= (double)a - 1e3 && s * 1e9 <= (double)b + 1e3);
}

/* Runs fn with stderr sent to a buffer; returns what was written. */
static char *stderr_of(void (*fn)(void))
{
	static char text[512];
	FILE *file = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(file);
	fflush(stderr);
	dup2(fileno(file), STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(file);
	n = fread(text, 1, sizeof(text) - 1, file);
	text[n] = '\0';
	fclose(file);
	return text;
}

static void say_three(void)
{
	diag("gen sc", "need %d threads", 2);
	diag(NULL, "%s: no such file", "t.vsc");
	diag_parse_error(NULL, "t.vsc:2:4: expected 'r'");
}

static void test_diag(void **state)
{
	(void)state;
	assert_string_equal(stderr_of(say_three), "vsc gen sc: need 2 threads\n"
						  "vsc: t.vsc: no such file\n"
						  "t.vsc:2:4: expected 'r'\n");
}

#define SAMPLE_OPTIONS(X)                                               \
	X(OUTPUT, 'o', "output", "FILE", "write to FILE\nor to stdout") \
	X(QUIET, 0, "quiet", NULL, "say less")                          \
	X(HIDDEN, 'h', "help", NULL, NULL)

enum {
	SAMPLE_OPTIONS(OPTION_ID)
};
static const struct option_spec sample[] = { SAMPLE_OPTIONS(OPTION_SPEC) };

/* Where the last usage text went (options_usage is tested on its own). */
static FILE *usage_went;

static void sample_usage(FILE *out)
{
	usage_went = out;
}

struct sample_args {
	const char *output;
	int quiet;
};

/* --output "no" is a bad value: the handler ends the parse. */
static int take_sample(void *ctx, int id, const char *value)
{
	struct sample_args *a = ctx;

	switch (id) {
	case OPT_OUTPUT:
		if (strcmp(value, "no") == 0)
			return OPTIONS_BAD;
		a->output = value;
		break;
	case OPT_QUIET:
		assert_null(value);
		a->quiet++;
		break;
	default:
		fail(); /* --help never reaches the handler */
	}
	return OPTIONS_OK;
}

static void test_options_parse(void **state)
{
	(void)state;
	char *argv[] = { "cmd", "--quiet", "-o", "a.vsc", "--output=b.vsc", "in", NULL };
	const struct options_table table = OPTIONS_TABLE(sample, sample_usage);
	struct sample_args a = { 0 };

	assert_int_equal(options_parse(&table, 6, argv, take_sample, &a), OPTIONS_OK);
	assert_int_equal(a.quiet, 1);
	assert_string_equal(a.output, "b.vsc");
	assert_int_equal(optind, 5);
	assert_string_equal(argv[optind], "in");
}

/* Options end at the first operand when asked (a command line that ends
 * with another program's own). */
static void test_options_stop_at_operand(void **state)
{
	(void)state;
	char *argv[] = { "cmd", "--quiet", "prog", "--quiet", NULL };
	struct options_table table = OPTIONS_TABLE(sample, sample_usage);
	struct sample_args a = { 0 };

	table.stop_at_operand = 1;
	assert_int_equal(options_parse(&table, 4, argv, take_sample, &a), OPTIONS_OK);
	assert_int_equal(a.quiet, 1);
	assert_int_equal(optind, 2);
}

/* --help shows the usage on stdout, and the options after it are not
 * taken. */
static void test_options_help(void **state)
{
	(void)state;
	char *argv[] = { "cmd", "--quiet", "-h", "--output", "no", NULL };
	const struct options_table table = OPTIONS_TABLE(sample, sample_usage);
	struct sample_args a = { 0 };

	usage_went = NULL;
	assert_int_equal(options_parse(&table, 5, argv, take_sample, &a), OPTIONS_HELP);
	assert_ptr_equal(usage_went, stdout);
	assert_int_equal(a.quiet, 1);
	assert_null(a.output);
	assert_int_equal(options_exit_status(OPTIONS_HELP), 0);
}

static void test_options_bad(void **state)
{
	(void)state;
	char *unknown[] = { "cmd", "--bogus", NULL };
	char *missing[] = { "cmd", "-o", NULL };
	char *bad_value[] = { "cmd", "-o", "no", "--quiet", NULL };
	const struct options_table table = OPTIONS_TABLE(sample, sample_usage);
	struct sample_args a = { 0 };

	opterr = 0;
	usage_went = NULL;
	assert_int_equal(options_parse(&table, 2, unknown, take_sample, &a), OPTIONS_BAD);
	assert_ptr_equal(usage_went, stderr);
	usage_went = NULL;
	assert_int_equal(options_parse(&table, 2, missing, take_sample, &a), OPTIONS_BAD);
	assert_ptr_equal(usage_went, stderr);
	usage_went = NULL;
	assert_int_equal(options_parse(&table, 4, bad_value, take_sample, &a), OPTIONS_BAD);
	assert_null(usage_went);      /* the handler says what is wrong */
	assert_int_equal(a.quiet, 0); /* the parse ended at the bad value */
	assert_int_equal(options_exit_status(OPTIONS_BAD), 2);
	opterr = 1;
}

static void print_sample_usage(void)
{
	options_usage(stderr, sample, OPTIONS_COUNT(sample));
}

static void test_options_usage(void **state)
{
	(void)state;
	assert_string_equal(stderr_of(print_sample_usage), "  -o, --output FILE    write to FILE\n"
							   "                       or to stdout\n"
							   "      --quiet          say less\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_grows),
		cmocka_unit_test(test_array_overflow),
		cmocka_unit_test(test_array_cap32_and_shared),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_diag),
		cmocka_unit_test(test_options_parse),
		cmocka_unit_test(test_options_stop_at_operand),
		cmocka_unit_test(test_options_help),
		cmocka_unit_test(test_options_bad),
		cmocka_unit_test(test_options_usage),
		cmocka_unit_test(test_hash_map_put_get),
		cmocka_unit_test(test_hash_map_remove),
		cmocka_unit_test(test_hash_index),
		cmocka_unit_test(test_hash_map_big),
		cmocka_unit_test(test_hash_values),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
