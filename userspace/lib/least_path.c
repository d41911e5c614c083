/* SPDX-License-Identifier: MIT */
/* The path of least greatest rank (a bottleneck path) from b to a in a
 * graph with a topological order: every path from b to a runs through
 * nodes placed between them, so the nodes b reaches there are taken in
 * the order's places, and each one's best (the least greatest rank of a
 * path from b to it) is final when it is taken, since all its edges in
 * come from nodes placed before it. One search forward and one sort. */
#include "least_path.h"

#include "sort_numbers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

int least_path_init(struct least_path *lp, uint32_t nodes)
{
	size_t n = (size_t)nodes + 1;

	memset(lp, 0, sizeof(*lp));
	lp->best = malloc(n * sizeof(uint32_t));
	lp->via = malloc(n * sizeof(uint32_t));
	lp->seen = calloc(n, sizeof(uint32_t));
	return lp->best && lp->via && lp->seen ? 0 : -ENOMEM;
}

void least_path_free(struct least_path *lp)
{
	free(lp->best);
	free(lp->via);
	free(lp->seen);
	free(lp->list);
	free(lp->sorted);
}

int least_path_room(struct least_path *lp, uint32_t need)
{
	uint32_t cap = lp->list_cap ? lp->list_cap : 64, *list;
	uint64_t *sorted;

	if (need <= lp->list_cap)
		return 0;
	if (need > LEAST_PATH_MAX)
		return -ENOMEM; /* doubling past 2^31 would wrap the 32-bit room */
	while (cap < need)
		cap = cap > LEAST_PATH_MAX / 2 ? LEAST_PATH_MAX : 2 * cap;
	if (!(list = realloc(lp->list, cap * sizeof(*list))))
		return -ENOMEM;
	lp->list = list;
	if (!(sorted = realloc(lp->sorted, 2 * (size_t)cap * sizeof(*sorted))))
		return -ENOMEM;
	lp->sorted = sorted;
	lp->list_cap = cap;
	return 0;
}

/* The nodes b reaches placed at most at `top`, into lp->list (the list
 * is its own stack: each node is looked at once, from its index). */
static int reach(struct least_path *lp, const struct dyn_order *d, uint32_t b, uint32_t top,
		 uint32_t *found)
{
	uint32_t n = 0;

	if (least_path_room(lp, 1))
		return -ENOMEM;
	lp->seen[b] = lp->search;
	lp->list[n++] = b;
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t e = d->out[lp->list[j]]; e != NONE; e = d->edge_next_out[e]) {
			uint32_t y = d->edge_to[e];
			lp->work++;
			if (lp->seen[y] == lp->search || d->place[y] > top)
				continue;
			if (least_path_room(lp, n + 1))
				return -ENOMEM;
			lp->seen[y] = lp->search;
			lp->list[n++] = y;
		}
	*found = n;
	return 0;
}

int least_path_find(struct least_path *lp, const struct dyn_order *d, uint32_t a, uint32_t b,
		    uint32_t (*rank)(uint32_t e, const void *ctx), const void *ctx)
{
	uint32_t n;
	int r;

	if (++lp->search == 0) { /* the marks wrapped: clear them */
		memset(lp->seen, 0, ((size_t)d->nodes + 1) * sizeof(uint32_t));
		lp->search = 1;
	}
	if ((r = reach(lp, d, b, d->place[a], &n)))
		return r;
	if (lp->seen[a] != lp->search)
		return 1;
	for (uint32_t j = 0; j < n; j++) {
		lp->sorted[j] = (uint64_t)d->place[lp->list[j]] << 32 | lp->list[j];
		lp->best[lp->list[j]] = UINT32_MAX;
	}
	sort_numbers(lp->sorted, lp->sorted + lp->list_cap, n, 32);
	lp->best[b] = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t x = (uint32_t)lp->sorted[j];
		if (lp->best[x] == UINT32_MAX)
			continue; /* reached only past a (never: kept for safety) */
		for (uint32_t e = d->out[x]; e != NONE; e = d->edge_next_out[e]) {
			uint32_t y = d->edge_to[e], w;
			lp->work++;
			if (lp->seen[y] != lp->search || d->place[y] > d->place[a])
				continue;
			w = rank(e, ctx);
			w = w > lp->best[x] ? w : lp->best[x];
			if (w < lp->best[y]) {
				lp->best[y] = w;
				lp->via[y] = e;
			}
		}
	}
	return 0;
}
