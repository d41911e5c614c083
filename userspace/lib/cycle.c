/* SPDX-License-Identifier: MIT */
/* The cycle of forced orders of a small core, each step with its reason.
 *
 * Orders are saturated to a fixpoint on the core's events: program order;
 * reads-from (the only write a read can still see comes first); from-read
 * (a read comes before a write that would hide the value it reads: any write
 * after its source, or any write at all when it reads the initial value; a
 * read whose thread wrote its variable before it cannot read the initial
 * value);
 * coherence (a write that comes before a read cannot fall between the read
 * and its only source, so it comes before the source). `init x ?` takes the
 * value of a read that no write of the core explains. Each derived order
 * remembers when it was added, so its justification is a path over orders
 * that existed before it: never circular, and never a step that hides a
 * chain. The cycle printed is the cheapest one (order_cost): plain steps
 * first, coherence steps (which stand for a chain) last. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "userspace/util/array.h"

#define JUSTIFY_DEPTH 3 /* justifications of justifications, at most */

struct dense {
	size_t n;
	const struct vsc_program *p;
	const struct vsc_event_ref *refs;
	const struct vsc_event **ev;
	struct vsc_var_init *init; /* per variable, with init x ? fixed where a read fixes it */
	unsigned char *reach;      /* n*n: i reaches j through orders */
	unsigned char *kind_of;    /* n*n: 0 none, else kind + 1 */
	uint32_t *via;             /* n*n: the read behind the order */
	uint32_t *src;             /* n*n: that read's only source, n for the initial value */
	uint32_t *seq;             /* n*n: when it was added */
	uint32_t next_seq;
};

/* A growing pool of orders, with the dense nodes of each and its depth. */
struct pool {
	struct vsc_core *core;
	size_t cap;
	uint32_t *a, *b;
	unsigned char *depth;
};

static int writes_var(const struct vsc_event *e, uint32_t var)
{
	return e->var == var && e->kind != VSC_READ;
}

