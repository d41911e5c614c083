/* SPDX-License-Identifier: MIT */
/* The dynamic topological order (userspace/lib/dyn_order.c) on random
 * edge sequences: an edge is refused exactly when the graph already has
 * a path from its head to its tail (checked by a plain search), and after
 * every step each edge kept goes forward in the order. One shape on its
 * own: a node with many successors that each have one more, so that the
 * forward search holds many nodes on its stack and in its list at once
 * (a search that sized its lists by the larger of the two wrote past
 * them: a recorded 4-thread counter crashed `vsc check`). And the sort
 * its moves use (sort_numbers.c) against a plain one. And the least
 * path's list (least_path.c): room past 2^31 nodes is refused, not
 * wrapped (its 32-bit room doubled to 0 and looped for ever). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dyn_order.h"
#include "least_path.h"
#include "sort_numbers.h"

#define MAX_NODES 300

struct reference {
	uint32_t nodes, edges;
	uint32_t from[4 * MAX_NODES], to[4 * MAX_NODES];
};

/* Whether the reference graph has a path from a to b. */
static int reaches(const struct reference *g, uint32_t a, uint32_t b)
{
	uint8_t seen[MAX_NODES] = { 0 };
	uint32_t stack[MAX_NODES], top = 0;

	seen[a] = 1;
	stack[top++] = a;
	while (top) {
		uint32_t x = stack[--top];
		if (x == b)
			return 1;
		for (uint32_t e = 0; e < g->edges; e++)
			if (g->from[e] == x && !seen[g->to[e]]) {
				seen[g->to[e]] = 1;
				stack[top++] = g->to[e];
			}
	}
	return 0;
}

static void assert_topological(const struct dyn_order *d, const struct reference *g)
{
	for (uint32_t e = 0; e < g->edges; e++)
		assert_true(d->place[g->from[e]] < d->place[g->to[e]]);
}

static void add_and_compare(struct dyn_order *d, struct reference *g, uint32_t a, uint32_t b)
{
	int cycle = a == b || reaches(g, b, a);
	int r = dyn_order_add(d, a, b);

	assert_int_equal(r, cycle);
	if (!cycle) {
		g->from[g->edges] = a;
		g->to[g->edges++] = b;
	}
	assert_topological(d, g);
}

static void random_edges_agree_with_search(void **state)
{
	(void)state;
	srand(7);
	for (int round = 0; round < 300; round++) {
		struct reference *g = calloc(1, sizeof(*g));
		uint32_t places[MAX_NODES];
		struct dyn_order d;

		assert_non_null(g);
		g->nodes = 2 + (uint32_t)rand() % (round < 200 ? 30 : MAX_NODES - 2);
		for (uint32_t i = 0; i < g->nodes; i++)
			places[i] = i;
		for (uint32_t i = g->nodes - 1; i > 0; i--) { /* a random first order */
			uint32_t j = (uint32_t)rand() % (i + 1), t = places[i];
			places[i] = places[j];
			places[j] = t;
		}
		assert_int_equal(dyn_order_init(&d, g->nodes, places), 0);
		for (uint32_t k = 0; k < 3 * g->nodes; k++)
			add_and_compare(&d, g, (uint32_t)rand() % g->nodes,
					(uint32_t)rand() % g->nodes);
		dyn_order_free(&d);
		free(g);
	}
}

/* b = node 0 with 100 successors, each with one more; then an edge into
 * b from the last node: the forward search from b meets 201 nodes. */
static void wide_then_deep_search(void **state)
{
	struct reference *g = calloc(1, sizeof(*g));
	uint32_t places[MAX_NODES];
	struct dyn_order d;

	(void)state;
	assert_non_null(g);
	g->nodes = 202;
	for (uint32_t i = 0; i < g->nodes; i++)
		places[i] = i;
	assert_int_equal(dyn_order_init(&d, g->nodes, places), 0);
	for (uint32_t i = 1; i <= 100; i++) {
		add_and_compare(&d, g, 0, i);
		add_and_compare(&d, g, i, 100 + i);
	}
	add_and_compare(&d, g, 201, 0);
	add_and_compare(&d, g, 150, 201); /* closes a cycle: refused */
	dyn_order_free(&d);
	free(g);
}

static int by_key(uint64_t x, uint64_t y, unsigned shift)
{
	uint32_t a = (uint32_t)(x >> shift), b = (uint32_t)(y >> shift);

	return a < b ? -1 : a > b;
}

/* The sort the order's moves use (sort_numbers.c), against a plain
 * insertion sort: the keys (32 bits from bit 0 or 32), ties in their
 * order, for few numbers and for many (by bytes), keys of small and of
 * wide spread. */
static void numbers_sorted(void **state)
{
	uint64_t seed = 0x50a7ULL, a[3000], tmp[3000], want[3000];

	(void)state;
	for (int round = 0; round < 200; round++) {
		uint32_t n = (uint32_t)(round < 100 ? round : 64 + (round * 37) % 2900);
		unsigned shift = round % 2 ? 32 : 0;
		uint64_t spread = round % 3 == 0 ? 50 : round % 3 == 1 ? 70000 : UINT32_MAX;
		for (uint32_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			uint64_t key = (seed >> 33) % spread;
			a[i] = shift ? key << 32 | i : key | (uint64_t)i << 32;
		}
		memcpy(want, a, n * sizeof(*a));
		for (uint32_t i = 1; i < n; i++) {
			uint64_t x = want[i];
			uint32_t j = i;
			for (; j > 0 && by_key(want[j - 1], x, shift) > 0; j--)
				want[j] = want[j - 1];
			want[j] = x;
		}
		sort_numbers(a, tmp, n, shift);
		assert_memory_equal(a, want, n * sizeof(*a));
	}
}

/* The least path's list grows by doubling; past LEAST_PATH_MAX it says
 * -ENOMEM without allocating. */
static void least_path_room_limited(void **state)
{
	struct least_path lp;

	(void)state;
	assert_int_equal(least_path_init(&lp, 4), 0);
	assert_int_equal(least_path_room(&lp, 100), 0);
	assert_int_equal(lp.list_cap, 128);
	assert_int_equal(least_path_room(&lp, LEAST_PATH_MAX + 1u), -ENOMEM);
	assert_int_equal(least_path_room(&lp, UINT32_MAX), -ENOMEM);
	assert_int_equal(lp.list_cap, 128);
	lp.list_cap = LEAST_PATH_MAX; /* as if grown so far: nothing to allocate */
	assert_int_equal(least_path_room(&lp, LEAST_PATH_MAX), 0);
	assert_int_equal(least_path_room(&lp, LEAST_PATH_MAX + 1u), -ENOMEM);
	lp.list_cap = 128;
	least_path_free(&lp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_edges_agree_with_search),
		cmocka_unit_test(wide_then_deep_search),
		cmocka_unit_test(numbers_sorted),
		cmocka_unit_test(least_path_room_limited),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