static int64_t written_value(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

static void add_order(struct dense *g, size_t a, size_t b, unsigned kind, size_t read,
		      size_t source, int *changed)
{
	size_t n = g->n;

	if (a == b || g->reach[a * n + b])
		return;
	g->kind_of[a * n + b] = (unsigned char)(kind + 1);
	g->via[a * n + b] = (uint32_t)read;
	g->src[a * n + b] = (uint32_t)source;
	g->seq[a * n + b] = ++g->next_seq;
	for (size_t i = 0; i < n; i++) {
		if (i != a && !g->reach[i * n + a])
			continue;
		for (size_t j = 0; j < n; j++)
			if (j == b || g->reach[b * n + j])
				g->reach[i * n + j] = 1;
	}
	*changed = 1;
}

static int init_gives(const struct dense *g, const struct vsc_event *e)
{
	const struct vsc_var_init *init = &g->init[e->var];
	return init->kind == VSC_INIT_UNKNOWN ||
	       (init->kind == VSC_INIT_KNOWN && init->value == e->value);
}

/* init x ?: the value of a read of the core that no write of it makes. */
static void fix_initial_values(struct dense *g)
{
	for (size_t r = 0; r < g->n; r++) {
		const struct vsc_event *e = g->ev[r];
		int written = 0;
		if (e->kind == VSC_WRITE || g->init[e->var].kind != VSC_INIT_UNKNOWN)
			continue;
		for (size_t w = 0; w < g->n && !written; w++)
			written = w != r && writes_var(g->ev[w], e->var) &&
				  written_value(g->ev[w]) == e->value;
		if (!written)
			g->init[e->var] =
				(struct vsc_var_init){ .kind = VSC_INIT_KNOWN, .value = e->value };
	}
}

/* Whether r's thread writes r's variable before r: then r cannot see the
 * initial value. (Only program order: a derived order that puts a write
 * before a read of the initial value is the contradiction itself, and is
 * told as a from-read.) */
static int init_hidden(const struct dense *g, size_t r)
{
	for (size_t w = r; w-- > 0 && g->refs[w].thread == g->refs[r].thread;)
		if (writes_var(g->ev[w], g->ev[r]->var))
			return 1;
	return 0;
}

static void saturate_read(struct dense *g, size_t r, int *changed)
{
	size_t n = g->n, source = n, sources = 0;
	const struct vsc_event *e = g->ev[r];
	int from_init = init_gives(g, e) && !init_hidden(g, r);

	for (size_t w = 0; w < n; w++) {
		if (w == r || !writes_var(g->ev[w], e->var) ||
		    written_value(g->ev[w]) != e->value || g->reach[r * n + w])
			continue;
		source = w;
		sources++;
	}
	if (sources == 0 && from_init) {
		for (size_t w = 0; w < n; w++)
			if (w != r && writes_var(g->ev[w], e->var))
				add_order(g, r, w, VSC_ORDER_READ_FIRST, r, n, changed);
		return;
	}
	if (sources == 0 && !from_init) {
		/* every write it could see comes after it: it still needs one */
		for (size_t w = 0; w < n && source == n; w++)
			if (w != r && writes_var(g->ev[w], e->var) &&
			    written_value(g->ev[w]) == e->value)
				source = w;
		if (source != n)
			add_order(g, source, r, VSC_ORDER_READS_FROM, r, source, changed);
		return;
	}
	if (sources != 1 || from_init)
		return;
	add_order(g, source, r, VSC_ORDER_READS_FROM, r, source, changed);
	for (size_t w = 0; w < n; w++) {
		if (w == r || w == source || !writes_var(g->ev[w], e->var))
			continue;
		/* from-read first: it is the shorter story when both hold */
		if (g->reach[source * n + w])
			add_order(g, r, w, VSC_ORDER_READ_FIRST, r, source, changed);
		if (g->reach[w * n + r])
			add_order(g, w, source, VSC_ORDER_WRITE_FIRST, r, source, changed);
	}
}

static void saturate(struct dense *g)
{
	int changed = 1;

	for (size_t i = 0; i + 1 < g->n; i++)
		if (g->refs[i].thread == g->refs[i + 1].thread)
			add_order(g, i, i + 1, VSC_ORDER_PROGRAM, i, g->n, &changed);
	while (changed) {
		changed = 0;
		for (size_t r = 0; r < g->n; r++)
			if (g->ev[r]->kind != VSC_WRITE)
				saturate_read(g, r, &changed);
		for (size_t i = 0; i < g->n; i++)
			if (g->reach[i * g->n + i])
				return;
	}
}

/* A step's cost in the story: program order and reads-from are plain
 * facts; from-read costs more when its source and the write are not in one
 * thread (its chain then needs telling); coherence stands for the chain
 * from the write to the read, so a cycle goes through it only when no
 * cycle of plain steps exists. */
static unsigned order_cost(const struct dense *g, size_t a, size_t b)
{
	size_t n = g->n, src = g->src[a * n + b];

	switch (g->kind_of[a * n + b] - 1u) {
	case VSC_ORDER_PROGRAM:
	case VSC_ORDER_READS_FROM:
		return 1;
	case VSC_ORDER_READ_FIRST:
		return src == n || g->refs[src].thread == g->refs[b].thread ? 2 : 5;
	default:
		return 12;
	}
}

/* The cheapest path from x to y over orders added before `limit` (all when
 * limit is 0); its nodes into path (x first), returns their count or 0. */
static size_t cheapest_path(const struct dense *g, size_t x, size_t y, uint32_t limit, size_t *dist,
			    size_t *prev, unsigned char *done, size_t *path)
{
	size_t n = g->n, len = 0;

	for (size_t i = 0; i < n; i++) {
		dist[i] = SIZE_MAX;
		done[i] = 0;
	}
	dist[x] = 0;
	prev[x] = n;
	for (;;) {
		size_t u = n;
		for (size_t i = 0; i < n; i++)
			if (!done[i] && dist[i] != SIZE_MAX && (u == n || dist[i] < dist[u]))
				u = i;
		if (u == n)
			return 0;
		done[u] = 1;
		for (size_t v = 0; v < n; v++) {
			unsigned k = g->kind_of[u * n + v];
			if (!k || (limit && g->seq[u * n + v] >= limit))
				continue;
			if (v != x && dist[u] + order_cost(g, u, v) < dist[v]) {
				dist[v] = dist[u] + order_cost(g, u, v);
				prev[v] = u;
			}
		}
		if (done[y])
			break;
	}
	for (size_t at = y; at != n; at = prev[at])
		len++;
	for (size_t at = y, i = len; at != n; at = prev[at])
		path[--i] = at;
	return len;
}

static int pool_push(struct pool *pl, const struct dense *g, size_t a, size_t b, unsigned depth)
{
	struct vsc_core *c = pl->core;
	size_t i = c->pool_length, n = g->n;

	if (i == pl->cap) {
		/* six arrays, one room */
		size_t cap = array_grown_cap(pl->cap, i + 1, 32, SIZE_MAX);

		if (!cap || ARRAY_RESIZE(c->pool, cap) || ARRAY_RESIZE(c->why_first, cap) ||
		    ARRAY_RESIZE(c->why_count, cap) || ARRAY_RESIZE(pl->a, cap) ||
		    ARRAY_RESIZE(pl->b, cap) || ARRAY_RESIZE(pl->depth, cap))
			return -ENOMEM;
		pl->cap = cap;
	}
	c->pool[i] = (struct vsc_order){ .before = g->refs[a],
					 .after = g->refs[b],
					 .kind = g->kind_of[a * n + b] - 1u,
					 .read = g->refs[g->via[a * n + b]] };
	c->why_first[i] = 0;
	c->why_count[i] = 0;
	pl->a[i] = (uint32_t)a;
	pl->b[i] = (uint32_t)b;
	pl->depth[i] = (unsigned char)depth;
	c->pool_length++;
	return 0;
}

struct scratch {
	size_t *dist, *prev, *path;
	unsigned char *done;
};

/* Append the orders of the cheapest path x -> y (before limit) to the pool. */
static int push_path(struct pool *pl, const struct dense *g, size_t x, size_t y, uint32_t limit,
		     unsigned depth, struct scratch *s)
{
	size_t len = cheapest_path(g, x, y, limit, s->dist, s->prev, s->done, s->path);
	int err = 0;

	for (size_t i = 0; i + 1 < len && !err; i++)
		err = pool_push(pl, g, s->path[i], s->path[i + 1], depth);
	return err;
}

/* The reason of order i of the pool, as orders appended to the pool. */
static int justify(struct pool *pl, const struct dense *g, size_t i, struct scratch *s)
{
	struct vsc_core *c = pl->core;
	size_t a = pl->a[i], b = pl->b[i], n = g->n, r = g->via[a * n + b];
	size_t source = g->src[a * n + b];
	uint32_t limit = g->seq[a * n + b];
	unsigned kind = c->pool[i].kind, depth = pl->depth[i] + 1u;
	const struct vsc_event *e = g->ev[r];
	int err = 0;

	if (kind == VSC_ORDER_PROGRAM || depth > JUSTIFY_DEPTH)
		return 0;
	c->why_first[i] = c->pool_length;
	if (kind == VSC_ORDER_WRITE_FIRST)
		err = push_path(pl, g, a, r, limit, depth, s);
	else if (kind == VSC_ORDER_READ_FIRST && source != n)
		err = push_path(pl, g, source, b, limit, depth, s);
	/* the other writes of the value the read could not see: they come after it */
	for (size_t w = 0; w < n && !err; w++)
		if (w != r && w != source && writes_var(g->ev[w], e->var) &&
		    written_value(g->ev[w]) == e->value)
			err = push_path(pl, g, r, w, limit, depth, s);
	c->why_count[i] = c->pool_length - c->why_first[i];
	return err;
}

/* The cheapest cycle: for each node on one, the cheapest path out of it
 * over one order and back. */
static int extract_cycle(struct pool *pl, struct dense *g, struct scratch *s)
{
	size_t n = g->n, best = SIZE_MAX, best_a = n, best_b = n;
	int err = 0;

	for (size_t a = 0; a < n; a++) {
		if (!g->reach[a * n + a])
			continue;
		for (size_t b = 0; b < n; b++) {
			size_t len, cost;
			if (!g->kind_of[a * n + b] || !g->reach[b * n + a])
				continue;
			len = cheapest_path(g, b, a, 0, s->dist, s->prev, s->done, s->path);
			if (!len)
				continue;
			cost = s->dist[a] + order_cost(g, a, b);
			if (cost < best) {
				best = cost;
				best_a = a;
				best_b = b;
			}
		}
	}
	if (best_a == n)
		return 0;
	err = pool_push(pl, g, best_a, best_b, 0);
	if (!err)
		err = push_path(pl, g, best_b, best_a, 0, 0, s);
	pl->core->cycle_length = pl->core->pool_length;
	for (size_t i = 0; i < pl->core->pool_length && !err; i++)
		err = justify(pl, g, i, s);
	return err;
}

int core_find_cycle(const struct vsc_program *p, struct vsc_core *core)
{
	size_t n = core->count, nn = n * n + 1;
	struct dense g = { .n = n, .p = p, .refs = core->events };
	struct pool pl = { .core = core };
	struct scratch s = { 0 };
	int err = -ENOMEM;

	g.ev = malloc((n + 1) * sizeof(*g.ev));
	g.init = malloc((program_vars(p) + 1) * sizeof(*g.init));
	g.reach = calloc(nn, 1);
	g.kind_of = calloc(nn, 1);
	g.via = calloc(nn, sizeof(*g.via));
	g.seq = calloc(nn, sizeof(*g.seq));
	g.src = calloc(nn, sizeof(*g.src));
	s.dist = malloc((n + 1) * sizeof(size_t));
	s.prev = malloc((n + 1) * sizeof(size_t));
	s.path = malloc((n + 1) * sizeof(size_t));
	s.done = malloc(n + 1);
	if (!g.ev || !g.init || !g.reach || !g.kind_of || !g.via || !g.seq || !g.src || !s.dist ||
	    !s.prev || !s.path || !s.done)
		goto out;
	for (size_t i = 0; i < n; i++)
		g.ev[i] = &p->threads[core->events[i].thread].events[core->events[i].index];
	memcpy(g.init, p->inits, program_vars(p) * sizeof(*g.init));
	fix_initial_values(&g);
	saturate(&g);
	err = extract_cycle(&pl, &g, &s);
out:
	free(g.ev);
	free(g.init);
	free(g.reach);
	free(g.kind_of);
	free(g.via);
	free(g.seq);
	free(g.src);
	free(s.dist);
	free(s.prev);
	free(s.path);
	free(s.done);
	free(pl.a);
	free(pl.b);
	free(pl.depth);
	return err;
}
